package apiv1

import (
	"cmp"
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/shipping"
)

// RegisterShipping adds the pre-checkout shipping quote routes.
func (a *API) RegisterShipping(rt *httpapi.Router) {
	p := Prefix
	rt.Handle("POST", p+"/shipping/rates", httpapi.Public, a.shippingRates)
	rt.Handle("POST", p+"/listings/{id}/shipping-estimate", httpapi.Public, a.shippingEstimate)
}

// The quote keeps the spec's snake_case keys on this surface too: it is the
// one shape the spec shows, and agents of either surface read it.
type shippingRate struct {
	RateID        string    `json:"rate_id"`
	Carrier       string    `json:"carrier"`
	Service       string    `json:"service"`
	Amount        string    `json:"amount"`
	AmountCents   int64     `json:"amount_cents"`
	EstimatedDays int       `json:"estimated_days"`
	ExpiresAt     time.Time `json:"expires_at"`
}

type shippingAutoShip struct {
	Enabled bool    `json:"enabled"`
	Method  *string `json:"method"`
}

type shippingQuote struct {
	Type                 string           `json:"type"`
	ListingID            string           `json:"listing_id"`
	BuyerZip             string           `json:"buyer_zip"`
	CheapestCents        int64            `json:"cheapest_cents"`
	Rates                []shippingRate   `json:"rates"`
	LocalPickupAvailable bool             `json:"local_pickup_available"`
	AutoShip             shippingAutoShip `json:"auto_ship"`
}

func toShippingQuote(q *shipping.Quote) shippingQuote {
	out := shippingQuote{Type: string(q.Type), ListingID: q.ListingID, BuyerZip: q.Zip, CheapestCents: q.CheapestCents,
		Rates: make([]shippingRate, len(q.Rates)), LocalPickupAvailable: q.LocalPickupAvailable,
		AutoShip: shippingAutoShip{Enabled: q.AutoShip.Enabled}}
	if q.AutoShip.Method != "" {
		out.AutoShip.Method = &q.AutoShip.Method
	}
	for i, r := range q.Rates {
		out.Rates[i] = shippingRate{RateID: r.RateID, Carrier: r.Carrier, Service: r.Service,
			Amount: shipping.FormatCents(r.Amount), AmountCents: r.Amount, EstimatedDays: r.EstimatedDays, ExpiresAt: r.ExpiresAt}
	}
	return out
}

// shippingQuoteBody is the body of both routes; the snake_case spellings
// and a plain zip are accepted too.
type shippingQuoteBody struct {
	ListingID      string `json:"listingId"`
	ListingIDSnake string `json:"listing_id"`
	BuyerZip       string `json:"buyerZip"`
	BuyerZipSnake  string `json:"buyer_zip"`
	Zip            string `json:"zip"`
}

func (b *shippingQuoteBody) zip(c *market.Check) string {
	z := cmp.Or(b.BuyerZip, b.BuyerZipSnake, b.Zip)
	if !c.Require(z != "", "buyerZip", "is required") {
		return ""
	}
	return shipping.CheckZip(c, "buyerZip", z)
}

// shippingRates is POST /shipping/rates {listingId, buyerZip}.
func (a *API) shippingRates(w http.ResponseWriter, r *http.Request) error {
	var b shippingQuoteBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	var c market.Check
	id := cmp.Or(b.ListingID, b.ListingIDSnake)
	if c.Require(id != "", "listingId", "is required") {
		c.Require(market.ValidID(id), "listingId", "must be a listing id (a UUID)")
	}
	zip := b.zip(&c)
	if err := c.Err(); err != nil {
		return err
	}
	return a.writeShippingQuote(w, r, id, zip)
}

// shippingEstimate is POST /listings/{id}/shipping-estimate {buyerZip}.
func (a *API) shippingEstimate(w http.ResponseWriter, r *http.Request) error {
	var b shippingQuoteBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	var c market.Check
	zip := b.zip(&c)
	if err := c.Err(); err != nil {
		return err
	}
	return a.writeShippingQuote(w, r, r.PathValue("id"), zip)
}

func (a *API) writeShippingQuote(w http.ResponseWriter, r *http.Request, listingID, zip string) error {
	httpapi.Entity(r, "listing", listingID)
	q, err := a.Shipping.Quote(r.Context(), listingID, zip)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toShippingQuote(q))
}
