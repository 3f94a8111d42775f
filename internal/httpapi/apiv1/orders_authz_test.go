package apiv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/accounts"
	"marketplace/internal/testkit"
)

// TestOrderAuthorization runs every purchase, order and approval route of
// both surfaces against the credentials that must be refused, the wrong
// scope and the wrong user.
func TestOrderAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("authzseller")
		owner := s.NewShopper("authzowner", "pm_card_visa")
		stranger := s.NewShopper("authzstranger", "pm_card_visa")
		admin := s.Admin()
		listing := s.ActiveListing(seller, "walnut cutting board end grain large", 2000)
		oid := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing, "maxPrice": 2000,
			"shippingAddress": testkit.Address()}, owner.Key.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		s.Do("PUT", "/api/v1/spending-controls", map[string]any{"approvalThreshold": 1000}, owner.Auth()).Want(t, http.StatusOK, "")
		queued := s.ActiveListing(seller, "brass desk lamp green glass shade", 3000)
		r := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": queued, "maxPrice": 3000,
			"shippingAddress": testkit.Address()}, owner.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
		aid := r.JSON["error"].(map[string]any)["details"].(map[string]any)["approvalId"].(string)

		revoked := s.NewKey(owner.User, "buy_sell")
		s.Do("DELETE", "/api/v1/agent-keys/"+revoked.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
		frozen := s.NewKey(owner.User, "buy_sell")
		s.Do("POST", "/api/v1/admin/users/"+owner.ID+"/agent-keys/"+frozen.ID+"/freeze", nil, admin.Auth()).Want(t, http.StatusOK, "")
		suspended := s.VerifiedOwner("authzsus")
		suspendedKey := s.NewKey(suspended, "buy_sell")
		s.SetStatus(suspended.ID, accounts.StatusSuspended)
		sellOnly, buyOnly := s.NewKey(owner.User, "sell_only"), s.NewKey(owner.User, "buy_only")
		ship := map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"}

		type mode int
		const (
			bearer mode = iota
			agent
			either
			adminOnly
		)
		type wrong int
		const (
			anyone    wrong = iota // no one is refused for being someone else
			forbidden              // another user: 403 FORBIDDEN
			notFound               // another user: 404 NOT_FOUND
		)
		routes := []struct {
			method, path string
			mode         mode
			body         any
			scope        string // the key scope that is refused ("" when none is)
			other        wrong
		}{
			{"POST", "/api/v1/agent/purchase", agent, map[string]any{}, "sell_only", anyone},
			{"POST", "/api/v1/agent/purchase/fee-estimate", agent, map[string]any{"listingId": queued}, "", anyone},
			{"GET", "/api/v1/agent/purchase/spending-summary", agent, nil, "", anyone},
			{"POST", "/api/v1/purchases", bearer, map[string]any{}, "", anyone},
			{"POST", "/api/v1/purchases/confirm", bearer, map[string]any{"orderId": oid}, "", forbidden},
			{"GET", "/api/v1/purchases/buyer", bearer, nil, "", anyone},
			{"GET", "/api/v1/purchases/seller", bearer, nil, "", anyone},
			{"GET", "/api/v1/purchases/" + oid, bearer, nil, "", forbidden},
			{"GET", "/api/v1/purchases/" + oid + "/events", bearer, nil, "", forbidden},
			{"GET", "/api/v1/orders/" + oid, bearer, nil, "", forbidden},
			{"GET", "/api/v1/orders/" + oid + "/events", bearer, nil, "", forbidden},
			{"POST", "/api/v1/orders/" + oid + "/shipping/rates", bearer, map[string]any{}, "", forbidden},
			{"GET", "/api/v1/agent/orders", agent, nil, "", anyone},
			{"GET", "/api/v1/agent/orders/" + oid, agent, nil, "", forbidden},
			{"GET", "/api/v1/agent/orders/" + oid + "/events", agent, nil, "", forbidden},
			{"GET", "/api/v1/approvals", bearer, nil, "", anyone},
			{"POST", "/api/v1/approvals/" + aid + "/reject", bearer, nil, "", notFound},
			{"POST", "/api/v1/approvals/" + aid + "/approve", bearer, nil, "", notFound},
			{"GET", "/api/v1/admin/queue", adminOnly, nil, "", anyone},
			{"POST", "/v1/purchase", either, map[string]any{}, "sell_only", anyone},
			{"GET", "/v1/orders", either, nil, "", anyone},
			{"GET", "/v1/orders/" + oid, either, nil, "", forbidden},
			{"POST", "/v1/orders/" + oid + "/ship", either, map[string]any{"carrier": "ups", "tracking_number": "1Z999AA10123456784"}, "buy_only", forbidden},
			{"POST", "/api/v1/orders/" + oid + "/ship", bearer, ship, "", forbidden},
			{"POST", "/api/v1/orders/" + oid + "/shipping/manual", bearer, ship, "", forbidden},
			{"GET", "/api/v1/orders/" + oid + "/shipping", bearer, nil, "", forbidden},
			{"POST", "/api/v1/orders/" + oid + "/shipping/label", bearer, nil, "", forbidden},
			{"GET", "/api/v1/orders/" + oid + "/shipping/label", bearer, nil, "", forbidden},
			{"POST", "/api/v1/orders/" + oid + "/cancel", bearer, nil, "", forbidden},
			{"POST", "/api/v1/orders/" + oid + "/pickup-ready", bearer, nil, "", forbidden},
			{"POST", "/api/v1/orders/" + oid + "/confirm-pickup", bearer, nil, "", forbidden},
			{"POST", "/api/v1/orders/" + oid + "/delivered", bearer, nil, "", forbidden},
			{"POST", "/api/v1/agent/orders/" + oid + "/ship", agent, ship, "buy_only", forbidden},
			{"GET", "/api/v1/agent/orders/" + oid + "/shipping", agent, nil, "", forbidden},
			{"POST", "/api/v1/agent/orders/" + oid + "/cancel", agent, nil, "buy_only", forbidden},
			{"POST", "/api/v1/agent/orders/" + oid + "/delivered", agent, nil, "sell_only", forbidden},
			{"POST", "/api/v1/agent/orders/" + oid + "/confirm-pickup", agent, nil, "sell_only", forbidden},
			{"POST", "/api/v1/admin/orders/" + oid + "/force-complete", adminOnly, nil, "", anyone},
			{"POST", "/api/v1/admin/orders/" + oid + "/force-cancel", adminOnly, nil, "", anyone},
			{"PATCH", "/api/v1/admin/orders/" + oid + "/hold", adminOnly, map[string]any{"holdHours": 1}, "", anyone},
			{"POST", "/v1/sandbox/simulate/delivery/" + oid, either, nil, "", forbidden},
		}
		type want struct {
			status int
			code   string
		}
		creds := []struct {
			name string
			h    []testkit.Header
			want func(mode) want // zero: the request must get past authentication
		}{
			{"no credentials", nil, func(m mode) want {
				if m == agent {
					return want{401, "INVALID_AGENT_KEY"}
				}
				return want{401, "UNAUTHORIZED"}
			}},
			{"garbage bearer", []testkit.Header{testkit.Bearer("garbage")}, func(m mode) want {
				if m == agent {
					return want{401, "INVALID_AGENT_KEY"}
				}
				return want{401, "UNAUTHORIZED"}
			}},
			{"revoked key", []testkit.Header{revoked.Auth()}, func(mode) want { return want{401, "INVALID_AGENT_KEY"} }},
			{"frozen key", []testkit.Header{frozen.Auth()}, func(mode) want { return want{403, "AGENT_FROZEN"} }},
			{"suspended owner's key", []testkit.Header{suspendedKey.Auth()}, func(mode) want { return want{403, "ACCOUNT_SUSPENDED"} }},
			{"suspended user", []testkit.Header{suspended.Auth()}, func(m mode) want {
				if m == agent {
					return want{401, "INVALID_AGENT_KEY"}
				}
				return want{403, "ACCOUNT_SUSPENDED"}
			}},
			{"agent key on a bearer route", []testkit.Header{stranger.Key.Auth()}, func(m mode) want {
				if m == bearer || m == adminOnly {
					return want{403, "FORBIDDEN"}
				}
				return want{}
			}},
			{"a user on an admin route", []testkit.Header{stranger.Auth()}, func(m mode) want {
				switch m {
				case adminOnly:
					return want{403, "FORBIDDEN"}
				case agent:
					return want{401, "INVALID_AGENT_KEY"}
				}
				return want{}
			}},
		}
		for _, c := range creds {
			t.Run(c.name, func(t *testing.T) {
				for _, rt := range routes {
					w := c.want(rt.mode)
					checkAuth(t, s.Do(rt.method, rt.path, rt.body, c.h...), rt.method+" "+rt.path, w.status, w.code)
				}
			})
		}
		t.Run("wrong scope", func(t *testing.T) {
			for _, rt := range routes {
				if key := map[string]*testkit.Key{"sell_only": sellOnly, "buy_only": buyOnly}[rt.scope]; key != nil {
					s.Do(rt.method, rt.path, rt.body, key.Auth()).Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
				}
			}
		})
		t.Run("wrong user", func(t *testing.T) {
			for _, rt := range routes {
				h := stranger.Auth()
				if rt.mode == agent {
					h = stranger.Key.Auth()
				}
				switch rt.other {
				case forbidden:
					s.Do(rt.method, rt.path, rt.body, h).Want(t, http.StatusForbidden, "FORBIDDEN")
				case notFound:
					s.Do(rt.method, rt.path, rt.body, h).Want(t, http.StatusNotFound, "NOT_FOUND")
				}
			}
			// The stranger changed nothing: the approval still waits and the
			// order is still paid.
			if st := s.Do("GET", "/api/v1/orders/"+oid, nil, owner.Auth()).Want(t, http.StatusOK, "").Data()["status"]; st != "paid" {
				t.Fatalf("order is %v after the stranger's calls, want paid", st)
			}
			st := s.Do("GET", "/api/v1/approvals?status=pending", nil, owner.Auth()).Want(t, http.StatusOK, "").List()
			if len(st) != 1 {
				t.Fatalf("%d pending approvals, want 1", len(st))
			}
		})
	})
}

// checkAuth checks one answer of an authorization table: status 0 means the
// request must get past authentication (whatever it answers then), else it
// must be refused with status and code.
func checkAuth(t *testing.T, r *testkit.Response, route string, status int, code string) {
	t.Helper()
	if status == 0 {
		if r.Status == 401 || r.Code() == "AGENT_FROZEN" || r.Code() == "ACCOUNT_SUSPENDED" {
			t.Errorf("%s: refused %d %s", route, r.Status, r.Code())
		}
		return
	}
	if r.Status != status || r.Code() != code {
		t.Errorf("%s: got %d %q, want %d %q", route, r.Status, r.Code(), status, code)
	}
}
