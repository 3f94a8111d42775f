package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/shipping"
)

// RegisterShippingPrefs adds the seller's shipping preference routes.
func (a *API) RegisterShippingPrefs(rt *httpapi.Router) {
	rt = rt.In("shipping")
	rt.Handle("GET", Prefix+"/auth/me/shipping-prefs", httpapi.Bearer, a.getShippingPrefs)
	rt.Handle("PUT", Prefix+"/auth/me/shipping-prefs", httpapi.Bearer, a.putShippingPrefs)
}

// shippingPrefs is a seller's shipping preferences on the wire.
type shippingPrefs struct {
	AutoLabel        bool             `json:"autoLabel"`
	PreferredCarrier *string          `json:"preferredCarrier" enum:"usps,ups,fedex"`
	PreferredService *string          `json:"preferredService" example:"priority" doc:"A service of 'preferredCarrier'; null for any of its services."`
	LocalPickup      bool             `json:"localPickup"`
	HandlingDays     int              `json:"handlingDays" minimum:"0" maximum:"10"`
	PackageDefaults  *packageDefaults `json:"packageDefaults"`
	UpdatedAt        *time.Time       `json:"updatedAt" doc:"When the preferences were last saved; null when never (the defaults)."`
}

type packageDefaults struct {
	WeightOz int     `json:"weightOz" minimum:"1" maximum:"2400" example:"24" doc:"Weight in whole ounces."`
	LengthIn float64 `json:"lengthIn" minimum:"1" maximum:"108" example:"12" doc:"Length in inches."`
	WidthIn  float64 `json:"widthIn" minimum:"1" maximum:"108" example:"10"`
	HeightIn float64 `json:"heightIn" minimum:"1" maximum:"108" example:"6"`
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
	PreferredCarrier httpapi.Opt[string]               `json:"preferredCarrier" example:"usps" nullable:"true" doc:"'usps', 'ups' or 'fedex' in any case; null (or empty) for none."`
	PreferredService httpapi.Opt[string]               `json:"preferredService" example:"priority" nullable:"true" doc:"A service of the preferred carrier: usps 'ground_advantage', 'priority', 'priority_express'; ups 'ground', '2nd_day_air'; fedex 'home_delivery', 'express_saver'. Null (or empty) for any."`
	LocalPickup      httpapi.Opt[bool]                 `json:"localPickup"`
	HandlingDays     httpapi.Opt[int]                  `json:"handlingDays" minimum:"0" maximum:"10"`
	PackageDefaults  httpapi.Opt[packageDefaultsInput] `json:"packageDefaults" ref:"ShippingPackageDefaults" nullable:"true"`
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
