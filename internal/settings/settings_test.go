package settings_test

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/settings"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

var t0 = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

var adminActor = market.Actor{Type: market.ActorAdmin, UserID: "admin-1", Admin: true}

func newConfig(t *testing.T, db *store.DB) (*settings.Service, *market.FixedClock) {
	t.Helper()
	clock := market.NewFixedClock(t0)
	return settings.NewService(store.Settings(db), clock), clock
}

func TestConfigDefaults(t *testing.T) {
	ctx := context.Background()
	cfg, _ := newConfig(t, storetest.OpenSQLite(t))
	ints := map[settings.Key[int64]]int64{
		settings.BuyerFeeRateBps:  350,
		settings.BuyerFeeMinimum:  99,
		settings.SellerFeeRateBps: 300,
		settings.OfferMaxRounds:   5,
		settings.PayoutHoldHours:  72,
	}
	for key, want := range ints {
		if got, err := cfg.Int(ctx, key); err != nil || got != want {
			t.Errorf("Int(%s) = %d, %v; want %d", key.Name(), got, err, want)
		}
	}
	bools := map[settings.Key[bool]]bool{settings.HoldNewSellers: false, settings.SuspendOnCounterfeit: true}
	for key, want := range bools {
		if got, err := cfg.Bool(ctx, key); err != nil || got != want {
			t.Errorf("Bool(%s) = %v, %v; want %v", key.Name(), got, err, want)
		}
	}
	brands, err := cfg.Strings(ctx, settings.RestrictedBrands)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"Louis Vuitton", "Gucci", "Chanel", "Hermès", "Rolex", "Moncler"} {
		if !slices.Contains(brands, b) {
			t.Errorf("default restricted brands lack %q: %v", b, brands)
		}
	}
}

// A key outside the table (the zero Key, a rate-limit tier the tables do
// not have) is a programming error: internal, never a default. Asking a
// boolean of an integer key does not compile.
func TestConfigUnknownKey(t *testing.T) {
	ctx := context.Background()
	cfg, _ := newConfig(t, storetest.OpenSQLite(t))
	if _, err := cfg.Int(ctx, settings.Key[int64]{}); market.CodeOf(err) != market.CodeInternal {
		t.Errorf("zero key: %v", err)
	}
	if _, err := cfg.Int(ctx, settings.V1PerMinute("no_such_tier", "read")); market.CodeOf(err) != market.CodeInternal {
		t.Errorf("unknown tier: %v", err)
	}
	if _, err := cfg.Bool(ctx, settings.Key[bool]{}); market.CodeOf(err) != market.CodeInternal {
		t.Errorf("zero bool key: %v", err)
	}
	if _, err := cfg.Strings(ctx, settings.Key[[]string]{}); market.CodeOf(err) != market.CodeInternal {
		t.Errorf("zero strings key: %v", err)
	}
}

func TestConfigSetAndRead(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		cfg, clock := newConfig(t, db)
		clock.Advance(time.Hour)

		e, err := cfg.Set(ctx, adminActor, "offers.max_rounds", json.RawMessage(` 8 `))
		if err != nil {
			t.Fatal(err)
		}
		if string(e.Value) != "8" || string(e.Default) != "5" || e.UpdatedAt == nil || !e.UpdatedAt.Equal(t0.Add(time.Hour)) || *e.UpdatedBy != "admin-1" {
			t.Fatalf("Set returned %+v", e)
		}
		// Read on the next call, no restart or cache in the way.
		if n, err := cfg.Int(ctx, settings.OfferMaxRounds); err != nil || n != 8 {
			t.Fatalf("Int after Set = %d, %v", n, err)
		}
		if _, err := cfg.Set(ctx, adminActor, "moderation.suspend_on_counterfeit", json.RawMessage(`false`)); err != nil {
			t.Fatal(err)
		}
		if b, err := cfg.Bool(ctx, settings.SuspendOnCounterfeit); err != nil || b {
			t.Fatalf("Bool after Set = %v, %v", b, err)
		}
		if _, err := cfg.Set(ctx, adminActor, "moderation.restricted_brands", json.RawMessage(`[" Acme ", "Tiffany & Co."]`)); err != nil {
			t.Fatal(err)
		}
		if s, err := cfg.Strings(ctx, settings.RestrictedBrands); err != nil || !slices.Equal(s, []string{"Acme", "Tiffany & Co."}) {
			t.Fatalf("Strings after Set = %q, %v", s, err)
		}
		// An empty list is allowed: no brand restricted.
		if _, err := cfg.Set(ctx, adminActor, "moderation.restricted_brands", json.RawMessage(`[]`)); err != nil {
			t.Fatal(err)
		}
		if s, err := cfg.Strings(ctx, settings.RestrictedBrands); err != nil || len(s) != 0 {
			t.Fatalf("Strings after empty Set = %q, %v", s, err)
		}

		// Overwrite keeps one row and records the new author.
		clock.Advance(time.Minute)
		other := market.Actor{Type: market.ActorAdmin, UserID: "admin-2", Admin: true}
		if _, err := cfg.Set(ctx, other, "offers.max_rounds", json.RawMessage(`3`)); err != nil {
			t.Fatal(err)
		}

		evs, err := db.Read().EventsFor(ctx, "config", "offers.max_rounds")
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 2 {
			t.Fatalf("events = %+v, want 2", evs)
		}
		first, second := evs[0], evs[1]
		if first.Type != "config.updated" || first.ActorType != market.ActorAdmin || first.ActorID != "admin-1" || !first.CreatedAt.Equal(t0.Add(time.Hour)) {
			t.Errorf("first event: %+v", first)
		}
		if first.Data["key"] != "offers.max_rounds" || first.Data["value"] != float64(8) || first.Data["previous"] != float64(5) {
			t.Errorf("first event data: %v", first.Data)
		}
		if second.ActorID != "admin-2" || second.Data["value"] != float64(3) || second.Data["previous"] != float64(8) {
			t.Errorf("second event: %+v", second)
		}

		all, err := cfg.All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		byKey := map[string]settings.Entry{}
		for _, e := range all {
			byKey[e.Key] = e
		}
		r := byKey["offers.max_rounds"]
		if string(r.Value) != "3" || r.UpdatedBy == nil || *r.UpdatedBy != "admin-2" || !r.UpdatedAt.Equal(t0.Add(time.Hour+time.Minute)) {
			t.Errorf("All entry after overwrite: %+v", r)
		}
	})
}

func TestConfigAll(t *testing.T) {
	ctx := context.Background()
	cfg, _ := newConfig(t, storetest.OpenSQLite(t))
	if _, err := cfg.Set(ctx, adminActor, "payouts.hold_hours", json.RawMessage(`24`)); err != nil {
		t.Fatal(err)
	}
	all, err := cfg.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, len(all))
	for i, e := range all {
		keys[i] = e.Key
	}
	want := []string{
		"fees.buyer_minimum", "fees.buyer_rate_bps", "fees.seller_rate_bps",
		"listings.hold_new_sellers", "moderation.restricted_brands",
		"moderation.suspend_on_counterfeit", "offers.max_rounds", "payouts.hold_hours",
		"ratelimit.abuse_threshold", "anomaly.max_purchases_per_hour", "ratelimit.human.per_minute",
		"ratelimit.anonymous.per_minute",
	}
	for _, tier := range []string{"default", "verified_seller", "partner"} {
		for _, class := range []string{"read", "write", "search"} {
			want = append(want, "ratelimit.v1."+tier+"."+class)
		}
	}
	for _, tier := range []string{"new", "verified", "trusted"} {
		want = append(want, "ratelimit.api."+tier+".per_minute", "ratelimit.api."+tier+".burst")
	}
	sort.Strings(want)
	if !sort.StringsAreSorted(keys) || !slices.Equal(keys, want) {
		t.Fatalf("All keys = %v, want %v", keys, want)
	}
	for _, e := range all {
		if e.Description == "" || len(e.Default) == 0 || len(e.Value) == 0 {
			t.Errorf("incomplete entry %+v", e)
		}
		if e.Key == "payouts.hold_hours" {
			if string(e.Value) != "24" || string(e.Default) != "72" || e.UpdatedAt == nil || !e.UpdatedAt.Equal(t0) || e.UpdatedBy == nil || *e.UpdatedBy != "admin-1" {
				t.Errorf("set entry: %+v", e)
			}
			continue
		}
		if string(e.Value) != string(e.Default) || e.UpdatedAt != nil || e.UpdatedBy != nil {
			t.Errorf("default entry should carry no update: %+v", e)
		}
	}
}

func TestConfigSetValidation(t *testing.T) {
	ctx := context.Background()
	db := storetest.OpenSQLite(t)
	cfg, _ := newConfig(t, db)
	long := `["` + strings.Repeat("x", 101) + `"]`
	cases := []struct {
		key, value string
		code       market.Code
	}{
		{"no.such.key", `1`, market.CodeNotFound},
		{"fees", `1`, market.CodeNotFound},
		{"", `1`, market.CodeNotFound},

		{"fees.buyer_rate_bps", `"350"`, market.CodeValidation},
		{"fees.buyer_rate_bps", `3.5`, market.CodeValidation},
		{"fees.buyer_rate_bps", `1e2`, market.CodeValidation},
		{"fees.buyer_rate_bps", `-1`, market.CodeValidation},
		{"fees.buyer_rate_bps", `10001`, market.CodeValidation},
		{"fees.buyer_rate_bps", `null`, market.CodeValidation},
		{"fees.buyer_rate_bps", `0`, ""},
		{"fees.buyer_rate_bps", `10000`, ""},

		{"fees.buyer_minimum", `-1`, market.CodeValidation},
		{"fees.buyer_minimum", `true`, market.CodeValidation},
		{"fees.buyer_minimum", `99999999999999999999`, market.CodeValidation},
		{"fees.buyer_minimum", `0`, ""},
		{"fees.buyer_minimum", `150`, ""},

		{"fees.seller_rate_bps", `[300]`, market.CodeValidation},
		{"fees.seller_rate_bps", `10001`, market.CodeValidation},
		{"fees.seller_rate_bps", `-5`, market.CodeValidation},
		{"fees.seller_rate_bps", `250`, ""},

		{"offers.max_rounds", `0`, market.CodeValidation},
		{"offers.max_rounds", `21`, market.CodeValidation},
		{"offers.max_rounds", `{}`, market.CodeValidation},
		{"offers.max_rounds", `1`, ""},
		{"offers.max_rounds", `20`, ""},

		{"payouts.hold_hours", `-1`, market.CodeValidation},
		{"payouts.hold_hours", `2161`, market.CodeValidation},
		{"payouts.hold_hours", `"72"`, market.CodeValidation},
		{"payouts.hold_hours", `0`, ""},
		{"payouts.hold_hours", `2160`, ""},

		{"listings.hold_new_sellers", `1`, market.CodeValidation},
		{"listings.hold_new_sellers", `"true"`, market.CodeValidation},
		{"listings.hold_new_sellers", `null`, market.CodeValidation},
		{"listings.hold_new_sellers", `true`, ""},

		{"moderation.suspend_on_counterfeit", `0`, market.CodeValidation},
		{"moderation.suspend_on_counterfeit", `"false"`, market.CodeValidation},
		{"moderation.suspend_on_counterfeit", `false`, ""},

		{"moderation.restricted_brands", `"Gucci"`, market.CodeValidation},
		{"moderation.restricted_brands", `null`, market.CodeValidation},
		{"moderation.restricted_brands", `[1]`, market.CodeValidation},
		{"moderation.restricted_brands", `[""]`, market.CodeValidation},
		{"moderation.restricted_brands", `["   "]`, market.CodeValidation},
		{"moderation.restricted_brands", `[null]`, market.CodeValidation},
		{"moderation.restricted_brands", long, market.CodeValidation},
		{"moderation.restricted_brands", `["Gucci","gucci"]`, market.CodeValidation},
		{"moderation.restricted_brands", `{"a":"b"}`, market.CodeValidation},
		{"moderation.restricted_brands", `["` + strings.Repeat("é", 100) + `"]`, ""},

		{"offers.max_rounds", `not json`, market.CodeValidation},
		{"offers.max_rounds", ``, market.CodeValidation},
	}
	for _, c := range cases {
		before, _ := db.Read().ConfigValues(ctx)
		_, err := cfg.Set(ctx, adminActor, c.key, json.RawMessage(c.value))
		if got := market.CodeOf(err); got != c.code {
			t.Errorf("Set(%q, %s) code = %q (%v), want %q", c.key, c.value, got, err, c.code)
			continue
		}
		if c.code == "" {
			continue
		}
		e := market.ErrorOf(err)
		if e.Code != market.CodeValidation && e.Code != market.CodeNotFound {
			t.Errorf("Set(%q, %s) code %s, want a validation or not-found refusal", c.key, c.value, e.Code)
		}
		if c.code == market.CodeValidation {
			if len(e.Fields) != 1 || e.Fields[0].Field != "value" || e.Fields[0].Message == "" {
				t.Errorf("Set(%q, %s) fields = %+v", c.key, c.value, e.Fields)
			}
		}
		after, _ := db.Read().ConfigValues(ctx)
		if string(after[c.key].Value) != string(before[c.key].Value) {
			t.Errorf("refused Set(%q, %s) changed the stored value to %s", c.key, c.value, after[c.key].Value)
		}
	}
}

func TestConfigIgnoresInvalidStoredValue(t *testing.T) {
	ctx := context.Background()
	db := storetest.OpenSQLite(t)
	cfg, _ := newConfig(t, db)
	// As if a later release narrowed the range below a value already set.
	err := db.InTx(ctx, func(tx *store.Tx) error {
		return tx.PutConfigValue(ctx, settings.Stored{Key: "offers.max_rounds", Value: json.RawMessage(`500`), UpdatedAt: t0})
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := cfg.Int(ctx, settings.OfferMaxRounds); err != nil || n != 5 {
		t.Fatalf("Int = %d, %v; want the default 5", n, err)
	}
}

// The typed keys carry the wire names the admin routes and the stored rows
// use: renaming a Go variable must never rename a setting.
func TestKeyNames(t *testing.T) {
	for k, want := range map[settings.Key[int64]]string{
		settings.BuyerFeeRateBps: "fees.buyer_rate_bps", settings.BuyerFeeMinimum: "fees.buyer_minimum",
		settings.SellerFeeRateBps: "fees.seller_rate_bps", settings.OfferMaxRounds: "offers.max_rounds",
		settings.PayoutHoldHours: "payouts.hold_hours", settings.AbuseThreshold: "ratelimit.abuse_threshold",
		settings.MaxPurchasesPerHour: "anomaly.max_purchases_per_hour", settings.HumanPerMinute: "ratelimit.human.per_minute",
		settings.AnonymousPerMinute:                       "ratelimit.anonymous.per_minute",
		settings.V1PerMinute("verified_seller", "search"): "ratelimit.v1.verified_seller.search",
		settings.APIPerMinute("trusted"):                  "ratelimit.api.trusted.per_minute",
		settings.APIBurst("new"):                          "ratelimit.api.new.burst",
	} {
		if k.Name() != want {
			t.Errorf("key %q, want %q", k.Name(), want)
		}
	}
	for k, want := range map[settings.Key[bool]]string{
		settings.HoldNewSellers: "listings.hold_new_sellers", settings.SuspendOnCounterfeit: "moderation.suspend_on_counterfeit",
	} {
		if k.Name() != want {
			t.Errorf("key %q, want %q", k.Name(), want)
		}
	}
	if n := settings.RestrictedBrands.Name(); n != "moderation.restricted_brands" {
		t.Errorf("key %q", n)
	}
	// Features too: the flag routes' keys and FEATURE_DISABLED's details.
	var names []string
	for _, f := range settings.Features() {
		names = append(names, string(f))
	}
	if want := []string{"agent_purchases", "listing_creation", "mcp", "offers", "registrations", "webhooks"}; !slices.Equal(names, want) {
		t.Errorf("features %v, want %v", names, want)
	}
}

// The rate-limit tables' defaults are the spec's.
func TestRateLimitDefaults(t *testing.T) {
	ctx := context.Background()
	cfg, _ := newConfig(t, storetest.OpenSQLite(t))
	v, err := cfg.Ints(ctx, settings.V1PerMinute("default", "read"), settings.V1PerMinute("partner", "search"),
		settings.APIPerMinute("verified"), settings.APIBurst("trusted"), settings.AbuseThreshold, settings.MaxPurchasesPerHour)
	if err != nil || !slices.Equal(v, []int64{120, 300, 120, 60, 60, 30}) {
		t.Fatalf("Ints = %v, %v", v, err)
	}
}
