package agentv1_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/testkit"
)

// wantMeta checks the Variant B envelope: meta.request_id (snake case),
// equal to the X-Request-Id header, and a timestamp.
func wantMeta(t testing.TB, r *testkit.Response) {
	t.Helper()
	m, _ := r.JSON["meta"].(map[string]any)
	id, _ := m["request_id"].(string)
	if id == "" || id != r.Header.Get("X-Request-Id") || m["timestamp"] == nil {
		t.Fatalf("meta = %v, X-Request-Id %q", m, r.Header.Get("X-Request-Id"))
	}
	if _, camel := m["requestId"]; camel {
		t.Fatalf("Variant B meta carries requestId: %v", m)
	}
}

// newKey creates a Variant B key and returns it with the answer's data.
func newKey(t testing.TB, s *testkit.Server, owner *testkit.User, body map[string]any) (*testkit.Key, map[string]any) {
	t.Helper()
	r := s.Do("POST", "/v1/auth/keys", body, owner.Auth()).Want(t, http.StatusCreated, "")
	wantMeta(t, r)
	d := r.Data()
	return &testkit.Key{ID: d["key_id"].(string), Secret: d["key"].(string)}, d
}

func TestKeysCreate(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("bowner")
		k, d := newKey(t, s, owner, map[string]any{"label": "b bot", "scope": "buy",
			"spending_controls": map[string]any{"per_transaction_limit": 5000, "daily_limit": 20000}})
		if !strings.HasPrefix(k.Secret, "mk_test_") || d["id"] != k.ID || d["scope"] != "buy" || d["status"] != "active" ||
			d["label"] != "b bot" || d["created_at"] == nil || !strings.HasPrefix(k.Secret, d["key_prefix"].(string)) {
			t.Fatalf("created key: %v", d)
		}
		sc := testkit.Obj(t, d, "spending_controls")
		if testkit.Num(t, sc, "per_transaction_limit") != 5000 || testkit.Num(t, sc, "daily_limit") != 20000 || sc["weekly_limit"] != nil {
			t.Fatalf("spending_controls = %v", sc)
		}
		for _, camel := range []string{"keyPrefix", "createdAt", "spendingControls"} {
			if _, has := d[camel]; has {
				t.Fatalf("Variant B key carries %s: %v", camel, d)
			}
		}
		// Every scope in B names; A's names are understood too.
		for _, sp := range []struct{ in, want string }{{"sell", "sell"}, {"buy_sell", "buy_sell"}, {"buy_only", "buy"}, {"sell_only", "sell"}} {
			_, d := newKey(t, s, owner, map[string]any{"label": "s", "scope": sp.in})
			if d["scope"] != sp.want {
				t.Fatalf("scope %q answered %v, want %q", sp.in, d["scope"], sp.want)
			}
		}
		// Variant A sees the same key in its own names.
		for _, it := range s.Do("GET", "/api/v1/agent-keys", nil, owner.Auth()).Want(t, http.StatusOK, "").List() {
			if m := it.(map[string]any); m["id"] == k.ID && m["scope"] != "buy_only" {
				t.Fatalf("Variant A view of a B key: %v", m)
			}
		}

		// Validation names fields in snake_case.
		cases := []struct {
			name   string
			body   any
			fields []string
		}{
			{"bad scope", map[string]any{"label": "x", "scope": "all"}, []string{"scope"}},
			{"no label", map[string]any{"scope": "buy"}, []string{"label"}},
			{"negative daily", map[string]any{"label": "x", "scope": "buy", "spending_controls": map[string]any{"daily_limit": -1}}, []string{"spending_controls.daily_limit"}},
			{"huge per transaction", map[string]any{"label": "x", "scope": "buy", "spending_controls": map[string]any{"per_transaction_limit": 1_000_000_001}}, []string{"spending_controls.per_transaction_limit"}},
			{"fractional weekly", map[string]any{"label": "x", "scope": "buy", "spending_controls": map[string]any{"weekly_limit": 1.5}}, []string{"spending_controls.weekly_limit"}},
			{"string monthly", map[string]any{"label": "x", "scope": "buy", "spending_controls": map[string]any{"monthly_limit": "9"}}, []string{"spending_controls.monthly_limit"}},
			{"terms refused", map[string]any{"label": "x", "scope": "buy", "accepted_agent_terms": false}, []string{"accepted_agent_terms"}},
			{"several", map[string]any{"scope": "x", "spending_controls": map[string]any{"daily_limit": -1}}, []string{"label", "scope", "spending_controls.daily_limit"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ss := *s // bound to the subtest, so document mismatches fail it
				ss.T = t
				r := ss.Do("POST", "/v1/auth/keys", c.body, owner.Auth())
				testkit.WantFields(t, r, c.fields...)
				wantMeta(t, r)
			})
		}

		// Only a human with a bearer token creates keys.
		body := map[string]any{"label": "x", "scope": "buy"}
		s.Do("POST", "/v1/auth/keys", body).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("POST", "/v1/auth/keys", body, testkit.Bearer("bad")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("POST", "/v1/auth/keys", body, k.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("POST", "/v1/auth/keys", body, testkit.AgentKey("mk_test_bad")).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		r := s.Do("PUT", "/v1/auth/keys", body, owner.Auth()).Want(t, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
		wantMeta(t, r)
	})
}

func TestWhoami(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("whoowner")
		k, _ := newKey(t, s, owner, map[string]any{"label": "who", "scope": "sell",
			"spending_controls": map[string]any{"per_transaction_limit": 5000, "daily_limit": 20000}})
		plain, _ := newKey(t, s, owner, map[string]any{"label": "plain", "scope": "buy_sell"})

		r := s.Do("GET", "/v1/auth/whoami", nil, k.Auth()).Want(t, http.StatusOK, "")
		wantMeta(t, r)
		d := r.Data()
		ag, ow, sp := testkit.Obj(t, d, "agent"), testkit.Obj(t, d, "owner"), testkit.Obj(t, d, "spending")
		if ag["key_id"] != k.ID || ag["label"] != "who" || ag["scope"] != "sell" {
			t.Fatalf("agent = %v", ag)
		}
		if ow["user_id"] != owner.ID || ow["display_name"] != "whoowner" || ow["trust_tier"] != "new" {
			t.Fatalf("owner = %v", ow)
		}
		// The key's own caps are tighter than the owner's defaults.
		if testkit.Num(t, sp, "per_transaction_limit") != 5000 || testkit.Num(t, sp, "daily_remaining") != 20000 ||
			testkit.Num(t, sp, "weekly_remaining") != 200000 || testkit.Num(t, sp, "monthly_remaining") != 500000 {
			t.Fatalf("spending = %v", sp)
		}
		// Spending on the books lowers what remains.
		ctx := context.Background()
		err := s.App.DB.InTx(ctx, func(tx *store.Tx) error {
			return tx.RecordSpend(ctx, owner.ID, k.ID, market.NewID(), 1500, s.Clock.Now(), nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		sp = testkit.Obj(t, s.Do("GET", "/v1/auth/whoami", nil, k.Auth()).Want(t, http.StatusOK, "").Data(), "spending")
		if testkit.Num(t, sp, "daily_remaining") != 18500 || testkit.Num(t, sp, "weekly_remaining") != 198500 {
			t.Fatalf("spending after 1500 = %v", sp)
		}
		sp = testkit.Obj(t, s.Do("GET", "/v1/auth/whoami", nil, plain.Auth()).Want(t, http.StatusOK, "").Data(), "spending")
		if testkit.Num(t, sp, "per_transaction_limit") != 10000 || testkit.Num(t, sp, "daily_remaining") != 48500 {
			t.Fatalf("uncapped key's spending = %v", sp)
		}

		// After verification the owner's tier shows.
		s.Verify(owner)
		ow = testkit.Obj(t, s.Do("GET", "/v1/auth/whoami", nil, k.Auth()).Want(t, http.StatusOK, "").Data(), "owner")
		if ow["trust_tier"] != "verified" {
			t.Fatalf("owner after verification = %v", ow)
		}

		// whoami is for agents: a bearer token alone is no key.
		r = s.Do("GET", "/v1/auth/whoami", nil, owner.Auth()).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		wantMeta(t, r)
		s.Do("GET", "/v1/auth/whoami", nil).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		s.Do("GET", "/v1/auth/whoami", nil, testkit.AgentKey("mk_test_unknown")).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
	})
}

func TestKeysRevoke(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("brevoke")
		k, _ := newKey(t, s, owner, map[string]any{"label": "r", "scope": "buy"})
		other, _ := newKey(t, s, owner, map[string]any{"label": "o", "scope": "buy"})
		s.Do("GET", "/v1/auth/whoami", nil, k.Auth()).Want(t, http.StatusOK, "")

		// An agent cannot revoke, not even itself; nor can nobody.
		s.Do("DELETE", "/v1/auth/keys/"+k.ID, nil, other.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("DELETE", "/v1/auth/keys/"+k.ID, nil, k.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("DELETE", "/v1/auth/keys/"+k.ID, nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		// Another human gets 404 for someone else's key, as for unknown ids.
		stranger := s.Register("bstranger")
		for _, id := range []string{k.ID, "01900000-0000-7000-8000-000000000000", "nope"} {
			s.Do("DELETE", "/v1/auth/keys/"+id, nil, stranger.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		}
		s.Do("GET", "/v1/auth/whoami", nil, k.Auth()).Want(t, http.StatusOK, "")

		r := s.Do("DELETE", "/v1/auth/keys/"+k.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
		wantMeta(t, r)
		if d := r.Data(); d["status"] != "revoked" || d["key_id"] != k.ID || d["revoked_at"] == nil || d["key"] != nil {
			t.Fatalf("revoked key: %v", d)
		}
		for _, p := range []string{"/v1/auth/whoami", "/v1/account", "/v1/account/spending", "/v1/account/addresses"} {
			s.Do("GET", p, nil, k.Auth()).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		}
		s.Do("GET", "/v1/auth/whoami", nil, other.Auth()).Want(t, http.StatusOK, "")
		s.Do("DELETE", "/v1/auth/keys/"+k.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
	})
}

func TestAccountRoutes(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("baccount")
		k, _ := newKey(t, s, owner, map[string]any{"label": "acct", "scope": "buy",
			"spending_controls": map[string]any{"daily_limit": 3000}})
		s.Do("PUT", "/api/v1/spending-controls", map[string]any{"approvalThreshold": 7000, "categoryRestrictions": []string{"guns"}}, owner.Auth()).
			Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/addresses", map[string]any{"name": "B Account", "line1": "1 Main St", "city": "Austin", "state": "TX",
			"zip": "78701", "country": "US"}, owner.Auth()).Want(t, http.StatusCreated, "")

		for _, h := range []testkit.Header{owner.Auth(), k.Auth()} {
			r := s.Do("GET", "/v1/account", nil, h).Want(t, http.StatusOK, "")
			wantMeta(t, r)
			a := r.Data()
			if a["user_id"] != owner.ID || a["email"] != owner.Email || a["display_name"] != "baccount" ||
				a["trust_tier"] != "new" || a["identity_verified"] != false || a["password_set"] != true || a["created_at"] == nil {
				t.Fatalf("account = %v", a)
			}
			if _, camel := a["displayName"]; camel {
				t.Fatalf("Variant B account carries camelCase: %v", a)
			}

			r = s.Do("GET", "/v1/account/spending", nil, h).Want(t, http.StatusOK, "")
			wantMeta(t, r)
			sp := r.Data()
			if testkit.Num(t, sp, "per_transaction_limit") != 10000 || testkit.Num(t, sp, "daily_limit") != 50000 ||
				testkit.Num(t, sp, "weekly_limit") != 200000 || testkit.Num(t, sp, "monthly_limit") != 500000 ||
				testkit.Num(t, sp, "approval_threshold") != 7000 || testkit.Num(t, sp, "spent_today") != 0 {
				t.Fatalf("spending = %v", sp)
			}
			if cats, _ := sp["category_restrictions"].([]any); len(cats) != 1 || cats[0] != "guns" {
				t.Fatalf("category_restrictions = %v", sp["category_restrictions"])
			}
			wantDaily := int64(50000)
			if h == k.Auth() {
				wantDaily = 3000 // the key's own cap
				if kl := testkit.Obj(t, sp, "key_limits"); testkit.Num(t, kl, "daily_limit") != 3000 {
					t.Fatalf("key_limits = %v", kl)
				}
			} else if sp["key_limits"] != nil {
				t.Fatalf("the owner sees key_limits: %v", sp["key_limits"])
			}
			if testkit.Num(t, sp, "daily_remaining") != wantDaily || testkit.Num(t, sp, "weekly_remaining") != 200000 || testkit.Num(t, sp, "monthly_remaining") != 500000 {
				t.Fatalf("remaining = %v", sp)
			}

			r = s.Do("GET", "/v1/account/addresses", nil, h).Want(t, http.StatusOK, "")
			wantMeta(t, r)
			list, ok := r.Data()["addresses"].([]any)
			if !ok || len(list) != 1 {
				t.Fatalf("addresses = %v", r.Data())
			}
			ad := list[0].(map[string]any)
			if ad["line1"] != "1 Main St" || ad["is_default"] != true || ad["zip"] != "78701" || ad["id"] == nil {
				t.Fatalf("address = %v", ad)
			}
		}
		// Another owner's account shows none of this.
		other := s.Register("bother")
		if l := s.Do("GET", "/v1/account/addresses", nil, other.Auth()).Want(t, http.StatusOK, "").Data()["addresses"].([]any); len(l) != 0 {
			t.Fatalf("another owner's addresses: %v", l)
		}
	})
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("breqid")
		// A sane client id is kept, on success and on error.
		r := s.Do("GET", "/v1/account", nil, owner.Auth(), testkit.Header{Name: "X-Request-Id", Value: "client-id.42"}).Want(t, http.StatusOK, "")
		wantMeta(t, r)
		if r.Header.Get("X-Request-Id") != "client-id.42" {
			t.Fatalf("X-Request-Id = %q, want the client's", r.Header.Get("X-Request-Id"))
		}
		r = s.Do("GET", "/v1/account", nil, testkit.Header{Name: "X-Request-Id", Value: "err-id"}).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		wantMeta(t, r)
		if r.Header.Get("X-Request-Id") != "err-id" {
			t.Fatalf("X-Request-Id on an error = %q", r.Header.Get("X-Request-Id"))
		}
		// An insane one is replaced.
		r = s.Do("GET", "/v1/account", nil, owner.Auth(), testkit.Header{Name: "X-Request-Id", Value: "bad id <script>"}).Want(t, http.StatusOK, "")
		wantMeta(t, r)
		if id := r.Header.Get("X-Request-Id"); id == "bad id <script>" || id == "" {
			t.Fatalf("X-Request-Id = %q", id)
		}
		// Two requests get two ids.
		a := s.Do("GET", "/v1/account", nil, owner.Auth()).Header.Get("X-Request-Id")
		b := s.Do("GET", "/v1/account", nil, owner.Auth()).Header.Get("X-Request-Id")
		if a == b {
			t.Fatalf("two requests share the id %q", a)
		}
	})
}

// TestAuthorization runs every Variant B route of this area against every
// kind of bad credential.
func TestAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()
		owner := s.Register("bauthz")
		live, _ := newKey(t, s, owner, map[string]any{"label": "live", "scope": "buy"})
		revoked, _ := newKey(t, s, owner, map[string]any{"label": "revoked", "scope": "buy"})
		frozen, _ := newKey(t, s, owner, map[string]any{"label": "frozen", "scope": "buy"})
		s.Do("DELETE", "/v1/auth/keys/"+revoked.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/admin/users/"+owner.ID+"/agent-keys/"+frozen.ID+"/freeze", nil, admin.Auth()).Want(t, http.StatusOK, "")

		type route struct {
			method, path string
			agentOnly    bool
		}
		routes := []route{
			{"GET", "/v1/auth/whoami", true},
			{"GET", "/v1/account", false},
			{"GET", "/v1/account/spending", false},
			{"GET", "/v1/account/addresses", false},
		}
		for _, rt := range routes {
			none := s.Do(rt.method, rt.path, nil)
			if rt.agentOnly {
				none.Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
			} else {
				none.Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
				s.Do(rt.method, rt.path, nil, testkit.Bearer("garbage")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
				s.Do(rt.method, rt.path, nil, owner.Auth()).Want(t, http.StatusOK, "")
			}
			wantMeta(t, none)
			s.Do(rt.method, rt.path, nil, live.Auth()).Want(t, http.StatusOK, "")
			s.Do(rt.method, rt.path, nil, testkit.AgentKey("mk_test_garbage")).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
			s.Do(rt.method, rt.path, nil, revoked.Auth()).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
			r := s.Do(rt.method, rt.path, nil, frozen.Auth()).Want(t, http.StatusForbidden, "AGENT_FROZEN")
			wantMeta(t, r)
			// A key wins over a bearer token when both are sent.
			s.Do(rt.method, rt.path, nil, revoked.Auth(), owner.Auth()).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		}
		// The owner unfreezes: the key works again.
		s.Do("PATCH", "/api/v1/agent-keys/"+frozen.ID+"/unfreeze", nil, owner.Auth()).Want(t, http.StatusOK, "")
		s.Do("GET", "/v1/auth/whoami", nil, frozen.Auth()).Want(t, http.StatusOK, "")

		// A suspended owner: every route, as the owner and as the agent.
		s.SetStatus(owner.ID, accounts.StatusSuspended)
		for _, rt := range routes {
			s.Do(rt.method, rt.path, nil, live.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
			if !rt.agentOnly {
				s.Do(rt.method, rt.path, nil, owner.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
			}
		}
		s.Do("POST", "/v1/auth/keys", map[string]any{"label": "x", "scope": "buy"}, owner.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
		s.Do("DELETE", "/v1/auth/keys/"+live.ID, nil, owner.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
		s.SetStatus(owner.ID, accounts.StatusActive)
		s.Do("GET", "/v1/auth/whoami", nil, live.Auth()).Want(t, http.StatusOK, "")
	})
}
