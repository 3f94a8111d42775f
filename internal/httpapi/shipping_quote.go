package httpapi

import (
	"time"

	"marketplace/internal/shipping"
)

// ShippingQuote is a shipping quote on the wire. Both surfaces answer the
// spec's snake_case shape: it is the one shape the spec shows, and agents of
// either surface read it.
type ShippingQuote struct {
	Type                 string           `json:"type" enum:"dynamic,flat_rate,free,local_pickup"`
	ListingID            string           `json:"listing_id" format:"uuid"`
	BuyerZip             string           `json:"buyer_zip" doc:"The buyer's ZIP code, 5-digit form."`
	CheapestCents        int64            `json:"cheapest_cents" minimum:"0" doc:"The lowest rate's amount in cents; 0 when there are no rates."`
	Rates                []shippingRate   `json:"rates"`
	LocalPickupAvailable bool             `json:"local_pickup_available"`
	AutoShip             shippingAutoShip `json:"auto_ship"`
}

type shippingRate struct {
	RateID        string    `json:"rate_id" doc:"Opaque signed token (URL-safe, under 100 characters) carrying this rate; valid until 'expires_at', only for this listing and ZIP code. A purchase takes its shipping amount from it, never from a client-sent cost."`
	Carrier       string    `json:"carrier" example:"usps" doc:"'usps', 'ups' or 'fedex' for carrier rates; 'seller' for the seller's own flat-rate or free shipping (the seller ships with a carrier of their choice, or the platform label)."`
	Service       string    `json:"service" example:"ground_advantage" doc:"The carrier's service: usps 'ground_advantage', 'priority', 'priority_express'; ups 'ground', '2nd_day_air'; fedex 'home_delivery', 'express_saver'. For carrier 'seller': 'flat_rate' or 'free'."`
	Amount        string    `json:"amount" pattern:"^[0-9]+\\.[0-9]{2}$" example:"8.45" doc:"The price in currency units as a decimal string."`
	AmountCents   int64     `json:"amount_cents" minimum:"0" example:"845" doc:"The same price in integer cents."`
	EstimatedDays int       `json:"estimated_days" minimum:"0" doc:"Estimated business days to delivery. Before checkout, the seller's handling days ('handlingDays' of their shipping preferences, 1 unless they set it) plus the days in transit; for a paid order's rates (the seller ships now), the days in transit."`
	ExpiresAt     time.Time `json:"expires_at" doc:"When 'rate_id' stops being accepted (24 hours after the quote)."`
	Preferred     bool      `json:"preferred" doc:"True on the rates of the seller's preferred carrier (and preferred service, when the seller names one) from their shipping preferences: the carrier the seller ships with, and the one their platform labels are bought with. Always false for carrier 'seller' and for sellers without a preferred carrier."`
}

type shippingAutoShip struct {
	Enabled bool    `json:"enabled"`
	Method  *string `json:"method" enum:"platform_label"`
}

// ToShippingQuote converts a quote for the wire.
func ToShippingQuote(q *shipping.Quote) ShippingQuote {
	out := ShippingQuote{Type: string(q.Type), ListingID: q.ListingID, BuyerZip: q.Zip, CheapestCents: q.CheapestCents,
		Rates: make([]shippingRate, len(q.Rates)), LocalPickupAvailable: q.LocalPickupAvailable,
		AutoShip: shippingAutoShip{Enabled: q.AutoShip.Enabled}}
	if q.AutoShip.Method != "" {
		out.AutoShip.Method = &q.AutoShip.Method
	}
	for i, r := range q.Rates {
		out.Rates[i] = shippingRate{RateID: r.RateID, Carrier: r.Carrier, Service: r.Service,
			Amount: shipping.FormatCents(r.Amount), AmountCents: r.Amount, EstimatedDays: r.EstimatedDays, ExpiresAt: r.ExpiresAt,
			Preferred: r.Preferred}
	}
	return out
}
