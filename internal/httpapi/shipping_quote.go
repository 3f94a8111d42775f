package httpapi

import (
	"time"

	"marketplace/internal/shipping"
)

// ShippingQuote is a shipping quote on the wire. Both surfaces answer the
// spec's snake_case shape: it is the one shape the spec shows, and agents of
// either surface read it.
type ShippingQuote struct {
	Type                 string           `json:"type"`
	ListingID            string           `json:"listing_id"`
	BuyerZip             string           `json:"buyer_zip"`
	CheapestCents        int64            `json:"cheapest_cents"`
	Rates                []shippingRate   `json:"rates"`
	LocalPickupAvailable bool             `json:"local_pickup_available"`
	AutoShip             shippingAutoShip `json:"auto_ship"`
}

type shippingRate struct {
	RateID        string    `json:"rate_id"`
	Carrier       string    `json:"carrier"`
	Service       string    `json:"service"`
	Amount        string    `json:"amount"`
	AmountCents   int64     `json:"amount_cents"`
	EstimatedDays int       `json:"estimated_days"`
	ExpiresAt     time.Time `json:"expires_at"`
	Preferred     bool      `json:"preferred"`
}

type shippingAutoShip struct {
	Enabled bool    `json:"enabled"`
	Method  *string `json:"method"`
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
