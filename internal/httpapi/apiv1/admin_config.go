package apiv1

import (
	"encoding/json"
	"marketplace/internal/settings"
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// Live config and feature flags, for admins (CONTRACT.md 14): a change holds
// from the next request on every replica (settings.Service).

// RegisterAdminConfig adds the config and feature flag routes.
func (a *API) RegisterAdminConfig(rt *httpapi.Router) {
	rt = rt.In("admin")
	p := Prefix
	rt.Handle("GET", p+"/admin/config", httpapi.Admin, a.adminConfig)
	rt.Handle("PATCH", p+"/admin/config/{key}", httpapi.Admin, a.adminSetConfig)
	rt.Handle("GET", p+"/admin/feature-flags", httpapi.Admin, a.adminFlags)
	rt.Handle("PATCH", p+"/admin/feature-flags/{key}", httpapi.Admin, a.adminSetFlag)
}

type configEntry struct {
	Key         string          `json:"key"`
	Value       json.RawMessage `json:"value" doc:"The value in force: an integer, a boolean or an array of strings, by key."`
	Description string          `json:"description"`
	UpdatedAt   *time.Time      `json:"updatedAt" doc:"Null while the default applies."`
	UpdatedBy   *string         `json:"updatedBy" doc:"The admin's user id; null while the default applies."`
}

func toConfigEntry(e *settings.Entry) configEntry {
	return configEntry{Key: e.Key, Value: e.Value, Description: e.Description, UpdatedAt: e.UpdatedAt, UpdatedBy: e.UpdatedBy}
}

type configBody struct {
	Value json.RawMessage `json:"value" required:"true" doc:"The new value, of the key's type and in its range."`
}

type featureFlag struct {
	Key         string     `json:"key" enum:"agent_purchases,listing_creation,mcp,offers,registrations,webhooks"`
	Enabled     bool       `json:"enabled"`
	Description string     `json:"description"`
	UpdatedAt   *time.Time `json:"updatedAt" doc:"Null while the default (on) applies."`
	UpdatedBy   *string    `json:"updatedBy" doc:"The admin's user id; null while the default applies."`
}

func toFeatureFlag(f *settings.Flag) featureFlag {
	return featureFlag{Key: f.Key, Enabled: f.Enabled, Description: f.Description, UpdatedAt: f.UpdatedAt, UpdatedBy: f.UpdatedBy}
}

type flagBody struct {
	Enabled *bool `json:"enabled" required:"true"`
}

// adminConfig is GET /admin/config: every setting with its value in force.
func (a *API) adminConfig(w http.ResponseWriter, r *http.Request) error {
	es, err := a.Settings.All(r.Context())
	if err != nil {
		return err
	}
	out := make([]configEntry, len(es))
	for i := range es {
		out[i] = toConfigEntry(&es[i])
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// adminSetConfig is PATCH /admin/config/{key} {value}.
func (a *API) adminSetConfig(w http.ResponseWriter, r *http.Request) error {
	var b configBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	if len(b.Value) == 0 || string(b.Value) == "null" {
		return market.Invalid(market.FieldError{Field: "value", Message: "is required"})
	}
	key := r.PathValue("key")
	httpapi.Entity(r, "config", key)
	e, before, err := a.Settings.Change(r.Context(), actor(r).Actor, key, b.Value)
	if err != nil {
		return err
	}
	httpapi.AuditDetails(r, map[string]any{"before": before, "after": e.Value})
	return httpapi.OK(w, r, http.StatusOK, toConfigEntry(e))
}

// adminFlags is GET /admin/feature-flags.
func (a *API) adminFlags(w http.ResponseWriter, r *http.Request) error {
	fs, err := a.Settings.Flags(r.Context())
	if err != nil {
		return err
	}
	out := make([]featureFlag, len(fs))
	for i := range fs {
		out[i] = toFeatureFlag(&fs[i])
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// adminSetFlag is PATCH /admin/feature-flags/{key} {enabled}.
func (a *API) adminSetFlag(w http.ResponseWriter, r *http.Request) error {
	var b flagBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	if b.Enabled == nil {
		return market.Invalid(market.FieldError{Field: "enabled", Message: "is required"})
	}
	key := r.PathValue("key")
	httpapi.Entity(r, "feature_flag", key)
	f, before, err := a.Settings.SetFlag(r.Context(), actor(r).Actor, key, *b.Enabled)
	if err != nil {
		return err
	}
	httpapi.AuditDetails(r, map[string]any{"before": map[string]any{"enabled": before}, "after": map[string]any{"enabled": f.Enabled}})
	return httpapi.OK(w, r, http.StatusOK, toFeatureFlag(f))
}
