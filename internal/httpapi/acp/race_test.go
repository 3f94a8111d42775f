package acp_test

import (
	"net/http"
	"testing"
	"time"

	"marketplace/internal/testkit"
)

// TestACPConcurrentCompletes: 50 sessions of five buyers for one listing,
// completed at once, make exactly one order and one charge; every other
// session answers out_of_stock with nothing charged.
func TestACPConcurrentCompletes(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("Selma")
		listing := s.ActiveListing(seller, "mid century walnut sideboard", 4000)
		var clients []*client
		var sessions []string
		for i := range 5 {
			b := s.NewShopper("Buyer"+string(rune('A'+i)), "pm_card_visa")
			s.SetControls(b.User, map[string]any{"perTransactionLimit": 50000})
			c := newClient(t, s, b.Key.Secret)
			for range 10 {
				clients = append(clients, c)
				sessions = append(sessions, c.open(listing, true).id())
			}
		}
		statuses := testkit.Race(len(sessions), func(i int) string {
			a := clients[i].send("POST", "/acp/checkout_sessions/"+sessions[i]+"/complete", "new", savedCard())
			if a.Status != http.StatusOK {
				return "answered " + http.StatusText(a.Status)
			}
			if a.status() != "completed" && a.message("out_of_stock") == nil {
				return "refused without out_of_stock: " + string(a.Body)
			}
			return a.status()
		})
		completed := 0
		for _, st := range statuses {
			switch st {
			case "completed":
				completed++
			case "not_ready_for_payment":
			default:
				t.Errorf("a complete: %s", st)
			}
		}
		if completed != 1 || s.Charges() != 1 {
			t.Fatalf("%d sessions completed, %d charges; want exactly one of each", completed, s.Charges())
		}
	})
}

// TestACPAuthorization: every route refuses no credentials, a person's
// bearer token, a revoked key and a key without buy scope; another
// buyer's session is not found.
func TestACPAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("Selma")
		buyer := s.NewShopper("Bruno", "pm_card_visa")
		listing := s.ActiveListing(seller, "pyrex mixing bowls set of three", 1500)
		sess := newClient(t, s, buyer.Key.Secret).open(listing, true).id()
		stranger := s.NewShopper("Stella", "pm_card_visa")
		sellOnly := s.NewKey(stranger.User, "sell_only")
		revoked := s.NewKey(stranger.User, "buy_sell")
		s.Do("DELETE", "/api/v1/agent-keys/"+revoked.ID, nil, stranger.Auth()).Want(t, http.StatusOK, "")

		routes := []struct {
			method, path string
			body         any
		}{
			{"POST", "/acp/checkout_sessions", map[string]any{"line_items": []any{map[string]any{"id": listing}},
				"currency": "usd", "capabilities": map[string]any{}}},
			{"GET", "/acp/checkout_sessions/" + sess, nil},
			{"POST", "/acp/checkout_sessions/" + sess, map[string]any{}},
			{"POST", "/acp/checkout_sessions/" + sess + "/complete", savedCard()},
			{"POST", "/acp/checkout_sessions/" + sess + "/cancel", map[string]any{}},
			{"POST", "/acp/delegate_payment", newClient(t, s, "").delegation("4242424242424242", sess, 5000, time.Hour)},
		}
		for _, rt := range routes {
			key := "new"
			if rt.method == "GET" {
				key = ""
			}
			for _, c := range []struct {
				who, secret string
				status      int
				code        string
			}{
				{"no credentials", "", http.StatusUnauthorized, "unauthorized"},
				{"a bearer token", buyer.Token, http.StatusUnauthorized, "unauthorized"},
				{"a revoked key", revoked.Secret, http.StatusUnauthorized, "unauthorized"},
				{"a sell_only key", sellOnly.Secret, http.StatusForbidden, "insufficient_scope"},
			} {
				t.Run(rt.method+" "+rt.path+" "+c.who, func(t *testing.T) {
					newClient(t, s, c.secret).send(rt.method, rt.path, key, rt.body).want(t, c.status, c.code)
				})
			}
			// (Delegating for another's session is a refused request:
			// TestACPDelegatedTokens.)
			if rt.path != "/acp/checkout_sessions" && rt.path != "/acp/delegate_payment" {
				newClient(t, s, stranger.Key.Secret).send(rt.method, rt.path, key, rt.body).want(t, http.StatusNotFound, "not_found")
			}
		}
		if s.Charges() != 0 {
			t.Fatalf("%d charges", s.Charges())
		}
	})
}
