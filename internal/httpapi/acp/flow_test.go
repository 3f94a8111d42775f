package acp_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"marketplace/internal/testkit"
)

// TestACPAgentFlow walks an ACP agent through a purchase with its owner's
// agent key: discovery, a session, an address, a shipping option, the
// owner's saved card, and the order that results, the same order (and
// charge) the purchase path makes.
func TestACPAgentFlow(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("Selma")
		buyer := s.NewShopper("Bruno", "pm_card_visa")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000})
		listing := s.ListingWith(t, seller, "walnut cutting board end grain large", 4500,
			map[string]any{"shippingType": "calculated"})
		c := newClient(t, s, buyer.Key.Secret)

		d := c.send("GET", "/.well-known/acp.json", "", nil).want(t, http.StatusOK, "")
		if d.JSON["api_base_url"] != s.URL+"/acp" {
			t.Errorf("api_base_url %v", d.JSON["api_base_url"])
		}

		created := c.send("POST", "/acp/checkout_sessions", "new", map[string]any{
			"line_items": []any{map[string]any{"id": listing}}, "currency": "usd", "capabilities": map[string]any{},
			"buyer": map[string]any{"first_name": "Bruno", "email": "bruno@example.com"}}).want(t, http.StatusCreated, "")
		id := created.id()
		if created.status() != "incomplete" || len(created.list("fulfillment_options")) != 0 {
			t.Fatalf("a session without an address: %s", created.Body)
		}
		li := created.list("line_items")[0].(map[string]any)
		if li["unit_amount"].(float64) != 4500 || li["quantity"].(float64) != 1 || li["name"] == "" {
			t.Fatalf("line item %v", li)
		}

		withAddress := c.send("POST", "/acp/checkout_sessions/"+id, "new", map[string]any{
			"fulfillment_details": map[string]any{"name": "Bruno", "address": acpAddress()}}).want(t, http.StatusOK, "")
		opts := withAddress.list("fulfillment_options")
		if withAddress.status() != "incomplete" || len(opts) < 2 {
			t.Fatalf("with an address: %s", withAddress.Body)
		}
		// The options keep their ids when quoted again for the same address.
		again := c.send("GET", "/acp/checkout_sessions/"+id, "", nil).want(t, http.StatusOK, "")
		if again.list("fulfillment_options")[1].(map[string]any)["id"] != opts[1].(map[string]any)["id"] {
			t.Fatalf("option ids changed between reads")
		}
		pick := opts[1].(map[string]any)
		ready := c.send("POST", "/acp/checkout_sessions/"+id, "new", map[string]any{"selected_fulfillment_options": []any{
			map[string]any{"type": "shipping", "option_id": pick["id"], "item_ids": []any{li["id"]}}}}).want(t, http.StatusOK, "")
		if ready.status() != "ready_for_payment" {
			t.Fatalf("with an option: %s", ready.Body)
		}
		shipping := ready.total("fulfillment")
		if shipping <= 0 || ready.total("total") != 4500+shipping+ready.total("fee") || ready.total("fee") <= 0 {
			t.Fatalf("totals %v", ready.list("totals"))
		}

		done := c.send("POST", "/acp/checkout_sessions/"+id+"/complete", "new", savedCard()).want(t, http.StatusOK, "")
		if done.status() != "completed" {
			t.Fatalf("complete: %s", done.Body)
		}
		order := done.JSON["order"].(map[string]any)
		orderID := order["id"].(string)
		if order["checkout_session_id"] != id || order["permalink_url"] != s.URL+"/orders/"+orderID {
			t.Fatalf("order %v", order)
		}
		// The buyer's own API shows the order, charged the session's total.
		o := s.Do("GET", "/api/v1/orders/"+orderID, nil, buyer.Auth()).Want(t, http.StatusOK, "").Data()
		if testkit.Num(t, testkit.Obj(t, o, "fees"), "totalCharged") != ready.total("total") || o["status"] != "paid" {
			t.Fatalf("the order: %v", o)
		}
		if s.Charges() != 1 {
			t.Fatalf("%d charges", s.Charges())
		}
		// A session completes once: another complete answers it as it is.
		c.send("POST", "/acp/checkout_sessions/"+id+"/complete", "new", savedCard()).want(t, http.StatusOK, "")
		c.send("POST", "/acp/checkout_sessions/"+id+"/cancel", "new", nil).want(t, http.StatusMethodNotAllowed, "not_allowed")
		if got := c.send("GET", "/acp/checkout_sessions/"+id, "", nil); got.status() != "completed" || s.Charges() != 1 {
			t.Fatalf("after a second complete: %s, %d charges", got.Body, s.Charges())
		}
	})
}

// TestACPIdempotency: ACP's rules for the Idempotency-Key and the
// API-Version, on both engines.
func TestACPIdempotency(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("Selma")
		buyer := s.NewShopper("Bruno", "pm_card_visa")
		listing := s.ActiveListing(seller, "brass desk lamp with a green glass shade", 2500)
		c := newClient(t, s, buyer.Key.Secret)
		body := map[string]any{"line_items": []any{map[string]any{"id": listing}}, "currency": "usd", "capabilities": map[string]any{}}

		c.send("POST", "/acp/checkout_sessions", "", body).want(t, http.StatusBadRequest, "idempotency_key_required")
		first := c.send("POST", "/acp/checkout_sessions", "k1", body).want(t, http.StatusCreated, "")
		replay := c.send("POST", "/acp/checkout_sessions", "k1", body).want(t, http.StatusCreated, "")
		if replay.id() != first.id() || replay.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay: %s (replayed %q)", replay.Body, replay.Header.Get("Idempotent-Replayed"))
		}
		other := map[string]any{"line_items": []any{map[string]any{"id": listing}}, "currency": "usd",
			"capabilities": map[string]any{}, "buyer": map[string]any{"email": "b@example.com"}}
		c.send("POST", "/acp/checkout_sessions", "k1", other).want(t, http.StatusUnprocessableEntity, "idempotency_conflict")
		// The same key on another endpoint is another request.
		c.send("POST", "/acp/checkout_sessions/"+first.id(), "k1", map[string]any{}).want(t, http.StatusOK, "")

		// The version: required, and one of those supported.
		c.version = "-"
		e := c.send("POST", "/acp/checkout_sessions", "new", body).want(t, http.StatusBadRequest, "unsupported_api_version")
		if v := e.JSON["supported_versions"].([]any); len(v) != 1 || v[0] != "2026-04-17" {
			t.Fatalf("supported_versions %v", v)
		}
		c.version = "2025-09-29"
		c.send("GET", "/acp/checkout_sessions/"+first.id(), "", nil).want(t, http.StatusBadRequest, "unsupported_api_version")
	})
}

// TestACPInFlight: a retry with the key of a complete still running is
// answered at once, 409 idempotency_in_flight with a Retry-After; once the
// first answers, the retry replays its answer and nothing is charged
// twice.
func TestACPInFlight(t *testing.T) {
	t.Parallel()
	testkit.RunDB(t, func(t *testing.T, start func(testkit.Options) *testkit.Server) {
		// The first charge waits until the retry has been answered.
		charging, release := make(chan struct{}), make(chan struct{})
		var hold, let sync.Once
		letGo := func() { let.Do(func() { close(release) }) }
		defer letGo() // a failure below must not leave the charge waiting
		s := start(testkit.Options{BeforeCharge: func(ctx context.Context, orderID, listingID string) {
			hold.Do(func() {
				close(charging)
				select {
				case <-release:
				case <-time.After(time.Minute):
				}
			})
		}})
		seller := s.VerifiedOwner("Selma")
		buyer := s.NewShopper("Bruno", "pm_card_visa")
		c := newClient(t, s, buyer.Key.Secret)
		id := c.open(s.ActiveListing(seller, "brass desk lamp with a green glass shade", 2500), true).id()
		first := make(chan *answer, 1)
		go func() { first <- c.send("POST", "/acp/checkout_sessions/"+id+"/complete", "k-complete", savedCard()) }()
		select {
		case <-charging:
		case a := <-first:
			t.Fatalf("the first complete answered before it charged: %s", a.Body)
		case <-time.After(time.Minute):
			t.Fatal("the first complete never reached its charge")
		}
		busy := c.send("POST", "/acp/checkout_sessions/"+id+"/complete", "k-complete", savedCard()).
			want(t, http.StatusConflict, "idempotency_in_flight")
		if busy.Header.Get("Retry-After") == "" {
			t.Error("no Retry-After on idempotency_in_flight")
		}
		letGo()
		if a := <-first; a.Status != http.StatusOK || a.status() != "completed" {
			t.Fatalf("the first complete: %s", a.Body)
		}
		replay := c.send("POST", "/acp/checkout_sessions/"+id+"/complete", "k-complete", savedCard()).want(t, http.StatusOK, "")
		if replay.Header.Get("Idempotent-Replayed") != "true" || replay.status() != "completed" || s.Charges() != 1 {
			t.Fatalf("the retry after it: %s (%d charges)", replay.Body, s.Charges())
		}
	})
}
