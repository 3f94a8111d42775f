package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"marketplace/internal/events"
	"marketplace/internal/fresh"
	"marketplace/internal/market"
)

// The known config keys (CONTRACT.md sections 3, 6, 7, 8 and issue 3).
const (
	KeyFeesBuyerRateBps               = "fees.buyer_rate_bps"
	KeyFeesBuyerMinimum               = "fees.buyer_minimum"
	KeyFeesSellerRateBps              = "fees.seller_rate_bps"
	KeyOffersMaxRounds                = "offers.max_rounds"
	KeyPayoutsHoldHours               = "payouts.hold_hours"
	KeyListingsHoldNewSellers         = "listings.hold_new_sellers"
	KeyModerationRestrictedBrands     = "moderation.restricted_brands"
	KeyModerationSuspendOnCounterfeit = "moderation.suspend_on_counterfeit"

	// Rate limits and guardrails (CONTRACT.md sections 10 and 15).
	KeyRateLimitAbuseThreshold    = "ratelimit.abuse_threshold"
	KeyAnomalyMaxPurchasesPerHour = "anomaly.max_purchases_per_hour"
	KeyRateLimitHumanPerMinute    = "ratelimit.human.per_minute"
	KeyRateLimitAnonPerMinute     = "ratelimit.anonymous.per_minute"
)

// RateLimitKey names the config key of one cell of the spec's rate-limit
// tier tables: on /v1 ("ratelimit.v1.<tier>.<class>", tiers default,
// verified_seller, partner; classes read, write, search) and on /api/v1
// ("ratelimit.api.<tier>.<per_minute|burst>", tiers new, verified, trusted).
func RateLimitKey(surface, tier, cell string) string {
	return "ratelimit." + surface + "." + tier + "." + cell
}

// rateLimitSpecs are the tier tables' cells with the spec's values.
func rateLimitSpecs() map[string]configSpec {
	out := map[string]configSpec{
		KeyRateLimitAbuseThreshold: {kind: KindInt, min: 1, max: 100000, def: raw(60),
			description: "Refused (429) requests an agent key may send in 10 minutes; one more freezes it (frozenReason rate_limit_abuse)."},
		KeyAnomalyMaxPurchasesPerHour: {kind: KindInt, min: 1, max: 100000, def: raw(30),
			description: "Purchases one agent key may make in an hour; the one above freezes it (frozenReason purchase_velocity)."},
		KeyRateLimitHumanPerMinute: {kind: KindInt, min: 1, max: 1000000, def: raw(600),
			description: "Requests per minute per signed-in human (bearer token)."},
		KeyRateLimitAnonPerMinute: {kind: KindInt, min: 1, max: 1000000, def: raw(300),
			description: "Requests per minute per address for calls without credentials."},
	}
	for tier, row := range map[string][3]int{"default": {120, 30, 60}, "verified_seller": {300, 60, 120}, "partner": {1000, 120, 300}} {
		for i, class := range []string{"read", "write", "search"} {
			out[RateLimitKey("v1", tier, class)] = configSpec{kind: KindInt, min: 1, max: 1000000, def: raw(row[i]),
				description: fmt.Sprintf("Agent keys on /v1 and /mcp, tier %s: %s requests per minute.", tier, class)}
		}
	}
	for tier, row := range map[string][2]int{"new": {30, 10}, "verified": {120, 30}, "trusted": {300, 60}} {
		out[RateLimitKey("api", tier, "per_minute")] = configSpec{kind: KindInt, min: 1, max: 1000000, def: raw(row[0]),
			description: fmt.Sprintf("Agent keys on /api/v1, tier %s: requests per minute.", tier)}
		out[RateLimitKey("api", tier, "burst")] = configSpec{kind: KindInt, min: 1, max: 1000000, def: raw(row[1]),
			description: fmt.Sprintf("Agent keys on /api/v1, tier %s: requests in any 10 seconds.", tier)}
	}
	return out
}

func init() {
	for k, v := range rateLimitSpecs() {
		configSpecs[k] = v
	}
}

// ConfigKind is the JSON shape a key's value takes.
type ConfigKind string

const (
	KindInt     ConfigKind = "integer"
	KindBool    ConfigKind = "boolean"
	KindStrings ConfigKind = "string_array"
)

// Limits on a string-array value.
const (
	maxConfigStrings   = 1000
	maxConfigStringLen = 100
)

// configSpec describes one known key.
type configSpec struct {
	kind        ConfigKind
	description string
	def         json.RawMessage
	min, max    int64 // for KindInt
}

// defaultRestrictedBrands are luxury brands commonly counterfeited: a listing
// naming one is held for review until an admin decides (CONTRACT.md 6).
var defaultRestrictedBrands = []string{
	"Louis Vuitton", "Gucci", "Chanel", "Hermès", "Prada", "Rolex", "Cartier",
	"Dior", "Fendi", "Balenciaga", "Saint Laurent", "Bottega Veneta", "Omega",
	"Patek Philippe", "Audemars Piguet", "Goyard", "Celine", "Givenchy",
	"Versace", "Moncler", "Burberry", "Valentino", "Tiffany & Co.",
	"Van Cleef & Arpels", "Richard Mille", "Off-White",
}

const noMax = int64(1<<53 - 1) // keeps values exact for JSON consumers

var configSpecs = map[string]configSpec{
	KeyFeesBuyerRateBps: {kind: KindInt, min: 0, max: 10000, def: raw(350),
		description: "Buyer service fee rate in basis points of item price plus shipping (350 = 3.5%)."},
	KeyFeesBuyerMinimum: {kind: KindInt, min: 0, max: noMax, def: raw(99),
		description: "Minimum buyer service fee, in cents."},
	KeyFeesSellerRateBps: {kind: KindInt, min: 0, max: 10000, def: raw(300),
		description: "Seller commission rate in basis points of item price (300 = 3%)."},
	KeyOffersMaxRounds: {kind: KindInt, min: 1, max: 20, def: raw(5),
		description: "Most amounts that may be put on the table in one offer negotiation."},
	KeyPayoutsHoldHours: {kind: KindInt, min: 0, max: 2160, def: raw(72),
		description: "Hours a seller's payout is held after delivery before the order completes."},
	KeyListingsHoldNewSellers: {kind: KindBool, def: raw(false),
		description: "Hold listings from new (unverified) sellers for review before they go live."},
	KeyModerationRestrictedBrands: {kind: KindStrings, def: raw(defaultRestrictedBrands),
		description: "Brands whose listings are removed pending moderation (commonly counterfeited luxury brands)."},
	KeyModerationSuspendOnCounterfeit: {kind: KindBool, def: raw(true),
		description: "Suspend the seller when an admin delists a listing as counterfeit."},
}

// raw encodes v without HTML escaping, so "Tiffany & Co." reads as written.
func raw(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// ConfigKeys lists the known keys, sorted.
func ConfigKeys() []string {
	keys := make([]string, 0, len(configSpecs))
	for k := range configSpecs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ConfigValue is one stored value.
type ConfigValue struct {
	Key       string
	Value     json.RawMessage
	UpdatedAt time.Time
	UpdatedBy string
}

// ConfigEntry is a known key with its effective value.
type ConfigEntry struct {
	Key         string
	Kind        ConfigKind
	Description string
	Value       json.RawMessage // stored value, else the default
	Default     json.RawMessage
	UpdatedAt   *time.Time // nil while the default applies
	UpdatedBy   *string    // nil while the default applies
}

// ConfigTx is what the config service needs from a transaction.
type ConfigTx interface {
	events.Tx
	ConfigValues(ctx context.Context) (map[string]ConfigValue, error)
	PutConfigValue(ctx context.Context, v ConfigValue) error
	// ConfigVersion is a counter every change moves (BumpConfigVersion, in
	// the change's transaction): a replica whose cache holds an older
	// version reloads.
	ConfigVersion(ctx context.Context) (int64, error)
	BumpConfigVersion(ctx context.Context) error
}

// ConfigStore opens transactions and read handles over ConfigTx.
type ConfigStore interface {
	InTx(ctx context.Context, fn func(ConfigTx) error) error
	Read() ConfigTx
}

// Config reads and changes the admin settings and feature flags. Values are
// cached; every read first reads the store's config version (one row by
// primary key) and reloads the values when it moved, so a change made on any
// replica applies to the next purchase, offer or listing everywhere without a
// restart (CONTRACT.md 3 "read at each purchase", 14).
type Config struct {
	store ConfigStore
	clock market.Clock

	// changes counts the changes made through this Config, so a hot-path
	// reader (the rate limiter) can cache values and still see this
	// process's changes at once (Changes).
	changes atomic.Int64

	versions fresh.Group[struct{}, int64] // config version reads, shared by concurrent callers

	mu      sync.Mutex
	loaded  bool
	version int64
	cache   map[string]ConfigValue // never changed once cached: readers share it
}

// NewConfig returns the config service.
func NewConfig(store ConfigStore, clock market.Clock) *Config {
	return &Config{store: store, clock: clock}
}

// Int is the effective value of an integer key.
func (c *Config) Int(ctx context.Context, key string) (int64, error) {
	v, err := c.value(ctx, key, KindInt)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, market.Internal(fmt.Errorf("config %s: %w", key, err))
	}
	return n, nil
}

// Ints reads several integer keys with one read of the stored values.
func (c *Config) Ints(ctx context.Context, keys ...string) ([]int64, error) {
	stored, err := c.stored(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(keys))
	for i, key := range keys {
		spec, ok := configSpecs[key]
		if !ok || spec.kind != KindInt {
			return nil, market.Internal(fmt.Errorf("config: %q is not an integer key", key))
		}
		n, err := strconv.ParseInt(string(effective(key, spec, stored).Value), 10, 64)
		if err != nil {
			return nil, market.Internal(fmt.Errorf("config %s: %w", key, err))
		}
		out[i] = n
	}
	return out, nil
}

// Bool is the effective value of a boolean key.
func (c *Config) Bool(ctx context.Context, key string) (bool, error) {
	v, err := c.value(ctx, key, KindBool)
	if err != nil {
		return false, err
	}
	return string(v) == "true", nil
}

// Strings is the effective value of a string-array key.
func (c *Config) Strings(ctx context.Context, key string) ([]string, error) {
	v, err := c.value(ctx, key, KindStrings)
	if err != nil {
		return nil, err
	}
	var out []string
	if err := json.Unmarshal(v, &out); err != nil {
		return nil, market.Internal(fmt.Errorf("config %s: %w", key, err))
	}
	return out, nil
}

// value reads key's effective value, checking that the caller asked for the
// kind the key has: a mismatch is a programming error, hence internal.
func (c *Config) value(ctx context.Context, key string, kind ConfigKind) (json.RawMessage, error) {
	spec, ok := configSpecs[key]
	if !ok {
		return nil, market.Internal(fmt.Errorf("config: unknown key %q", key))
	}
	if spec.kind != kind {
		return nil, market.Internal(fmt.Errorf("config: key %q is %s, not %s", key, spec.kind, kind))
	}
	stored, err := c.stored(ctx)
	if err != nil {
		return nil, err
	}
	return effective(key, spec, stored).Value, nil
}

// All lists every known key, sorted by key, with its effective value.
func (c *Config) All(ctx context.Context) ([]ConfigEntry, error) {
	stored, err := c.stored(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ConfigEntry, 0, len(configSpecs))
	for _, key := range ConfigKeys() {
		out = append(out, effective(key, configSpecs[key], stored))
	}
	return out, nil
}

// stored returns the stored values, from the cache while the store's config
// version has not moved. The values are read after the version, so a cache
// is never older than the version it is filed under (at worst newer, which
// costs one extra reload).
func (c *Config) stored(ctx context.Context) (map[string]ConfigValue, error) {
	read := c.store.Read()
	// A version read that began after the caller arrived is as good as its
	// own (a change holds from the next request); concurrent callers share one.
	v, err := c.versions.Do(ctx, struct{}{}, read.ConfigVersion)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.loaded && c.version == v {
		m := c.cache
		c.mu.Unlock()
		return m, nil
	}
	c.mu.Unlock()
	m, err := read.ConfigValues(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.loaded, c.version, c.cache = true, v, m
	c.mu.Unlock()
	return m, nil
}

// effective combines a key's spec with its stored value. A stored value that
// no longer passes validation (the key's range was narrowed after it was set)
// is ignored in favour of the default rather than failing every purchase.
func effective(key string, spec configSpec, stored map[string]ConfigValue) ConfigEntry {
	e := ConfigEntry{Key: key, Kind: spec.kind, Description: spec.description, Value: spec.def, Default: spec.def}
	v, ok := stored[key]
	if !ok {
		return e
	}
	norm, msg := spec.check(v.Value)
	if msg != "" {
		return e
	}
	at, by := v.UpdatedAt, v.UpdatedBy
	e.Value, e.UpdatedAt, e.UpdatedBy = norm, &at, &by
	return e
}

// Set validates and stores a new value for key and records config.updated.
func (c *Config) Set(ctx context.Context, actor market.Actor, key string, value json.RawMessage) (*ConfigEntry, error) {
	e, _, err := c.Change(ctx, actor, key, value)
	return e, err
}

// Change is Set that also answers the value in force before, for the audit
// log.
func (c *Config) Change(ctx context.Context, actor market.Actor, key string, value json.RawMessage) (*ConfigEntry, json.RawMessage, error) {
	if !actor.Admin && actor.Type != market.ActorSystem {
		return nil, nil, market.Errorf(market.CodeForbidden, "admins only")
	}
	spec, ok := configSpecs[key]
	if !ok {
		return nil, nil, market.NotFound("config key")
	}
	norm, msg := spec.check(value)
	if msg != "" {
		return nil, nil, market.Invalid(market.FieldError{Field: "value", Message: msg})
	}
	now := c.clock.Now()
	var entry ConfigEntry
	var previous json.RawMessage
	err := c.store.InTx(ctx, func(tx ConfigTx) error {
		stored, err := tx.ConfigValues(ctx)
		if err != nil {
			return err
		}
		previous = effective(key, spec, stored).Value
		v := ConfigValue{Key: key, Value: norm, UpdatedAt: now, UpdatedBy: actor.ID()}
		if err := tx.PutConfigValue(ctx, v); err != nil {
			return err
		}
		if err := tx.BumpConfigVersion(ctx); err != nil {
			return err
		}
		stored[key] = v
		entry = effective(key, spec, stored)
		return events.Record(ctx, tx, now, actor, "config.updated", "config", key, map[string]any{
			"key":      key,
			"value":    norm,
			"previous": previous,
		})
	})
	if err != nil {
		return nil, nil, err
	}
	c.changes.Add(1)
	return &entry, previous, nil
}

// Changes counts the changes made through this Config since start.
func (c *Config) Changes() int64 { return c.changes.Load() }

// check validates v against the spec and returns it in compact form, or a
// message saying what is wrong with it.
func (s configSpec) check(v json.RawMessage) (json.RawMessage, string) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return nil, "must be valid JSON"
	}
	v = buf.Bytes()
	switch s.kind {
	case KindInt:
		want := fmt.Sprintf("must be an integer from %d to %d", s.min, s.max)
		if s.max == noMax {
			want = fmt.Sprintf("must be an integer of at least %d", s.min)
		}
		// Only a plain integer literal: 5.0 or 5e0 would be a number the
		// admin did not mean to write.
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n < s.min || n > s.max {
			return nil, want
		}
		return []byte(strconv.FormatInt(n, 10)), ""
	case KindBool:
		if string(v) != "true" && string(v) != "false" {
			return nil, "must be true or false"
		}
		return v, ""
	case KindStrings:
		var list []string
		if !bytes.HasPrefix(v, []byte("[")) || json.Unmarshal(v, &list) != nil {
			return nil, "must be an array of strings"
		}
		if len(list) > maxConfigStrings {
			return nil, fmt.Sprintf("must have at most %d items", maxConfigStrings)
		}
		seen := make(map[string]bool, len(list))
		for i, item := range list {
			item = strings.TrimSpace(item)
			if n := utf8.RuneCountInString(item); n < 1 || n > maxConfigStringLen {
				return nil, fmt.Sprintf("item %d must be 1 to %d characters", i+1, maxConfigStringLen)
			}
			if seen[strings.ToLower(item)] {
				return nil, fmt.Sprintf("item %d (%q) is a duplicate", i+1, item)
			}
			seen[strings.ToLower(item)] = true
			list[i] = item
		}
		return raw(list), ""
	}
	return nil, "unsupported kind"
}
