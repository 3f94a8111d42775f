package checkouts

import (
	"context"
	"errors"
	"strings"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/shipping"
)

// Service runs checkout sessions over the listing, shipping and purchase
// services, and the agent platforms that open them for guests.
type Service struct {
	store     Store
	platforms PlatformStore
	orders    *orders.Service
	listings  *listings.Service
	shipping  *shipping.Service
	clock     market.Clock
	opts      Options
}

// Options are the service's ties to other areas.
type Options struct {
	// Guests finds or makes the guest buyer of an e-mail (accounts).
	Guests interface {
		Guest(ctx context.Context, email, name string) (*accounts.User, error)
	}
	// CheckURL validates a platform's webhook URL as webhooks do: a
	// VALIDATION_ERROR on field url when refused.
	CheckURL func(ctx context.Context, raw string) error
	// DisableEndpoint stops a disconnected platform's webhook deliveries.
	DisableEndpoint func(ctx context.Context, endpointID string) error
	// Changes notes an admin's change for the request's audit entry.
	Changes interface {
		NoteChange(ctx context.Context, before, after any, details map[string]any)
	}
}

// PlatformStore opens transactions and read handles over PlatformTx.
type PlatformStore interface {
	InTx(ctx context.Context, fn func(PlatformTx) error) error
	Read() PlatformTx
}

// NewService builds the checkout service.
func NewService(st Store, pt PlatformStore, o *orders.Service, l *listings.Service, sh *shipping.Service, clock market.Clock, opts Options) *Service {
	return &Service{store: st, platforms: pt, orders: o, listings: l, shipping: sh, clock: clock, opts: opts}
}

// Buyer is who opened a session: an agent key acting for its owner, or an
// agent platform (PlatformID) for a guest.
type Buyer struct {
	Actor      market.Actor
	User       *accounts.User // the key's owner
	Key        *agents.Key
	PlatformID string
}

func (b Buyer) owns(s *Session) bool {
	if b.Key != nil {
		return s.KeyID == b.Key.ID
	}
	return b.PlatformID != "" && s.PlatformID == b.PlatformID
}

// purchaser is who buys a session's item: the key's owner, or for a
// platform the guest of the session's buyer e-mail once it has one (a
// stand-in before, for estimates).
func (b Buyer) purchaser(sess *Session) orders.Buyer {
	if b.Key != nil {
		return orders.Buyer{Actor: b.Actor, User: b.User, Key: b.Key}
	}
	if b.User != nil {
		return orders.Buyer{Actor: market.Actor{Type: market.ActorUser, UserID: b.User.ID}, User: b.User}
	}
	return orders.Buyer{Actor: b.actor(sess), User: &accounts.User{ID: sess.UserID, Role: accounts.RoleGuest}}
}

// actor is who reads a session's order and listings: the key's owner, or
// for a platform the session's guest once it has one.
func (b Buyer) actor(sess *Session) market.Actor {
	if b.Key == nil && sess.UserID != "" {
		return market.Actor{Type: market.ActorUser, UserID: sess.UserID}
	}
	return b.Actor
}

// Input is the cart a create or an update gives; a nil field is left as
// it is.
type Input struct {
	Buyer       *Contact
	Listings    []string // the items asked for, by listing id, in order
	Destination *Destination
	Selected    []Selection
}

// Create opens a session for b.
func (s *Service) Create(ctx context.Context, b Buyer, in Input) (*View, error) {
	now := s.clock.Now()
	sess := &Session{ID: NewID(), State: StateOpen, Currency: "usd", CreatedAt: now, UpdatedAt: now}
	if b.Key != nil {
		sess.KeyID, sess.UserID = b.Key.ID, b.User.ID
	} else {
		sess.PlatformID = b.PlatformID
	}
	if err := s.apply(ctx, b, sess, in); err != nil {
		return nil, err
	}
	if err := s.store.InTx(ctx, func(tx Tx) error { return tx.CreateCheckout(ctx, sess) }); err != nil {
		return nil, err
	}
	return s.view(ctx, b, sess)
}

// Update changes an open session's cart.
func (s *Service) Update(ctx context.Context, b Buyer, id string, in Input) (*View, error) {
	sess, err := s.owned(ctx, s.store.Read(), b, id)
	if err != nil {
		return nil, err
	}
	if sess.State != StateOpen || s.expired(sess) {
		return s.view(ctx, b, sess)
	}
	if err := s.apply(ctx, b, sess, in); err != nil {
		return nil, err
	}
	sess, err = s.amend(ctx, id, func(cur *Session) bool {
		if cur.State != StateOpen {
			return false // a complete got there first: the session as it is
		}
		attempt := cur.Attempt
		*cur = *sess
		cur.Attempt = attempt
		return true
	})
	if err != nil {
		return nil, err
	}
	return s.view(ctx, b, sess)
}

// Get reads a session.
func (s *Service) Get(ctx context.Context, b Buyer, id string) (*View, error) {
	sess, err := s.owned(ctx, s.store.Read(), b, id)
	if err != nil {
		return nil, err
	}
	return s.view(ctx, b, sess)
}

// ErrNotCancelable refuses to cancel a completed or canceled session.
var ErrNotCancelable = market.Errorf(market.CodeInvalidState, "this checkout session is already completed or canceled")

// Cancel ends an open session. One completed, canceled, being charged or
// waiting for the owner's decision (theirs to reject) is ErrNotCancelable.
func (s *Service) Cancel(ctx context.Context, b Buyer, id string) (*View, error) {
	var sess *Session
	err := s.store.InTx(ctx, func(tx Tx) error {
		var err error
		if sess, err = s.owned(ctx, tx, b, id); err != nil {
			return err
		}
		switch sess.State {
		case StateCompleted, StateCanceled, StateCompleting, StatePendingApproval:
			return ErrNotCancelable
		}
		sess.State, sess.UpdatedAt = StateCanceled, s.clock.Now()
		return tx.UpdateCheckout(ctx, sess)
	})
	if err != nil {
		return nil, err
	}
	return s.view(ctx, b, sess)
}

// amend changes session id in a transaction that locks it: change edits
// the session as stored and reports whether to write it (with a new
// UpdatedAt). It answers the session as it is after.
func (s *Service) amend(ctx context.Context, id string, change func(cur *Session) bool) (*Session, error) {
	var out *Session
	err := s.store.InTx(ctx, func(tx Tx) error {
		cur, err := tx.CheckoutByID(ctx, id)
		if err != nil {
			return err
		}
		out = cur
		if !change(cur) {
			return nil
		}
		cur.UpdatedAt = s.clock.Now()
		return tx.UpdateCheckout(ctx, cur)
	})
	return out, err
}

// owned reads session id for b; another credential's session is NOT_FOUND.
func (s *Service) owned(ctx context.Context, tx Tx, b Buyer, id string) (*Session, error) {
	if !ValidID(id) {
		return nil, market.NotFound("checkout session")
	}
	sess, err := tx.CheckoutByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if !b.owns(sess) {
		return nil, market.NotFound("checkout session")
	}
	return sess, nil
}

func (s *Service) expired(sess *Session) bool {
	return sess.State == StateOpen && !s.clock.Now().Before(sess.ExpiresAt())
}

// apply sets in on sess: the items (quoted again when they change), the
// buyer, the destination (its options quoted again) and the selection.
func (s *Service) apply(ctx context.Context, b Buyer, sess *Session, in Input) error {
	requote := false
	if in.Listings != nil {
		items := itemsOf(in.Listings)
		if !sameListings(items, sess.Items) {
			sess.Items, sess.Options, sess.Selected, sess.SeenPrice = items, nil, nil, 0
			requote = true
		}
	}
	if in.Buyer != nil {
		sess.Buyer = in.Buyer
	}
	if in.Destination != nil {
		if sess.Destination == nil || sess.Destination.Address != in.Destination.Address {
			requote = true
		}
		sess.Destination = in.Destination
	}
	if requote {
		s.quote(ctx, b, sess)
	}
	if in.Selected != nil {
		sess.Selected = in.Selected
	}
	return nil
}

// itemsOf groups the listings asked for into line items, in the order
// first asked; a listing asked twice is a quantity of 2.
func itemsOf(ids []string) []Item {
	var out []Item
	at := map[string]int{}
	for _, id := range ids {
		if i, ok := at[id]; ok {
			out[i].Quantity++
			continue
		}
		at[id] = len(out)
		out = append(out, Item{ID: LineItemID(id), ListingID: id, Quantity: 1})
	}
	return out
}

func sameListings(a, b []Item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ListingID != b[i].ListingID || a[i].Quantity != b[i].Quantity {
			return false
		}
	}
	return true
}

// quote sets the session's options for its one item and destination: a
// shipping option per carrier rate (one of 0 for free shipping) once there
// is an address, and pickup where the listing offers it. A listing that
// cannot be quoted leaves none; reading the session says why.
func (s *Service) quote(ctx context.Context, b Buyer, sess *Session) {
	sess.Options = nil
	if len(sess.Items) != 1 {
		return
	}
	l, _, err := s.listings.GetWithSeller(ctx, b.actor(sess), sess.Items[0].ListingID)
	if err != nil {
		return
	}
	if sess.SeenPrice == 0 {
		sess.SeenPrice = l.Price
	}
	pickup := l.ShippingType == listings.ShipLocalPickup || l.ShippingType == listings.ShipBoth
	if sess.Destination != nil && l.ShippingType != listings.ShipLocalPickup {
		q, err := s.shipping.Quote(ctx, l.ID, sess.Destination.Address.Zip)
		if err != nil {
			return
		}
		for _, r := range q.Rates {
			sess.Options = append(sess.Options, Option{ID: optionID(r.Carrier, r.Service), Kind: FulfillShipping,
				Carrier: r.Carrier, Service: r.Service, Amount: r.Amount, Days: r.EstimatedDays, RateID: r.RateID})
		}
		pickup = pickup || q.LocalPickupAvailable
	}
	if pickup {
		sess.Options = append(sess.Options, Option{ID: PickupOption, Kind: FulfillPickup})
	}
	// A chosen option that is no longer offered is forgotten.
	var kept []Selection
	for _, sel := range sess.Selected {
		if sess.option(sel.OptionID) != nil {
			kept = append(kept, sel)
		}
	}
	sess.Selected = kept
}

// PickupOption is the id of the pickup option.
const PickupOption = "pickup"

// optionID is a shipping option's id: the same for the same carrier and
// service whatever the address, so a selection survives a new quote.
func optionID(carrier, service string) string {
	return "ship_" + strings.ToLower(carrier) + "_" + strings.ToLower(service)
}

func (s *Session) option(id string) *Option {
	for i := range s.Options {
		if s.Options[i].ID == id {
			return &s.Options[i]
		}
	}
	return nil
}

// errRaced: another complete of the session reserved first.
var errRaced = errors.New("checkouts: another complete of this session got there first")
