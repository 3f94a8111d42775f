package apiv1_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/config"
	"marketplace/internal/testkit"
)

// Helpers shared by the agent-key, spending, connect and onboarding tests.
// They carry the keysHelper prefix so they cannot clash with other files of
// this package.

// keysHelperSub is s bound to a subtest's t, so helpers fail the subtest.
func keysHelperSub(s *testkit.Server, t *testing.T) *testkit.Server {
	c := *s
	c.T = t
	return &c
}

// keysHelperPath turns an absolute URL the service handed out into a path
// for s.Do.
func keysHelperPath(t testing.TB, s *testkit.Server, url string) string {
	t.Helper()
	if !strings.HasPrefix(url, s.URL+"/") {
		t.Fatalf("URL %q is not on this server (%s)", url, s.URL)
	}
	return strings.TrimPrefix(url, s.URL)
}

// keysHelperCreate posts body to create a key for owner.
func keysHelperCreate(s *testkit.Server, owner *testkit.User, body map[string]any) *testkit.Response {
	s.T.Helper()
	return s.Do("POST", "/api/v1/agent-keys", body, owner.Auth())
}

func keysHelperAdminPath(ownerID, keyID, action string) string {
	return "/api/v1/admin/users/" + ownerID + "/agent-keys/" + keyID + "/" + action
}

func keysHelperMe(s *testkit.Server, k *testkit.Key) *testkit.Response {
	s.T.Helper()
	return s.Do("GET", "/api/v1/auth/me", nil, k.Auth())
}

// keysHelperNum reads a JSON number field as int64.
func keysHelperNum(t testing.TB, m map[string]any, key string) int64 {
	t.Helper()
	v, ok := m[key].(float64)
	if !ok {
		t.Fatalf("%s = %#v, want a number (in %v)", key, m[key], m)
	}
	return int64(v)
}

func keysHelperObj(t testing.TB, m map[string]any, key string) map[string]any {
	t.Helper()
	v, ok := m[key].(map[string]any)
	if !ok {
		t.Fatalf("%s = %#v, want an object (in %v)", key, m[key], m)
	}
	return v
}

// keysHelperColumnsHolding returns the columns of row id of table whose text
// contains needle (read raw, past the store's own mapping).
func keysHelperColumnsHolding(t testing.TB, s *testkit.Server, table, id, needle string) []string {
	t.Helper()
	rows, err := s.App.DB.WritePool().QueryContext(context.Background(), "SELECT * FROM "+table+" WHERE id = '"+id+"'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	n := 0
	for rows.Next() {
		n++
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			if strings.Contains(fmt.Sprint(v), needle) {
				out = append(out, cols[i])
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%d rows in %s for id %s", n, table, id)
	}
	return out
}

func TestAgentKeyCreate(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("keyowner")
		r := keysHelperCreate(s, owner, map[string]any{
			"label": "  shopping bot  ", "scope": "buy_only", "acceptedAgentTerms": true,
			"metadata": map[string]any{"framework": "x", "version": "1.2"},
		}).Want(t, http.StatusCreated, "")
		d := r.Data()
		secret, _ := d["key"].(string)
		id, _ := d["id"].(string)
		if !strings.HasPrefix(secret, "mk_test_") || len(secret) != len("mk_test_")+43 {
			t.Fatalf("key = %q, want mk_test_ and 43 characters", secret)
		}
		if p, _ := d["keyPrefix"].(string); p == "" || !strings.HasPrefix(secret, p) || len(p) >= len(secret)-20 {
			t.Fatalf("keyPrefix %q must be a short prefix of the key", p)
		}
		if d["label"] != "shopping bot" || d["scope"] != "buy_only" || d["status"] != "active" || id == "" {
			t.Fatalf("created key: %v", d)
		}
		created, err := time.Parse(time.RFC3339Nano, fmt.Sprint(d["createdAt"]))
		if err != nil || !created.Equal(s.Clock.Now()) {
			t.Fatalf("createdAt = %v, want the service clock %v", d["createdAt"], s.Clock.Now())
		}
		if d["lastUsedAt"] != nil || d["spendingControls"] != nil {
			t.Fatalf("a fresh key without caps: lastUsedAt %v spendingControls %v", d["lastUsedAt"], d["spendingControls"])
		}
		if m := keysHelperObj(t, d, "metadata"); m["framework"] != "x" {
			t.Fatalf("metadata = %v", m)
		}

		// Shown once: the list never carries the secret.
		l := s.Do("GET", "/api/v1/agent-keys", nil, owner.Auth()).Want(t, http.StatusOK, "")
		if strings.Contains(string(l.Body), secret[len("mk_test_"):]) {
			t.Fatal("the key list shows the secret")
		}
		if len(l.List()) != 1 {
			t.Fatalf("list = %v", l.List())
		}
		item := l.List()[0].(map[string]any)
		if _, has := item["key"]; has || item["id"] != id || item["keyPrefix"] != d["keyPrefix"] {
			t.Fatalf("listed key: %v", item)
		}

		// Stored only hashed: the store has the SHA-256, and no column of the
		// row holds the secret's random part.
		keys, err := s.App.DB.Read().KeysOf(context.Background(), owner.ID)
		if err != nil || len(keys) != 1 {
			t.Fatalf("KeysOf: %v %v", keys, err)
		}
		if keys[0].Hash != agents.HashSecret(secret) || keys[0].Hash == secret {
			t.Fatalf("stored hash %q is not HashSecret(secret)", keys[0].Hash)
		}
		if cols := keysHelperColumnsHolding(t, s, "agent_keys", id, secret[len(secret)-30:]); len(cols) != 0 {
			t.Fatalf("columns %v of the key's row hold the secret", cols)
		}
		// (The raw read does see the row: the hash is there.)
		if cols := keysHelperColumnsHolding(t, s, "agent_keys", id, keys[0].Hash); len(cols) != 1 {
			t.Fatalf("columns holding the hash: %v", cols)
		}

		// The key works, as its owner's agent with its scope.
		me := keysHelperMe(s, &testkit.Key{ID: id, Secret: secret}).Want(t, http.StatusOK, "").Data()
		if me["userId"] != owner.ID || me["keyId"] != id || me["scope"] != "buy_only" {
			t.Fatalf("agent /auth/me: %v", me)
		}
	})
}

func TestAgentKeyCreateValidation(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("keyval")
		base := func() map[string]any {
			return map[string]any{"label": "bot", "scope": "buy_sell", "acceptedAgentTerms": true}
		}
		with := func(k string, v any) map[string]any {
			b := base()
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
			return b
		}
		caps := func(k string, v any) map[string]any {
			return with("spendingControls", map[string]any{k: v})
		}
		cases := []struct {
			name   string
			body   any
			fields []string
		}{
			{"terms false", with("acceptedAgentTerms", false), []string{"acceptedAgentTerms"}},
			{"terms missing", with("acceptedAgentTerms", nil), []string{"acceptedAgentTerms"}},
			{"bad scope", with("scope", "admin"), []string{"scope"}},
			{"missing scope", with("scope", nil), []string{"scope"}},
			{"empty label", with("label", "   "), []string{"label"}},
			{"long label", with("label", strings.Repeat("x", 101)), []string{"label"}},
			{"negative daily cap", caps("dailyLimit", -1), []string{"spendingControls.dailyLimit"}},
			{"huge per-transaction cap", caps("perTransactionLimit", 1_000_000_001), []string{"spendingControls.perTransactionLimit"}},
			{"negative weekly cap", caps("weeklyLimit", -5), []string{"spendingControls.weeklyLimit"}},
			{"negative monthly cap", caps("monthlyLimit", -5), []string{"spendingControls.monthlyLimit"}},
			{"fractional cap", caps("dailyLimit", 10.5), []string{"spendingControls.dailyLimit"}},
			{"string cap", caps("dailyLimit", "100"), []string{"spendingControls.dailyLimit"}},
			{"caps not an object", with("spendingControls", 5), []string{"spendingControls"}},
			{"scope not a string", with("scope", 3), []string{"scope"}},
			{"terms not a bool", with("acceptedAgentTerms", "yes"), []string{"acceptedAgentTerms"}},
			{"several at once", map[string]any{"label": "", "scope": "x"}, []string{"label", "scope", "acceptedAgentTerms"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ss := keysHelperSub(s, t)
				r := ss.Do("POST", "/api/v1/agent-keys", c.body, owner.Auth())
				testkit.WantFields(t, r, c.fields...)
			})
		}
		t.Run("malformed JSON", func(t *testing.T) {
			ss := keysHelperSub(s, t)
			ss.Unchecked = true // not JSON at all: no document can describe it
			testkit.WantFields(t, ss.Do("POST", "/api/v1/agent-keys", `{"label":`, owner.Auth()), "body")
		})
		t.Run("body over 1 MiB", func(t *testing.T) {
			ss := keysHelperSub(s, t)
			ss.Unchecked = true
			big := `{"label":"` + strings.Repeat("a", 1<<20) + `"}`
			ss.Do("POST", "/api/v1/agent-keys", big, owner.Auth()).Want(t, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
		})
		// Nothing was created by any of the refused requests.
		if l := s.Do("GET", "/api/v1/agent-keys", nil, owner.Auth()).Want(t, http.StatusOK, "").List(); len(l) != 0 {
			t.Fatalf("refused requests created keys: %v", l)
		}

		// Boundaries that are accepted: 0 and 1e9.
		r := keysHelperCreate(s, owner, with("spendingControls", map[string]any{
			"perTransactionLimit": 0, "dailyLimit": 1_000_000_000, "weeklyLimit": 7000, "monthlyLimit": 9000,
		})).Want(t, http.StatusCreated, "")
		sc := keysHelperObj(t, r.Data(), "spendingControls")
		if keysHelperNum(t, sc, "perTransactionLimit") != 0 || keysHelperNum(t, sc, "dailyLimit") != 1_000_000_000 ||
			keysHelperNum(t, sc, "weeklyLimit") != 7000 || keysHelperNum(t, sc, "monthlyLimit") != 9000 {
			t.Fatalf("spendingControls = %v", sc)
		}
	})
}

func TestAgentKeyScopesAndOrder(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("keyscopes")
		spellings := []struct{ in, want string }{
			{"buy_only", "buy_only"}, {"buy", "buy_only"}, {"sell_only", "sell_only"}, {"sell", "sell_only"}, {"buy_sell", "buy_sell"},
		}
		var ids []string
		for _, sp := range spellings {
			r := keysHelperCreate(s, owner, map[string]any{"label": "k " + sp.in, "scope": sp.in, "acceptedAgentTerms": true}).
				Want(t, http.StatusCreated, "")
			if r.Data()["scope"] != sp.want {
				t.Fatalf("scope %q answered %v, want %q", sp.in, r.Data()["scope"], sp.want)
			}
			ids = append(ids, r.Data()["id"].(string))
			s.Clock.Advance(time.Second)
		}
		// Two more in the same instant: the id breaks the tie, still newest first.
		for range 2 {
			ids = append(ids, s.NewKey(owner, "buy_only").ID)
		}
		l := s.Do("GET", "/api/v1/agent-keys", nil, owner.Auth()).Want(t, http.StatusOK, "").List()
		var got []string
		for _, it := range l {
			got = append(got, it.(map[string]any)["id"].(string))
		}
		slices.Reverse(ids)
		if !slices.Equal(got, ids) {
			t.Fatalf("list order = %v, want newest first %v", got, ids)
		}
		// Another owner sees none of them.
		other := s.Register("keyscopes2")
		if l := s.Do("GET", "/api/v1/agent-keys", nil, other.Auth()).Want(t, http.StatusOK, "").List(); len(l) != 0 {
			t.Fatalf("another owner's list: %v", l)
		}
	})
}

func TestAgentKeyLimitPerOwner(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("keymax")
		var first *testkit.Key
		for i := range agents.MaxKeysPerUser {
			k := s.NewKey(owner, "buy_only")
			if i == 0 {
				first = k
			}
		}
		body := map[string]any{"label": "one too many", "scope": "buy_only", "acceptedAgentTerms": true}
		keysHelperCreate(s, owner, body).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		// Revoked keys do not count.
		s.Do("DELETE", "/api/v1/agent-keys/"+first.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
		keysHelperCreate(s, owner, body).Want(t, http.StatusCreated, "")
	})
}

func TestAgentKeyRevoke(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("revoker")
		k := s.NewKey(owner, "buy_sell")
		keep := s.NewKey(owner, "buy_only")
		keysHelperMe(s, k).Want(t, http.StatusOK, "")

		r := s.Do("DELETE", "/api/v1/agent-keys/"+k.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
		if d := r.Data(); d["status"] != "revoked" || d["revokedAt"] == nil || d["id"] != k.ID {
			t.Fatalf("revoked key: %v", d)
		}
		if _, has := r.Data()["key"]; has {
			t.Fatal("revoke answer shows the secret")
		}
		keysHelperMe(s, k).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		s.Do("GET", "/api/v1/spending-controls", nil, k.Auth()).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		// Revoking twice is harmless; the other key is untouched.
		s.Do("DELETE", "/api/v1/agent-keys/"+k.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
		keysHelperMe(s, keep).Want(t, http.StatusOK, "")
		// A revoked key cannot be unfrozen.
		s.Do("PATCH", "/api/v1/agent-keys/"+k.ID+"/unfreeze", nil, owner.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		// The list still shows it, as revoked.
		for _, it := range s.Do("GET", "/api/v1/agent-keys", nil, owner.Auth()).Want(t, http.StatusOK, "").List() {
			m := it.(map[string]any)
			if m["id"] == k.ID && m["status"] != "revoked" {
				t.Fatalf("listed revoked key: %v", m)
			}
		}

		// Another owner's key, an unknown id and a malformed id are all 404.
		other := s.Register("revoker2")
		for _, id := range []string{keep.ID, "01900000-0000-7000-8000-000000000000", "not-an-id"} {
			s.Do("DELETE", "/api/v1/agent-keys/"+id, nil, other.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("PATCH", "/api/v1/agent-keys/"+id+"/unfreeze", nil, other.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		}
		keysHelperMe(s, keep).Want(t, http.StatusOK, "")
	})
}

func TestAgentKeyFreezeAndUnfreeze(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()
		owner := s.Register("frozen")
		k := s.NewKey(owner, "buy_sell")

		// Unfreezing an active key is a no-op.
		r := s.Do("PATCH", "/api/v1/agent-keys/"+k.ID+"/unfreeze", nil, owner.Auth()).Want(t, http.StatusOK, "")
		if r.Data()["status"] != "active" {
			t.Fatalf("unfreeze of an active key: %v", r.Data())
		}

		r = s.Do("POST", keysHelperAdminPath(owner.ID, k.ID, "freeze"), nil, admin.Auth()).Want(t, http.StatusOK, "")
		if r.Data()["status"] != "frozen" || r.Data()["frozenAt"] == nil {
			t.Fatalf("frozen key: %v", r.Data())
		}
		keysHelperMe(s, k).Want(t, http.StatusForbidden, "AGENT_FROZEN")
		s.Do("GET", "/api/v1/spending-controls", nil, k.Auth()).Want(t, http.StatusForbidden, "AGENT_FROZEN")
		// Freezing twice is harmless.
		s.Do("POST", keysHelperAdminPath(owner.ID, k.ID, "freeze"), nil, admin.Auth()).Want(t, http.StatusOK, "")

		// Only the owner unfreezes: another owner gets 404, the agent 403.
		other := s.Register("frozen2")
		s.Do("PATCH", "/api/v1/agent-keys/"+k.ID+"/unfreeze", nil, other.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		r = s.Do("PATCH", "/api/v1/agent-keys/"+k.ID+"/unfreeze", nil, owner.Auth()).Want(t, http.StatusOK, "")
		if r.Data()["status"] != "active" || r.Data()["frozenAt"] != nil {
			t.Fatalf("unfrozen key: %v", r.Data())
		}
		keysHelperMe(s, k).Want(t, http.StatusOK, "")

		// Admin revoke ends it; a revoked key can be neither frozen nor unfrozen.
		r = s.Do("POST", keysHelperAdminPath(owner.ID, k.ID, "revoke"), nil, admin.Auth()).Want(t, http.StatusOK, "")
		if r.Data()["status"] != "revoked" {
			t.Fatalf("admin-revoked key: %v", r.Data())
		}
		keysHelperMe(s, k).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		s.Do("POST", keysHelperAdminPath(owner.ID, k.ID, "revoke"), nil, admin.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", keysHelperAdminPath(owner.ID, k.ID, "freeze"), nil, admin.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		s.Do("PATCH", "/api/v1/agent-keys/"+k.ID+"/unfreeze", nil, owner.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")

		// The owner may also end a frozen key by revoking it.
		k2 := s.NewKey(owner, "buy_only")
		s.Do("POST", keysHelperAdminPath(owner.ID, k2.ID, "freeze"), nil, admin.Auth()).Want(t, http.StatusOK, "")
		if d := s.Do("DELETE", "/api/v1/agent-keys/"+k2.ID, nil, owner.Auth()).Want(t, http.StatusOK, "").Data(); d["status"] != "revoked" {
			t.Fatalf("owner revoke of a frozen key: %v", d)
		}
		keysHelperMe(s, k2).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
	})
}

func TestAgentKeyAdminRoutes(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()
		owner := s.Register("admowner")
		other := s.Register("admother")
		k := s.NewKey(owner, "buy_only")
		otherKey := s.NewKey(other, "buy_only")
		unknown := "01900000-0000-7000-8000-000000000000"

		for _, action := range []string{"freeze", "revoke"} {
			p := keysHelperAdminPath(owner.ID, k.ID, action)
			// Not an admin: the owner themself, and another user.
			s.Do("POST", p, nil, owner.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", p, nil, other.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			// An agent key, even its own, is not an admin.
			s.Do("POST", p, nil, k.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", p, nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do("POST", p, nil, testkit.Bearer("not-a-token")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			// The pair must match: a key of another user, unknown or malformed ids.
			for _, pair := range [][2]string{{owner.ID, otherKey.ID}, {other.ID, k.ID}, {unknown, k.ID}, {owner.ID, unknown}, {"x", k.ID}, {owner.ID, "x"}} {
				s.Do("POST", keysHelperAdminPath(pair[0], pair[1], action), nil, admin.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			}
		}
		// None of the refused calls changed anything.
		keysHelperMe(s, k).Want(t, http.StatusOK, "")
		keysHelperMe(s, &testkit.Key{Secret: otherKey.Secret}).Want(t, http.StatusOK, "")
	})
}

func TestAgentKeyAgentsCannotManageKeys(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("agentmanage")
		k := s.NewKey(owner, "buy_sell")
		victim := s.NewKey(owner, "buy_only")
		body := map[string]any{"label": "x", "scope": "buy_only", "acceptedAgentTerms": true}
		s.Do("POST", "/api/v1/agent-keys", body, k.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("GET", "/api/v1/agent-keys", nil, k.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("DELETE", "/api/v1/agent-keys/"+victim.ID, nil, k.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("PATCH", "/api/v1/agent-keys/"+victim.ID+"/unfreeze", nil, k.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		keysHelperMe(s, victim).Want(t, http.StatusOK, "")

		// A bad key on a bearer route is an invalid key, not a missing token.
		s.Do("GET", "/api/v1/agent-keys", nil, testkit.AgentKey("mk_test_nope")).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		// No credentials at all, and a bad token.
		s.Do("GET", "/api/v1/agent-keys", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("POST", "/api/v1/agent-keys", body).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("GET", "/api/v1/agent-keys", nil, testkit.Bearer("garbage")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		if r := s.Do("PUT", "/api/v1/agent-keys", body, owner.Auth()).Want(t, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED"); !strings.Contains(r.Header.Get("Allow"), "POST") {
			t.Fatalf("Allow = %q", r.Header.Get("Allow"))
		}
		s.Do("DELETE", "/api/v1/agent-keys/"+victim.ID, nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("PATCH", "/api/v1/agent-keys/"+victim.ID+"/unfreeze", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
	})
}

func TestAgentKeyAuthentication(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("keyauth")
		k := s.NewKey(owner, "sell_only")

		// Malformed, unknown and wrong-mode secrets are all invalid.
		bad := []string{"", "mk_test_", "mk_test_" + strings.Repeat("a", 43), "mk_live_" + k.Secret[len("mk_test_"):],
			k.Secret + "x", k.Secret[:len(k.Secret)-1], strings.ToUpper(k.Secret), "Bearer " + k.Secret}
		for _, secret := range bad {
			if secret == "" {
				// No header at all on an either-route is a missing credential.
				s.Do("GET", "/api/v1/auth/me", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
				continue
			}
			s.Do("GET", "/api/v1/auth/me", nil, testkit.AgentKey(secret)).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		}

		// lastUsedAt is null until the key is used, then the service clock.
		lastUsed := func() any {
			for _, it := range s.Do("GET", "/api/v1/agent-keys", nil, owner.Auth()).Want(t, http.StatusOK, "").List() {
				if m := it.(map[string]any); m["id"] == k.ID {
					return m["lastUsedAt"]
				}
			}
			t.Fatal("key not listed")
			return nil
		}
		if v := lastUsed(); v != nil {
			t.Fatalf("lastUsedAt before use = %v", v)
		}
		s.Clock.Advance(90 * time.Second)
		used := s.Clock.Now()
		keysHelperMe(s, k).Want(t, http.StatusOK, "")
		got, err := time.Parse(time.RFC3339Nano, fmt.Sprint(lastUsed()))
		if err != nil || !got.Equal(used) {
			t.Fatalf("lastUsedAt = %v, want %v", lastUsed(), used)
		}
		// Used again much later: it moves on.
		s.Clock.Advance(time.Hour)
		keysHelperMe(s, k).Want(t, http.StatusOK, "")
		if got, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(lastUsed())); !got.Equal(s.Clock.Now()) {
			t.Fatalf("lastUsedAt after a second use = %v, want %v", got, s.Clock.Now())
		}

		// A suspended or banned owner's agents are refused, and so is the owner.
		for _, st := range []accounts.Status{accounts.StatusSuspended, accounts.StatusBanned} {
			s.SetStatus(owner.ID, st)
			keysHelperMe(s, k).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
			s.Do("GET", "/api/v1/spending-controls", nil, k.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
			s.Do("GET", "/api/v1/agent-keys", nil, owner.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
		}
		s.SetStatus(owner.ID, accounts.StatusActive)
		keysHelperMe(s, k).Want(t, http.StatusOK, "")
	})
}

func TestAgentKeyLiveMode(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{Mode: config.Live}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("liveowner")
		k := s.NewKey(owner, "buy_only")
		if !strings.HasPrefix(k.Secret, "mk_live_") {
			t.Fatalf("live key = %q, want mk_live_", k.Secret)
		}
		keysHelperMe(s, k).Want(t, http.StatusOK, "")
		// A sandbox-shaped key is not a key of a live service.
		test := "mk_test_" + k.Secret[len("mk_live_"):]
		keysHelperMe(s, &testkit.Key{Secret: test}).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
	})
}

// TestAgentKeyLimitConcurrent shows the per-owner cap holds when the last
// free places are asked for at once.
func TestAgentKeyLimitConcurrent(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("keyrace")
		for range agents.MaxKeysPerUser - 1 {
			s.NewKey(owner, "buy_only")
		}
		const n = 6
		out := make(chan int, n)
		for range n {
			go func() {
				out <- s.Do("POST", "/api/v1/agent-keys", map[string]any{"label": "race", "scope": "buy_only", "acceptedAgentTerms": true}, owner.Auth()).Status
			}()
		}
		created := 0
		for range n {
			switch st := <-out; st {
			case http.StatusCreated:
				created++
			case http.StatusBadRequest:
			default:
				t.Fatalf("concurrent create answered %d", st)
			}
		}
		if created != 1 {
			t.Fatalf("%d keys created for the one free place", created)
		}
		if l := s.Do("GET", "/api/v1/agent-keys", nil, owner.Auth()).Want(t, http.StatusOK, "").List(); len(l) != agents.MaxKeysPerUser {
			t.Fatalf("%d keys, want %d", len(l), agents.MaxKeysPerUser)
		}
	})
}
