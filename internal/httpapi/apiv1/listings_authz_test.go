package apiv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/accounts"
	"marketplace/internal/testkit"
)

// TestListingAuthorization runs every listing, watch and search route of
// both surfaces against the credentials that must be refused, the wrong
// scope and the wrong user.
func TestListingAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("Owner")
		other := s.VerifiedOwner("Other")
		id := s.CreateListing(owner.Auth(), pyrexBrief, map[string]any{"price": 2000}).Want(t, http.StatusCreated, "").Data()["id"].(string)
		revoked := s.NewKey(owner, "buy_sell")
		s.Do("DELETE", "/api/v1/agent-keys/"+revoked.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
		frozen := s.NewKey(owner, "buy_sell")
		s.Do("POST", "/api/v1/admin/users/"+owner.ID+"/agent-keys/"+frozen.ID+"/freeze", nil, s.Admin().Auth()).Want(t, http.StatusOK, "")
		suspended := s.VerifiedOwner("Sus")
		suspendedKey := s.NewKey(suspended, "buy_sell")
		s.SetStatus(suspended.ID, accounts.StatusSuspended)
		buyOnly, sellOnly := s.NewKey(owner, "buy_only"), s.NewKey(owner, "sell_only")
		otherKey := s.NewKey(other, "buy_sell")

		type mode int
		const (
			optional mode = iota
			bearer
			agent
			either
		)
		body := map[string]any{"price": 1900}
		routes := []struct {
			method, path string
			mode         mode
			body         any
			scope        string // the key scope that is refused ("" when none is)
			owned        bool   // another user is refused with FORBIDDEN
		}{
			{"GET", "/api/v1/listings/" + id, optional, nil, "", false},
			{"POST", "/api/v1/listings", either, map[string]any{}, "buy_only", false},
			{"PATCH", "/api/v1/listings/" + id, bearer, body, "", true},
			{"DELETE", "/api/v1/listings/" + id, bearer, nil, "", true},
			{"POST", "/api/v1/listings/" + id + "/delete", bearer, nil, "", true},
			{"GET", "/api/v1/listings/seller/me", bearer, nil, "", false},
			{"POST", "/api/v1/listings/" + id + "/watch", bearer, nil, "", false},
			{"DELETE", "/api/v1/listings/" + id + "/watch", bearer, nil, "", false},
			{"GET", "/api/v1/listings/" + id + "/watching", bearer, nil, "", false},
			{"GET", "/api/v1/listings/watching/me", bearer, nil, "", false},
			{"POST", "/api/v1/agent/listings", agent, map[string]any{}, "buy_only", false},
			{"GET", "/api/v1/agent/listings/mine", agent, nil, "buy_only", false},
			{"GET", "/api/v1/agent/listings/" + id + "/detail", agent, nil, "", true},
			{"PATCH", "/api/v1/agent/listings/" + id, agent, body, "buy_only", true},
			{"DELETE", "/api/v1/agent/listings/" + id, agent, nil, "buy_only", true},
			{"POST", "/api/v1/agent/listings/" + id + "/watch", agent, nil, "sell_only", false},
			{"DELETE", "/api/v1/agent/listings/" + id + "/watch", agent, nil, "sell_only", false},
			{"GET", "/api/v1/agent/listings/" + id + "/watching", agent, nil, "sell_only", false},
			{"GET", "/api/v1/agent/listings/watching", agent, nil, "sell_only", false},
			{"POST", "/v1/listings", either, nil, "buy_only", false},
			{"GET", "/v1/listings/mine", either, nil, "buy_only", false},
			{"GET", "/v1/listings/" + id, either, nil, "", false},
			{"PATCH", "/v1/listings/" + id, either, body, "buy_only", true},
			{"DELETE", "/v1/listings/" + id, either, nil, "buy_only", true},
			{"GET", "/v1/search?q=bowl", either, nil, "", false},
			{"GET", "/v1/search/similar/" + id, either, nil, "", false},
			{"GET", "/v1/search/price-check?q=bowl", either, nil, "", false},
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
				switch m {
				case optional:
					return want{}
				case agent:
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
			{"agent key on a bearer route", []testkit.Header{otherKey.Auth()}, func(m mode) want {
				if m == bearer {
					return want{403, "FORBIDDEN"}
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
				key := map[string]*testkit.Key{"buy_only": buyOnly, "sell_only": sellOnly}[rt.scope]
				if key == nil {
					continue
				}
				s.Do(rt.method, rt.path, rt.body, key.Auth()).Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
			}
		})
		t.Run("wrong user", func(t *testing.T) {
			for _, rt := range routes {
				if !rt.owned {
					continue
				}
				h := other.Auth()
				if rt.mode == agent {
					h = otherKey.Auth()
				}
				s.Do(rt.method, rt.path, rt.body, h).Want(t, http.StatusForbidden, "FORBIDDEN")
			}
			// Nothing changed.
			d := s.Do("GET", "/api/v1/listings/"+id, nil).Want(t, http.StatusOK, "").Data()
			if d["status"] != "active" || d["price"] != 2000.0 {
				t.Fatalf("listing after refused changes %v", d)
			}
		})
	})
}
