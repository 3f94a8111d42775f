package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/shipping"
)

// addressForm is a shipping address as the buy page's form holds it.
type addressForm struct {
	Name, Line1, Line2, City, State, Zip, Country string
}

func addressFormOf(f url.Values) addressForm {
	return addressForm{Name: f.Get("name"), Line1: f.Get("line1"), Line2: f.Get("line2"), City: f.Get("city"),
		State: f.Get("state"), Zip: f.Get("zip"), Country: f.Get("country")}
}

// savedAddressForm is a saved address, to fill the form with.
func savedAddressForm(a *api.Address) addressForm {
	return addressForm{Name: a.Name, Line1: a.Line1, Line2: a.Line2, City: a.City, State: a.State, Zip: a.Zip, Country: a.Country}
}

func (a addressForm) domain() *accounts.Address {
	return &accounts.Address{Name: a.Name, Line1: a.Line1, Line2: a.Line2, City: a.City, State: a.State, Zip: a.Zip, Country: a.Country}
}

// buyData is the buy page: the item, where it ships, and for a listing
// that ships at a calculated rate the rates quoted for that address.
type buyData struct {
	L        listingCard
	Address  addressForm
	Pickup   bool // the buyer chose local pickup
	Rates    []rateOption
	RateID   string
	OfferID  string
	Expected string // the item price the buyer saw, cents
	Error    *market.Error
}

// rateOption is a quoted shipping rate to choose.
type rateOption struct{ ID, Label string }

// rateLabel is a rate in words: "UPS ground: $12.40, about 5 days".
func rateLabel(r shipping.Rate) string {
	s := carrierName(r.Carrier) + " " + strings.ReplaceAll(r.Service, "_", " ") + ": $" + shipping.FormatCents(r.Amount) +
		", about " + strconv.Itoa(r.EstimatedDays) + " days"
	if r.Preferred {
		s += " (the seller's choice)"
	}
	return s
}

// PickupChoice is whether the buyer may choose between shipping and pickup.
func (d buyData) PickupChoice() bool { return d.L.ShippingType == string(listings.ShipBoth) }

// HoldMinutes is how long the checkout holds the item for the buyer.
func (d buyData) HoldMinutes() int { return int(orders.ReservationTTL / time.Minute) }

// NeedsRate is whether the buyer has yet to choose among quoted rates.
func (d buyData) NeedsRate() bool {
	return d.L.ShippingType == string(listings.ShipCalculated) && len(d.Rates) == 0
}

// PickupOnly is whether the item is collected, never shipped.
func (d buyData) PickupOnly() bool { return d.L.ShippingType == string(listings.ShipLocalPickup) }

// buyPage is GET /listings/{id}/buy: the shipping address for Buy now,
// filled in with the buyer's default saved address when there is one.
func (c *Console) buyPage(v *visit) error {
	ctx, caller := v.r.Context(), v.caller()
	lv, err := c.Ops.ListingOps().Get(ctx, caller, v.r.PathValue("id"))
	if err != nil {
		return err
	}
	q := v.r.URL.Query()
	d := buyData{L: listingCard{lv.Base()}, Address: addressForm{Country: "US"}, OfferID: q.Get("offerId"), Expected: q.Get("expectedPrice")}
	if def, err := c.defaultAddress(v); err != nil {
		return err
	} else if def != nil {
		d.Address = savedAddressForm(def)
	}
	return c.render(v, http.StatusOK, "buy", d)
}

// defaultAddress is the buyer's default saved address, or nil.
func (c *Console) defaultAddress(v *visit) (*api.Address, error) {
	saved, err := c.Ops.AccountOps().Addresses(v.r.Context(), v.caller())
	if err != nil {
		return nil, err
	}
	for i := range saved {
		if saved[i].IsDefault != nil && *saved[i].IsDefault {
			return &saved[i], nil
		}
	}
	return nil, nil
}

// buyNow is Buy now: the human purchase of POST /purchases, which reserves
// the listing, then the browser goes to the hosted checkout page to pay.
// From the listing page it ships to the default saved address; without one
// (or for a rate to choose) the buy page asks first.
func (c *Console) buyNow(v *visit) error {
	ctx, caller, f, id := v.r.Context(), v.caller(), v.r.PostForm, v.r.PathValue("id")
	lv, err := c.Ops.ListingOps().Get(ctx, caller, id)
	if err != nil {
		return err
	}
	d := buyData{L: listingCard{lv.Base()}, Address: addressFormOf(f), RateID: f.Get("shippingRateId"), OfferID: f.Get("offerId"),
		Expected: f.Get("expectedPrice"), Pickup: f.Get("fulfillment") == string(orders.FulfillLocalPickup)}
	in := orders.PurchaseInput{ListingID: id, ShippingRateID: d.RateID, OfferID: d.OfferID}
	if d.Expected != "" {
		n, err := strconv.ParseInt(d.Expected, 10, 64)
		if err != nil || n < 0 {
			return c.buyRefused(v, market.Invalid(market.FieldError{Field: "expectedPrice", Message: "must be a whole number of cents"}), d)
		}
		in.ExpectedPrice = &n
	}
	if d.Pickup {
		in.Fulfillment = string(orders.FulfillLocalPickup)
	}
	ships := !d.Pickup && !d.PickupOnly()
	if ships {
		if f.Get("address") == "form" {
			in.ShippingAddress = d.Address.domain()
		} else {
			def, err := c.defaultAddress(v)
			if err != nil {
				return err
			}
			if def == nil {
				http.Redirect(v.w, v.r, "/listings/"+id+"/buy?"+buyQuery(d), http.StatusSeeOther)
				return nil
			}
			in.ShippingAddressID = def.ID
			d.Address = savedAddressForm(def)
		}
	}
	if ships && d.L.ShippingType == string(listings.ShipCalculated) && d.RateID == "" {
		// The rate is the buyer's choice among those quoted for the ZIP.
		q, err := c.Ops.Shipping.Quote(ctx, id, d.Address.Zip)
		if err != nil {
			return c.buyRefused(v, err, d)
		}
		for _, r := range q.Rates {
			d.Rates = append(d.Rates, rateOption{ID: r.RateID, Label: rateLabel(r)})
		}
		return c.render(v, http.StatusOK, "buy", d)
	}
	_, o, err := c.Ops.OrderOps().StartCheckout(ctx, caller, in)
	if err != nil {
		// The buyer's own checkout already holds the listing: back to it.
		if e := market.ErrorOf(err); e.Code == market.CodeListingNotAvailable {
			if held, ok := e.Details["order_id"].(string); ok && market.ValidID(held) {
				http.Redirect(v.w, v.r, orders.CheckoutPath+held, http.StatusSeeOther)
				return nil
			}
		}
		return c.buyRefused(v, err, d)
	}
	// The hosted page is on this site: its path, not the public URL the
	// API answers, keeps the browser on the origin it came from (a form
	// post redirected elsewhere would break the CSP's form-action).
	http.Redirect(v.w, v.r, orders.CheckoutPath+o.ID, http.StatusSeeOther)
	return nil
}

// buyQuery carries the listing page's offer and seen price to the buy page.
func buyQuery(d buyData) string {
	var q []string
	if d.OfferID != "" && market.ValidID(d.OfferID) {
		q = append(q, "offerId="+d.OfferID)
	}
	if _, err := strconv.ParseInt(d.Expected, 10, 64); err == nil {
		q = append(q, "expectedPrice="+d.Expected)
	}
	return strings.Join(q, "&")
}

// buyRefused shows the buy page again with the refusal, at the API's
// status; a listing the buyer may not see is the 404 page.
func (c *Console) buyRefused(v *visit, err error, d buyData) error {
	e := refusal(err)
	if e == nil || httpapi.Status(e.Code) == http.StatusNotFound {
		return err
	}
	// A rate is quoted for one ZIP code: after a refusal the address may
	// change, so it is quoted again.
	d.Error, d.Rates, d.RateID = formFields(e), nil, ""
	return c.render(v, httpapi.Status(e.Code), "buy", d)
}
