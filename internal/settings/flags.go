package settings

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// Feature names one feature an admin can switch off (CONTRACT.md 14),
// live on every replica. Its value is its wire name: the key of
// /admin/feature-flags/{key} and of FEATURE_DISABLED's details {flag}.
// Flags are stored beside the settings (key "feature.<flag>") and share
// their version and cache.
type Feature string

const (
	FeatureOffers          Feature = "offers"
	FeatureAgentPurchases  Feature = "agent_purchases"
	FeatureRegistrations   Feature = "registrations"
	FeatureListingCreation Feature = "listing_creation"
	FeatureWebhooks        Feature = "webhooks"
	FeatureMCP             Feature = "mcp"
)

const flagPrefix = "feature."

var flagDescriptions = map[Feature]string{
	FeatureOffers:          "Offers: making, answering and buying through offers, on HTTP and MCP.",
	FeatureAgentPurchases:  "Agent purchases: purchases (and dry runs) with an agent key, on HTTP and MCP.",
	FeatureRegistrations:   "Registrations: new accounts (POST /auth/register) and agent-initiated sign-ups.",
	FeatureListingCreation: "Listing creation: new listings, on HTTP and MCP.",
	FeatureWebhooks:        "Webhooks: managing webhook endpoints. Deliveries of events already queued keep going.",
	FeatureMCP:             "The MCP endpoint (/mcp).",
}

// Features lists the features, sorted.
func Features() []Feature {
	out := make([]Feature, 0, len(flagDescriptions))
	for f := range flagDescriptions {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// Flag is one feature flag as it stands.
type Flag struct {
	Key         string // the feature's wire name
	Enabled     bool
	Description string
	UpdatedAt   *time.Time // nil while the default (on) applies
	UpdatedBy   *string
}

func flagOf(f Feature, stored map[string]Stored) Flag {
	out := Flag{Key: string(f), Enabled: true, Description: flagDescriptions[f]}
	if v, ok := stored[flagPrefix+string(f)]; ok && (string(v.Value) == "true" || string(v.Value) == "false") {
		at, by := v.UpdatedAt, v.UpdatedBy
		out.Enabled, out.UpdatedAt, out.UpdatedBy = string(v.Value) == "true", &at, &by
	}
	return out
}

// Flags lists every flag, sorted by key.
func (s *Service) Flags(ctx context.Context) ([]Flag, error) {
	stored, err := s.stored(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Flag, 0, len(flagDescriptions))
	for _, f := range Features() {
		out = append(out, flagOf(f, stored))
	}
	return out, nil
}

// Enabled reports whether a feature is on.
func (s *Service) Enabled(ctx context.Context, f Feature) (bool, error) {
	stored, err := s.stored(ctx)
	if err != nil {
		return false, err
	}
	return flagOf(f, stored).Enabled, nil
}

// Require is nil while the feature is on, else 503 FEATURE_DISABLED with
// details {flag}.
func (s *Service) Require(ctx context.Context, f Feature) error {
	on, err := s.Enabled(ctx, f)
	if err != nil {
		return err
	}
	if !on {
		return FeatureDisabled(f)
	}
	return nil
}

// FeatureDisabled is the error of a feature switched off.
func FeatureDisabled(f Feature) error {
	return market.Errorf(market.CodeFeatureDisabled, "%s is switched off for now", f).
		WithDetails(map[string]any{"flag": string(f)})
}

// SetFlag switches the feature named key (its wire name, as the admin route
// takes it) and records feature_flag.updated; it answers the flag and
// whether it was on before.
func (s *Service) SetFlag(ctx context.Context, actor market.Actor, key string, enabled bool) (*Flag, bool, error) {
	if !actor.Admin && actor.Type != market.ActorSystem {
		return nil, false, market.Errorf(market.CodeForbidden, "admins only")
	}
	f := Feature(key)
	if _, ok := flagDescriptions[f]; !ok {
		return nil, false, market.NotFound("feature flag")
	}
	now := s.clock.Now()
	var flag Flag
	var before bool
	err := s.store.InTx(ctx, func(tx Tx) error {
		stored, err := tx.ConfigValues(ctx)
		if err != nil {
			return err
		}
		before = flagOf(f, stored).Enabled
		v := Stored{Key: flagPrefix + key, Value: json.RawMessage(map[bool]string{true: "true", false: "false"}[enabled]),
			UpdatedAt: now, UpdatedBy: actor.ID()}
		if err := tx.PutConfigValue(ctx, v); err != nil {
			return err
		}
		if err := tx.BumpConfigVersion(ctx); err != nil {
			return err
		}
		stored[v.Key] = v
		flag = flagOf(f, stored)
		return events.Record(ctx, tx, now, actor, "feature_flag.updated", "feature_flag", key, map[string]any{
			"key": key, "enabled": enabled, "previous": before,
		})
	})
	if err != nil {
		return nil, false, err
	}
	return &flag, before, nil
}
