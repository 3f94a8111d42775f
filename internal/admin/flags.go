package admin

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// Feature flags (CONTRACT.md 14): each switches a feature of the service on
// or off, live on every replica. They are stored beside the config values
// (key "feature.<flag>") and share their version and cache.
const (
	FlagOffers          = "offers"
	FlagAgentPurchases  = "agent_purchases"
	FlagRegistrations   = "registrations"
	FlagListingCreation = "listing_creation"
	FlagWebhooks        = "webhooks"
	FlagMCP             = "mcp"
)

const flagPrefix = "feature."

var flagDescriptions = map[string]string{
	FlagOffers:          "Offers: making, answering and buying through offers, on HTTP and MCP.",
	FlagAgentPurchases:  "Agent purchases: purchases (and dry runs) with an agent key, on HTTP and MCP.",
	FlagRegistrations:   "Registrations: new accounts (POST /auth/register) and agent-initiated sign-ups.",
	FlagListingCreation: "Listing creation: new listings, on HTTP and MCP.",
	FlagWebhooks:        "Webhooks: managing webhook endpoints. Deliveries of events already queued keep going.",
	FlagMCP:             "The MCP endpoint (/mcp).",
}

// FlagKeys lists the flags, sorted.
func FlagKeys() []string {
	keys := make([]string, 0, len(flagDescriptions))
	for k := range flagDescriptions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Flag is one feature flag as it stands.
type Flag struct {
	Key         string
	Enabled     bool
	Description string
	UpdatedAt   *time.Time // nil while the default (on) applies
	UpdatedBy   *string
}

func flagOf(key string, stored map[string]ConfigValue) Flag {
	f := Flag{Key: key, Enabled: true, Description: flagDescriptions[key]}
	if v, ok := stored[flagPrefix+key]; ok && (string(v.Value) == "true" || string(v.Value) == "false") {
		at, by := v.UpdatedAt, v.UpdatedBy
		f.Enabled, f.UpdatedAt, f.UpdatedBy = string(v.Value) == "true", &at, &by
	}
	return f
}

// Flags lists every flag, sorted by key.
func (c *Config) Flags(ctx context.Context) ([]Flag, error) {
	stored, err := c.stored(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Flag, 0, len(flagDescriptions))
	for _, k := range FlagKeys() {
		out = append(out, flagOf(k, stored))
	}
	return out, nil
}

// Enabled reports whether a flag is on.
func (c *Config) Enabled(ctx context.Context, flag string) (bool, error) {
	stored, err := c.stored(ctx)
	if err != nil {
		return false, err
	}
	return flagOf(flag, stored).Enabled, nil
}

// RequireFlag is nil while the flag is on, else 503 FEATURE_DISABLED with
// details {flag}.
func (c *Config) RequireFlag(ctx context.Context, flag string) error {
	on, err := c.Enabled(ctx, flag)
	if err != nil {
		return err
	}
	if !on {
		return FeatureDisabled(flag)
	}
	return nil
}

// FeatureDisabled is the error of a feature switched off.
func FeatureDisabled(flag string) error {
	return market.Errorf(market.CodeFeatureDisabled, "%s is switched off for now", flag).
		WithDetails(map[string]any{"flag": flag})
}

// SetFlag switches a flag and records feature_flag.updated; it answers the
// flag and whether it was on before.
func (c *Config) SetFlag(ctx context.Context, actor market.Actor, key string, enabled bool) (*Flag, bool, error) {
	if !actor.Admin && actor.Type != market.ActorSystem {
		return nil, false, market.Errorf(market.CodeForbidden, "admins only")
	}
	if _, ok := flagDescriptions[key]; !ok {
		return nil, false, market.NotFound("feature flag")
	}
	now := c.clock.Now()
	var flag Flag
	var before bool
	err := c.store.InTx(ctx, func(tx ConfigTx) error {
		stored, err := tx.ConfigValues(ctx)
		if err != nil {
			return err
		}
		before = flagOf(key, stored).Enabled
		v := ConfigValue{Key: flagPrefix + key, Value: json.RawMessage(map[bool]string{true: "true", false: "false"}[enabled]),
			UpdatedAt: now, UpdatedBy: actor.ID()}
		if err := tx.PutConfigValue(ctx, v); err != nil {
			return err
		}
		if err := tx.BumpConfigVersion(ctx); err != nil {
			return err
		}
		stored[v.Key] = v
		flag = flagOf(key, stored)
		return events.Record(ctx, tx, now, actor, "feature_flag.updated", "feature_flag", key, map[string]any{
			"key": key, "enabled": enabled, "previous": before,
		})
	})
	if err != nil {
		return nil, false, err
	}
	return &flag, before, nil
}
