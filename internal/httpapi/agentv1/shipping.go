package agentv1

import (
	"cmp"
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/shipping"
)

// RegisterShipping adds the shipping quote route.
func (a *API) RegisterShipping(rt *httpapi.Router) {
	rt.Handle("POST", Prefix+"/listings/{id}/shipping-estimate", httpapi.Either, a.shippingEstimate)
}

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

// shippingEstimateBody is {zip}; buyer_zip is accepted too.
type shippingEstimateBody struct {
	Zip      string `json:"zip"`
	BuyerZip string `json:"buyer_zip"`
}

// shippingEstimate is POST /v1/listings/{id}/shipping-estimate {zip}: the
// listing's shipping rates to that ZIP code, each with the rate_id a
// purchase passes as carrier_rate_id. Any scope may ask.
func (a *API) shippingEstimate(w http.ResponseWriter, r *http.Request) error {
	var b shippingEstimateBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	var c market.Check
	zip := cmp.Or(b.Zip, b.BuyerZip)
	if c.Require(zip != "", "zip", "is required") {
		zip = shipping.CheckZip(&c, "zip", zip)
	}
	if err := c.Err(); err != nil {
		return err
	}
	id := r.PathValue("id")
	httpapi.Entity(r, "listing", id)
	q, err := a.Shipping.Quote(r.Context(), id, zip)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toShippingQuote(q))
}
