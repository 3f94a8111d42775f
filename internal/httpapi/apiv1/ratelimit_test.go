package apiv1_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/ratelimit"
	"marketplace/internal/settings"
	"marketplace/internal/testkit"
)

// rlLimiters are the two limiters every rate-limit test runs on: the
// in-process one, and Redis when MARKETPLACE_TEST_REDIS_URL is set (each
// server under a prefix of its own, so runs never share counts).
func rlLimiters(t *testing.T) map[string]func(now func() time.Time) ratelimit.Limiter {
	out := map[string]func(now func() time.Time) ratelimit.Limiter{"memory": nil}
	url := os.Getenv("MARKETPLACE_TEST_REDIS_URL")
	if url == "" {
		return out
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	out["redis"] = func(now func() time.Time) ratelimit.Limiter {
		c := redis.NewClient(opt)
		t.Cleanup(func() { c.Close() })
		return ratelimit.NewRedis(c, "rltest:"+market.NewID()+":", now)
	}
	return out
}

// rlRun runs fn on every engine and limiter with the route limits on.
func rlRun(t *testing.T, opts testkit.Options, fn func(t *testing.T, s *testkit.Server)) {
	for name, l := range rlLimiters(t) {
		t.Run(name, func(t *testing.T) {
			o := opts
			o.RateLimits, o.Limiter = true, l
			testkit.Run(t, o, fn)
		})
	}
}

// rlSet changes an admin config value.
func rlSet(t *testing.T, s *testkit.Server, key string, v int) {
	t.Helper()
	if _, err := s.App.Settings.Set(context.Background(), market.System, key, json.RawMessage(strconv.Itoa(v))); err != nil {
		t.Fatalf("set %s: %v", key, err)
	}
}

// rlFresh moves real time past every window, so setup requests do not count.
func rlFresh(s *testkit.Server) { s.RealTime.Advance(11 * time.Minute) }

// rlHeaders checks the X-RateLimit-* headers of an answer.
func rlHeaders(t *testing.T, r *testkit.Response, limit, remaining int, reset time.Time) {
	t.Helper()
	want := map[string]string{"X-RateLimit-Limit": strconv.Itoa(limit), "X-RateLimit-Remaining": strconv.Itoa(remaining),
		"X-RateLimit-Reset": strconv.FormatInt(reset.Unix(), 10)}
	for h, v := range want {
		if got := r.Header.Get(h); got != v {
			t.Fatalf("%s = %q, want %q (status %d)", h, got, v, r.Status)
		}
	}
}

// rlExhaust sends n allowed requests then one refused, checking headers
// and Retry-After; every request is at the same real-time instant.
func rlExhaust(t *testing.T, s *testkit.Server, n int, window time.Duration, do func() *testkit.Response) {
	t.Helper()
	now := s.RealTime.Now()
	for i := 0; i < n; i++ {
		r := do()
		if r.Status == http.StatusTooManyRequests {
			t.Fatalf("request %d of %d refused: %s", i+1, n, r.Body)
		}
		rlHeaders(t, r, n, n-1-i, now.Add(window))
	}
	r := do().Want(t, http.StatusTooManyRequests, "RATE_LIMITED")
	rlHeaders(t, r, n, 0, now.Add(window))
	if got, want := r.Header.Get("Retry-After"), strconv.Itoa(int(window/time.Second)); got != want {
		t.Fatalf("Retry-After = %q, want %q", got, want)
	}
}

func rlTier(s *testkit.Server, u *testkit.User, tier accounts.TrustTier) {
	s.UpdateUser(u.ID, func(au *accounts.User) { au.TrustTier = tier })
}

// TestRateLimitClassesAndTiers: on /v1 each class (read, search, write) has
// its own budget by the owner's tier (CONTRACT.md section 10's mapping),
// values from admin config; an admin's change of trust tier applies to the
// very next request.
func TestRateLimitClassesAndTiers(t *testing.T) {
	t.Parallel()
	rlRun(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("rl-owner")
		key := s.NewKey(owner, "buy_sell")
		cells := map[string]map[string]int{ // tier -> class -> limit
			"default": {"read": 2, "write": 3, "search": 4}, "verified_seller": {"read": 5, "write": 6, "search": 7},
			"partner": {"read": 8, "write": 9, "search": 10}}
		for tier, row := range cells {
			for class, n := range row {
				rlSet(t, s, settings.V1PerMinute(tier, class).Name(), n)
			}
		}
		do := map[string]func() *testkit.Response{
			"read":   func() *testkit.Response { return s.Do("GET", "/v1/auth/whoami", nil, key.Auth()) },
			"search": func() *testkit.Response { return s.Do("GET", "/v1/search?q=lamp", nil, key.Auth()) },
			"write":  func() *testkit.Response { return s.Do("DELETE", "/v1/listings/"+market.NewID(), nil, key.Auth()) },
		}
		for _, c := range []struct {
			trust accounts.TrustTier
			table string
		}{{accounts.TierNew, "default"}, {accounts.TierVerified, "verified_seller"}, {accounts.TierTrusted, "verified_seller"}, {accounts.TierPartner, "partner"}} {
			rlTier(s, owner, c.trust)
			rlFresh(s)
			for _, class := range []string{"read", "search", "write"} {
				t.Logf("%s (%s) %s", c.trust, c.table, class)
				rlExhaust(t, s, cells[c.table][class], time.Minute, do[class])
			}
			// A minute later the window has room again.
			s.RealTime.Advance(time.Minute)
			if r := do["read"](); r.Status != http.StatusOK {
				t.Fatalf("after the window: %d %s", r.Status, r.Body)
			}
		}
		// Tier change applies at once: exhausted as default, then partner.
		rlTier(s, owner, accounts.TierNew)
		rlFresh(s)
		rlExhaust(t, s, 2, time.Minute, do["read"])
		rlTier(s, owner, accounts.TierPartner)
		if r := do["read"](); r.Status != http.StatusOK || r.Header.Get("X-RateLimit-Limit") != "8" {
			t.Fatalf("after the upgrade: %d limit %q", r.Status, r.Header.Get("X-RateLimit-Limit"))
		}
	})
}

// TestRateLimitAPIBurst: on /api/v1 a key has requests per minute and a
// burst (a second window of 10 seconds), by the request table's tier.
func TestRateLimitAPIBurst(t *testing.T) {
	t.Parallel()
	rlRun(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("rl-api")
		key := s.NewKey(owner, "buy_sell")
		rlSet(t, s, settings.APIBurst("new").Name(), 2)
		rlSet(t, s, settings.APIPerMinute("new").Name(), 3)
		rlSet(t, s, settings.APIBurst("trusted").Name(), 4)
		rlSet(t, s, settings.APIPerMinute("trusted").Name(), 5)
		me := func() *testkit.Response { return s.Do("GET", "/api/v1/auth/me", nil, key.Auth()) }
		rlFresh(s)
		t0 := s.RealTime.Now()
		rlExhaust(t, s, 2, 10*time.Second, me) // the burst window refuses the third
		s.RealTime.Advance(10 * time.Second)
		r := me().Want(t, http.StatusOK, "")
		rlHeaders(t, r, 3, 0, t0.Add(time.Minute)) // the minute window is now the tighter
		r = me().Want(t, http.StatusTooManyRequests, "RATE_LIMITED")
		if got := r.Header.Get("Retry-After"); got != "50" {
			t.Fatalf("Retry-After = %q, want 50 (the minute window)", got)
		}
		// Partner owners get the table's highest row, trusted.
		rlTier(s, owner, accounts.TierPartner)
		rlFresh(s)
		rlExhaust(t, s, 4, 10*time.Second, me)
	})
}

// TestRateLimitHumansAndAnonymous: 600/min per signed-in user, 300/min per
// address without credentials (admin config); health and documents are not
// limited.
func TestRateLimitHumansAndAnonymous(t *testing.T) {
	t.Parallel()
	rlRun(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("rl-human")
		key := s.NewKey(u, "buy_sell")
		cfg := s.Do("GET", "/api/v1/admin/config", nil, s.Admin().Auth()).Want(t, http.StatusOK, "")
		defaults := map[string]string{}
		for _, e := range cfg.List() {
			m := e.(map[string]any)
			b, _ := json.Marshal(m["value"])
			defaults[m["key"].(string)] = string(b)
		}
		for k, v := range map[string]string{"ratelimit.human.per_minute": "600", "ratelimit.anonymous.per_minute": "300",
			"ratelimit.abuse_threshold": "60", "anomaly.max_purchases_per_hour": "30", "ratelimit.v1.default.read": "120",
			"ratelimit.v1.partner.search": "300", "ratelimit.api.new.burst": "10", "ratelimit.api.trusted.per_minute": "300"} {
			if defaults[k] != v {
				t.Errorf("default %s = %s, want %s", k, defaults[k], v)
			}
		}
		rlSet(t, s, settings.HumanPerMinute.Name(), 3)
		rlSet(t, s, settings.AnonymousPerMinute.Name(), 2)
		rlFresh(s)
		rlExhaust(t, s, 3, time.Minute, func() *testkit.Response { return s.Do("GET", "/api/v1/auth/me", nil, u.Auth()) })
		rlExhaust(t, s, 2, time.Minute, func() *testkit.Response { return s.Do("GET", "/api/v1/listings/categories", nil) })
		// The same public route with an agent key counts for the key, not
		// the address (its burst window is the tighter: 10).
		r := s.Do("GET", "/api/v1/listings/categories", nil, key.Auth()).Want(t, http.StatusOK, "")
		if r.Header.Get("X-RateLimit-Limit") != "10" {
			t.Fatalf("agent on a public route: limit %q, want the key's burst 10", r.Header.Get("X-RateLimit-Limit"))
		}
		for i := 0; i < 5; i++ {
			r := s.Do("GET", "/api/v1/health", nil).Want(t, http.StatusOK, "")
			if r.Header.Get("X-RateLimit-Limit") != "" {
				t.Fatal("health answered with rate-limit headers")
			}
		}
	})
}

// TestRateLimitScale: MARKETPLACE_RATE_LIMIT_SCALE multiplies every limit;
// 0 switches them off (no headers, no 429).
func TestRateLimitScale(t *testing.T) {
	t.Parallel()
	two, zero := 2.0, 0.0
	testkit.Run(t, testkit.Options{RateLimits: true, RateLimitScale: &two}, func(t *testing.T, s *testkit.Server) {
		key := s.NewKey(s.Register("rl-scale2"), "buy_sell")
		rlSet(t, s, settings.V1PerMinute("default", "read").Name(), 3)
		rlFresh(s)
		rlExhaust(t, s, 6, time.Minute, func() *testkit.Response { return s.Do("GET", "/v1/auth/whoami", nil, key.Auth()) })
	})
	testkit.Run(t, testkit.Options{RateLimits: true, RateLimitScale: &zero}, func(t *testing.T, s *testkit.Server) {
		key := s.NewKey(s.Register("rl-scale0"), "buy_sell")
		rlSet(t, s, settings.V1PerMinute("default", "read").Name(), 1)
		for i := 0; i < 5; i++ {
			r := s.Do("GET", "/v1/auth/whoami", nil, key.Auth()).Want(t, http.StatusOK, "")
			if r.Header.Get("X-RateLimit-Limit") != "" {
				t.Fatal("scale 0 still sends rate-limit headers")
			}
		}
	})
}

// rlKeyOf finds key id among the owner's keys.
func rlKeyOf(t *testing.T, s *testkit.Server, owner *testkit.User, id string) map[string]any {
	t.Helper()
	for _, k := range s.Do("GET", "/api/v1/agent-keys", nil, owner.Auth()).Want(t, http.StatusOK, "").List() {
		if m := k.(map[string]any); m["id"] == id {
			return m
		}
	}
	t.Fatalf("key %s not listed", id)
	return nil
}

// TestRateLimitAbuseFreeze: a key may be refused abuse_threshold times in 10
// minutes; the refusal after that freezes it (rate_limit_abuse), with a
// system audit entry and agent_key.frozen to the owner.
func TestRateLimitAbuseFreeze(t *testing.T) {
	t.Parallel()
	rlRun(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("rl-abuse")
		key := s.NewKey(owner, "buy_sell")
		adm := s.Admin()
		const n = 4
		rlSet(t, s, settings.AbuseThreshold.Name(), n)
		rlSet(t, s, settings.V1PerMinute("default", "read").Name(), 1)
		rlFresh(s)
		who := func() *testkit.Response { return s.Do("GET", "/v1/auth/whoami", nil, key.Auth()) }
		who().Want(t, http.StatusOK, "")
		for i := 0; i < n; i++ { // exactly N refused: nothing happens
			who().Want(t, http.StatusTooManyRequests, "RATE_LIMITED")
		}
		if k := rlKeyOf(t, s, owner, key.ID); k["status"] != "active" || k["frozenReason"] != nil {
			t.Fatalf("after %d refusals the key is %v (%v), want active", n, k["status"], k["frozenReason"])
		}
		who().Want(t, http.StatusForbidden, "AGENT_FROZEN") // N+1: frozen
		if k := rlKeyOf(t, s, owner, key.ID); k["status"] != "frozen" || k["frozenReason"] != "rate_limit_abuse" {
			t.Fatalf("after %d refusals the key is %v (%v), want frozen rate_limit_abuse", n+1, k["status"], k["frozenReason"])
		}
		s.RealTime.Advance(time.Hour) // the window no longer matters: frozen stays frozen
		who().Want(t, http.StatusForbidden, "AGENT_FROZEN")
		audit := s.Do("GET", "/api/v1/admin/audit?action=agent_key.freeze", nil, adm.Auth()).Want(t, http.StatusOK, "").List()
		if len(audit) != 1 || audit[0].(map[string]any)["actorType"] != "system" || audit[0].(map[string]any)["entityId"] != key.ID {
			t.Fatalf("audit entries %v, want one system freeze of the key", audit)
		}
		rlWantFrozenEvent(t, s, owner, key.ID, "rate_limit_abuse")
		// The owner unfreezes; the reason is gone.
		r := s.Do("PATCH", "/api/v1/agent-keys/"+key.ID+"/unfreeze", nil, owner.Auth()).Want(t, http.StatusOK, "")
		if r.Data()["frozenReason"] != nil || r.Data()["status"] != "active" {
			t.Fatalf("unfrozen key: %v", r.Data())
		}
		who().Want(t, http.StatusOK, "")
	})
}

// rlWantFrozenEvent finds agent_key.frozen with reason in the owner's feed.
func rlWantFrozenEvent(t *testing.T, s *testkit.Server, owner *testkit.User, keyID, reason string) {
	t.Helper()
	var n int
	err := s.App.DB.WritePool().QueryRowContext(context.Background(),
		`SELECT COUNT(*) FROM events WHERE type = 'agent_key.frozen' AND entity_id = '`+keyID+`' AND data LIKE '%`+reason+`%'`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%d agent_key.frozen events with reason %s, want 1", n, reason)
	}
	_ = owner
}

// TestPurchaseVelocityFreeze: the purchase that makes a key's count in the
// hour exceed anomaly.max_purchases_per_hour goes through and freezes the
// key (purchase_velocity) in its transaction; the next is AGENT_FROZEN.
func TestPurchaseVelocityFreeze(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("rl-seller")
		buyer := s.NewShopper("rl-buyer", "pm_card_visa")
		const max = 2
		rlSet(t, s, settings.MaxPurchasesPerHour.Name(), max)
		buy := func() *testkit.Response {
			l := s.ActiveListing(seller, fmt.Sprintf("velocity lamp %s", market.NewID()), 1000)
			return s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": l, "maxPrice": 100000,
				"shippingAddress": testkit.Address()}, buyer.Key.Auth())
		}
		for i := 0; i < max; i++ {
			buy().Want(t, http.StatusCreated, "")
		}
		if k := rlKeyOf(t, s, buyer.User, buyer.Key.ID); k["status"] != "active" {
			t.Fatalf("after %d purchases the key is %v", max, k["status"])
		}
		buy().Want(t, http.StatusCreated, "") // max+1: goes through, and freezes
		if k := rlKeyOf(t, s, buyer.User, buyer.Key.ID); k["status"] != "frozen" || k["frozenReason"] != "purchase_velocity" {
			t.Fatalf("after %d purchases the key is %v (%v)", max+1, k["status"], k["frozenReason"])
		}
		buy().Want(t, http.StatusForbidden, "AGENT_FROZEN")
		rlWantFrozenEvent(t, s, buyer.User, buyer.Key.ID, "purchase_velocity")
		// An hour on, after the owner unfreezes, the count starts again.
		s.Do("PATCH", "/api/v1/agent-keys/"+buyer.Key.ID+"/unfreeze", nil, buyer.Auth()).Want(t, http.StatusOK, "")
		s.Clock.Advance(time.Hour + time.Second)
		buy().Want(t, http.StatusCreated, "")
		if k := rlKeyOf(t, s, buyer.User, buyer.Key.ID); k["status"] != "active" {
			t.Fatalf("a purchase an hour later froze the key: %v", k["frozenReason"])
		}
	})
}

// TestOwnerFreezeRoute: PATCH /agent-keys/{id}/freeze, the owner's panic
// button, by who may call it; frozenReason on the key list; admin freeze
// says admin; unfreeze clears it.
func TestOwnerFreezeRoute(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner, other := s.Register("rl-fo"), s.Register("rl-fx")
		key, otherKey := s.NewKey(owner, "buy_sell"), s.NewKey(other, "buy_sell")
		path := "/api/v1/agent-keys/" + key.ID + "/freeze"
		s.Do("PATCH", path, nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("PATCH", path, nil, other.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("PATCH", path, nil, key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("PATCH", path, nil, otherKey.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		r := s.Do("PATCH", path, map[string]any{"reason": "agent went rogue"}, owner.Auth()).Want(t, http.StatusOK, "")
		if r.Data()["status"] != "frozen" || r.Data()["frozenReason"] != "owner" {
			t.Fatalf("frozen key: %v", r.Data())
		}
		s.Do("GET", "/api/v1/auth/me", nil, key.Auth()).Want(t, http.StatusForbidden, "AGENT_FROZEN")
		if k := rlKeyOf(t, s, owner, key.ID); k["frozenReason"] != "owner" {
			t.Fatalf("listed: %v", k)
		}
		s.Do("PATCH", path, nil, owner.Auth()).Want(t, http.StatusOK, "") // again: unchanged
		s.Do("PATCH", "/api/v1/agent-keys/"+key.ID+"/unfreeze", nil, owner.Auth()).Want(t, http.StatusOK, "")
		if k := rlKeyOf(t, s, owner, key.ID); k["status"] != "active" || k["frozenReason"] != nil {
			t.Fatalf("unfrozen: %v", k)
		}
		adm := s.Admin()
		a := s.Do("POST", keysHelperAdminPath(owner.ID, key.ID, "freeze"), nil, adm.Auth()).Want(t, http.StatusOK, "")
		if a.Data()["frozenReason"] != "admin" {
			t.Fatalf("admin freeze: %v", a.Data())
		}
		s.Do("DELETE", "/api/v1/agent-keys/"+key.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
		s.Do("PATCH", path, nil, owner.Auth()).Want(t, http.StatusConflict, "INVALID_STATE") // revoked
		s.Do("PATCH", path, nil, key.Auth()).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
	})
}

// blockingLimiter holds the first call for one bucket until released: a
// request past authentication, stopped before its handler.
type blockingLimiter struct {
	ratelimit.Limiter
	bucket  atomic.Value // string
	reached chan struct{}
	release chan struct{}
	once    atomic.Bool
}

func (b *blockingLimiter) Allow(ctx context.Context, key string, l ratelimit.Limit) (ratelimit.Decision, error) {
	if want, _ := b.bucket.Load().(string); want == key && b.once.CompareAndSwap(false, true) {
		close(b.reached)
		<-b.release
	}
	return b.Limiter.Allow(ctx, key, l)
}

// TestFreezeStopsPurchaseInFlight: a purchase already authenticated when the
// owner presses freeze is refused AGENT_FROZEN and charges nothing.
func TestFreezeStopsPurchaseInFlight(t *testing.T) {
	t.Parallel()
	var bl *blockingLimiter
	opts := testkit.Options{RateLimits: true, Limiter: func(now func() time.Time) ratelimit.Limiter {
		bl = &blockingLimiter{Limiter: ratelimit.NewMemory(now), reached: make(chan struct{}), release: make(chan struct{})}
		return bl
	}}
	testkit.Run(t, opts, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("rl-if-seller")
		buyer := s.NewShopper("rl-if-buyer", "pm_card_visa")
		listing := s.ActiveListing(seller, "in-flight lamp", 1000)
		before := s.Charges()
		bl.bucket.Store("rl:k:" + buyer.Key.ID + ":api")
		done := make(chan *testkit.Response)
		go func() {
			done <- s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing, "maxPrice": 100000,
				"shippingAddress": testkit.Address()}, buyer.Key.Auth())
		}()
		<-bl.reached // authenticated, not yet in the handler
		s.Do("PATCH", "/api/v1/agent-keys/"+buyer.Key.ID+"/freeze", nil, buyer.Auth()).Want(t, http.StatusOK, "")
		close(bl.release)
		(<-done).Want(t, http.StatusForbidden, "AGENT_FROZEN")
		if s.Charges() != before {
			t.Fatal("the frozen key's purchase charged")
		}
		if l := s.Do("GET", "/api/v1/listings/"+listing, nil).Want(t, http.StatusOK, ""); l.Data()["status"] != "active" {
			t.Fatalf("listing is %v, want active", l.Data()["status"])
		}
	})
}

// TestRateLimitSharedByReplicas: two servers on one store and one Redis
// enforce one limit in total.
func TestRateLimitSharedByReplicas(t *testing.T) {
	t.Parallel()
	url := os.Getenv("MARKETPLACE_TEST_REDIS_URL")
	if url == "" {
		t.Skip("MARKETPLACE_TEST_REDIS_URL is empty")
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	prefix := "rltest:" + market.NewID() + ":"
	shared := func(now func() time.Time) ratelimit.Limiter {
		c := redis.NewClient(opt) // a client of its own, as a replica has
		t.Cleanup(func() { c.Close() })
		return ratelimit.NewRedis(c, prefix, now)
	}
	testkit.RunDB(t, func(t *testing.T, start func(testkit.Options) *testkit.Server) {
		a := start(testkit.Options{RateLimits: true, Limiter: shared})
		b := start(testkit.Options{RateLimits: true, Limiter: shared})
		key := a.NewKey(a.Register("rl-replicas"), "buy_sell")
		rlSet(t, a, settings.V1PerMinute("default", "read").Name(), 5)
		allowed := 0
		for i := 0; i < 20; i++ {
			s := a
			if i%2 == 1 {
				s = b
			}
			if s.Do("GET", "/v1/auth/whoami", nil, key.Auth()).Status == http.StatusOK {
				allowed++
			}
		}
		if allowed != 5 {
			t.Fatalf("%d requests allowed across two replicas, want 5 in total", allowed)
		}
	})
}

// rlMCP calls an MCP tool over HTTP and returns the answer's status and
// rate-limit headers.
func rlMCP(t *testing.T, s *testkit.Server, secret, tool string) (int, http.Header) {
	t.Helper()
	resp, _ := s.MCPPost(secret, tool, nil)
	return resp.StatusCode, resp.Header
}

// TestRateLimitMCPClasses: an MCP tool call counts in its tool's class,
// sharing the key's /v1 budget of that class.
func TestRateLimitMCPClasses(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{RateLimits: true}, func(t *testing.T, s *testkit.Server) {
		key := s.NewKey(s.Register("rl-mcp"), "buy_sell")
		rlSet(t, s, settings.V1PerMinute("default", "search").Name(), 2)
		rlSet(t, s, settings.V1PerMinute("default", "read").Name(), 5)
		rlFresh(s)
		s.Do("GET", "/v1/search?q=lamp", nil, key.Auth()).Want(t, http.StatusOK, "") // one search via /v1
		code, h := rlMCP(t, s, key.Secret, "search_listings")                        // the second, via MCP
		if code != http.StatusOK || h.Get("X-RateLimit-Limit") != "2" || h.Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("search tool: %d limit %q remaining %q", code, h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"))
		}
		if code, h = rlMCP(t, s, key.Secret, "search_listings"); code != http.StatusTooManyRequests || h.Get("Retry-After") != "60" {
			t.Fatalf("third search: %d Retry-After %q, want 429 60", code, h.Get("Retry-After"))
		}
		// A read-only tool of another area counts as read, which has room.
		if code, h = rlMCP(t, s, key.Secret, "get_account"); code != http.StatusOK || h.Get("X-RateLimit-Limit") != "5" {
			t.Fatalf("read tool: %d limit %q", code, h.Get("X-RateLimit-Limit"))
		}
	})
}
