package apiv1

import (
	"context"
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// listingInput is the create and update body of both paths: on create,
// description is the short brief generation works from; on update it is
// the full description.
type listingInput struct {
	PhotoURLs      httpapi.Opt[[]string]       `json:"photoUrls" minItems:"1" maxItems:"12"`
	Description    httpapi.Opt[string]         `json:"description" minLength:"1"`
	Title          httpapi.Opt[string]         `json:"title" minLength:"1" maxLength:"80"`
	Brand          httpapi.Opt[string]         `json:"brand" maxLength:"60" nullable:"true"`
	Price          httpapi.Opt[int64]          `json:"price" minimum:"1" maximum:"1000000000"`
	Condition      httpapi.Opt[string]         `json:"condition" ref:"Condition"`
	CategoryID     httpapi.Opt[string]         `json:"categoryId"`
	ShippingType   httpapi.Opt[string]         `json:"shippingType" ref:"ShippingType"`
	ShippingCost   httpapi.Opt[int64]          `json:"shippingCost" minimum:"0" maximum:"1000000000" nullable:"true" doc:"Required for 'flat_rate' and 'both'."`
	AcceptOffers   httpapi.Opt[bool]           `json:"acceptOffers"`
	MinOfferAmount httpapi.Opt[int64]          `json:"minOfferAmount" minimum:"1" maximum:"1000000000" nullable:"true" doc:"Needs 'price'; at most the price."`
	FloorPrice     httpapi.Opt[int64]          `json:"floorPrice" minimum:"0" maximum:"1000000000" nullable:"true" doc:"Needs 'price'; at most the price. Seller only."`
	CostBasis      httpapi.Opt[int64]          `json:"costBasis" minimum:"0" maximum:"1000000000" nullable:"true" doc:"Seller only."`
	WeightOz       httpapi.Opt[int]            `json:"weightOz" minimum:"1" maximum:"2400"`
	Dimensions     httpapi.Opt[api.Dimensions] `json:"dimensions" ref:"ListingDimensionsInput"`
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
		out.Dimensions = market.Opt[listings.Dimensions]{Set: true, Null: in.Dimensions.Null,
			Value: in.Dimensions.Value.Package()}
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
	in, err := a.decodeListingInput(r, true)
	if err != nil {
		return err
	}
	v, err := a.ListingOps().Create(r.Context(), actor(r), in)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "listing", v.Base().ID)
	return httpapi.OK(w, r, http.StatusCreated, v)
}

// getListing is the public read; the seller sees the owner fields too.
func (a *API) getListing(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.ListingOps().Get(r.Context(), actor(r), r.PathValue("id")))
}

// ownerListing is the agent's owner detail.
func (a *API) ownerListing(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.ListingOps().Owned(r.Context(), actor(r), r.PathValue("id")))
}

func (a *API) updateListing(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "listing")
	in, err := a.decodeListingInput(r, false)
	if err != nil {
		return err
	}
	return httpapi.Reply(w, r, http.StatusOK).With(a.ListingOps().Update(r.Context(), actor(r), id, in))
}

func (a *API) archiveListing(w http.ResponseWriter, r *http.Request) error {
	return a.retireListing(w, r, a.ListingOps().Archive)
}

func (a *API) deleteListing(w http.ResponseWriter, r *http.Request) error {
	return a.retireListing(w, r, a.ListingOps().Delete)
}

func (a *API) retireListing(w http.ResponseWriter, r *http.Request,
	fn func(context.Context, *api.Caller, string) (api.ListingView, error)) error {
	id := httpapi.PathEntity(r, "listing")
	return httpapi.Reply(w, r, http.StatusOK).With(fn(r.Context(), actor(r), id))
}

// myListings is GET /listings/seller/me and GET /agent/listings/mine.
func (a *API) myListings(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	page, err := a.ListingOps().Mine(r.Context(), actor(r), r.URL.Query().Get("status"), limit, offset)
	return writeListingPage(w, r, page, err, limit, offset)
}

// writeListingPage answers an operation's page with its total.
func writeListingPage(w http.ResponseWriter, r *http.Request, page api.ListingPage, err error, limit, offset int) error {
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, page.Listings, httpapi.PageMeta(page.Total, limit, offset))
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
	page, err := a.ListingOps().OfSeller(r.Context(), actor(r), u.ID, limit, offset)
	return writeListingPage(w, r, page, err, limit, offset)
}
