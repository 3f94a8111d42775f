package admin_test

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"marketplace/internal/admin"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

var t0 = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

var adminActor = market.Actor{Type: market.ActorAdmin, UserID: "admin-1", Admin: true}

func newConfig(t *testing.T, db *store.DB) (*admin.Config, *market.FixedClock) {
	t.Helper()
	clock := market.NewFixedClock(t0)
	return admin.NewConfig(store.AdminConfig(db), clock), clock
}

func TestConfigDefaults(t *testing.T) {
	ctx := context.Background()
	cfg, _ := newConfig(t, storetest.OpenSQLite(t))
	ints := map[string]int64{
		admin.KeyFeesBuyerRateBps:  350,
		admin.KeyFeesBuyerMinimum:  99,
		admin.KeyFeesSellerRateBps: 300,
		admin.KeyOffersMaxRounds:   5,
		admin.KeyPayoutsHoldHours:  72,
	}
	for key, want := range ints {
		if got, err := cfg.Int(ctx, key); err != nil || got != want {
			t.Errorf("Int(%s) = %d, %v; want %d", key, got, err, want)
		}
	}
	bools := map[string]bool{admin.KeyListingsHoldNewSellers: false, admin.KeyModerationSuspendOnCounterfeit: true}
	for key, want := range bools {
		if got, err := cfg.Bool(ctx, key); err != nil || got != want {
			t.Errorf("Bool(%s) = %v, %v; want %v", key, got, err, want)
		}
	}
	brands, err := cfg.Strings(ctx, admin.KeyModerationRestrictedBrands)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"Louis Vuitton", "Gucci", "Chanel", "Hermès", "Rolex", "Moncler"} {
		if !slices.Contains(brands, b) {
			t.Errorf("default restricted brands lack %q: %v", b, brands)
		}
	}
}

func TestConfigGetterMisuse(t *testing.T) {
	ctx := context.Background()
	cfg, _ := newConfig(t, storetest.OpenSQLite(t))
	if _, err := cfg.Int(ctx, "no.such.key"); market.CodeOf(err) != market.CodeInternal {
		t.Errorf("unknown key: %v", err)
	}
	if _, err := cfg.Int(ctx, admin.KeyListingsHoldNewSellers); market.CodeOf(err) != market.CodeInternal {
		t.Errorf("Int on a bool key: %v", err)
	}
	if _, err := cfg.Bool(ctx, admin.KeyOffersMaxRounds); market.CodeOf(err) != market.CodeInternal {
		t.Errorf("Bool on an int key: %v", err)
	}
	if _, err := cfg.Strings(ctx, admin.KeyOffersMaxRounds); market.CodeOf(err) != market.CodeInternal {
		t.Errorf("Strings on an int key: %v", err)
	}
}

func TestConfigSetAndRead(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		cfg, clock := newConfig(t, db)
		clock.Advance(time.Hour)

		e, err := cfg.Set(ctx, adminActor, admin.KeyOffersMaxRounds, json.RawMessage(` 8 `))
		if err != nil {
			t.Fatal(err)
		}
		if string(e.Value) != "8" || string(e.Default) != "5" || e.UpdatedAt == nil || !e.UpdatedAt.Equal(t0.Add(time.Hour)) || *e.UpdatedBy != "admin-1" {
			t.Fatalf("Set returned %+v", e)
		}
		// Read on the next call, no restart or cache in the way.
		if n, err := cfg.Int(ctx, admin.KeyOffersMaxRounds); err != nil || n != 8 {
			t.Fatalf("Int after Set = %d, %v", n, err)
		}
		if _, err := cfg.Set(ctx, adminActor, admin.KeyModerationSuspendOnCounterfeit, json.RawMessage(`false`)); err != nil {
			t.Fatal(err)
		}
		if b, err := cfg.Bool(ctx, admin.KeyModerationSuspendOnCounterfeit); err != nil || b {
			t.Fatalf("Bool after Set = %v, %v", b, err)
		}
		if _, err := cfg.Set(ctx, adminActor, admin.KeyModerationRestrictedBrands, json.RawMessage(`[" Acme ", "Tiffany & Co."]`)); err != nil {
			t.Fatal(err)
		}
		if s, err := cfg.Strings(ctx, admin.KeyModerationRestrictedBrands); err != nil || !slices.Equal(s, []string{"Acme", "Tiffany & Co."}) {
			t.Fatalf("Strings after Set = %q, %v", s, err)
		}
		// An empty list is allowed: no brand restricted.
		if _, err := cfg.Set(ctx, adminActor, admin.KeyModerationRestrictedBrands, json.RawMessage(`[]`)); err != nil {
			t.Fatal(err)
		}
		if s, err := cfg.Strings(ctx, admin.KeyModerationRestrictedBrands); err != nil || len(s) != 0 {
			t.Fatalf("Strings after empty Set = %q, %v", s, err)
		}

		// Overwrite keeps one row and records the new author.
		clock.Advance(time.Minute)
		other := market.Actor{Type: market.ActorAdmin, UserID: "admin-2", Admin: true}
		if _, err := cfg.Set(ctx, other, admin.KeyOffersMaxRounds, json.RawMessage(`3`)); err != nil {
			t.Fatal(err)
		}

		evs, err := db.Read().EventsFor(ctx, "config", admin.KeyOffersMaxRounds)
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
		if first.Data["key"] != admin.KeyOffersMaxRounds || first.Data["value"] != float64(8) || first.Data["previous"] != float64(5) {
			t.Errorf("first event data: %v", first.Data)
		}
		if second.ActorID != "admin-2" || second.Data["value"] != float64(3) || second.Data["previous"] != float64(8) {
			t.Errorf("second event: %+v", second)
		}

		all, err := cfg.All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		byKey := map[string]admin.ConfigEntry{}
		for _, e := range all {
			byKey[e.Key] = e
		}
		r := byKey[admin.KeyOffersMaxRounds]
		if string(r.Value) != "3" || r.UpdatedBy == nil || *r.UpdatedBy != "admin-2" || !r.UpdatedAt.Equal(t0.Add(time.Hour+time.Minute)) {
			t.Errorf("All entry after overwrite: %+v", r)
		}
	})
}

func TestConfigAll(t *testing.T) {
	ctx := context.Background()
	cfg, _ := newConfig(t, storetest.OpenSQLite(t))
	if _, err := cfg.Set(ctx, adminActor, admin.KeyPayoutsHoldHours, json.RawMessage(`24`)); err != nil {
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
		admin.KeyFeesBuyerMinimum, admin.KeyFeesBuyerRateBps, admin.KeyFeesSellerRateBps,
		admin.KeyListingsHoldNewSellers, admin.KeyModerationRestrictedBrands,
		admin.KeyModerationSuspendOnCounterfeit, admin.KeyOffersMaxRounds, admin.KeyPayoutsHoldHours,
		admin.KeyRateLimitAbuseThreshold, admin.KeyAnomalyMaxPurchasesPerHour, admin.KeyRateLimitHumanPerMinute,
		admin.KeyRateLimitAnonPerMinute,
	}
	for _, tier := range []string{"default", "verified_seller", "partner"} {
		for _, class := range []string{"read", "write", "search"} {
			want = append(want, admin.RateLimitKey("v1", tier, class))
		}
	}
	for _, tier := range []string{"new", "verified", "trusted"} {
		want = append(want, admin.RateLimitKey("api", tier, "per_minute"), admin.RateLimitKey("api", tier, "burst"))
	}
	sort.Strings(want)
	if !sort.StringsAreSorted(keys) || !slices.Equal(keys, want) {
		t.Fatalf("All keys = %v, want %v", keys, want)
	}
	for _, e := range all {
		if e.Description == "" || len(e.Default) == 0 || len(e.Value) == 0 {
			t.Errorf("incomplete entry %+v", e)
		}
		if e.Key == admin.KeyPayoutsHoldHours {
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

		{admin.KeyFeesBuyerRateBps, `"350"`, market.CodeValidation},
		{admin.KeyFeesBuyerRateBps, `3.5`, market.CodeValidation},
		{admin.KeyFeesBuyerRateBps, `1e2`, market.CodeValidation},
		{admin.KeyFeesBuyerRateBps, `-1`, market.CodeValidation},
		{admin.KeyFeesBuyerRateBps, `10001`, market.CodeValidation},
		{admin.KeyFeesBuyerRateBps, `null`, market.CodeValidation},
		{admin.KeyFeesBuyerRateBps, `0`, ""},
		{admin.KeyFeesBuyerRateBps, `10000`, ""},

		{admin.KeyFeesBuyerMinimum, `-1`, market.CodeValidation},
		{admin.KeyFeesBuyerMinimum, `true`, market.CodeValidation},
		{admin.KeyFeesBuyerMinimum, `99999999999999999999`, market.CodeValidation},
		{admin.KeyFeesBuyerMinimum, `0`, ""},
		{admin.KeyFeesBuyerMinimum, `150`, ""},

		{admin.KeyFeesSellerRateBps, `[300]`, market.CodeValidation},
		{admin.KeyFeesSellerRateBps, `10001`, market.CodeValidation},
		{admin.KeyFeesSellerRateBps, `-5`, market.CodeValidation},
		{admin.KeyFeesSellerRateBps, `250`, ""},

		{admin.KeyOffersMaxRounds, `0`, market.CodeValidation},
		{admin.KeyOffersMaxRounds, `21`, market.CodeValidation},
		{admin.KeyOffersMaxRounds, `{}`, market.CodeValidation},
		{admin.KeyOffersMaxRounds, `1`, ""},
		{admin.KeyOffersMaxRounds, `20`, ""},

		{admin.KeyPayoutsHoldHours, `-1`, market.CodeValidation},
		{admin.KeyPayoutsHoldHours, `2161`, market.CodeValidation},
		{admin.KeyPayoutsHoldHours, `"72"`, market.CodeValidation},
		{admin.KeyPayoutsHoldHours, `0`, ""},
		{admin.KeyPayoutsHoldHours, `2160`, ""},

		{admin.KeyListingsHoldNewSellers, `1`, market.CodeValidation},
		{admin.KeyListingsHoldNewSellers, `"true"`, market.CodeValidation},
		{admin.KeyListingsHoldNewSellers, `null`, market.CodeValidation},
		{admin.KeyListingsHoldNewSellers, `true`, ""},

		{admin.KeyModerationSuspendOnCounterfeit, `0`, market.CodeValidation},
		{admin.KeyModerationSuspendOnCounterfeit, `"false"`, market.CodeValidation},
		{admin.KeyModerationSuspendOnCounterfeit, `false`, ""},

		{admin.KeyModerationRestrictedBrands, `"Gucci"`, market.CodeValidation},
		{admin.KeyModerationRestrictedBrands, `null`, market.CodeValidation},
		{admin.KeyModerationRestrictedBrands, `[1]`, market.CodeValidation},
		{admin.KeyModerationRestrictedBrands, `[""]`, market.CodeValidation},
		{admin.KeyModerationRestrictedBrands, `["   "]`, market.CodeValidation},
		{admin.KeyModerationRestrictedBrands, `[null]`, market.CodeValidation},
		{admin.KeyModerationRestrictedBrands, long, market.CodeValidation},
		{admin.KeyModerationRestrictedBrands, `["Gucci","gucci"]`, market.CodeValidation},
		{admin.KeyModerationRestrictedBrands, `{"a":"b"}`, market.CodeValidation},
		{admin.KeyModerationRestrictedBrands, `["` + strings.Repeat("é", 100) + `"]`, ""},

		{admin.KeyOffersMaxRounds, `not json`, market.CodeValidation},
		{admin.KeyOffersMaxRounds, ``, market.CodeValidation},
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
		return tx.PutConfigValue(ctx, admin.ConfigValue{Key: admin.KeyOffersMaxRounds, Value: json.RawMessage(`500`), UpdatedAt: t0})
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := cfg.Int(ctx, admin.KeyOffersMaxRounds); err != nil || n != 5 {
		t.Fatalf("Int = %d, %v; want the default 5", n, err)
	}
}
