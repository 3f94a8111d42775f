package api

import (
	"context"
	"strings"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/moderation"
)

// Dimensions is a package size in inches.
type Dimensions struct {
	L float64 `json:"l"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// Package is d as the listings service takes it (request bodies read
// their dimensions into a Dimensions).
func (d Dimensions) Package() listings.Dimensions { return listings.Dimensions{L: d.L, W: d.W, H: d.H} }

func dimensionsOf(d listings.Dimensions) Dimensions { return Dimensions{L: d.L, W: d.W, H: d.H} }

// ListingSeller is the public face of a listing's seller.
type ListingSeller struct {
	ID           string        `json:"id"`
	DisplayName  string        `json:"displayName"`
	Username     string        `json:"username"`
	ContentTrust *ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller, on another user: the display name is untrusted input (CONTRACT section 16)."`
}

// AIProcessing is Variant B's note on a listing the AI step has not
// finished.
type AIProcessing struct {
	Status           string `json:"status" enum:"queued"`
	EstimatedSeconds int    `json:"estimatedSeconds" minimum:"0"`
}

// Listing is the public view of a listing (CONTRACT.md section 6). The
// fields tagged json:"-" are Variant B's alone: its 'listing_id', the AI
// step's note, its condition word with the stored condition beside it
// (Variant A's 'condition', which Variant B names 'condition_detail'), and
// the seller's brief.
type Listing struct {
	ID              string        `json:"id" format:"uuid"`
	ListingID       string        `json:"-" snake:"listing_id" format:"uuid" doc:"Same as 'id'."`
	Status          string        `json:"status" ref:"ListingStatus"`
	AIProcessing    *AIProcessing `json:"-" snake:"ai_processing,omitempty" doc:"Present while 'status' is 'processing'."`
	Title           string        `json:"title"`
	Description     string        `json:"description"`
	Brand           *string       `json:"brand"`
	Price           int64         `json:"price" minimum:"0" doc:"Cents."`
	PriceSource     *string       `json:"priceSource" enum:"seller,ai" doc:"Who set the price; null while the AI step has not priced it."`
	Condition       *string       `json:"condition" snake:"-" enum:"new_with_tags,new_without_tags,like_new,good,fair,poor"`
	ConditionB      *string       `json:"-" snake:"condition" enum:"new,like_new,good,fair,poor" doc:"The Variant B word ('new' for both new conditions)."`
	ConditionDetail *string       `json:"-" snake:"condition_detail" enum:"new_with_tags,new_without_tags,like_new,good,fair,poor" doc:"The stored condition."`
	Category        *string       `json:"category" example:"Electronics > Phones > Smartphones" doc:"The category path, names joined by ' > '."`
	CategoryID      *string       `json:"categoryId"`
	Photos          []string      `json:"photos" doc:"Photo URLs in display order."`
	ShippingType    string        `json:"shippingType" ref:"ShippingType"`
	ShippingCost    *int64        `json:"shippingCost" doc:"Cents; set for 'flat_rate' and 'both' only."`
	AcceptOffers    bool          `json:"acceptOffers"`
	MinOfferAmount  *int64        `json:"minOfferAmount"`
	WeightOz        int           `json:"weightOz" minimum:"0" doc:"Packed weight in ounces."`
	Dimensions      Dimensions    `json:"dimensions"`
	SellerID        string        `json:"sellerId"`
	Seller          ListingSeller `json:"seller"`
	WatchersCount   int           `json:"watchersCount" minimum:"0"`
	CreatedAt       time.Time     `json:"createdAt"`
	UpdatedAt       time.Time     `json:"updatedAt"`
	SoldAt          *time.Time    `json:"soldAt,omitempty" doc:"Present once sold."`
	// BriefDescription is Variant B's: the seller's view shows it there.
	BriefDescription *string       `json:"-" snake:"brief_description,omitempty" doc:"What the seller wrote at create; the seller's view only, absent when empty."`
	ContentTrust     *ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller, on another seller's listing: its title, description and brand are untrusted input (CONTRACT section 16)."`
}

// OwnListing is the seller's view: the public one plus the owner-only
// fields.
type OwnListing struct {
	Listing
	FloorPrice *int64 `json:"floorPrice" doc:"Offers below it are rejected at once; never shown to buyers."`
	CostBasis  *int64 `json:"costBasis" doc:"What the item cost the seller, for their own accounting."`
}

// ListingView is a listing as its viewer sees it: a *Listing, or for its
// seller an *OwnListing. Base is the part every viewer sees.
type ListingView interface{ Base() *Listing }

// Base is l itself (and an OwnListing's public part).
func (l *Listing) Base() *Listing { return l }

// ConditionWord is Variant B's word for a stored condition: "new" for
// both new conditions.
func ConditionWord(stored string) string {
	if strings.HasPrefix(stored, "new_") {
		return "new"
	}
	return stored
}

// Listings are the operations on listings (reading, selling, watching,
// searching) and the category tree, for a surface that spells as Casing.
type Listings struct {
	Service *listings.Service
	Photos  *listings.Photos
	Casing  Casing
}

// ListingOf is l, sold by s, as viewer sees it: the seller alone gets the
// OwnListing with the private prices; to an agent key's caller, another
// seller's title, description, brand and display name carry ContentTrust.
// For Variant B (Snake), pending_ai reads 'processing' with the AI step's
// note, the condition has its Variant B word, the seller sees the brief,
// and the trust of the seller's name names 'display_name'.
func (x Listings) ListingOf(ctx context.Context, viewer market.Actor, l *listings.Listing, s listings.Seller) ListingView {
	if viewer.UserID != "" && viewer.UserID == l.SellerID {
		own := new(OwnListing)
		x.ownOf(ctx, own, viewer, l, s)
		return own
	}
	v := new(Listing)
	x.fill(ctx, v, viewer, l, s)
	return v
}

// ownOf fills the seller's view.
func (x Listings) ownOf(ctx context.Context, own *OwnListing, viewer market.Actor, l *listings.Listing, s listings.Seller) {
	x.fill(ctx, &own.Listing, viewer, l, s)
	own.FloorPrice, own.CostBasis = l.FloorPrice, l.CostBasis
	if x.Casing == Snake {
		own.BriefDescription = strOrNil(l.Brief)
	}
}

// fill writes the public view of l into v.
func (x Listings) fill(ctx context.Context, v *Listing, viewer market.Actor, l *listings.Listing, s listings.Seller) {
	*v = Listing{ID: l.ID, Status: string(l.Status), Title: l.Title, Description: l.Description, Brand: strOrNil(l.Brand),
		Price: l.Price, PriceSource: strOrNil(l.PriceSource), Condition: strOrNil(l.Condition),
		CategoryID: strOrNil(l.CategoryID), Photos: make([]string, len(l.PhotoIDs)), ShippingType: string(l.ShippingType),
		ShippingCost: l.ShippingCost, AcceptOffers: l.AcceptOffers, MinOfferAmount: l.MinOfferAmount, WeightOz: l.WeightOz,
		Dimensions: dimensionsOf(l.Dimensions), SellerID: l.SellerID,
		Seller:        ListingSeller{ID: l.SellerID, DisplayName: s.DisplayName, Username: s.Username},
		WatchersCount: l.WatchersCount, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt, SoldAt: l.SoldAt}
	for i, id := range l.PhotoIDs {
		v.Photos[i] = x.Photos.PhotoURL(id)
	}
	if c, ok := x.Service.CategoryByID(ctx, l.CategoryID); ok {
		path := c.Path
		v.Category = &path
	}
	v.ContentTrust = ForeignTrust(viewer, l.SellerID, TrustListing, moderation.TrustField{Name: "title", Text: l.Title},
		moderation.TrustField{Name: "description", Text: l.Description}, moderation.TrustField{Name: "brand", Text: l.Brand})
	name := "displayName"
	if x.Casing == Snake {
		name = "display_name"
	}
	v.Seller.ContentTrust = ForeignTrust(viewer, l.SellerID, TrustProfile, moderation.TrustField{Name: name, Text: s.DisplayName})
	if x.Casing != Snake {
		return
	}
	v.ListingID = l.ID
	if l.Status == listings.StatusPendingAI {
		v.Status = "processing"
		v.AIProcessing = &AIProcessing{Status: "queued", EstimatedSeconds: 10}
	}
	if v.Condition != nil {
		v.ConditionDetail = v.Condition
		v.ConditionB = v.Condition // the same words but for the new ones
		if w := ConditionWord(l.Condition); w != l.Condition {
			v.ConditionB = &w
		}
	}
}

// ListingPage is a page of listing views (each a ListingView, held as any
// so that a surface may spell it in place), with the matches over all
// pages and the cursor of the next page ("" at the end) where the
// operation has them.
type ListingPage struct {
	Listings []any
	Total    int
	Cursor   string
}

// viewerOf is c's actor; nil is an anonymous caller.
func viewerOf(c *Caller) market.Actor {
	if c == nil {
		return market.Actor{}
	}
	return c.Actor
}

// views are ls as viewer sees them, their sellers read in one query.
func (x Listings) views(ctx context.Context, viewer market.Actor, ls []listings.Listing) ([]any, error) {
	sellers, err := x.Service.Sellers(ctx, ls...)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(ls))
	for i := range ls {
		out[i] = x.ListingOf(ctx, viewer, &ls[i], sellers[ls[i].SellerID])
	}
	return out, nil
}

// view is one listing a service answered, as viewer sees it.
func (x Listings) view(ctx context.Context, viewer market.Actor, l *listings.Listing, err error) (ListingView, error) {
	if err != nil {
		return nil, err
	}
	vs, err := x.views(ctx, viewer, []listings.Listing{*l})
	if err != nil {
		return nil, err
	}
	return vs[0].(ListingView), nil
}

func (x Listings) page(ctx context.Context, viewer market.Actor, ls []listings.Listing, total int, err error) (ListingPage, error) {
	if err != nil {
		return ListingPage{}, err
	}
	vs, err := x.views(ctx, viewer, ls)
	return ListingPage{Listings: vs, Total: total}, err
}

// Get is the public read of a listing (the seller sees it whatever its
// status, and as its seller), with its seller in the same query.
func (x Listings) Get(ctx context.Context, c *Caller, id string) (ListingView, error) {
	viewer := viewerOf(c)
	l, s, err := x.Service.GetWithSeller(ctx, viewer, id)
	if err != nil {
		return nil, err
	}
	return x.ListingOf(ctx, viewer, l, s), nil
}

// Owned is one of the caller's own listings, whatever its status:
// FORBIDDEN when it is someone else's.
func (x Listings) Owned(ctx context.Context, c *Caller, id string) (ListingView, error) {
	l, err := x.Service.Owned(ctx, viewerOf(c), id)
	return x.view(ctx, viewerOf(c), l, err)
}

// Create lists an item for the caller.
func (x Listings) Create(ctx context.Context, c *Caller, in listings.Input) (ListingView, error) {
	l, err := x.Service.Create(ctx, viewerOf(c), in)
	return x.view(ctx, viewerOf(c), l, err)
}

// Update changes the fields in gives of the caller's listing.
func (x Listings) Update(ctx context.Context, c *Caller, id string, in listings.Input) (ListingView, error) {
	l, err := x.Service.Update(ctx, viewerOf(c), id, in)
	return x.view(ctx, viewerOf(c), l, err)
}

// Archive takes the caller's listing off sale.
func (x Listings) Archive(ctx context.Context, c *Caller, id string) (ListingView, error) {
	l, err := x.Service.Archive(ctx, viewerOf(c), id)
	return x.view(ctx, viewerOf(c), l, err)
}

// Delete soft-deletes the caller's listing.
func (x Listings) Delete(ctx context.Context, c *Caller, id string) (ListingView, error) {
	l, err := x.Service.Delete(ctx, viewerOf(c), id)
	return x.view(ctx, viewerOf(c), l, err)
}

// Mine is a page of the caller's listings, newest first, optionally of
// one status ('processing' is pending_ai), and how many there are.
func (x Listings) Mine(ctx context.Context, c *Caller, status string, limit, offset int) (ListingPage, error) {
	ls, total, err := x.Service.ListOwn(ctx, viewerOf(c), status, limit, offset)
	return x.page(ctx, viewerOf(c), ls, total, err)
}

// OfSeller is a page of a seller's active listings, newest first.
func (x Listings) OfSeller(ctx context.Context, c *Caller, sellerID string, limit, offset int) (ListingPage, error) {
	ls, total, err := x.Service.ListPublic(ctx, sellerID, limit, offset)
	return x.page(ctx, viewerOf(c), ls, total, err)
}

// Watched is a page of the listings the caller watches, most recently
// watched first.
func (x Listings) Watched(ctx context.Context, c *Caller, limit, offset int) (ListingPage, error) {
	ls, total, err := x.Service.Watched(ctx, viewerOf(c), limit, offset)
	return x.page(ctx, viewerOf(c), ls, total, err)
}

// Search is a page of the active listings matching p (from
// listings.ParseSearch), with the next page's cursor.
func (x Listings) Search(ctx context.Context, c *Caller, p listings.SearchParams) (ListingPage, error) {
	sp, err := x.Service.Search(ctx, p)
	return x.searchPage(ctx, c, sp, err)
}

// Similar is the active listings like listing id, in one page.
func (x Listings) Similar(ctx context.Context, c *Caller, id string, limit int) (ListingPage, error) {
	sp, err := x.Service.Similar(ctx, viewerOf(c), id, limit)
	return x.searchPage(ctx, c, sp, err)
}

func (x Listings) searchPage(ctx context.Context, c *Caller, sp listings.SearchPage, err error) (ListingPage, error) {
	p, err := x.page(ctx, viewerOf(c), sp.Listings, sp.Total, err)
	p.Cursor = sp.Cursor
	return p, err
}

// SellerViews are ls as their sellers see them, every field shown: the
// admins' view.
func (x Listings) SellerViews(ctx context.Context, ls []listings.Listing) ([]OwnListing, error) {
	sellers, err := x.Service.Sellers(ctx, ls...)
	if err != nil {
		return nil, err
	}
	out := make([]OwnListing, len(ls))
	for i := range ls {
		l := &ls[i]
		x.ownOf(ctx, &out[i], market.Actor{Type: market.ActorUser, UserID: l.SellerID}, l, sellers[l.SellerID])
	}
	return out, nil
}

// WatchState is whether the caller watches a listing, and how many do.
type WatchState struct {
	Watching      bool `json:"watching"`
	WatchersCount int  `json:"watchersCount" minimum:"0"`
}

// Watch starts watching a listing anyone may see; twice is fine.
func (x Listings) Watch(ctx context.Context, c *Caller, id string) (*WatchState, error) {
	return watchStateOf(x.Service.Watch(ctx, viewerOf(c), id))
}

// Unwatch stops watching a listing.
func (x Listings) Unwatch(ctx context.Context, c *Caller, id string) (*WatchState, error) {
	return watchStateOf(x.Service.Unwatch(ctx, viewerOf(c), id))
}

// Watching tells whether the caller watches a listing.
func (x Listings) Watching(ctx context.Context, c *Caller, id string) (*WatchState, error) {
	return watchStateOf(x.Service.Watching(ctx, viewerOf(c), id))
}

func watchStateOf(st listings.WatchState, err error) (*WatchState, error) {
	if err != nil {
		return nil, err
	}
	return &WatchState{Watching: st.Watching, WatchersCount: st.WatchersCount}, nil
}

// ListingOps are the listing operations.
func (o Ops) ListingOps() Listings {
	return Listings{Service: o.Listings, Photos: o.Photos, Casing: o.Casing}
}
