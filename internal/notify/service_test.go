package notify_test

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/notify"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

var t0 = time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)

// queue records the mails scheduled for sending.
type queue struct{ ids []string }

func (q *queue) EnqueueMail(_ context.Context, _ notify.Tx, id string) error {
	q.ids = append(q.ids, id)
	return nil
}

type fixture struct {
	t     *testing.T
	db    *store.DB
	queue *queue
	svc   *notify.Service
}

// newFixture builds the channel on a fresh store with opts, and makes it
// the store's mail sink as the app does.
func newFixture(t *testing.T, opts notify.Options) *fixture {
	db := storetest.OpenSQLite(t)
	q := &queue{}
	if opts.Queue == nil {
		opts.Queue = q
	}
	opts.PublicURL = "https://market.example"
	svc, err := notify.NewService(store.Notify(db), market.NewFixedClock(t0), opts)
	if err != nil {
		t.Fatal(err)
	}
	db.OnEvent("mail", func(ctx context.Context, tx *store.Tx, e *events.Event) error { return svc.Sink(ctx, tx, e) })
	return &fixture{t: t, db: db, queue: q, svc: svc}
}

func (f *fixture) user(name string) *accounts.User {
	f.t.Helper()
	id := market.NewID()
	u := &accounts.User{ID: id, Email: strings.ToLower(name) + "@example.com", Username: strings.ToLower(name), DisplayName: name,
		Role: accounts.RoleUser, Status: accounts.StatusActive, TrustTier: accounts.TierNew, CreatedAt: t0, UpdatedAt: t0}
	if err := f.db.InTx(context.Background(), func(tx *store.Tx) error { return tx.CreateUser(context.Background(), u) }); err != nil {
		f.t.Fatal(err)
	}
	return u
}

func (f *fixture) listing(sellerID, title string) *listings.Listing {
	f.t.Helper()
	l := &listings.Listing{ID: market.NewID(), SellerID: sellerID, Status: listings.StatusActive, Title: title, Description: "d",
		Brief: "b", Price: 5000, PriceSource: "seller", Condition: "good", CategoryID: "c1", ShippingType: listings.ShipFree,
		WeightOz: 32, Dimensions: listings.Dimensions{L: 12, W: 10, H: 6}, PhotoIDs: []string{}, CreatedAt: t0, UpdatedAt: t0}
	if err := f.db.InTx(context.Background(), func(tx *store.Tx) error { return tx.CreateListing(context.Background(), l) }); err != nil {
		f.t.Fatal(err)
	}
	return l
}

// record records a public event for to, as the areas do.
func (f *fixture) record(typ string, data map[string]any, to ...string) {
	f.t.Helper()
	ctx := context.Background()
	if err := f.db.InTx(ctx, func(tx *store.Tx) error {
		return events.Record(ctx, tx, t0, market.System, typ, "order", market.NewID(), data, to...)
	}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) outbox(u *accounts.User) []notify.Mail {
	f.t.Helper()
	m, err := f.svc.Outbox(context.Background(), u.ID, 100)
	if err != nil {
		f.t.Fatal(err)
	}
	return m
}

// TestWhoGetsWhichMail: each recipient of a mailed event gets the mail
// written for their side, once, to their address; events that make no
// mail, and readers a mail says nothing to, get none.
func TestWhoGetsWhichMail(t *testing.T) {
	f := newFixture(t, notify.Options{})
	buyer, seller, watcher := f.user("Bea"), f.user("Sol"), f.user("Wes")
	lamp := f.listing(seller.ID, "Brass lamp")
	order := map[string]any{"orderId": "o1", "listingId": lamp.ID, "buyerId": buyer.ID, "sellerId": seller.ID,
		"itemPrice": int64(8345), "totalCharged": int64(8637)}

	// The buyer named twice still gets one mail.
	f.record("order.created", order, buyer.ID, seller.ID, buyer.ID)
	b, s := f.outbox(buyer), f.outbox(seller)
	if len(b) != 1 || len(s) != 1 {
		t.Fatalf("order.created: buyer %d mails, seller %d; want 1 each", len(b), len(s))
	}
	for _, c := range []struct {
		m       notify.Mail
		u       *accounts.User
		subject string
	}{
		{b[0], buyer, "Order placed: Brass lamp ($86.37)"},
		{s[0], seller, "You sold Brass lamp for $83.45"},
	} {
		if c.m.To != c.u.Email || c.m.UserID != c.u.ID || c.m.Kind != "order.created" || c.m.EventID == "" || c.m.Subject != c.subject ||
			c.m.Status != notify.StatusKept || !strings.Contains(c.m.Text, "https://market.example/api/v1/orders/o1") || c.m.HTML == "" {
			t.Errorf("mail to %s: %+v", c.u.DisplayName, c.m)
		}
	}

	// Not mailed: the seller is the actor of listing.created.
	f.record("listing.created", map[string]any{"listingId": lamp.ID, "sellerId": seller.ID}, seller.ID)
	// listing.updated goes to watchers, never to its seller.
	f.record("listing.updated", map[string]any{"listingId": lamp.ID, "sellerId": seller.ID, "price": int64(4000),
		"previousPrice": int64(5000), "priceDrop": true}, seller.ID, watcher.ID)
	// An internal type is in nobody's mail.
	f.record("user.registered", nil, buyer.ID)
	if got := len(f.outbox(seller)); got != 1 {
		t.Errorf("the seller has %d mails, want 1", got)
	}
	if got := len(f.outbox(buyer)); got != 1 {
		t.Errorf("the buyer has %d mails, want 1", got)
	}
	w := f.outbox(watcher)
	if len(w) != 1 || w[0].Subject != "Price drop: Brass lamp now $40.00 (was $50.00)" ||
		!strings.Contains(w[0].Text, "https://market.example/api/v1/listings/"+lamp.ID) {
		t.Errorf("watcher: %+v", w)
	}

	// A recipient whose account is gone is skipped; the others still get
	// theirs. The title falls back when the listing is unknown.
	f.record("offer.received", map[string]any{"offerId": "f1", "listingId": market.NewID(), "amount": int64(4000),
		"buyerId": buyer.ID, "sellerId": seller.ID}, market.NewID(), seller.ID)
	s = f.outbox(seller)
	if len(s) != 2 || s[0].Subject != "New offer of $40.00 on your listing" || !strings.Contains(s[0].Text, "/api/v1/offers/f1") {
		t.Errorf("offer mail: %+v", s[0])
	}
}

// TestPreferences: a category's e-mail switch stops its mails and nothing
// else; UpdatePrefs changes only what it names and refuses unknown
// categories and channels whole.
func TestPreferences(t *testing.T) {
	f := newFixture(t, notify.Options{})
	ctx := context.Background()
	u, other := f.user("Pru"), f.user("Ola")
	p, err := f.svc.Prefs(ctx, u.ID)
	if err != nil || len(p) != len(events.Categories) {
		t.Fatalf("defaults: %v %v", p, err)
	}
	for _, c := range events.Categories {
		if !p[c].Email || !p[c].Webhook {
			t.Errorf("default %s: %+v", c, p[c])
		}
	}
	got, err := f.svc.UpdatePrefs(ctx, u.ID, notify.PrefsChange{events.CategoryOrders: {events.ChannelEmail: false}})
	if err != nil || got[events.CategoryOrders] != (events.Switches{Email: false, Webhook: true}) || !got[events.CategoryOffers].Email {
		t.Fatalf("update: %v %v", got, err)
	}
	// A later change keeps the earlier one.
	got, _ = f.svc.UpdatePrefs(ctx, u.ID, notify.PrefsChange{events.CategoryOrders: {events.ChannelWebhook: false}})
	if got[events.CategoryOrders] != (events.Switches{}) {
		t.Errorf("second update: %+v", got[events.CategoryOrders])
	}

	for _, tc := range []struct {
		name   string
		change notify.PrefsChange
		fields []string
	}{
		{"unknown category", notify.PrefsChange{"weather": {"email": true}}, []string{"categories.weather"}},
		{"unknown channel", notify.PrefsChange{events.CategoryOffers: {"sms": true, "email": false}}, []string{"categories.offers.sms"}},
		{"several", notify.PrefsChange{"weather": {"email": true}, events.CategoryOffers: {"push": true}},
			[]string{"categories.offers.push", "categories.weather"}},
	} {
		_, err := f.svc.UpdatePrefs(ctx, u.ID, tc.change)
		e := market.ErrorOf(err)
		var fields []string
		for _, fe := range e.Fields {
			fields = append(fields, fe.Field)
		}
		if e.Code != market.CodeValidation || !slices.Equal(fields, tc.fields) {
			t.Errorf("%s: %v, fields %v; want %v", tc.name, err, fields, tc.fields)
		}
	}
	if p, _ := f.svc.Prefs(ctx, u.ID); !p[events.CategoryOffers].Email {
		t.Error("a refused change saved part of itself")
	}

	order := map[string]any{"orderId": "o1", "buyerId": u.ID, "sellerId": other.ID, "listingTitle": "Kettle"}
	f.record("order.shipped", order, u.ID, other.ID)
	f.record("offer.accepted", map[string]any{"offerId": "f1", "buyerId": u.ID, "sellerId": other.ID, "agreedPrice": int64(7000),
		"listingTitle": "Kettle"}, u.ID)
	m := f.outbox(u)
	if len(m) != 1 || m[0].Kind != "offer.accepted" || m[0].Subject != "Offer accepted: Kettle at $70.00" {
		t.Errorf("with order e-mail off: %+v", m)
	}
	if len(f.outbox(other)) != 1 {
		t.Error("one person's preferences stopped another's mail")
	}
}

// TestQueueing: mails are only kept without an SMTP server; with one and
// a queue, each is queued and scheduled in its transaction.
func TestQueueing(t *testing.T) {
	kept := newFixture(t, notify.Options{SMTP: "smtp://127.0.0.1:1", Queue: nil})
	if !kept.svc.Sending() {
		t.Fatal("not sending with an SMTP server")
	}
	u := kept.user("Kai")
	kept.record("order.delivered", map[string]any{"orderId": "o1", "buyerId": u.ID, "listingTitle": "Kettle"}, u.ID)
	if m := kept.outbox(u); len(m) != 1 || m[0].Status != notify.StatusQueued || len(kept.queue.ids) != 1 || kept.queue.ids[0] != m[0].ID {
		t.Errorf("with SMTP: %+v, queued %v", m, kept.queue.ids)
	}

	none := newFixture(t, notify.Options{})
	v := none.user("Vi")
	none.record("order.delivered", map[string]any{"orderId": "o1", "buyerId": v.ID, "listingTitle": "Kettle"}, v.ID)
	if m := none.outbox(v); len(m) != 1 || m[0].Status != notify.StatusKept || len(none.queue.ids) != 0 || none.svc.Sending() {
		t.Errorf("without SMTP: %+v, queued %v", m, none.queue.ids)
	}
	if err := none.svc.Deliver(context.Background(), none.outbox(v)[0].ID, true); err != nil {
		t.Errorf("deliver without SMTP: %v", err)
	}

	for _, bad := range []string{"http://mail.example.com", "smtp://", "not a url\x7f"} {
		if _, err := notify.NewService(store.Notify(none.db), market.NewFixedClock(t0), notify.Options{SMTP: bad}); err == nil {
			t.Errorf("SMTP URL %q accepted", bad)
		}
	}
}

// TestDeliverFailure: a failed send is recorded on the mail and returned
// (the job retries); only the final attempt marks the mail failed.
func TestDeliverFailure(t *testing.T) {
	// A port nothing listens on: the connection is refused at once.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	f := newFixture(t, notify.Options{SMTP: "smtp://" + addr, From: "Market <no-reply@example.com>"})
	ctx := context.Background()
	u := f.user("Dee")
	f.record("order.cancelled", map[string]any{"orderId": "o1", "buyerId": u.ID, "listingTitle": "Kettle"}, u.ID)
	id := f.outbox(u)[0].ID
	if err := f.svc.Deliver(ctx, id, false); err == nil {
		t.Fatal("a refused connection delivered")
	}
	if m := f.outbox(u)[0]; m.Status != notify.StatusQueued || m.Attempts != 1 || m.LastError == "" || m.SentAt != nil {
		t.Errorf("after a failed attempt: %+v", m)
	}
	if err := f.svc.Deliver(ctx, id, true); err == nil {
		t.Fatal("the final attempt delivered")
	}
	if m := f.outbox(u)[0]; m.Status != notify.StatusFailed || m.Attempts != 2 {
		t.Errorf("after the final attempt: %+v", m)
	}
	if err := f.svc.Deliver(ctx, market.NewID(), true); err != nil {
		t.Errorf("an unknown mail: %v", err)
	}
}

// TestDirectMails: the onboarding link goes to an address that may have
// no account yet, and is in that account's outbox once it exists; the
// payout link greets the user by name.
func TestDirectMails(t *testing.T) {
	f := newFixture(t, notify.Options{})
	ctx := context.Background()
	o := &agents.Onboarding{OwnerEmail: "newbie@example.com", OwnerFirstName: "Nia", AgentLabel: "ShopBot", ExpiresAt: t0.Add(24 * time.Hour)}
	if err := f.db.InTx(ctx, func(tx *store.Tx) error {
		return f.svc.OnboardingLink(ctx, tx, o, "https://market.example/onboard?t=abc")
	}); err != nil {
		t.Fatal(err)
	}
	nia := f.user("Newbie")
	m := f.outbox(nia)
	if len(m) != 1 || m[0].UserID != "" || m[0].To != "newbie@example.com" || m[0].Kind != notify.KindOnboardingLink ||
		!strings.Contains(m[0].Subject, "ShopBot") || !strings.Contains(m[0].Text, "https://market.example/onboard?t=abc") {
		t.Fatalf("onboarding mail: %+v", m)
	}
	other := f.user("Else")
	if len(f.outbox(other)) != 0 {
		t.Error("another account sees the onboarding mail")
	}

	if err := f.db.InTx(ctx, func(tx *store.Tx) error {
		return f.svc.PayoutLink(ctx, tx, other.ID, "payouts@example.org", "https://connect.example/x")
	}); err != nil {
		t.Fatal(err)
	}
	m = f.outbox(other)
	if len(m) != 1 || m[0].UserID != other.ID || m[0].To != "payouts@example.org" || m[0].Kind != notify.KindPayoutLink ||
		!strings.Contains(m[0].Text, "Else") || !strings.Contains(m[0].Text, "https://connect.example/x") {
		t.Errorf("payout mail: %+v", m)
	}
}
