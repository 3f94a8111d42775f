package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Key is one setting, typed by the Go value it reads as. Keys exist only as
// this package's variables (and the rate-limit tables' lookups), so a call
// site names a setting, never its wire name, and reads it with the getter
// of its type (Int, Bool, Strings): asking a boolean of an integer setting
// does not compile.
type Key[T int64 | bool | []string] struct{ name string }

// Name is the key's wire name, as GET /admin/config lists it.
func (k Key[T]) Name() string { return k.name }

// The settings (CONTRACT.md sections 3, 6, 7, 8 and issue 3). The wire
// names are the keys of the admin routes and of the stored values.
var (
	BuyerFeeRateBps = intKey("fees.buyer_rate_bps", 350, 0, 10000,
		"Buyer service fee rate in basis points of item price plus shipping (350 = 3.5%).")
	BuyerFeeMinimum = intKey("fees.buyer_minimum", 99, 0, noMax,
		"Minimum buyer service fee, in cents.")
	SellerFeeRateBps = intKey("fees.seller_rate_bps", 300, 0, 10000,
		"Seller commission rate in basis points of item price (300 = 3%).")
	OfferMaxRounds = intKey("offers.max_rounds", 5, 1, 20,
		"Most amounts that may be put on the table in one offer negotiation.")
	PayoutHoldHours = intKey("payouts.hold_hours", 72, 0, 2160,
		"Hours a seller's payout is held after delivery before the order completes.")
	HoldNewSellers = boolKey("listings.hold_new_sellers", false,
		"Hold listings from new (unverified) sellers for review before they go live.")
	RestrictedBrands = stringsKey("moderation.restricted_brands", defaultRestrictedBrands,
		"Brands whose listings are removed pending moderation (commonly counterfeited luxury brands).")
	SuspendOnCounterfeit = boolKey("moderation.suspend_on_counterfeit", true,
		"Suspend the seller when an admin delists a listing as counterfeit.")

	// Rate limits and guardrails (CONTRACT.md sections 10 and 15).
	AbuseThreshold = intKey("ratelimit.abuse_threshold", 60, 1, 100000,
		"Refused (429) requests an agent key may send in 10 minutes; one more freezes it (frozenReason rate_limit_abuse).")
	MaxPurchasesPerHour = intKey("anomaly.max_purchases_per_hour", 30, 1, 100000,
		"Purchases one agent key may make in an hour; the one above freezes it (frozenReason purchase_velocity).")
	HumanPerMinute = intKey("ratelimit.human.per_minute", 600, 1, 1000000,
		"Requests per minute per signed-in human (bearer token).")
	AnonymousPerMinute = intKey("ratelimit.anonymous.per_minute", 300, 1, 1000000,
		"Requests per minute per address for calls without credentials.")
)

// The spec's rate-limit tier tables, one key per cell: on /v1 (and /mcp)
// "ratelimit.v1.<tier>.<class>", tiers default, verified_seller, partner;
// classes read, write, search. On /api/v1 "ratelimit.api.<tier>.<per_minute|burst>",
// tiers new, verified, trusted.
var v1Limits, apiLimits = rateLimitKeys()

func rateLimitKeys() (v1, api map[string]Key[int64]) {
	v1, api = map[string]Key[int64]{}, map[string]Key[int64]{}
	for tier, row := range map[string][3]int64{"default": {120, 30, 60}, "verified_seller": {300, 60, 120}, "partner": {1000, 120, 300}} {
		for i, class := range []string{"read", "write", "search"} {
			name := "ratelimit.v1." + tier + "." + class
			v1[tier+"."+class] = intKey(name, row[i], 1, 1000000,
				fmt.Sprintf("Agent keys on /v1 and /mcp, tier %s: %s requests per minute.", tier, class))
		}
	}
	for tier, row := range map[string][2]int64{"new": {30, 10}, "verified": {120, 30}, "trusted": {300, 60}} {
		api[tier+".per_minute"] = intKey("ratelimit.api."+tier+".per_minute", row[0], 1, 1000000,
			fmt.Sprintf("Agent keys on /api/v1, tier %s: requests per minute.", tier))
		api[tier+".burst"] = intKey("ratelimit.api."+tier+".burst", row[1], 1, 1000000,
			fmt.Sprintf("Agent keys on /api/v1, tier %s: requests in any 10 seconds.", tier))
	}
	return v1, api
}

// V1PerMinute is the per-minute limit of class (read, write, search) for
// agent keys of tier on /v1 and /mcp. A tier or class outside the table is
// a key no getter knows (an internal error when read).
func V1PerMinute(tier, class string) Key[int64] { return v1Limits[tier+"."+class] }

// APIPerMinute and APIBurst are the limits of agent keys of tier on /api/v1:
// requests per minute, and requests in any 10 seconds.
func APIPerMinute(tier string) Key[int64] { return apiLimits[tier+".per_minute"] }
func APIBurst(tier string) Key[int64]     { return apiLimits[tier+".burst"] }

// Kind is the JSON shape a key's value takes.
type Kind string

const (
	KindInt     Kind = "integer"
	KindBool    Kind = "boolean"
	KindStrings Kind = "string_array"
)

// Limits on a string-array value.
const (
	maxStrings   = 1000
	maxStringLen = 100
)

// spec describes one known key.
type spec struct {
	kind        Kind
	description string
	def         json.RawMessage
	min, max    int64 // for KindInt
}

// specs is the one table of the known keys, by wire name: the admin routes
// map the key of their URL through it, and each typed key is an entry.
var specs = map[string]spec{}

func define[T int64 | bool | []string](name string, s spec) Key[T] {
	if _, dup := specs[name]; dup {
		panic("settings: key " + name + " defined twice")
	}
	specs[name] = s
	return Key[T]{name: name}
}

func intKey(name string, def, min, max int64, description string) Key[int64] {
	return define[int64](name, spec{kind: KindInt, min: min, max: max, def: raw(def), description: description})
}

func boolKey(name string, def bool, description string) Key[bool] {
	return define[bool](name, spec{kind: KindBool, def: raw(def), description: description})
}

func stringsKey(name string, def []string, description string) Key[[]string] {
	return define[[]string](name, spec{kind: KindStrings, def: raw(def), description: description})
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

// Names lists the wire names of the known keys, sorted.
func Names() []string {
	keys := make([]string, 0, len(specs))
	for k := range specs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// check validates v against the spec and returns it in compact form, or a
// message saying what is wrong with it.
func (s spec) check(v json.RawMessage) (json.RawMessage, string) {
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
		if len(list) > maxStrings {
			return nil, fmt.Sprintf("must have at most %d items", maxStrings)
		}
		seen := make(map[string]bool, len(list))
		for i, item := range list {
			item = strings.TrimSpace(item)
			if n := utf8.RuneCountInString(item); n < 1 || n > maxStringLen {
				return nil, fmt.Sprintf("item %d must be 1 to %d characters", i+1, maxStringLen)
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
