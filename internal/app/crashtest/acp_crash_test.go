package crashtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"marketplace/internal/httpapi/acp/acpcheck"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/testkit"
)

// TestACPCrashDuringComplete is TestCrashDuringPurchase through the
// Agentic Commerce Protocol (CONTRACT.md section 18): an agent key opens a
// checkout session on /acp, gives it an address and a shipping option, and
// completes it with its owner's saved card; the server is killed with
// SIGKILL in the middle of that complete, after the charge and before the
// order is settled, or at the charge, and restarted on the same store. The
// agent's retry of the complete, with the same Idempotency-Key or with a
// new one, gets the session completed with the order the first run made:
// one order for the listing, charged once.
func TestACPCrashDuringComplete(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			s := testkit.Start(t, e.db, testkit.Options{})
			seller := s.VerifiedOwner("Sella")
			buyer := s.NewShopper("Bree", "pm_card_visa")
			secret := s.App.Config.JWTSecret
			for _, point := range []string{"settle", "charge"} {
				for _, newKey := range []bool{false, true} {
					name := "killed before " + point + ", retried with the same key"
					if newKey {
						name = "killed before " + point + ", retried with a new key"
					}
					t.Run(name, func(t *testing.T) {
						listing := s.ListingWith(t, seller, "brass desk lamp with a green glass shade", 4500,
							map[string]any{"shippingType": "flat_rate", "shippingCost": 899})
						chargesBefore := s.Charges()

						first := start(t, e, secret, point)
						c := &acpClient{t: t, key: buyer.Key.Secret}
						id, total := c.readySession(first, listing)
						path := "/acp/checkout_sessions/" + id + "/complete"
						key := "crash-complete-" + market.NewID()
						type outcome struct {
							a   *acpAnswer
							err error
						}
						killed := make(chan outcome, 1)
						go func() {
							a, err := c.request(first, "POST", path, key, acpSavedCard())
							killed <- outcome{a, err}
						}()
						var orderID string
						select {
						case orderID = <-first.hangs:
						case o := <-killed:
							if o.err != nil {
								t.Fatalf("the complete failed before the hang point: %v\n%s", o.err, first.log())
							}
							t.Fatalf("the complete answered %d before the hang point: %s\n%s", o.a.status, o.a.raw, first.log())
						case <-time.After(30 * time.Second):
							t.Fatalf("the server did not reach the hang point within 30s:\n%s", first.log())
						}
						first.kill()
						if o := <-killed; o.err == nil {
							t.Fatalf("the complete answered %d %s although its server was killed", o.a.status, o.a.raw)
						}
						// The kill came where it was meant to: after the
						// charge, or before it.
						_, charged := s.OrderLedger(orderID)
						if want := map[string]int64{"settle": 1, "charge": 0}[point]; charged != want {
							t.Fatalf("killed before %s: order %s has %d charges, want %d", point, orderID, charged, want)
						}

						second := start(t, e, secret, "")
						retryKey := key
						if newKey {
							retryKey = "crash-retry-" + market.NewID()
						}
						began := time.Now()
						retry, waits := c.retry(second, path, retryKey, acpSavedCard())
						t.Logf("the retry answered %d after %v (%d answers in flight before it)",
							retry.status, time.Since(began).Round(time.Millisecond), waits)
						retry.wantCompleted(t, id, orderID, second)
						if got := retry.total(t, "total"); got != total {
							t.Fatalf("the completed session's total is %d, was %d when ready", got, total)
						}
						if m, n := s.OrderLedger(orderID); n != 1 || m.Charged != total {
							t.Fatalf("order %s: %d charges of %d in all, want one of the session's total %d", orderID, n, m.Charged, total)
						}
						if got := s.Charges(); got != chargesBefore+1 {
							t.Fatalf("%d charges in all after the retry, want %d", got, chargesBefore+1)
						}
						if n := ordersOf(t, e.db, listing); n != 1 {
							t.Fatalf("%d orders for listing %s, want 1", n, listing)
						}

						// The answer is stored under the retry's key: it replays.
						replay := c.send(second, "POST", path, retryKey, acpSavedCard())
						if replay.header.Get("Idempotent-Replayed") != "true" {
							t.Fatalf("the retry's key again: not replayed: %d %s", replay.status, replay.raw)
						}
						replay.wantCompleted(t, id, orderID, second)
						if newKey {
							// The killed complete's own key, retried now, takes
							// its dead claim over and answers the same order.
							late, _ := c.retry(second, path, key, acpSavedCard())
							late.wantCompleted(t, id, orderID, second)
						}
						got := c.send(second, "GET", "/acp/checkout_sessions/"+id, "", nil)
						got.wantCompleted(t, id, orderID, second)
						if m, n := s.OrderLedger(orderID); n != 1 || m.Charged != total || s.Charges() != chargesBefore+1 ||
							ordersOf(t, e.db, listing) != 1 {
							t.Fatalf("after the replays: order %s has %d charges of %d, %d charges in all, %d orders for the listing",
								orderID, n, m.Charged, s.Charges(), ordersOf(t, e.db, listing))
						}
						second.kill()
					})
				}
			}
		})
	}
}

// acpClient speaks ACP to a child server with an agent key, checking each
// request and answer against ACP 2026-04-17's schemas.
type acpClient struct {
	t   *testing.T
	key string // the agent key: Authorization: Bearer
}

type acpAnswer struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// send makes one ACP request to s and checks it and its answer against
// ACP's schemas; key is its Idempotency-Key ("" for none). A request that
// gets no answer fails the test.
func (c *acpClient) send(s *server, method, path, key string, body any) *acpAnswer {
	c.t.Helper()
	if body != nil {
		raw, _ := json.Marshal(body)
		check := acpcheck.UpdateRequest
		switch {
		case path == "/acp/checkout_sessions":
			check = acpcheck.CreateRequest
		case strings.HasSuffix(path, "/complete"):
			check = acpcheck.CompleteRequest
		}
		if err := check(raw); err != nil {
			c.t.Fatalf("%s %s: the request breaks ACP's schema: %v\n%s", method, path, err, raw)
		}
	}
	a, err := c.request(s, method, path, key, body)
	if err != nil {
		c.t.Fatalf("%s %s: %v\n%s", method, path, err, s.log())
	}
	if a.body == nil {
		c.t.Fatalf("%s %s: answer %d is not a JSON object\n%s", method, path, a.status, a.raw)
	}
	check := acpcheck.CheckoutSession
	if a.status >= 400 {
		check = acpcheck.Error
	}
	if err := check(a.raw); err != nil {
		c.t.Fatalf("%s %s: answer %d breaks ACP's schema: %v\n%s", method, path, a.status, err, a.raw)
	}
	if key != "" && a.status < 500 && a.header.Get("Idempotency-Key") != key {
		c.t.Fatalf("%s %s: Idempotency-Key echoed as %q, sent %q", method, path, a.header.Get("Idempotency-Key"), key)
	}
	return a
}

// request sends one ACP request to s, with ACP's headers; an error is a
// request that got no answer. It does not touch the test (a goroutine may
// call it).
func (c *acpClient) request(s *server, method, path, key string, body any) (*acpAnswer, error) {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequest(method, s.url+path, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("API-Version", "2026-04-17")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	a := &acpAnswer{status: resp.StatusCode, header: resp.Header}
	if a.raw, err = io.ReadAll(resp.Body); err != nil {
		return nil, err
	}
	_ = json.Unmarshal(a.raw, &a.body) // send checks it is an object
	return a, nil
}

// must is send with an answer of status required.
func (c *acpClient) must(s *server, method, path string, body any, status int) *acpAnswer {
	c.t.Helper()
	a := c.send(s, method, path, "key-"+market.NewID(), body)
	if a.status != status {
		c.t.Fatalf("%s %s: %d %s, want %d", method, path, a.status, a.raw, status)
	}
	return a
}

// readySession opens a session on s for listing, gives it the buyer's
// address and picks a shipping option, and returns its id and total once
// it is ready for payment.
func (c *acpClient) readySession(s *server, listing string) (string, int64) {
	c.t.Helper()
	created := c.must(s, "POST", "/acp/checkout_sessions", map[string]any{
		"line_items": []any{map[string]any{"id": listing}}, "currency": "usd", "capabilities": map[string]any{}}, http.StatusCreated)
	id, _ := created.body["id"].(string)
	if id == "" || created.body["status"] == "ready_for_payment" {
		c.t.Fatalf("a new session without an address: %s", created.raw)
	}
	withAddress := c.must(s, "POST", "/acp/checkout_sessions/"+id, map[string]any{"fulfillment_details": map[string]any{
		"name": "Bree Buyer", "email": "bree@example.com", "address": map[string]any{"name": "Bree Buyer",
			"line_one": "1 Main St", "city": "Portland", "state": "OR", "country": "US", "postal_code": "97201"}}}, http.StatusOK)
	var pick map[string]any
	for _, o := range withAddress.list("fulfillment_options") {
		if o, _ := o.(map[string]any); o["type"] == "shipping" && pick == nil {
			pick = o
		}
	}
	items := withAddress.list("line_items")
	if pick == nil || len(items) != 1 {
		c.t.Fatalf("no shipping option, or not one line item: %s", withAddress.raw)
	}
	item := items[0].(map[string]any)["id"]
	ready := c.must(s, "POST", "/acp/checkout_sessions/"+id, map[string]any{"selected_fulfillment_options": []any{
		map[string]any{"type": "shipping", "option_id": pick["id"], "item_ids": []any{item}}}}, http.StatusOK)
	if ready.body["status"] != "ready_for_payment" || ready.total(c.t, "fulfillment") <= 0 {
		c.t.Fatalf("with an address and a paid shipping option: %s", ready.raw)
	}
	return id, ready.total(c.t, "total")
}

// retry sends a POST to s until it is not answered 409
// idempotency_in_flight, waiting the Retry-After each such answer gives
// (an earlier claim of the key may be held until its lease runs out), and
// fails if that takes over 30 s: a key stuck in flight. It returns the
// answer and how many in-flight answers came before it.
func (c *acpClient) retry(s *server, path, key string, body any) (*acpAnswer, int) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for waits := 0; ; waits++ {
		a := c.send(s, "POST", path, key, body)
		if a.status != http.StatusConflict {
			return a, waits
		}
		after, err := strconv.Atoi(a.header.Get("Retry-After"))
		if a.body["code"] != "idempotency_in_flight" || err != nil || after < 1 {
			c.t.Fatalf("POST %s: 409 %s with Retry-After %q, want idempotency_in_flight with a Retry-After in seconds",
				path, a.raw, a.header.Get("Retry-After"))
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("POST %s: still idempotency_in_flight after 30 s (%d answers): the killed request's claim is stuck\n%s",
				path, waits+1, s.log())
		}
		time.Sleep(time.Duration(after) * time.Second)
	}
}

// acpSavedCard is complete's payment data for the key owner's saved card.
func acpSavedCard() map[string]any {
	return map[string]any{"payment_data": map[string]any{"handler_id": "saved_payment_method",
		"instrument": map[string]any{"type": "card", "credential": map[string]any{"type": "saved_payment_method", "token": "default"}}}}
}

func (a *acpAnswer) list(k string) []any {
	l, _ := a.body[k].([]any)
	return l
}

// total is the session total of type typ.
func (a *acpAnswer) total(t *testing.T, typ string) int64 {
	t.Helper()
	for _, x := range a.list("totals") {
		if m, _ := x.(map[string]any); m["type"] == typ {
			if f, ok := m["amount"].(float64); ok {
				return int64(f)
			}
		}
	}
	t.Fatalf("no %s total in %s", typ, a.raw)
	return 0
}

// wantCompleted fails unless a is 200 with session id completed, its
// order orderID.
func (a *acpAnswer) wantCompleted(t *testing.T, id, orderID string, s *server) {
	t.Helper()
	order, _ := a.body["order"].(map[string]any)
	if a.status != http.StatusOK || a.body["status"] != "completed" || a.body["id"] != id || order == nil ||
		order["id"] != orderID || order["checkout_session_id"] != id {
		t.Fatalf("got %d %s, want session %s completed with order %s\n%s", a.status, a.raw, id, orderID, s.log())
	}
}

// ordersOf counts the orders for listing in the store.
func ordersOf(t *testing.T, db *store.DB, listing string) int64 {
	t.Helper()
	q := "SELECT COUNT(*) FROM orders WHERE listing_id = $1"
	if db.Dialect() == store.SQLite {
		q = strings.ReplaceAll(q, "$1", "?1")
	}
	var n int64
	if err := db.WritePool().QueryRowContext(t.Context(), q, listing).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
