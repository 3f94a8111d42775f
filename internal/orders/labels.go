package orders

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// A platform-funded label: the seller of a paid order that ships asks the
// platform for a prepaid label. The platform pays the carrier, so the
// shipping the buyer paid stays with the platform (SellerPayout leaves it
// out once LabelCost is set), and the order is shipped at once on the
// label's tracking number.

// LabelRequest picks the rate a label is bought at; an empty field matches
// any, and the cheapest matching rate wins, the seller's preferred rates
// (ShippingRate.Preferred) before the others.
type LabelRequest struct {
	Carrier string
	Service string
}

// Label is a label the platform bought for an order. The label.purchased
// event on the order's timeline is its record.
type Label struct {
	ID             string // names the stored copy
	OrderID        string
	Carrier        string
	Service        string
	TrackingNumber string
	Cost           int64 // cents, paid by the platform
	CreatedAt      time.Time
	// Bought is true when this call bought the label, false when an
	// earlier call had.
	Bought bool
}

// LabelSheet is what a label is printed from, besides the Label itself.
type LabelSheet struct {
	From, To accounts.Address
	FromName string
	Listing  *listings.Listing // for the parcel's weight
}

// LabelMaker is the shipping side of a label: the rate engine, the printer
// and where printed labels are kept. The app implements it with the
// shipping service and the object store.
type LabelMaker interface {
	// Rates prices the listing's parcel from one ZIP code to another,
	// cheapest first (VALIDATION_ERROR naming shipFromAddress.zip or
	// shippingAddress.zip for a bad one).
	Rates(ctx context.Context, l *listings.Listing, fromZip, toZip string) ([]ShippingRate, error)
	// Print draws label l (its tracking number derived from the order id
	// and carrier), stores it under l's ID, and returns the tracking number.
	Print(ctx context.Context, l *Label, in LabelSheet) (string, error)
	// Open returns a stored label's PDF (NOT_FOUND when there is none).
	Open(ctx context.Context, l *Label) ([]byte, error)
	// Discard removes a printed label that was not bought after all.
	Discard(ctx context.Context, l *Label) error
}

// Longest carrier and service names a request may give; the engine's are
// far shorter.
const (
	maxLabelCarrier = 20
	maxLabelService = 60
)

// EventLabelPurchased records a label bought for an order.
const EventLabelPurchased = "label.purchased"

// BuyLabel buys a platform-funded label for a paid order that ships: the
// seller's (or an admin's, or the system's for a seller's automatic label)
// call. The rate is the cheapest the engine quotes from the seller's
// ship-from ZIP code to the order's address for the listing's parcel,
// narrowed by in, and of the seller's preferred carrier (and service) when
// one of those matches. The label is printed and stored first; then the
// order becomes shipped with the label's carrier, tracking number and cost,
// and the timeline gets label.purchased and order.shipped. An order that
// has a label answers it again: the platform never pays twice.
func (s *Service) BuyLabel(ctx context.Context, actor market.Actor, orderID string, in LabelRequest) (*Order, *Label, error) {
	rd := s.store.Read()
	o, err := s.labelOrder(ctx, rd, actor, orderID)
	if err != nil {
		return nil, nil, err
	}
	// The input is checked once the caller is known to be the seller.
	in.Carrier, in.Service = strings.ToLower(strings.TrimSpace(in.Carrier)), strings.ToLower(strings.TrimSpace(in.Service))
	var c market.Check
	c.Require(len(in.Carrier) <= maxLabelCarrier, "carrier", "is not a carrier the platform buys labels from")
	c.Require(len(in.Service) <= maxLabelService, "service", "is not a service the platform buys labels for")
	if err := c.Err(); err != nil {
		return nil, nil, err
	}
	switch l, err := s.labelOf(ctx, rd, o); {
	case err == nil:
		return o, l, nil
	case market.CodeOf(err) != market.CodeNotFound:
		return nil, nil, err
	}
	if err := labelable(o); err != nil {
		return nil, nil, err
	}
	if s.opts.Labels == nil {
		return nil, nil, market.Errorf(market.CodeUnavailable, "shipping labels are not available right now")
	}
	seller, err := rd.UserByID(ctx, o.SellerID)
	if err != nil {
		return nil, nil, err
	}
	if seller.ShipFrom == nil {
		return nil, nil, market.Invalid(market.FieldError{Field: "ship_from_address",
			Message: "the seller has no ship-from address; set it with PUT /api/v1/auth/me/address first"})
	}
	listing, err := rd.ListingByID(ctx, o.ListingID)
	if err != nil {
		return nil, nil, err
	}
	rates, err := s.opts.Labels.Rates(ctx, listing, seller.ShipFrom.Zip, o.ShippingAddress.Zip)
	if err != nil {
		return nil, nil, err
	}
	rate, err := pickRate(rates, in)
	if err != nil {
		return nil, nil, err
	}

	now := s.clock.Now()
	fromName := seller.ShipFrom.Name
	if strings.TrimSpace(fromName) == "" {
		fromName = seller.DisplayName
	}
	mine := &Label{ID: market.NewID(), OrderID: o.ID, Carrier: rate.Carrier, Service: rate.Service, Cost: rate.Amount,
		CreatedAt: now}
	mine.TrackingNumber, err = s.opts.Labels.Print(ctx, mine, LabelSheet{From: *seller.ShipFrom, To: *o.ShippingAddress,
		FromName: fromName, Listing: listing})
	if err != nil {
		return nil, nil, err
	}

	_, err = s.move(ctx, actor, o.ID, transition{name: "buy a label for", by: bySeller, from: []Status{StatusPaid},
		to: StatusShipped, event: "order.shipped", apply: func(ctx context.Context, tx Tx, o *Order, now time.Time) error {
			if err := labelable(o); err != nil {
				return err
			}
			o.ShipmentCarrier, o.TrackingNumber, o.LabelCost, o.ShippedAt = mine.Carrier, mine.TrackingNumber, mine.Cost, &now
			return events.Record(ctx, tx, now, actor, EventLabelPurchased, "order", o.ID, map[string]any{
				"label_id": mine.ID, "carrier": mine.Carrier, "service": mine.Service, "cost": mine.Cost,
				"tracking_number": mine.TrackingNumber})
		}}, map[string]any{"carrier": mine.Carrier, "tracking_number": mine.TrackingNumber})
	// The timeline says which label the order shipped on: this call's, or
	// (a concurrent call won, or the seller shipped by hand meanwhile)
	// another's or none; a label printed here and not bought is removed.
	var cur *Order
	var got *Label
	if err == nil || market.CodeOf(err) == market.CodeInvalidState {
		var rerr error
		if cur, rerr = rd.OrderByID(ctx, o.ID); rerr == nil {
			if got, rerr = s.labelOf(ctx, rd, cur); market.CodeOf(rerr) == market.CodeNotFound {
				got, rerr = nil, nil
			}
		}
		if rerr != nil {
			return nil, nil, errors.Join(err, rerr)
		}
	}
	if got == nil || got.ID != mine.ID {
		if derr := s.opts.Labels.Discard(ctx, mine); derr != nil {
			s.opts.Log.Warn("discard unbought label", "order", o.ID, "label", mine.ID, "err", derr)
		}
	}
	switch {
	case got != nil:
		got.Bought = got.ID == mine.ID
		return cur, got, nil
	case err != nil:
		return nil, nil, err
	}
	return nil, nil, market.Errorf(market.CodeInvalidState, "the order was shipped without a platform label").
		WithDetails(map[string]any{"status": string(cur.Status)})
}

// Label returns the PDF of an order's platform label to its seller (or an
// admin); NOT_FOUND when the order has none.
func (s *Service) Label(ctx context.Context, actor market.Actor, orderID string) ([]byte, error) {
	rd := s.store.Read()
	o, err := s.labelOrder(ctx, rd, actor, orderID)
	if err != nil {
		return nil, err
	}
	l, err := s.labelOf(ctx, rd, o)
	if err != nil {
		return nil, err
	}
	if s.opts.Labels == nil {
		return nil, market.NotFound("label")
	}
	return s.opts.Labels.Open(ctx, l)
}

// labelOrder loads an order whose labels actor may handle: its seller's or
// an admin's.
func (s *Service) labelOrder(ctx context.Context, tx Tx, actor market.Actor, id string) (*Order, error) {
	o, err := s.visible(ctx, tx, actor, id)
	if err != nil {
		return nil, err
	}
	if o.SellerID != actor.UserID && !privileged(actor) {
		return nil, market.Errorf(market.CodeForbidden, "only the seller handles an order's shipping label")
	}
	return o, nil
}

// labelable says whether a label may be bought for o now: it is paid and
// ships to an address.
func labelable(o *Order) error {
	if o.Status != StatusPaid {
		return market.Errorf(market.CodeInvalidState, "labels are bought for paid orders; this one is %s", o.Status).
			WithDetails(map[string]any{"status": string(o.Status)})
	}
	if o.Fulfillment == FulfillLocalPickup || o.ShippingAddress == nil {
		return market.Errorf(market.CodeInvalidState, "a local pickup order is not shipped; mark it pickup-ready").
			WithDetails(map[string]any{"status": string(o.Status)})
	}
	return nil
}

// labelOf is the label o shipped on, from its timeline; NOT_FOUND when it
// shipped on none (or is not shipped).
func (s *Service) labelOf(ctx context.Context, tx Tx, o *Order) (*Label, error) {
	if o.TrackingNumber == "" {
		return nil, market.NotFound("label") // not shipped: no need to read the timeline
	}
	evs, err := tx.EventsFor(ctx, "order", o.ID)
	if err != nil {
		return nil, err
	}
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		if e.Type != EventLabelPurchased {
			continue
		}
		d := events.Canonical(e.Data) // an older event names its data in camelCase
		tracking, _ := d["tracking_number"].(string)
		if tracking != o.TrackingNumber {
			break // shipped since on other tracking
		}
		id, _ := d["label_id"].(string)
		carrier, _ := d["carrier"].(string)
		service, _ := d["service"].(string)
		return &Label{ID: id, OrderID: o.ID, Carrier: carrier, Service: service, TrackingNumber: tracking,
			Cost: o.LabelCost, CreatedAt: e.CreatedAt}, nil
	}
	return nil, market.NotFound("label")
}

// pickRate is the cheapest of rates (they come cheapest first) matching in,
// the seller's preferred one when one matches; VALIDATION_ERROR naming
// carrier or service when none does.
func pickRate(rates []ShippingRate, in LabelRequest) (*ShippingRate, error) {
	for i := range rates {
		if r := &rates[i]; r.Preferred && (in.Carrier == "" || r.Carrier == in.Carrier) &&
			(in.Service == "" || r.Service == in.Service) {
			return r, nil
		}
	}
	var carriers, services []string
	for i := range rates {
		r := &rates[i]
		if !slices.Contains(carriers, r.Carrier) {
			carriers = append(carriers, r.Carrier)
		}
		if in.Carrier != "" && r.Carrier != in.Carrier {
			continue
		}
		if in.Service == "" || r.Service == in.Service {
			return r, nil
		}
		if !slices.Contains(services, r.Service) {
			services = append(services, r.Service)
		}
	}
	switch {
	case len(rates) == 0:
		return nil, market.Errorf(market.CodeUnavailable, "no carrier can quote this parcel right now")
	case len(services) == 0:
		return nil, market.Invalid(market.FieldError{Field: "carrier",
			Message: "no rate from this carrier for this parcel; one of: " + strings.Join(carriers, ", ")})
	}
	return nil, market.Invalid(market.FieldError{Field: "service",
		Message: "no such service for this parcel; one of: " + strings.Join(services, ", ")})
}
