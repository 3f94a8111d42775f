package console

import (
	"encoding/json"
	"net/http"
	"strings"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/settings"
)

// Config and feature flags as GET /admin/config and /admin/feature-flags
// show them, changed as PATCH /admin/config/{key} and
// /admin/feature-flags/{key} change them: the same checks of type and range,
// and the audit entry's before and after.

type adminConfigData struct {
	Config []configRow
	Flags  []settings.Flag
	// Key and Value are a refused change, shown again in its field.
	Key, Value string
	Error      *market.Error
}

// configRow is one setting with its values as the JSON the form takes.
type configRow struct {
	settings.Entry
	Value, Default string
}

func (c *Console) adminConfigPage(v *visit) error {
	return c.showConfig(v, http.StatusOK, adminConfigData{})
}

func (c *Console) showConfig(v *visit, status int, d adminConfigData) error {
	ctx := v.r.Context()
	es, err := c.Admin.Settings.All(ctx)
	if err != nil {
		return err
	}
	for _, e := range es {
		row := configRow{Entry: e, Value: string(e.Value), Default: string(e.Default)}
		if e.Key == d.Key {
			row.Value = d.Value
		}
		d.Config = append(d.Config, row)
	}
	if d.Flags, err = c.Admin.Settings.Flags(ctx); err != nil {
		return err
	}
	return c.render(v, status, "admin_config", d)
}

// configRefused shows the config page with a refusal; an unknown key is the
// 404 page, as on the API.
func (c *Console) configRefused(v *visit, err error, d adminConfigData) error {
	e := refusal(err)
	if e == nil || e.Code == market.CodeNotFound {
		return err
	}
	d.Error = e
	return c.showConfig(v, httpapi.Status(e.Code), d)
}

// adminSetConfig sets one key. The value is written as its JSON: 5, true,
// ["a","b"].
func (c *Console) adminSetConfig(v *visit) error {
	key, value := v.r.PathValue("key"), strings.TrimSpace(v.r.PostForm.Get("value"))
	httpapi.Entity(v.r, "config", key)
	d := adminConfigData{Key: key, Value: value}
	if value == "" {
		return c.configRefused(v, market.Invalid(market.FieldError{Field: "value", Message: "is required"}), d)
	}
	e, before, err := c.Admin.Settings.Change(v.r.Context(), v.caller().Actor, key, json.RawMessage(value))
	if err != nil {
		return c.configRefused(v, err, d)
	}
	httpapi.AuditDetails(v.r, map[string]any{"before": before, "after": e.Value})
	http.Redirect(v.w, v.r, "/admin/config#config-"+key, http.StatusSeeOther)
	return nil
}

// adminSetFlag switches a feature on or off.
func (c *Console) adminSetFlag(v *visit) error {
	key := v.r.PathValue("key")
	httpapi.Entity(v.r, "feature_flag", key)
	var enabled bool
	switch v.r.PostForm.Get("enabled") {
	case "true":
		enabled = true
	case "false":
	default:
		return c.configRefused(v, market.Invalid(market.FieldError{Field: "enabled", Message: "must be true or false"}), adminConfigData{})
	}
	f, before, err := c.Admin.Settings.SetFlag(v.r.Context(), v.caller().Actor, key, enabled)
	if err != nil {
		return c.configRefused(v, err, adminConfigData{})
	}
	httpapi.AuditDetails(v.r, map[string]any{"before": map[string]any{"enabled": before}, "after": map[string]any{"enabled": f.Enabled}})
	http.Redirect(v.w, v.r, "/admin/config#flag-"+key, http.StatusSeeOther)
	return nil
}
