package acp_test

import (
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/listings"
	"marketplace/internal/testkit"
)

// TestACPRefusals: each business refusal answers the session, not
// completed, with the message CONTRACT.md section 18 names, and nothing is
// charged; a frozen key is the protocol's 403.
func TestACPRefusals(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("Selma")
		buyer := s.NewShopper("Bruno", "pm_card_visa")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 5000})
		c := newClient(t, s, buyer.Key.Secret)
		complete := func(id string) *answer {
			t.Helper()
			return c.send("POST", "/acp/checkout_sessions/"+id+"/complete", "new", savedCard()).want(t, http.StatusOK, "")
		}
		notDone := func(a *answer) {
			t.Helper()
			if a.status() == "completed" || a.JSON["order"] != nil || s.Charges() != 0 {
				t.Fatalf("a refusal completed or charged (%d charges): %s", s.Charges(), a.Body)
			}
		}

		t.Run("sold", func(t *testing.T) {
			l := s.ActiveListing(seller, "pyrex mixing bowls set of three", 1500)
			sess := c.open(l, true)
			s.EditListing(l, func(x *listings.Listing) { x.Status = listings.StatusSold })
			a := complete(sess.id())
			notDone(a)
			a.wantMessage(t, "out_of_stock", "$.line_items[0]", "")
			if a.status() != "not_ready_for_payment" {
				t.Fatalf("status %s", a.status())
			}
		})
		t.Run("cap", func(t *testing.T) {
			l := s.ActiveListing(seller, "teak side table with one drawer", 6000)
			a := complete(c.open(l, true).id())
			notDone(a)
			m := a.wantMessage(t, "maximum_exceeded", "", "requires_buyer_review")
			if !strings.Contains(m["content"].(string), "per-transaction limit of $50.00") ||
				!strings.Contains(m["content"].(string), "$50.00 remains") {
				t.Errorf("the message does not name the limit and what remains: %v", m["content"])
			}
		})
		t.Run("category", func(t *testing.T) {
			l := s.ActiveListing(seller, "brass desk lamp with a green glass shade", 2500)
			cat := s.Do("GET", "/api/v1/listings/"+l, nil).Want(t, http.StatusOK, "").Data()["categoryId"].(string)
			s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 5000, "categoryRestrictions": []string{cat}})
			defer s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 5000, "categoryRestrictions": []string{}})
			a := complete(c.open(l, true).id())
			notDone(a)
			a.wantMessage(t, "intervention_required", "$.line_items[0]", "requires_buyer_review")
		})
		t.Run("own listing", func(t *testing.T) {
			l := s.ActiveListing(buyer.User, "a stack of vinyl records from the seventies", 2000)
			a := c.open(l, false)
			a.wantMessage(t, "invalid", "$.line_items[0]", "")
			notDone(complete(a.id()))
		})
		t.Run("two items", func(t *testing.T) {
			l1 := s.ActiveListing(seller, "cast iron skillet ten inch", 2000)
			l2 := s.ActiveListing(seller, "enamel dutch oven five quart", 3000)
			a := c.send("POST", "/acp/checkout_sessions", "new", map[string]any{"currency": "usd", "capabilities": map[string]any{},
				"line_items": []any{map[string]any{"id": l1}, map[string]any{"id": l2}}}).want(t, http.StatusCreated, "")
			a.wantMessage(t, "invalid", "$.line_items", "")
			twice := c.send("POST", "/acp/checkout_sessions", "new", map[string]any{"currency": "usd", "capabilities": map[string]any{},
				"line_items": []any{map[string]any{"id": l1}, map[string]any{"id": l1}}}).want(t, http.StatusCreated, "")
			twice.wantMessage(t, "invalid", "$.line_items[0].quantity", "")
			if twice.status() != "not_ready_for_payment" {
				t.Fatalf("status %s", twice.status())
			}
		})
		t.Run("price change", func(t *testing.T) {
			l := s.ActiveListing(seller, "wool blanket in a tartan pattern", 2000)
			sess := c.open(l, true)
			s.Do("PATCH", "/api/v1/listings/"+l, map[string]any{"price": 2400}, seller.Auth()).Want(t, http.StatusOK, "")
			a := complete(sess.id())
			notDone(a)
			if m := a.message(""); m == nil || !strings.Contains(m["content"].(string), "$24.00") {
				t.Fatalf("no info message with the new price: %s", a.Body)
			}
			// Seen once, the new price is charged.
			if a = complete(sess.id()); a.status() != "completed" || s.Charges() != 1 {
				t.Fatalf("complete at the new price: %s", a.Body)
			}
		})
		t.Run("unknown handler", func(t *testing.T) {
			charged := s.Charges()
			l := s.ActiveListing(seller, "a pair of brass candlesticks", 1800)
			a := c.send("POST", "/acp/checkout_sessions/"+c.open(l, true).id()+"/complete", "new", map[string]any{
				"payment_data": map[string]any{"handler_id": "wallet_pay", "instrument": map[string]any{"type": "card",
					"credential": map[string]any{"type": "spt", "token": "spt_123"}}}}).want(t, http.StatusOK, "")
			a.wantMessage(t, "payment_declined", "$.payment_data.handler_id", "recoverable")
			if a.status() != "ready_for_payment" || s.Charges() != charged {
				t.Fatalf("an unknown handler: %s", a.Body)
			}
		})
		t.Run("frozen", func(t *testing.T) {
			charged := s.Charges()
			l := s.ActiveListing(seller, "a set of six linen napkins", 1200)
			sess := c.open(l, true)
			s.Do("PATCH", "/api/v1/agent-keys/"+buyer.Key.ID+"/freeze", nil, buyer.Auth()).Want(t, http.StatusOK, "")
			defer func() {
				s.Do("PATCH", "/api/v1/agent-keys/"+buyer.Key.ID+"/unfreeze", nil, buyer.Auth()).Want(t, http.StatusOK, "")
			}()
			c.send("POST", "/acp/checkout_sessions/"+sess.id()+"/complete", "new", savedCard()).
				want(t, http.StatusForbidden, "agent_frozen")
			if s.Charges() != charged {
				t.Fatal("a frozen key was charged")
			}
		})
	})
}

// TestACPApproval: a complete above the owner's approval threshold waits
// (pending_approval, approval_required); the owner's approval charges it
// and completes the session, a rejection cancels the next one.
func TestACPApproval(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("Selma")
		buyer := s.NewShopper("Bruno", "pm_card_visa")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000, "approvalThreshold": 1000})
		c := newClient(t, s, buyer.Key.Secret)
		for _, decision := range []string{"approve", "reject"} {
			l := s.ActiveListing(seller, "walnut cutting board end grain "+decision, 3000)
			sess := c.open(l, true)
			a := c.send("POST", "/acp/checkout_sessions/"+sess.id()+"/complete", "new", savedCard()).want(t, http.StatusOK, "")
			if a.status() != "pending_approval" || s.Charges() != 0 && decision == "approve" {
				t.Fatalf("above the threshold: %s", a.Body)
			}
			a.wantMessage(t, "approval_required", "", "requires_buyer_review")
			// Completing again meanwhile answers the session as it is.
			if again := c.send("POST", "/acp/checkout_sessions/"+sess.id()+"/complete", "new", savedCard()); again.status() != "pending_approval" {
				t.Fatalf("a second complete: %s", again.Body)
			}
			approvals := s.Do("GET", "/api/v1/approvals?status=pending", nil, buyer.Auth()).Want(t, http.StatusOK, "").List()
			if len(approvals) != 1 {
				t.Fatalf("%d pending approvals", len(approvals))
			}
			id := approvals[0].(map[string]any)["id"].(string)
			body := map[string]any{}
			if decision == "reject" {
				body["reason"] = "not now"
			}
			s.Do("POST", "/api/v1/approvals/"+id+"/"+decision, body, buyer.Auth()).Want(t, http.StatusOK, "")
			got := c.send("GET", "/acp/checkout_sessions/"+sess.id(), "", nil).want(t, http.StatusOK, "")
			want := map[string]string{"approve": "completed", "reject": "canceled"}[decision]
			if got.status() != want || (decision == "approve") != (got.JSON["order"] != nil) {
				t.Fatalf("after %s: %s", decision, got.Body)
			}
		}
		if s.Charges() != 1 {
			t.Fatalf("%d charges, want the approved one", s.Charges())
		}
	})
}
