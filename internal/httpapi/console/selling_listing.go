package console

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/offers"
	"marketplace/internal/shipping"
)

// The words the pages give the stored conditions (the cards' and the
// listing page's too) and shipping types.
var (
	conditions = []option{
		{Value: "new_with_tags", Label: "New with tags"}, {Value: "new_without_tags", Label: "New without tags"},
		{Value: "like_new", Label: "Like new"}, {Value: "good", Label: "Good"}, {Value: "fair", Label: "Fair"},
		{Value: "poor", Label: "Poor"},
	}
	sellingShipping = []option{
		{Value: string(listings.ShipFree), Label: "Free shipping"},
		{Value: string(listings.ShipFlatRate), Label: "Flat rate (the shipping cost below)"},
		{Value: string(listings.ShipCalculated), Label: "Calculated for the buyer's address"},
		{Value: string(listings.ShipLocalPickup), Label: "Local pickup only"},
		{Value: string(listings.ShipBoth), Label: "Flat rate or local pickup"},
	}
)

// sellingLabels are the page's names of the fields the operations name in
// their refusals.
var sellingLabels = map[string]string{
	"description": "Description", "title": "Title", "brand": "Brand", "price": "Price", "condition": "Condition",
	"category_id": "Category", "shipping_type": "Shipping", "shipping_cost": "Shipping cost", "shippingCost": "Shipping cost",
	"min_offer_amount": "Lowest offer", "minOfferAmount": "Lowest offer", "floor_price": "Floor price",
	"floorPrice": "Floor price", "weight_oz": "Weight", "weightOz": "Weight", "photo_urls": "Photos", "photos": "Photos",
	"file": "Photo", "counter_price": "Counter amount", "counterPrice": "Counter amount", "message": "Message",
	"content": "Message", "cost_basis": "Cost", "accept_offers": "Accept offers", "dimensions": "Dimensions",
}

// sellingRelabel is e with its fields named as the form labels them (a
// copy: e may be shared).
func sellingRelabel(e *market.Error) *market.Error {
	out := renamed(e, func(f market.FieldError) string {
		if l, ok := sellingLabels[f.Field]; ok {
			return l
		}
		return f.Field
	})
	if out != e && e.Code == market.CodeValidation {
		out.Message = "Please correct the form:" // the fields say what
	}
	return out
}

// sellingNotFound turns the refusal of another seller's listing (FORBIDDEN
// on the API's owner routes) into NOT_FOUND: the console shows nobody
// whether someone else's listing id exists behind /selling.
func sellingNotFound(err error) error {
	if market.CodeOf(err) == market.CodeForbidden {
		return market.Errorf(market.CodeListingNotFound, "listing not found")
	}
	return err
}

// sellingOwned is the caller's own listing of the page's {id}.
func (c *Console) sellingOwned(v *visit) (*api.OwnListing, error) {
	lv, err := c.Ops.ListingOps().Owned(v.r.Context(), v.caller(), v.r.PathValue("id"))
	if err != nil {
		return nil, sellingNotFound(err)
	}
	own, ok := lv.(*api.OwnListing)
	if !ok {
		return nil, market.Internal(errors.New("console: the seller's listing came back without the owner's view"))
	}
	return own, nil
}

// sellingForm is the edit form's values, as typed.
type sellingForm struct {
	Title, Description, Brand, Price, ShippingCost, MinOffer, Floor, Weight string
	Condition, CategoryID, ShippingType                                     string
	AcceptOffers                                                            bool
}

func sellingFormOf(l *api.OwnListing) sellingForm {
	f := sellingForm{Title: l.Title, Description: l.Description, Price: shipping.FormatCents(l.Price),
		ShippingCost: amount(l.ShippingCost), MinOffer: amount(l.MinOfferAmount), Floor: amount(l.FloorPrice),
		ShippingType: l.ShippingType, AcceptOffers: l.AcceptOffers}
	if l.Brand != nil {
		f.Brand = *l.Brand
	}
	if l.Condition != nil {
		f.Condition = *l.Condition
	}
	if l.CategoryID != nil {
		f.CategoryID = *l.CategoryID
	}
	if l.WeightOz > 0 {
		f.Weight = strconv.Itoa(l.WeightOz)
	}
	return f
}

// sellingPhoto is a photo with its text alternative.
type sellingPhoto struct{ URL, Alt string }

func sellingPhotos(urls []string, of string) []sellingPhoto {
	out := make([]sellingPhoto, len(urls))
	for i, u := range urls {
		out[i] = sellingPhoto{URL: u, Alt: "Photo " + strconv.Itoa(i+1) + " of " + of}
	}
	return out
}

// sellingProgress is the page that waits for the AI step.
type sellingProgress struct {
	ID     string
	Photos []sellingPhoto
}

// sellingOfferRow is an offer with what the viewer may do with it.
type sellingOfferRow struct {
	Offer        api.Offer
	ListingTitle string
	Other        string // the other party's display name
	Direction    string // "from" the buyer, to the seller; "to" the seller, to the buyer
	Link         string // the listing's page for the viewer, if the console has one
	StatusLabel  string
	// AwaitingMe: the viewer may accept, counter or decline; CanWithdraw:
	// the viewer is the buyer of an open offer.
	AwaitingMe, CanWithdraw bool
	Next                    string // where an action comes back to
	CSRF                    string // for the action forms of a row template
}

var offerStatusLabels = map[string]string{
	"pending": "Waiting for an answer", "countered": "Countered", "accepted": "Accepted", "rejected": "Declined",
	"withdrawn": "Withdrawn", "expired": "Expired",
}

func offerRow(v *visit, o api.Offer, next string, names *displayNames) sellingOfferRow {
	row := sellingOfferRow{Offer: o, StatusLabel: offerStatusLabels[o.Status], Next: next, CSRF: v.csrf}
	viewer := v.user.ID
	open := o.Status == "pending" || o.Status == "countered"
	role, other := "seller", o.BuyerID
	row.Direction, row.Link = "from", "/selling/"+o.ListingID
	if viewer == o.BuyerID {
		role, other = "buyer", o.SellerID
		row.Direction, row.Link = "to", "/listings/"+o.ListingID
		row.CanWithdraw = open
	}
	row.AwaitingMe = open && o.AwaitingResponseFrom != nil && *o.AwaitingResponseFrom == role
	row.Other = names.of(other)
	return row
}

// sellingThreadRow is a thread with the other participant's name.
type sellingThreadRow struct {
	Thread api.Thread
	Other  string
}

type sellingListingData struct {
	Listing                          *api.OwnListing
	Photos                           []sellingPhoto
	StatusLabel                      string
	Editable, Archivable, Saved      bool
	AIPrice                          bool // the AI step set the price
	Form                             sellingForm
	Conditions, Shipping, Categories []option
	Offers                           []sellingOfferRow
	Threads                          []sellingThreadRow
	Error                            *market.Error
}

// sellingListingPage is the seller's own listing: while the AI step writes
// it, a page that waits for it; then the listing to review and edit, its
// offers and its buyers' threads.
func (c *Console) sellingListingPage(v *visit) error {
	own, err := c.sellingOwned(v)
	if err != nil {
		return err
	}
	return c.sellingShow(v, http.StatusOK, own, nil, nil)
}

// sellingShow renders the listing page; form is what was typed (nil: the
// listing's values).
func (c *Console) sellingShow(v *visit, status int, own *api.OwnListing, form *sellingForm, refusal *market.Error) error {
	ctx := v.r.Context()
	if own.Status == string(listings.StatusPendingAI) {
		// 202 while the AI step runs: the page's script checks the status
		// and reloads once it is something else.
		return c.render(v, http.StatusAccepted, "selling_progress", sellingProgress{ID: own.ID, Photos: sellingPhotos(own.Photos, "your item")})
	}
	d := sellingListingData{Listing: own, Photos: sellingPhotos(own.Photos, own.Title), StatusLabel: sellingStatusLabel(own.Status),
		Error: sellingRelabel(refusal), Saved: refusal == nil && v.r.URL.Query().Get("saved") == "1",
		AIPrice: own.PriceSource != nil && *own.PriceSource == "ai"}
	switch listings.Status(own.Status) {
	case listings.StatusActive, listings.StatusHeld:
		d.Editable, d.Archivable = true, true
	case listings.StatusArchived:
		d.Editable = true
	}
	if form != nil {
		d.Form = *form
	} else {
		d.Form = sellingFormOf(own)
	}
	if d.Editable {
		d.Conditions = choose(conditions, d.Form.Condition)
		d.Shipping = choose(sellingShipping, d.Form.ShippingType)
		tree, _, err := c.Ops.ListingOps().Categories(ctx)
		if err != nil {
			return err
		}
		d.Categories = sellingCategoryOptions(tree, d.Form.CategoryID, nil)
	}
	names := c.displayNames(v, "a member")
	offersOn, err := c.sellingOffersOn(v, own.ID, names)
	if err != nil {
		return err
	}
	d.Offers = offersOn
	_, threads, err := c.Ops.MessageOps().OnListing(ctx, v.caller(), own.ID, "")
	if err != nil {
		return err
	}
	for _, t := range threads {
		d.Threads = append(d.Threads, sellingThreadRow{Thread: t, Other: names.of(t.BuyerID)})
	}
	return c.render(v, status, "selling_listing", d)
}

// sellingCategoryOptions flattens the category tree into choices named by
// their paths.
func sellingCategoryOptions(tree []api.Category, selected string, out []option) []option {
	for _, n := range tree {
		out = append(out, option{Value: n.ID, Label: n.Path, Selected: n.ID == selected})
		out = sellingCategoryOptions(n.Children, selected, out)
	}
	return out
}

// sellingOfferPages bounds how many pages of the seller's offers the
// listing page looks through (the offers area lists them by party, not by
// listing); the Offers page has them all.
const sellingOfferPages = 5

// sellingOffersOn are the offers on one of the seller's listings, newest
// first.
func (c *Console) sellingOffersOn(v *visit, listingID string, names *displayNames) ([]sellingOfferRow, error) {
	var out []sellingOfferRow
	next := "/selling/" + listingID
	for page := 0; page < sellingOfferPages; page++ {
		os, total, err := c.Ops.OfferOps().List(v.r.Context(), v.caller(), offers.Seller, "", httpapi.MaxLimit, page*httpapi.MaxLimit)
		if err != nil {
			return nil, err
		}
		for _, o := range os {
			if o.ListingID == listingID {
				out = append(out, offerRow(v, o, next, names))
			}
		}
		if (page+1)*httpapi.MaxLimit >= total {
			break
		}
	}
	return out, nil
}

// sellingUpdate saves the edit form as PATCH /listings/{id} does. Every
// field of the form is sent: an empty optional amount clears it.
func (c *Console) sellingUpdate(v *visit) error {
	f := v.r.PostForm
	form := sellingForm{Title: f.Get("title"), Description: f.Get("description"), Brand: f.Get("brand"), Price: f.Get("price"),
		ShippingCost: f.Get("shippingCost"), MinOffer: f.Get("minOfferAmount"), Floor: f.Get("floorPrice"),
		Weight: f.Get("weightOz"), Condition: f.Get("condition"), CategoryID: f.Get("categoryId"),
		ShippingType: f.Get("shippingType"), AcceptOffers: f.Get("acceptOffers") == "on"}
	var check market.Check
	str := func(s string) market.Opt[string] { return market.Opt[string]{Set: true, Value: s} }
	in := listings.Input{Title: str(form.Title), Description: str(form.Description), Brand: str(form.Brand),
		ShippingType: str(form.ShippingType), AcceptOffers: market.Opt[bool]{Set: true, Value: form.AcceptOffers}}
	if form.Condition != "" {
		in.Condition = str(form.Condition)
	}
	if form.CategoryID != "" {
		in.CategoryID = str(form.CategoryID)
	}
	if strings.TrimSpace(form.Price) == "" {
		check.Add("price", "Price is required")
	} else if p := cents(&check, f, "price", "Price"); p != nil {
		in.Price = market.Opt[int64]{Set: true, Value: *p}
	}
	optional := func(field, label string) market.Opt[int64] {
		if strings.TrimSpace(f.Get(field)) == "" {
			return market.Opt[int64]{Set: true, Null: true}
		}
		if p := cents(&check, f, field, label); p != nil {
			return market.Opt[int64]{Set: true, Value: *p}
		}
		return market.Opt[int64]{}
	}
	in.ShippingCost = optional("shippingCost", "Shipping cost")
	in.MinOfferAmount = optional("minOfferAmount", "Lowest offer")
	in.FloorPrice = optional("floorPrice", "Floor price")
	if w := strings.TrimSpace(form.Weight); w != "" {
		n, err := strconv.Atoi(w)
		if check.Require(err == nil, "weightOz", "Weight must be a whole number of ounces") {
			in.WeightOz = market.Opt[int]{Set: true, Value: n}
		}
	}
	err := check.Err()
	if err == nil {
		httpapi.Entity(v.r, "listing", v.r.PathValue("id"))
		_, err = c.Ops.ListingOps().Update(v.r.Context(), v.caller(), v.r.PathValue("id"), in)
	}
	if err != nil {
		return c.sellingAgain(v, &form, err)
	}
	http.Redirect(v.w, v.r, "/selling/"+v.r.PathValue("id")+"?saved=1", http.StatusSeeOther)
	return nil
}

// sellingArchive takes the listing off sale as DELETE /listings/{id} does.
func (c *Console) sellingArchive(v *visit) error {
	httpapi.Entity(v.r, "listing", v.r.PathValue("id"))
	if _, err := c.Ops.ListingOps().Archive(v.r.Context(), v.caller(), v.r.PathValue("id")); err != nil {
		return c.sellingAgain(v, nil, err)
	}
	http.Redirect(v.w, v.r, "/selling/"+v.r.PathValue("id"), http.StatusSeeOther)
	return nil
}

// sellingAgain shows the listing page with a refusal at the API's status;
// another seller's listing is the 404 page, an internal error the error
// page.
func (c *Console) sellingAgain(v *visit, form *sellingForm, err error) error {
	err = sellingNotFound(err)
	e := refusal(err)
	if e == nil || e.Code == market.CodeListingNotFound || e.Code == market.CodeNotFound {
		return err
	}
	own, rerr := c.sellingOwned(v)
	if rerr != nil {
		return rerr
	}
	return c.sellingShow(v, httpapi.Status(e.Code), own, form, e)
}
