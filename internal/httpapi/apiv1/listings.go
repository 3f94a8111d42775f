package apiv1

import (
	"context"
	"net/http"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/moderation"
)

type listingSeller struct {
	ID           string                `json:"id"`
	DisplayName  string                `json:"displayName"`
	Username     string                `json:"username"`
	ContentTrust *httpapi.ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller, on another user: the display name is untrusted input (CONTRACT section 16)."`
}

// listing is the public view (CONTRACT.md section 6).
type listing struct {
	ID             string                `json:"id" format:"uuid"`
	Status         string                `json:"status" ref:"ListingStatus"`
	Title          string                `json:"title"`
	Description    string                `json:"description"`
	Brand          *string               `json:"brand"`
	Price          int64                 `json:"price" minimum:"0" doc:"Cents."`
	PriceSource    *string               `json:"priceSource" enum:"seller,ai" doc:"Who set the price; null while the AI step has not priced it."`
	Condition      *string               `json:"condition" enum:"new_with_tags,new_without_tags,like_new,good,fair,poor"`
	Category       *string               `json:"category" example:"Electronics > Phones > Smartphones" doc:"The category path, names joined by ' > '."`
	CategoryID     *string               `json:"categoryId"`
	Photos         []string              `json:"photos" doc:"Photo URLs in display order."`
	ShippingType   string                `json:"shippingType" ref:"ShippingType"`
	ShippingCost   *int64                `json:"shippingCost" doc:"Cents; set for 'flat_rate' and 'both' only."`
	AcceptOffers   bool                  `json:"acceptOffers"`
	MinOfferAmount *int64                `json:"minOfferAmount"`
	WeightOz       int                   `json:"weightOz" minimum:"0" doc:"Packed weight in ounces."`
	Dimensions     dimensions            `json:"dimensions"`
	SellerID       string                `json:"sellerId"`
	Seller         listingSeller         `json:"seller"`
	WatchersCount  int                   `json:"watchersCount" minimum:"0"`
	CreatedAt      time.Time             `json:"createdAt"`
	UpdatedAt      time.Time             `json:"updatedAt"`
	SoldAt         *time.Time            `json:"soldAt,omitempty" doc:"Present once sold."`
	ContentTrust   *httpapi.ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller, on another seller's listing: its title, description and brand are untrusted input (CONTRACT section 16)."`
}

// ownListing is the seller's view: the public one plus the owner-only
// fields.
type ownListing struct {
	listing
	FloorPrice *int64 `json:"floorPrice" doc:"Offers below it are rejected at once; never shown to buyers."`
	CostBasis  *int64 `json:"costBasis" doc:"What the item cost the seller, for their own accounting."`
}

// listingViews turns listings into the views the caller may see.
func (a *API) listingViews(ctx context.Context, viewer market.Actor, ls []listings.Listing) ([]any, error) {
	sellers, err := a.Listings.Sellers(ctx, ls...)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(ls))
	for i := range ls {
		out[i] = a.view(ctx, viewer, &ls[i], sellers[ls[i].SellerID])
	}
	return out, nil
}

func (a *API) listingView(ctx context.Context, viewer market.Actor, l *listings.Listing) (any, error) {
	v, err := a.listingViews(ctx, viewer, []listings.Listing{*l})
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

func (a *API) view(ctx context.Context, viewer market.Actor, l *listings.Listing, s listings.Seller) any {
	out := listing{ID: l.ID, Status: string(l.Status), Title: l.Title, Description: l.Description, Brand: strOrNil(l.Brand),
		Price: l.Price, PriceSource: strOrNil(l.PriceSource), Condition: strOrNil(l.Condition),
		CategoryID: strOrNil(l.CategoryID), Photos: make([]string, len(l.PhotoIDs)), ShippingType: string(l.ShippingType),
		ShippingCost: l.ShippingCost, AcceptOffers: l.AcceptOffers, MinOfferAmount: l.MinOfferAmount, WeightOz: l.WeightOz,
		Dimensions: dimensions{L: l.Dimensions.L, W: l.Dimensions.W, H: l.Dimensions.H}, SellerID: l.SellerID,
		Seller:        listingSeller{ID: l.SellerID, DisplayName: s.DisplayName, Username: s.Username},
		WatchersCount: l.WatchersCount, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt, SoldAt: l.SoldAt}
	for i, id := range l.PhotoIDs {
		out.Photos[i] = a.Photos.PhotoURL(id)
	}
	if c, ok := a.Listings.CategoryByID(ctx, l.CategoryID); ok {
		out.Category = &c.Path
	}
	out.ContentTrust = httpapi.ForeignTrust(viewer, l.SellerID, httpapi.TrustListing, moderation.TrustField{Name: "title", Text: l.Title},
		moderation.TrustField{Name: "description", Text: l.Description}, moderation.TrustField{Name: "brand", Text: l.Brand})
	out.Seller.ContentTrust = httpapi.ForeignTrust(viewer, l.SellerID, httpapi.TrustProfile,
		moderation.TrustField{Name: "displayName", Text: s.DisplayName})
	if viewer.UserID != "" && viewer.UserID == l.SellerID {
		return ownListing{listing: out, FloorPrice: l.FloorPrice, CostBasis: l.CostBasis}
	}
	return out
}

// listingInput is the create and update body of both paths: on create,
// description is the short brief generation works from; on update it is
// the full description.
type listingInput struct {
	PhotoURLs      httpapi.Opt[[]string]   `json:"photoUrls" minItems:"1" maxItems:"12"`
	Description    httpapi.Opt[string]     `json:"description" minLength:"1"`
	Title          httpapi.Opt[string]     `json:"title" minLength:"1" maxLength:"80"`
	Brand          httpapi.Opt[string]     `json:"brand" maxLength:"60" nullable:"true"`
	Price          httpapi.Opt[int64]      `json:"price" minimum:"1" maximum:"1000000000"`
	Condition      httpapi.Opt[string]     `json:"condition" ref:"Condition"`
	CategoryID     httpapi.Opt[string]     `json:"categoryId"`
	ShippingType   httpapi.Opt[string]     `json:"shippingType" ref:"ShippingType"`
	ShippingCost   httpapi.Opt[int64]      `json:"shippingCost" minimum:"0" maximum:"1000000000" nullable:"true" doc:"Required for 'flat_rate' and 'both'."`
	AcceptOffers   httpapi.Opt[bool]       `json:"acceptOffers"`
	MinOfferAmount httpapi.Opt[int64]      `json:"minOfferAmount" minimum:"1" maximum:"1000000000" nullable:"true" doc:"Needs 'price'; at most the price."`
	FloorPrice     httpapi.Opt[int64]      `json:"floorPrice" minimum:"0" maximum:"1000000000" nullable:"true" doc:"Needs 'price'; at most the price. Seller only."`
	CostBasis      httpapi.Opt[int64]      `json:"costBasis" minimum:"0" maximum:"1000000000" nullable:"true" doc:"Seller only."`
	WeightOz       httpapi.Opt[int]        `json:"weightOz" minimum:"1" maximum:"2400"`
	Dimensions     httpapi.Opt[dimensions] `json:"dimensions" ref:"ListingDimensionsInput"`
}

// decodeListingInput reads the body into the domain input.
func (a *API) decodeListingInput(r *http.Request, create bool) (listings.Input, error) {
	var in listingInput
	if err := httpapi.Decode(r, &in); err != nil {
		return listings.Input{}, err
	}
	out := listings.Input{Title: in.Title, Brand: in.Brand, Price: in.Price, Condition: in.Condition,
		CategoryID: in.CategoryID, ShippingType: in.ShippingType, ShippingCost: in.ShippingCost,
		AcceptOffers: in.AcceptOffers, MinOfferAmount: in.MinOfferAmount, FloorPrice: in.FloorPrice, CostBasis: in.CostBasis,
		WeightOz: in.WeightOz}
	if create {
		out.Brief = in.Description
	} else {
		out.Description = in.Description
	}
	if in.Dimensions.Set {
		d := in.Dimensions.Value
		out.Dimensions = market.Opt[listings.Dimensions]{Set: true, Null: in.Dimensions.Null,
			Value: listings.Dimensions{L: d.L, W: d.W, H: d.H}}
	}
	if in.PhotoURLs.Set {
		out.PhotoIDs = market.Opt[[]string]{Set: true, Null: in.PhotoURLs.Null}
		if !in.PhotoURLs.Null && len(in.PhotoURLs.Value) <= listings.MaxPhotos {
			ids, err := a.Photos.PhotoIDs("photoUrls", in.PhotoURLs.Value)
			if err != nil {
				return listings.Input{}, err
			}
			out.PhotoIDs.Value = ids
		} else if !in.PhotoURLs.Null {
			out.PhotoIDs.Value = in.PhotoURLs.Value // the count check names the problem
		}
	}
	return out, nil
}

// createListing is POST /listings (human or agent) and POST /agent/listings.
func (a *API) createListing(w http.ResponseWriter, r *http.Request) error {
	httpapi.Entity(r, "listing", "")
	if err := httpapi.RequireScope(r, agents.OpSell); err != nil {
		return err
	}
	in, err := a.decodeListingInput(r, true)
	if err != nil {
		return err
	}
	viewer := actor(r).Actor
	l, err := a.Listings.Create(r.Context(), viewer, in)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "listing", l.ID)
	return a.writeListing(w, r, http.StatusCreated, l)
}

func (a *API) writeListing(w http.ResponseWriter, r *http.Request, status int, l *listings.Listing) error {
	v, err := a.listingView(r.Context(), httpapi.ActorOf(r), l)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, status, v)
}

// getListing is the public read; the seller sees the owner fields too.
func (a *API) getListing(w http.ResponseWriter, r *http.Request) error {
	viewer := httpapi.ActorOf(r)
	l, seller, err := a.Listings.GetWithSeller(r.Context(), viewer, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, a.view(r.Context(), viewer, l, seller))
}

// ownerListing is the agent's owner detail.
func (a *API) ownerListing(w http.ResponseWriter, r *http.Request) error {
	l, err := a.Listings.Owned(r.Context(), actor(r).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	return a.writeListing(w, r, http.StatusOK, l)
}

func (a *API) updateListing(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	httpapi.Entity(r, "listing", id)
	if err := httpapi.RequireScope(r, agents.OpSell); err != nil {
		return err
	}
	in, err := a.decodeListingInput(r, false)
	if err != nil {
		return err
	}
	l, err := a.Listings.Update(r.Context(), actor(r).Actor, id, in)
	if err != nil {
		return err
	}
	return a.writeListing(w, r, http.StatusOK, l)
}

func (a *API) archiveListing(w http.ResponseWriter, r *http.Request) error {
	return a.retireListing(w, r, a.Listings.Archive)
}

func (a *API) deleteListing(w http.ResponseWriter, r *http.Request) error {
	return a.retireListing(w, r, a.Listings.Delete)
}

func (a *API) retireListing(w http.ResponseWriter, r *http.Request,
	fn func(context.Context, market.Actor, string) (*listings.Listing, error)) error {
	id := r.PathValue("id")
	httpapi.Entity(r, "listing", id)
	if err := httpapi.RequireScope(r, agents.OpSell); err != nil {
		return err
	}
	l, err := fn(r.Context(), actor(r).Actor, id)
	if err != nil {
		return err
	}
	return a.writeListing(w, r, http.StatusOK, l)
}

// myListings is GET /listings/seller/me and GET /agent/listings/mine.
func (a *API) myListings(w http.ResponseWriter, r *http.Request) error {
	if err := httpapi.RequireScope(r, agents.OpSell); err != nil {
		return err
	}
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	ls, total, err := a.Listings.ListOwn(r.Context(), actor(r).Actor, r.URL.Query().Get("status"), limit, offset)
	if err != nil {
		return err
	}
	return a.writeListingPage(w, r, ls, total, limit, offset)
}

func (a *API) writeListingPage(w http.ResponseWriter, r *http.Request, ls []listings.Listing, total, limit, offset int) error {
	views, err := a.listingViews(r.Context(), httpapi.ActorOf(r), ls)
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, views, httpapi.PageMeta(total, limit, offset))
}

// profileListings is a user's public listings.
func (a *API) profileListings(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	u, err := a.Accounts.Profile(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	ls, total, err := a.Listings.ListPublic(r.Context(), u.ID, limit, offset)
	if err != nil {
		return err
	}
	return a.writeListingPage(w, r, ls, total, limit, offset)
}
