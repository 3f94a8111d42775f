package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/shipping"
)

// RegisterShippingPrefs adds the seller's shipping preference routes.
func (a *API) RegisterShippingPrefs(rt *httpapi.Router) {
	rt.Handle("GET", Prefix+"/auth/me/shipping-prefs", httpapi.Bearer, a.getShippingPrefs)
	rt.Handle("PUT", Prefix+"/auth/me/shipping-prefs", httpapi.Bearer, a.putShippingPrefs)
}

// shippingPrefs is a seller's shipping preferences on the wire.
type shippingPrefs struct {
	AutoLabel        bool             `json:"autoLabel"`
	PreferredCarrier *string          `json:"preferredCarrier"`
	PreferredService *string          `json:"preferredService"`
	LocalPickup      bool             `json:"localPickup"`
	HandlingDays     int              `json:"handlingDays"`
	PackageDefaults  *packageDefaults `json:"packageDefaults"`
	UpdatedAt        *time.Time       `json:"updatedAt"`
}

type packageDefaults struct {
	WeightOz int     `json:"weightOz"`
	LengthIn float64 `json:"lengthIn"`
	WidthIn  float64 `json:"widthIn"`
	HeightIn float64 `json:"heightIn"`
}

func toShippingPrefs(p *shipping.Prefs) shippingPrefs {
	out := shippingPrefs{AutoLabel: p.AutoLabel, PreferredCarrier: strOrNil(p.PreferredCarrier),
		PreferredService: strOrNil(p.PreferredService), LocalPickup: p.LocalPickup, HandlingDays: p.HandlingDays,
		UpdatedAt: p.UpdatedAt}
	if pk := p.Package; pk != nil {
		out.PackageDefaults = &packageDefaults{WeightOz: pk.WeightOz, LengthIn: pk.Dimensions.L, WidthIn: pk.Dimensions.W,
			HeightIn: pk.Dimensions.H}
	}
	return out
}

// getShippingPrefs is GET /auth/me/shipping-prefs: the caller's
// preferences, the defaults when never saved.
func (a *API) getShippingPrefs(w http.ResponseWriter, r *http.Request) error {
	p, err := a.Shipping.Prefs(r.Context(), actor(r).User.ID)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toShippingPrefs(p))
}

// shippingPrefsBody is the PUT body: fields left out keep their value.
type shippingPrefsBody struct {
	AutoLabel        httpapi.Opt[bool]                 `json:"autoLabel"`
	PreferredCarrier httpapi.Opt[string]               `json:"preferredCarrier"`
	PreferredService httpapi.Opt[string]               `json:"preferredService"`
	LocalPickup      httpapi.Opt[bool]                 `json:"localPickup"`
	HandlingDays     httpapi.Opt[int]                  `json:"handlingDays"`
	PackageDefaults  httpapi.Opt[packageDefaultsInput] `json:"packageDefaults"`
}

type packageDefaultsInput struct {
	WeightOz *int     `json:"weightOz"`
	LengthIn *float64 `json:"lengthIn"`
	WidthIn  *float64 `json:"widthIn"`
	HeightIn *float64 `json:"heightIn"`
}

// putShippingPrefs is PUT /auth/me/shipping-prefs: 200 with every
// preference as saved.
func (a *API) putShippingPrefs(w http.ResponseWriter, r *http.Request) error {
	var b shippingPrefsBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	p := actor(r)
	httpapi.Entity(r, "user", p.User.ID)
	pk := b.PackageDefaults
	saved, err := a.Shipping.SetPrefs(r.Context(), p.Actor, shipping.PrefsUpdate{
		AutoLabel: b.AutoLabel, PreferredCarrier: b.PreferredCarrier, PreferredService: b.PreferredService,
		LocalPickup: b.LocalPickup, HandlingDays: b.HandlingDays,
		Package: httpapi.Opt[shipping.PackageInput]{Set: pk.Set, Null: pk.Null, Value: shipping.PackageInput{
			WeightOz: pk.Value.WeightOz, LengthIn: pk.Value.LengthIn, WidthIn: pk.Value.WidthIn, HeightIn: pk.Value.HeightIn}},
	})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toShippingPrefs(saved))
}
