// Package shipping quotes what it costs to send a listing to a buyer: a
// deterministic built-in rate engine (carriers and services priced from
// billable weight and the zone between two ZIP codes) behind the Carrier
// interface, signed rate tokens that a purchase redeems, and the quotes the
// surfaces answer with.
package shipping

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"marketplace/internal/market"
)

// Rate is one way to ship, as quoted to a buyer. RateID is the signed token
// that a purchase redeems for exactly this amount; it is "" on rates the
// engine computes for other uses (QuoteParcel).
type Rate struct {
	RateID        string
	Carrier       string
	Service       string
	Amount        int64 // cents
	EstimatedDays int
	ExpiresAt     time.Time
	// Preferred marks the seller's preferred carrier (and service): the
	// one the seller's platform labels are bought with.
	Preferred bool
}

// Engine asks its carriers for rates and puts them in order.
type Engine struct {
	carriers []Carrier
}

// NewEngine builds an engine over carriers; with none, the built-in ones.
func NewEngine(carriers ...Carrier) *Engine {
	if len(carriers) == 0 {
		carriers = BuiltinCarriers()
	}
	return &Engine{carriers: carriers}
}

// Carriers names the engine's carriers.
func (e *Engine) Carriers() []string {
	out := make([]string, len(e.carriers))
	for i, c := range e.carriers {
		out[i] = c.Name()
	}
	return out
}

// Services names a carrier's services; listed is false when the carrier
// does not say (an adapter without a fixed list) or is not the engine's.
func (e *Engine) Services(carrier string) (names []string, listed bool) {
	for _, c := range e.carriers {
		if l, ok := c.(interface{ Services() []string }); ok && c.Name() == carrier {
			return l.Services(), true
		}
	}
	return nil, false
}

// Rates prices parcel p from one ZIP code to another with every carrier,
// cheapest first (then fastest, then by carrier and service name, so the
// order is stable). Bad ZIP codes are ErrZip. A carrier that fails is left
// out; when every one fails, or none takes the parcel, the error is
// SERVICE_UNAVAILABLE.
func (e *Engine) Rates(ctx context.Context, from, to string, p Parcel) ([]CarrierRate, Route, error) {
	route, err := RouteBetween(from, to)
	if err != nil {
		return nil, Route{}, err
	}
	f, _ := NormalizeZip(from)
	t, _ := NormalizeZip(to)
	sh := Shipment{FromZip: f, ToZip: t, Route: route, Parcel: p.withDefaults()}
	var out []CarrierRate
	var errs []error
	for _, c := range e.carriers {
		rs, err := c.Rates(ctx, sh)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, rs...)
	}
	if len(out) == 0 {
		e := market.Errorf(market.CodeUnavailable, "no carrier can quote this parcel right now")
		if len(errs) > 0 {
			return nil, route, errors.Join(e, errors.Join(errs...))
		}
		return nil, route, e
	}
	slices.SortFunc(out, func(a, b CarrierRate) int {
		return cmp.Or(cmp.Compare(a.Amount, b.Amount), cmp.Compare(a.EstimatedDays, b.EstimatedDays),
			cmp.Compare(a.Carrier, b.Carrier), cmp.Compare(a.Service, b.Service))
	})
	return out, route, nil
}

// FormatCents writes cents as a decimal string of currency units, "12.34"
// (CONTRACT.md section 3: a rate's amount on the wire).
func FormatCents(c int64) string {
	sign := ""
	u := uint64(c)
	if c < 0 {
		sign, u = "-", uint64(-(c+1))+1
	}
	frac := strconv.FormatUint(u%100, 10)
	if len(frac) == 1 {
		frac = "0" + frac
	}
	return sign + strconv.FormatUint(u/100, 10) + "." + frac
}
