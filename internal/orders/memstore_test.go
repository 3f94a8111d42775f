package orders

import (
	"context"
	"maps"
	"slices"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/messaging"
	"marketplace/internal/payments"
)

// memTx is an in-memory orders Tx for domain tests: orders, refunds,
// spending give-backs, listing moves and events. Only the methods the
// refund, payout and dispute rules call are implemented; any other call
// panics through the nil embedded interface, so a test notices a rule
// reaching for more than it should.
type memTx struct {
	Tx
	orders    map[string]Order
	refunds   []Refund // oldest first
	events    []events.Event
	givenBack map[string]int64                  // order id -> cents given back to the spending caps
	released  []string                          // orders whose spending was released
	relisted  []string                          // listings moved sold -> active
	accounts  map[string]payments.PayoutAccount // seller id -> payout account
	threads   []messaging.Thread
	messages  []messaging.Message // system messages posted
}

func newMemTx(os ...Order) *memTx {
	m := &memTx{orders: map[string]Order{}, givenBack: map[string]int64{}, accounts: map[string]payments.PayoutAccount{}}
	for _, o := range os {
		m.orders[o.ID] = o
	}
	return m
}

// clone is a copy for a transaction to roll back to.
func (m *memTx) clone() *memTx {
	return &memTx{orders: maps.Clone(m.orders), refunds: slices.Clone(m.refunds), events: slices.Clone(m.events),
		givenBack: maps.Clone(m.givenBack), released: slices.Clone(m.released), relisted: slices.Clone(m.relisted),
		accounts: maps.Clone(m.accounts), threads: slices.Clone(m.threads), messages: slices.Clone(m.messages)}
}

func (m *memTx) OrderByID(_ context.Context, id string) (*Order, error) {
	o, ok := m.orders[id]
	if !ok {
		return nil, market.NotFound("order")
	}
	return &o, nil
}

func (m *memTx) UpdateOrder(_ context.Context, o *Order, from Status) (bool, error) {
	cur, ok := m.orders[o.ID]
	if !ok || cur.Status != from {
		return false, nil
	}
	m.orders[o.ID] = *o
	return true, nil
}

func (m *memTx) CreateRefund(_ context.Context, r *Refund) error {
	for _, q := range m.refunds {
		if q.OrderID == r.OrderID && q.Status == RefundRequested && r.Status == RefundRequested {
			return market.Errorf(market.CodeInvalidState, "a refund request of this order is open already")
		}
	}
	m.refunds = append(m.refunds, *r)
	return nil
}

func (m *memTx) UpdateRefund(_ context.Context, r *Refund) error {
	for i := range m.refunds {
		if m.refunds[i].ID == r.ID {
			m.refunds[i] = *r
			return nil
		}
	}
	return market.NotFound("refund")
}

func (m *memTx) RefundByID(_ context.Context, id string) (*Refund, error) {
	for _, r := range m.refunds {
		if r.ID == id {
			return &r, nil
		}
	}
	return nil, market.NotFound("refund")
}

func (m *memTx) RefundsOf(_ context.Context, orderID string) ([]Refund, error) {
	var out []Refund
	for _, r := range m.refunds {
		if r.OrderID == orderID {
			out = append(out, r)
		}
	}
	return out, nil
}

func (m *memTx) RefundByIdempotencyKey(_ context.Context, orderID, ownerID, key string, since time.Time) (*Refund, error) {
	for i := len(m.refunds) - 1; i >= 0; i-- {
		r := m.refunds[i]
		if r.OrderID == orderID && r.IdemOwner == ownerID && r.IdemKey == key && !r.CreatedAt.Before(since) {
			return &r, nil
		}
	}
	return nil, market.NotFound("refund")
}

func (m *memTx) GiveBackSpend(_ context.Context, orderID string, amount int64) error {
	m.givenBack[orderID] += amount
	return nil
}

func (m *memTx) ReleaseSpend(_ context.Context, orderID string, _ time.Time) error {
	m.released = append(m.released, orderID)
	return nil
}

func (m *memTx) MoveListing(_ context.Context, id string, from []listings.Status, to listings.Status, _ time.Time) (bool, error) {
	if !slices.Equal(from, []listings.Status{listings.StatusSold}) || to != listings.StatusActive {
		panic("memTx: only sold -> active moves are expected")
	}
	m.relisted = append(m.relisted, id)
	return true, nil
}

// ListingByID is the relisted listing, back on sale.
func (m *memTx) ListingByID(_ context.Context, id string) (*listings.Listing, error) {
	return &listings.Listing{ID: id, Status: listings.StatusActive}, nil
}

// Watchers: nobody watches in these tests.
func (m *memTx) Watchers(context.Context, string) ([]string, error) { return nil, nil }

func (m *memTx) PayoutAccountOf(_ context.Context, userID string) (*payments.PayoutAccount, error) {
	a, ok := m.accounts[userID]
	if !ok {
		return nil, market.NotFound("payout account")
	}
	return &a, nil
}

func (m *memTx) AppendEvent(_ context.Context, e *events.Event) error {
	m.events = append(m.events, *e)
	return nil
}

// eventTypes lists the recorded events' types in order.
func (m *memTx) eventTypes() []string {
	var out []string
	for _, e := range m.events {
		out = append(out, e.Type)
	}
	return out
}

// memStore runs transactions on one memTx, rolling it back when the
// transaction fails.
type memStore struct{ tx *memTx }

func (s *memStore) InTx(_ context.Context, fn func(Tx) error) error {
	saved := s.tx.clone()
	err := fn(s.tx)
	if err != nil {
		*s.tx = *saved
	}
	return err
}

func (s *memStore) Read() Tx { return s.tx }

// memGateway is a processor that takes every refund, transfer and
// reversal, or refuses them all while failing is set, and records the
// amounts by idempotency key. onTransfer, when set, runs while a transfer
// is under way.
type memGateway struct {
	payments.Gateway
	failing    error
	refunds    map[string]int64 // idempotency key -> amount
	reversals  map[string]int64
	transfers  map[string]int64
	onTransfer func()
}

func newMemGateway() *memGateway {
	return &memGateway{refunds: map[string]int64{}, reversals: map[string]int64{}, transfers: map[string]int64{}}
}

func (g *memGateway) Transfer(_ context.Context, req payments.TransferRequest) (*payments.Transfer, error) {
	if g.failing != nil {
		return nil, g.failing
	}
	if g.onTransfer != nil {
		g.onTransfer()
	}
	g.transfers[req.IdempotencyKey] = req.Amount
	return &payments.Transfer{ID: "tr_" + req.IdempotencyKey, Destination: req.Destination, Amount: req.Amount}, nil
}

func (g *memGateway) Refund(_ context.Context, req payments.RefundRequest) (*payments.Refund, error) {
	if g.failing != nil {
		return nil, g.failing
	}
	g.refunds[req.IdempotencyKey] = req.Amount
	return &payments.Refund{ID: "re_" + req.IdempotencyKey, PaymentID: req.PaymentID, Amount: req.Amount, Status: "succeeded"}, nil
}

func (g *memGateway) ReverseTransfer(_ context.Context, req payments.TransferReversalRequest) (*payments.TransferReversal, error) {
	if g.failing != nil {
		return nil, g.failing
	}
	g.reversals[req.IdempotencyKey] = req.Amount
	return &payments.TransferReversal{ID: "trr_" + req.IdempotencyKey, TransferID: req.TransferID, Amount: req.Amount}, nil
}

// testNow is the service clock of the domain tests.
var testNow = time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)

// newMemService is an orders Service over tx and gw on a fixed clock.
func newMemService(tx *memTx, gw payments.Gateway) *Service {
	return NewService(&memStore{tx}, market.NewFixedClock(testNow), Options{Gateway: gw})
}

// soldOrder is the contract's example order (item 10000, shipping 800:
// fee 378, total 11178, commission 300), paid: the seller's payout is
// 10500 and the platform's fees 678.
func soldOrder(status Status) Order {
	paid := testNow.Add(-48 * time.Hour)
	return Order{ID: market.NewID(), ListingID: market.NewID(), BuyerID: "buyer-1", SellerID: "seller-1",
		Channel: ChannelAgent, BuyerKeyID: "key-1", Status: status, Fees: Compute(DefaultFeeRates, 10000, 800),
		Fulfillment: FulfillShipping, PaymentID: "pi_1", PaidAt: &paid, CreatedAt: paid, UpdatedAt: paid}
}

// EnsureThread and AddMessage keep the system messages order events post.
func (m *memTx) EnsureThread(_ context.Context, t *messaging.Thread) (*messaging.Thread, error) {
	for _, x := range m.threads {
		if x.ListingID == t.ListingID && x.BuyerID == t.BuyerID {
			return &x, nil
		}
	}
	m.threads = append(m.threads, *t)
	return t, nil
}

func (m *memTx) AddMessage(_ context.Context, msg *messaging.Message, _ *messaging.Thread) error {
	m.messages = append(m.messages, *msg)
	return nil
}
