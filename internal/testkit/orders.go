package testkit

import (
	"maps"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"marketplace/internal/store"
)

// SaveCard saves a payment method for u from a sandbox test token
// (pm_card_visa, pm_card_chargeDeclined, pm_card_authenticationRequired)
// and returns its id.
func (s *Server) SaveCard(u *User, token string) string {
	s.T.Helper()
	si := s.Do("POST", "/api/v1/payment-methods/setup", nil, u.Auth()).Want(s.T, http.StatusOK, "")
	r := s.Do("POST", "/api/v1/payment-methods/confirm", map[string]any{
		"setupIntentId": si.Data()["setupIntentId"], "paymentMethod": token,
	}, u.Auth()).Want(s.T, http.StatusCreated, "")
	return r.Data()["id"].(string)
}

// Shopper is an owner ready to buy through an agent: verified, with a card
// on file and a buy_sell key.
type Shopper struct {
	*User
	Key *Key
}

// NewShopper makes a Shopper whose card is the given sandbox token.
func (s *Server) NewShopper(name, cardToken string) *Shopper {
	s.T.Helper()
	u := s.VerifiedOwner(name)
	s.SaveCard(u, cardToken)
	return &Shopper{User: u, Key: s.NewKey(u, "buy_sell")}
}

// Address is a valid US shipping address for purchase bodies.
func Address() map[string]any {
	return map[string]any{"name": "Ada Buyer", "line1": "1 Main St", "city": "Portland", "state": "OR", "zip": "97201", "country": "US"}
}

// ActiveListing creates an active listing at price cents with free shipping
// for seller, and returns its id.
func (s *Server) ActiveListing(seller *User, brief string, price int64) string {
	s.T.Helper()
	return s.ListingWith(s.T, seller, brief, price, nil)
}

// ListingWith creates an active listing by seller at price cents, failing
// t otherwise; extra replaces the defaults (free shipping, condition good).
func (s *Server) ListingWith(t testing.TB, seller *User, brief string, price int64, extra map[string]any) string {
	t.Helper()
	fields := map[string]any{"price": price, "condition": "good", "shippingType": "free"}
	maps.Copy(fields, extra)
	r := s.CreateListing(seller.Auth(), brief, fields).Want(t, http.StatusCreated, "")
	if st := r.Data()["status"]; st != "active" {
		t.Fatalf("listing is %v, want active", st)
	}
	return r.Data()["id"].(string)
}

// Drop, as a value in Body's pairs, removes that field.
var Drop = dropT{}

type dropT struct{}

// Body is base with kv pairs set (or, with Drop, removed): request bodies
// that differ from a good one in a field or two.
func Body(base map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		if _, ok := kv[i+1].(dropT); ok {
			delete(base, kv[i].(string))
		} else {
			base[kv[i].(string)] = kv[i+1]
		}
	}
	return base
}

// Obj is m[key] as a JSON object, failing t otherwise.
func Obj(t testing.TB, m map[string]any, key string) map[string]any {
	t.Helper()
	v, ok := m[key].(map[string]any)
	if !ok {
		t.Fatalf("%s = %#v, want an object (in %v)", key, m[key], m)
	}
	return v
}

// Num is m[key] as a JSON integer, failing t otherwise.
func Num(t testing.TB, m map[string]any, key string) int64 {
	t.Helper()
	v, ok := m[key].(float64)
	if !ok {
		t.Fatalf("%s = %#v, want a number (in %v)", key, m[key], m)
	}
	return int64(v)
}

// Cents formats an amount for messages.
func Cents(n int64) string { return strconv.FormatInt(n, 10) }

// Charges counts the payments the sandbox processor took: tests of failed
// purchases prove with it that nothing was charged.
func (s *Server) Charges() int64 {
	s.T.Helper()
	var n int64
	err := s.App.DB.WritePool().QueryRowContext(s.T.Context(),
		"SELECT COUNT(*) FROM sandbox_payments WHERE status = 'succeeded'").Scan(&n)
	if err != nil {
		s.T.Fatal(err)
	}
	return n
}

// SetControls changes owner's spending controls (PUT /spending-controls).
func (s *Server) SetControls(owner *User, body map[string]any) {
	s.T.Helper()
	s.Do("PUT", "/api/v1/spending-controls", body, owner.Auth()).Want(s.T, http.StatusOK, "")
}

// Money is what the sandbox processor moved: charged (succeeded payments),
// refunded and transferred to sellers net of transfer reversals (PaidOut),
// in cents; Reversed is what the reversals took back from sellers.
type Money struct{ Charged, Refunded, PaidOut, Reversed int64 }

// Revenue is what the platform kept: the charges less the refunds and the
// sellers' net payouts (money still held for a payout counts here too).
func (m Money) Revenue() int64 { return m.Charged - m.Refunded - m.PaidOut }

// Ledger sums the sandbox processor's records.
func (s *Server) Ledger() Money {
	s.T.Helper()
	var m Money
	err := s.App.DB.WritePool().QueryRowContext(s.T.Context(), `SELECT
		(SELECT COALESCE(SUM(amount), 0) FROM sandbox_payments WHERE status = 'succeeded'),
		(SELECT COALESCE(SUM(amount), 0) FROM sandbox_refunds),
		(SELECT COALESCE(SUM(amount - reversed), 0) FROM sandbox_transfers),
		(SELECT COALESCE(SUM(reversed), 0) FROM sandbox_transfers)`).Scan(&m.Charged, &m.Refunded, &m.PaidOut, &m.Reversed)
	if err != nil {
		s.T.Fatal(err)
	}
	return m
}

// OrderLedger is Ledger for one order: its charges (keyed by the order id)
// and how many there were, its refunds, and its payout transfer net of
// reversals. Property tests check each order's books on their own while
// the sweeps move other orders' money.
func (s *Server) OrderLedger(orderID string) (m Money, charges int64) {
	s.T.Helper()
	q := `SELECT
		(SELECT COALESCE(SUM(amount), 0) FROM sandbox_payments WHERE status = 'succeeded' AND idempotency_key = $1),
		(SELECT COUNT(*) FROM sandbox_payments WHERE status = 'succeeded' AND idempotency_key = $1),
		(SELECT COALESCE(SUM(r.amount), 0) FROM sandbox_refunds r JOIN sandbox_payments p ON p.id = r.payment_id
			WHERE p.idempotency_key = $1),
		(SELECT COALESCE(SUM(amount - reversed), 0) FROM sandbox_transfers WHERE idempotency_key = 'payout-' || $1),
		(SELECT COALESCE(SUM(reversed), 0) FROM sandbox_transfers WHERE idempotency_key = 'payout-' || $1)`
	if s.App.DB.Dialect() == store.SQLite {
		q = strings.ReplaceAll(q, "$1", "?1") // SQLite's numbered parameter
	}
	err := s.App.DB.WritePool().QueryRowContext(s.T.Context(), q, orderID).
		Scan(&m.Charged, &charges, &m.Refunded, &m.PaidOut, &m.Reversed)
	if err != nil {
		s.T.Fatal(err)
	}
	return m, charges
}
