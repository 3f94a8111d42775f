package offers

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/messaging"
	"marketplace/internal/payments"
)

// memTx is an in-memory offers.Tx. memStore runs each transaction on it
// and puts everything back when the transaction fails.
type memTx struct {
	offers   map[string]Offer
	listings map[string]listings.Listing
	events   []events.Event
	posted   []messaging.Message // offer messages put into threads
	controls *agents.Controls
	spent    int64 // counted in every window, for the owner
}

func newMem() *memTx {
	return &memTx{offers: map[string]Offer{}, listings: map[string]listings.Listing{}}
}

func (m *memTx) clone() *memTx {
	c := &memTx{offers: map[string]Offer{}, listings: map[string]listings.Listing{}, controls: m.controls, spent: m.spent,
		events: append([]events.Event(nil), m.events...), posted: append([]messaging.Message(nil), m.posted...)}
	for k, v := range m.offers {
		c.offers[k] = copyOffer(v)
	}
	for k, v := range m.listings {
		c.listings[k] = v
	}
	return c
}

func copyOffer(o Offer) Offer {
	b, _ := json.Marshal(o.Rounds)
	o.Rounds = nil
	_ = json.Unmarshal(b, &o.Rounds)
	return o
}

func (m *memTx) AppendEvent(_ context.Context, e *events.Event) error {
	m.events = append(m.events, *e)
	return nil
}

func (m *memTx) EnsureThread(_ context.Context, t *messaging.Thread) (*messaging.Thread, error) {
	return t, nil
}

func (m *memTx) AddMessage(_ context.Context, msg *messaging.Message, _ *messaging.Thread) error {
	m.posted = append(m.posted, *msg)
	return nil
}

func (m *memTx) Addresses(context.Context, string) ([]accounts.Address, error) { return nil, nil }

func (m *memTx) PaymentMethodByID(context.Context, string) (*payments.PaymentMethod, error) {
	return nil, market.NotFound("payment method")
}

func (m *memTx) LockUser(context.Context, string) error { return nil }

// The key as agents.CheckSpend reads it again: always active here.
func (m *memTx) KeyByID(_ context.Context, id string) (*agents.Key, error) {
	return &agents.Key{ID: id, Status: agents.KeyActive}, nil
}

func (m *memTx) UpdateKey(context.Context, *agents.Key) error { return nil }

func (m *memTx) AppendSystemAudit(context.Context, time.Time, string, string, string, string, map[string]any) error {
	return nil
}

func (m *memTx) KeyPurchasesSince(context.Context, string, time.Time) (int, error) { return 0, nil }

func (m *memTx) SpendingSnapshot(_ context.Context, q agents.SpentQuery) (*agents.SpendingSnapshot, error) {
	s := &agents.SpendingSnapshot{Controls: m.controls, Owner: agents.Spent{Today: m.spent, ThisWeek: m.spent, ThisMonth: m.spent}}
	for _, o := range m.offers {
		if o.BuyerID == q.UserID && o.Reserved > 0 && o.ExpiresAt.After(q.Now) && o.ID != q.ExcludeOfferID {
			s.OwnerReserved += o.Reserved
		}
	}
	return s, nil
}

func (m *memTx) ListingByID(_ context.Context, id string) (*listings.Listing, error) {
	l, ok := m.listings[id]
	if !ok {
		return nil, market.Errorf(market.CodeListingNotFound, "listing not found")
	}
	return &l, nil
}

func (m *memTx) CreateOffer(_ context.Context, o *Offer) error {
	if o.Open() {
		for _, x := range m.offers {
			if x.Open() && x.BuyerID == o.BuyerID && x.ListingID == o.ListingID {
				return errActive()
			}
		}
	}
	m.offers[o.ID] = copyOffer(*o)
	return nil
}

func (m *memTx) UpdateOffer(_ context.Context, o *Offer) error {
	if _, ok := m.offers[o.ID]; !ok {
		return market.NotFound("offer")
	}
	m.offers[o.ID] = copyOffer(*o)
	return nil
}

func (m *memTx) OfferByID(_ context.Context, id string) (*Offer, error) {
	o, ok := m.offers[id]
	if !ok {
		return nil, market.NotFound("offer")
	}
	o = copyOffer(o)
	return &o, nil
}

func (m *memTx) OpenOfferOf(_ context.Context, buyerID, listingID string) (*Offer, error) {
	for _, o := range m.offers {
		if o.Open() && o.BuyerID == buyerID && o.ListingID == listingID {
			o = copyOffer(o)
			return &o, nil
		}
	}
	return nil, market.NotFound("offer")
}

func (m *memTx) sorted(keep func(Offer) bool) []Offer {
	var out []Offer
	for _, o := range m.offers {
		if keep(o) {
			out = append(out, copyOffer(o))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (m *memTx) OpenOffersOn(_ context.Context, listingID string) ([]Offer, error) {
	return m.sorted(func(o Offer) bool { return o.Open() && o.ListingID == listingID }), nil
}

func (m *memTx) Offers(_ context.Context, f Filter) ([]Offer, int, error) {
	out := m.sorted(func(o Offer) bool {
		return (f.Role == Seller && o.SellerID == f.UserID || f.Role != Seller && o.BuyerID == f.UserID) &&
			(f.Status == "" || o.Status == f.Status)
	})
	return out, len(out), nil
}

func (m *memTx) DueOffers(_ context.Context, now time.Time, limit int) ([]Offer, error) {
	out := m.sorted(func(o Offer) bool { return o.Open() && !o.ExpiresAt.After(now) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

type memStore struct{ tx *memTx }

func (s *memStore) InTx(_ context.Context, fn func(Tx) error) error {
	work := s.tx.clone()
	if err := fn(work); err != nil {
		return err
	}
	s.tx = work
	return nil
}

func (s *memStore) Read() Tx { return s.tx }

var _ Store = (*memStore)(nil)
