package apiv1_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/testkit"
)

// spendHelperRecord puts one agent spending row on the books.
func spendHelperRecord(t testing.TB, s *testkit.Server, ownerID, keyID string, amount int64, at time.Time, released *time.Time) {
	t.Helper()
	ctx := context.Background()
	err := s.App.DB.InTx(ctx, func(tx *store.Tx) error {
		return tx.RecordSpend(ctx, ownerID, keyID, market.NewID(), amount, at, released)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// spendHelperStatus reads GET /spending-controls as caller and returns its
// controls, spent and remaining objects.
func spendHelperStatus(t testing.TB, s *testkit.Server, h testkit.Header) (controls, spent, remaining map[string]any) {
	t.Helper()
	d := s.Do("GET", "/api/v1/spending-controls", nil, h).Want(t, http.StatusOK, "").Data()
	return keysHelperObj(t, d, "controls"), keysHelperObj(t, d, "spent"), keysHelperObj(t, d, "remaining")
}

// spendHelperWant compares three numbers of an object.
func spendHelperWant(t testing.TB, what string, m map[string]any, keys [3]string, want [3]int64) {
	t.Helper()
	got := [3]int64{keysHelperNum(t, m, keys[0]), keysHelperNum(t, m, keys[1]), keysHelperNum(t, m, keys[2])}
	if got != want {
		t.Fatalf("%s %v = %v, want %v", what, keys, got, want)
	}
}

var (
	spentKeys     = [3]string{"today", "thisWeek", "thisMonth"}
	remainingKeys = [3]string{"daily", "weekly", "monthly"}
)

func TestSpendingDefaults(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("spenddefault")
		k := s.NewKey(owner, "buy_only")
		for _, h := range []testkit.Header{owner.Auth(), k.Auth()} {
			c, spent, rem := spendHelperStatus(t, s, h)
			if keysHelperNum(t, c, "perTransactionLimit") != 10000 || keysHelperNum(t, c, "dailyLimit") != 50000 ||
				keysHelperNum(t, c, "weeklyLimit") != 200000 || keysHelperNum(t, c, "monthlyLimit") != 500000 {
				t.Fatalf("default controls = %v", c)
			}
			if cats, ok := c["categoryRestrictions"].([]any); !ok || len(cats) != 0 {
				t.Fatalf("categoryRestrictions = %#v, want []", c["categoryRestrictions"])
			}
			if v, has := c["approvalThreshold"]; !has || v != nil {
				t.Fatalf("approvalThreshold = %#v (present %v), want null", v, has)
			}
			spendHelperWant(t, "spent", spent, spentKeys, [3]int64{0, 0, 0})
			spendHelperWant(t, "remaining", rem, remainingKeys, [3]int64{50000, 200000, 500000})
		}
		// No credentials, a bad token, a bad key.
		s.Do("GET", "/api/v1/spending-controls", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("GET", "/api/v1/spending-controls", nil, testkit.Bearer("x")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("GET", "/api/v1/spending-controls", nil, testkit.AgentKey("mk_test_x")).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
	})
}

func TestSpendingUpdate(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("spendput")
		k := s.NewKey(owner, "buy_only")
		put := func(body any) *testkit.Response {
			return s.Do("PUT", "/api/v1/spending-controls", body, owner.Auth())
		}

		r := put(map[string]any{"dailyLimit": 30000, "approvalThreshold": 5000, "categoryRestrictions": []string{"electronics", " Shoes ", "shoes"}}).
			Want(t, http.StatusOK, "")
		c := keysHelperObj(t, r.Data(), "controls")
		if keysHelperNum(t, c, "dailyLimit") != 30000 || keysHelperNum(t, c, "perTransactionLimit") != 10000 ||
			keysHelperNum(t, c, "weeklyLimit") != 200000 || keysHelperNum(t, c, "monthlyLimit") != 500000 ||
			keysHelperNum(t, c, "approvalThreshold") != 5000 {
			t.Fatalf("controls after PUT = %v", c)
		}
		// Entries are trimmed and de-duplicated without regard to case.
		if cats := c["categoryRestrictions"].([]any); len(cats) != 2 || cats[0] != "electronics" || cats[1] != "Shoes" {
			t.Fatalf("categoryRestrictions = %v", cats)
		}
		if rem := keysHelperObj(t, r.Data(), "remaining"); keysHelperNum(t, rem, "daily") != 30000 {
			t.Fatalf("remaining after PUT = %v", rem)
		}

		// A partial update keeps the other fields; what the agent reads is the same.
		put(map[string]any{"weeklyLimit": 100000}).Want(t, http.StatusOK, "")
		c, _, _ = spendHelperStatus(t, s, k.Auth())
		if keysHelperNum(t, c, "dailyLimit") != 30000 || keysHelperNum(t, c, "weeklyLimit") != 100000 ||
			keysHelperNum(t, c, "approvalThreshold") != 5000 || len(c["categoryRestrictions"].([]any)) != 2 {
			t.Fatalf("controls after a partial PUT = %v", c)
		}
		// An empty object changes nothing.
		put(map[string]any{}).Want(t, http.StatusOK, "")
		c2, _, _ := spendHelperStatus(t, s, owner.Auth())
		if keysHelperNum(t, c2, "weeklyLimit") != 100000 || keysHelperNum(t, c2, "approvalThreshold") != 5000 {
			t.Fatalf("controls after an empty PUT = %v", c2)
		}

		// null clears the approval threshold; [] clears the restrictions.
		put(map[string]any{"approvalThreshold": nil, "categoryRestrictions": []string{}}).Want(t, http.StatusOK, "")
		c, _, _ = spendHelperStatus(t, s, owner.Auth())
		if v, has := c["approvalThreshold"]; !has || v != nil {
			t.Fatalf("approvalThreshold after null = %#v", v)
		}
		if cats := c["categoryRestrictions"].([]any); len(cats) != 0 {
			t.Fatalf("categoryRestrictions after [] = %v", cats)
		}
		if keysHelperNum(t, c, "dailyLimit") != 30000 {
			t.Fatalf("dailyLimit lost on clearing: %v", c)
		}
		// Boundaries that are accepted.
		put(map[string]any{"perTransactionLimit": 0, "monthlyLimit": 1_000_000_000, "approvalThreshold": 1}).Want(t, http.StatusOK, "")

		// Owners are separate.
		other := s.Register("spendput2")
		c, _, _ = spendHelperStatus(t, s, other.Auth())
		if keysHelperNum(t, c, "dailyLimit") != 50000 {
			t.Fatalf("another owner's controls changed: %v", c)
		}

		// Agents read, never write.
		s.Do("PUT", "/api/v1/spending-controls", map[string]any{"dailyLimit": 1}, k.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("PUT", "/api/v1/spending-controls", map[string]any{"dailyLimit": 1}).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		c, _, _ = spendHelperStatus(t, s, owner.Auth())
		if keysHelperNum(t, c, "dailyLimit") != 30000 {
			t.Fatalf("a refused PUT changed the controls: %v", c)
		}
	})
}

func TestSpendingUpdateValidation(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("spendval")
		long := make([]byte, 101)
		for i := range long {
			long[i] = 'c'
		}
		many := make([]string, 101)
		for i := range many {
			many[i] = "cat-" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		}
		type tc struct {
			name  string
			body  any
			field string
		}
		var cases []tc
		for _, f := range []string{"perTransactionLimit", "dailyLimit", "weeklyLimit", "monthlyLimit"} {
			cases = append(cases,
				tc{f + " negative", map[string]any{f: -1}, f},
				tc{f + " over 1e9", map[string]any{f: 1_000_000_001}, f},
				tc{f + " fractional", map[string]any{f: 10.5}, f},
				tc{f + " string", map[string]any{f: "100"}, f},
				tc{f + " bool", map[string]any{f: true}, f},
			)
		}
		cases = append(cases,
			tc{"approvalThreshold zero", map[string]any{"approvalThreshold": 0}, "approvalThreshold"},
			tc{"approvalThreshold negative", map[string]any{"approvalThreshold": -3}, "approvalThreshold"},
			tc{"approvalThreshold over 1e9", map[string]any{"approvalThreshold": 1_000_000_001}, "approvalThreshold"},
			tc{"approvalThreshold fractional", map[string]any{"approvalThreshold": 10.5}, "approvalThreshold"},
			tc{"approvalThreshold string", map[string]any{"approvalThreshold": "5"}, "approvalThreshold"},
			tc{"category empty string", map[string]any{"categoryRestrictions": []string{"ok", ""}}, "categoryRestrictions"},
			tc{"category blank", map[string]any{"categoryRestrictions": []string{"   "}}, "categoryRestrictions"},
			tc{"category too long", map[string]any{"categoryRestrictions": []string{string(long)}}, "categoryRestrictions"},
			tc{"too many categories", map[string]any{"categoryRestrictions": many}, "categoryRestrictions"},
			tc{"categories not an array", map[string]any{"categoryRestrictions": "electronics"}, "categoryRestrictions"},
			tc{"category not a string", map[string]any{"categoryRestrictions": []any{5}}, "categoryRestrictions[0]"},
		)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ss := keysHelperSub(s, t)
				r := ss.Do("PUT", "/api/v1/spending-controls", c.body, owner.Auth())
				r.Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
				// Decoding names a list element with its index in some Go
				// versions and without it in others; accept both spellings.
				want := []string{c.field}
				if c.field == "categoryRestrictions[0]" {
					want = append(want, "categoryRestrictions")
				}
				if f := r.Fields(); len(f) != 1 || !slices.Contains(want, f[0]) {
					t.Fatalf("fields = %v, want %v", f, c.field)
				}
			})
		}
		t.Run("several at once", func(t *testing.T) {
			ss := keysHelperSub(s, t)
			r := ss.Do("PUT", "/api/v1/spending-controls", map[string]any{"dailyLimit": -1, "weeklyLimit": -1, "approvalThreshold": 0}, owner.Auth())
			testkit.WantFields(t, r, "dailyLimit", "weeklyLimit", "approvalThreshold")
		})
		t.Run("not an object", func(t *testing.T) {
			ss := keysHelperSub(s, t)
			testkit.WantFields(t, ss.Do("PUT", "/api/v1/spending-controls", []int{1}, owner.Auth()), "body")
		})
		// Nothing was saved by any refused request.
		c, _, _ := spendHelperStatus(t, s, owner.Auth())
		if keysHelperNum(t, c, "dailyLimit") != 50000 || keysHelperNum(t, c, "perTransactionLimit") != 10000 || c["approvalThreshold"] != nil {
			t.Fatalf("controls after refused PUTs = %v", c)
		}
	})
}

// TestSpendingWindows puts spending rows on the books around the calendar
// boundaries of the service clock (Wednesday 2026-06-10 12:00 UTC) and reads
// the sums back.
func TestSpendingWindows(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("spendwin")
		k := s.NewKey(owner, "buy_only")
		now := s.Clock.Now()
		if now.Weekday() != time.Wednesday || now.Day() != 10 {
			t.Fatalf("the test assumes the kit starts on Wednesday the 10th, got %v", now)
		}
		day := time.Date(2026, 6, 10, 0, 0, 0, 0, time.UTC)
		released := day.Add(time.Hour)
		rec := func(amount int64, at time.Time, rel *time.Time) {
			spendHelperRecord(t, s, owner.ID, k.ID, amount, at, rel)
		}
		rec(100, day, nil)                                      // first instant of today
		rec(200, now, nil)                                      // now
		rec(400, day.Add(-time.Microsecond), nil)               // Tuesday: this week
		rec(800, day.AddDate(0, 0, -2), nil)                    // Monday 00:00: this week
		rec(1600, day.AddDate(0, 0, -2).Add(-time.Second), nil) // Sunday 23:59:59: last ISO week, this month
		rec(3200, time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), nil)
		rec(6400, time.Date(2026, 5, 31, 23, 59, 59, 0, time.UTC), nil) // last month
		rec(12800, now, &released)                                      // released: given back
		rec(25600, day.AddDate(0, 0, -1), &released)                    // released too
		// Another owner's spending never counts.
		other := s.Register("spendwin2")
		otherKey := s.NewKey(other, "buy_only")
		spendHelperRecord(t, s, other.ID, otherKey.ID, 51200, now, nil)

		_, spent, rem := spendHelperStatus(t, s, owner.Auth())
		spendHelperWant(t, "spent", spent, spentKeys, [3]int64{300, 1500, 6300})
		spendHelperWant(t, "remaining", rem, remainingKeys, [3]int64{50000 - 300, 200000 - 1500, 500000 - 6300})
		_, spent, _ = spendHelperStatus(t, s, k.Auth())
		spendHelperWant(t, "agent's view of spent", spent, spentKeys, [3]int64{300, 1500, 6300})

		// Spending over a cap floors remaining at zero.
		s.Do("PUT", "/api/v1/spending-controls", map[string]any{"dailyLimit": 250}, owner.Auth()).Want(t, http.StatusOK, "")
		_, _, rem = spendHelperStatus(t, s, owner.Auth())
		spendHelperWant(t, "remaining over the cap", rem, remainingKeys, [3]int64{0, 200000 - 1500, 500000 - 6300})
		s.Do("PUT", "/api/v1/spending-controls", map[string]any{"dailyLimit": 50000}, owner.Auth()).Want(t, http.StatusOK, "")

		// The windows follow the service clock: Sunday 23:00 is still this week.
		s.Clock.Advance(4*24*time.Hour + 11*time.Hour) // Sunday 2026-06-14 23:00
		_, spent, _ = spendHelperStatus(t, s, owner.Auth())
		spendHelperWant(t, "spent on Sunday", spent, spentKeys, [3]int64{0, 1500, 6300})
		// Monday 2026-06-15: a new ISO week, same month.
		s.Clock.Advance(time.Hour)
		_, spent, rem = spendHelperStatus(t, s, owner.Auth())
		spendHelperWant(t, "spent on the next Monday", spent, spentKeys, [3]int64{0, 0, 6300})
		spendHelperWant(t, "remaining on the next Monday", rem, remainingKeys, [3]int64{50000, 200000, 500000 - 6300})
		// July: a new month.
		s.Clock.Advance(17 * 24 * time.Hour) // 2026-07-02
		_, spent, _ = spendHelperStatus(t, s, owner.Auth())
		spendHelperWant(t, "spent in July", spent, spentKeys, [3]int64{0, 0, 0})
	})
}

// TestSpendingKeyCaps shows an agent whose key carries caps of its own sees
// what is left under both: min(owner, key).
func TestSpendingKeyCaps(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("spendcaps")
		r := keysHelperCreate(s, owner, map[string]any{"label": "capped", "scope": "buy_only", "acceptedAgentTerms": true,
			"spendingControls": map[string]any{"perTransactionLimit": 2500, "dailyLimit": 3000, "monthlyLimit": 600000}}).
			Want(t, http.StatusCreated, "")
		capped := &testkit.Key{ID: r.Data()["id"].(string), Secret: r.Data()["key"].(string)}
		free := s.NewKey(owner, "buy_only")
		now := s.Clock.Now()
		spendHelperRecord(t, s, owner.ID, capped.ID, 1000, now, nil)
		spendHelperRecord(t, s, owner.ID, free.ID, 7000, now, nil)

		// The owner sees everything against the owner's caps.
		_, spent, rem := spendHelperStatus(t, s, owner.Auth())
		spendHelperWant(t, "owner spent", spent, spentKeys, [3]int64{8000, 8000, 8000})
		spendHelperWant(t, "owner remaining", rem, remainingKeys, [3]int64{42000, 192000, 492000})

		// The capped key: daily is its own cap minus its own spending (2000);
		// weekly has no key cap (owner's); monthly is the owner's, tighter
		// than the key's 600000 - 1000.
		d := s.Do("GET", "/api/v1/spending-controls", nil, capped.Auth()).Want(t, http.StatusOK, "").Data()
		spendHelperWant(t, "capped key remaining", keysHelperObj(t, d, "remaining"), remainingKeys, [3]int64{2000, 192000, 492000})
		kl := keysHelperObj(t, d, "keyLimits")
		if keysHelperNum(t, kl, "dailyLimit") != 3000 || keysHelperNum(t, kl, "perTransactionLimit") != 2500 {
			t.Fatalf("keyLimits = %v", kl)
		}
		// The key with no caps sees the owner's remaining, and no keyLimits.
		d = s.Do("GET", "/api/v1/spending-controls", nil, free.Auth()).Want(t, http.StatusOK, "").Data()
		spendHelperWant(t, "free key remaining", keysHelperObj(t, d, "remaining"), remainingKeys, [3]int64{42000, 192000, 492000})
		if d["keyLimits"] != nil {
			t.Fatalf("keyLimits of a key without caps = %v", d["keyLimits"])
		}

		// When the owner's daily room drops under the key's, the owner's wins.
		spendHelperRecord(t, s, owner.ID, free.ID, 41000, now, nil)
		d = s.Do("GET", "/api/v1/spending-controls", nil, capped.Auth()).Want(t, http.StatusOK, "").Data()
		if rem := keysHelperObj(t, d, "remaining"); keysHelperNum(t, rem, "daily") != 1000 {
			t.Fatalf("capped key daily remaining = %v, want min(50000-49000, 3000-1000) = 1000", rem)
		}

		// The agent's /auth/me agrees.
		me := keysHelperMe(s, capped).Want(t, http.StatusOK, "").Data()
		if rem := keysHelperObj(t, me, "remaining"); keysHelperNum(t, rem, "daily") != 1000 {
			t.Fatalf("/auth/me remaining = %v", rem)
		}
	})
}

// TestSpendingUpdateConcurrent shows simultaneous partial updates of a new
// owner's controls all land: none overwrites another's field with a default.
func TestSpendingUpdateConcurrent(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		fields := map[string]int64{"perTransactionLimit": 111, "dailyLimit": 222, "weeklyLimit": 333, "monthlyLimit": 444, "approvalThreshold": 555}
		for round := range 3 {
			owner := s.Register(fmt.Sprintf("spendrace%d", round))
			done := make(chan *testkit.Response, len(fields))
			for f, v := range fields {
				go func() {
					done <- s.Do("PUT", "/api/v1/spending-controls", map[string]any{f: v}, owner.Auth())
				}()
			}
			for range fields {
				(<-done).Want(t, http.StatusOK, "")
			}
			c, _, _ := spendHelperStatus(t, s, owner.Auth())
			for f, v := range fields {
				if keysHelperNum(t, c, f) != v {
					t.Fatalf("round %d: %s = %v, want %d (controls %v)", round, f, c[f], v, c)
				}
			}
		}
	})
}
