package console

import (
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/offers"
	"marketplace/internal/shipping"
)

// offerForm is the offer as typed, shown again after a refusal.
type offerForm struct {
	Amount, Message string
	AutoPurchase    bool
}

// listingData is the listing page. Watch and Offer are the viewer's, set
// for a signed-in person who is not the seller.
type listingData struct {
	L         listingCard
	Seller    *api.Profile
	Own       bool
	Watch     *api.WatchState
	Offer     *api.Offer
	OfferForm offerForm
	Error     *market.Error
}

// Active is whether the listing is on sale now.
func (d listingData) Active() bool { return d.L.Status == "active" }

// OfferNote says where the viewer's open offer stands.
func (d listingData) OfferNote() string {
	o := d.Offer
	if o == nil {
		return ""
	}
	amount := "$" + shipping.FormatCents(o.CurrentPrice)
	switch {
	case o.Status == "accepted":
		return "The seller accepted " + amount + ". Buy now to pay that price."
	case o.AwaitingResponseFrom != nil && *o.AwaitingResponseFrom == "buyer":
		return "The seller countered with " + amount + "."
	}
	return amount + ", waiting for the seller's answer."
}

// OfferID is the viewer's accepted offer, which Buy now pays the agreed
// price of (the purchase's offerId); "" otherwise.
func (d listingData) OfferID() string {
	if d.Offer != nil && d.Offer.Status == "accepted" {
		return d.Offer.ID
	}
	return ""
}

// photo is one photo of the gallery: its URL and its place.
type photo struct {
	URL string
	N   int
}

// Gallery is the listing's photos, numbered from 1 for their names.
func (l listingCard) Gallery() []photo {
	out := make([]photo, len(l.Photos))
	for i, u := range l.Photos {
		out[i] = photo{URL: u, N: i + 1}
	}
	return out
}

func (c *Console) listingPage(v *visit) error {
	return c.showListing(v, http.StatusOK, listingData{OfferForm: offerForm{AutoPurchase: true}})
}

// showListing renders the listing of the path as GET /api/v1/listings/{id}
// reads it: one the viewer may not see is LISTING_NOT_FOUND, the 404 page.
func (c *Console) showListing(v *visit, status int, d listingData) error {
	ctx, id, caller := v.r.Context(), v.r.PathValue("id"), v.callerOrNil()
	lv, err := c.Ops.ListingOps().Get(ctx, caller, id)
	if err != nil {
		return err
	}
	d.L = listingCard{lv.Base()}
	d.Own = v.user != nil && v.user.ID == d.L.SellerID
	if v.user != nil && !d.Own {
		if d.Watch, err = c.Ops.ListingOps().Watching(ctx, caller, id); err != nil {
			return err
		}
		o, err := c.Ops.OfferOps().ActiveOn(ctx, caller, id)
		switch {
		case err == nil:
			d.Offer = o
		case market.CodeOf(err) != market.CodeNotFound:
			return err
		}
	}
	if u := d.L.Seller.Username; u != "" {
		p, err := c.Ops.AccountOps().Profile(ctx, caller, u)
		switch {
		case err == nil:
			d.Seller = p
		case httpapi.Status(market.CodeOf(err)) != http.StatusNotFound:
			return err
		}
	}
	return c.render(v, status, "listing", d)
}

// listingRefused shows the listing page again with a refusal at the API's
// status; a listing the viewer may not see is the 404 page, not a refusal.
func (c *Console) listingRefused(v *visit, err error, d listingData) error {
	e := refusal(err)
	if e == nil || httpapi.Status(e.Code) == http.StatusNotFound {
		return err
	}
	d.Error = formFields(e)
	return c.showListing(v, httpapi.Status(e.Code), d)
}

func (c *Console) watchListing(v *visit) error {
	_, err := c.Ops.ListingOps().Watch(v.r.Context(), v.caller(), v.r.PathValue("id"))
	return c.backToListing(v, err)
}

func (c *Console) unwatchListing(v *visit) error {
	_, err := c.Ops.ListingOps().Unwatch(v.r.Context(), v.caller(), v.r.PathValue("id"))
	return c.backToListing(v, err)
}

// backToListing answers a listing action: back to its page, or its
// refusal there.
func (c *Console) backToListing(v *visit, err error) error {
	if err != nil {
		return c.listingRefused(v, err, listingData{OfferForm: offerForm{AutoPurchase: true}})
	}
	http.Redirect(v.w, v.r, "/listings/"+v.r.PathValue("id"), http.StatusSeeOther)
	return nil
}

// makeOffer makes an offer as POST /offers does, the amount typed in
// dollars and cents; the page then shows it as the viewer's open offer.
func (c *Console) makeOffer(v *visit) error {
	f := v.r.PostForm
	form := offerForm{Amount: f.Get("offerPrice"), Message: f.Get("message"), AutoPurchase: f.Get("autoPurchase") == "on"}
	var check market.Check
	price := cents(&check, f, "offerPrice", "Your offer")
	if err := check.Err(); err != nil {
		return c.listingRefused(v, err, listingData{OfferForm: form})
	}
	auto := form.AutoPurchase
	_, err := c.Ops.OfferOps().Create(v.r.Context(), v.caller(), offers.CreateInput{ListingID: v.r.PathValue("id"),
		OfferPrice: price, Message: form.Message, AutoPurchase: &auto})
	if err != nil {
		return c.listingRefused(v, err, listingData{OfferForm: form})
	}
	http.Redirect(v.w, v.r, "/listings/"+v.r.PathValue("id"), http.StatusSeeOther)
	return nil
}

// formFields is e with its fields named as the console's forms (and the
// API's camelCase surface) name them: "offerPrice", not "offer_price".
func formFields(e *market.Error) *market.Error {
	return renamed(e, func(f market.FieldError) string {
		if f.AsSent {
			return f.Field
		}
		return httpapi.CamelCase(f.Field)
	})
}
