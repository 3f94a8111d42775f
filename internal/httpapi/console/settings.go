package console

import (
	"net/http"

	"marketplace/internal/accounts"
	"marketplace/internal/api"
	"marketplace/internal/events"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/notify"
)

// settingsRoutes adds the signed-in person's settings: profile, password,
// notification preferences and saved addresses.
func (c *Console) settingsRoutes(rt *httpapi.Router) {
	rt.Handle("GET", "/settings", httpapi.Public, c.member(c.settingsPage))
	rt.Handle("POST", "/settings/profile", httpapi.Public, c.member(c.updateProfile))
	rt.Handle("POST", "/settings/password", httpapi.Public, c.member(c.changePassword))
	rt.Handle("POST", "/settings/notifications", httpapi.Public, c.member(c.updatePrefs))
	rt.Handle("POST", "/settings/addresses", httpapi.Public, c.member(c.addAddress))
	rt.Handle("POST", "/settings/ship-from", httpapi.Public, c.member(c.setShipFrom))
	rt.Handle("POST", "/settings/addresses/{id}/{action}", httpapi.Public, c.member(c.addressAction))
}

// settingsData is the settings page: the account, its preferences and
// addresses, what was just saved, and a refusal with what was typed.
type settingsData struct {
	User      *api.User
	Prefs     []prefRow
	Addresses []addressRow
	Saved     string
	Error     *market.Error
	// What was typed in a refused form, shown again.
	DisplayName, Username string
	Address               accounts.Address
	// ShipFrom is the seller's ship-from address, or what was typed in a
	// refused ship-from form.
	ShipFrom accounts.Address
}

// addressFields are the fields of an address form (templates/settings.html's
// "address"), their ids starting with Prefix.
type addressFields struct {
	Prefix string
	accounts.Address
}

// NewAddress is the new address form's fields; ShipFromFields the
// ship-from form's.
func (d settingsData) NewAddress() addressFields     { return addressFields{"a", d.Address} }
func (d settingsData) ShipFromFields() addressFields { return addressFields{"sf", d.ShipFrom} }

// addressRow is a saved address and whether it is the default.
type addressRow struct {
	api.Address
	Default bool
}

// prefRow is one category's channels.
type prefRow struct {
	Category       string
	Email, Webhook bool
}

// saved are the notices a redirect after a change may ask for; the query
// names one, never carries text.
var saved = map[string]string{
	"profile":       "Your profile is saved.",
	"password":      "Your password is changed. Every other browser signed in to your account was signed out.",
	"notifications": "Your notification preferences are saved.",
	"addresses":     "Your addresses are saved.",
	"shipFrom":      "Your ship-from address is saved: labels for your sales ship from it.",
}

func (c *Console) settingsPage(v *visit) error {
	return c.showSettings(v, http.StatusOK, settingsData{Saved: saved[v.r.URL.Query().Get("saved")]})
}

func (c *Console) showSettings(v *visit, status int, d settingsData) error {
	ctx := v.r.Context()
	d.User = api.UserOf(v.user)
	if d.ShipFrom == (accounts.Address{}) && v.user.ShipFrom != nil {
		d.ShipFrom = *v.user.ShipFrom
	}
	if d.DisplayName == "" && d.Username == "" { // not a refused profile form
		d.DisplayName, d.Username = v.user.DisplayName, v.user.Username
	}
	prefs, err := c.Ops.Notify.Prefs(ctx, v.user.ID)
	if err != nil {
		return err
	}
	for _, cat := range events.Categories {
		sw, ok := prefs[cat]
		if !ok {
			sw = events.Switches{Email: true, Webhook: true}
		}
		d.Prefs = append(d.Prefs, prefRow{Category: cat, Email: sw.Email, Webhook: sw.Webhook})
	}
	as, err := c.Ops.AccountOps().Addresses(ctx, v.caller())
	if err != nil {
		return err
	}
	for _, a := range as {
		d.Addresses = append(d.Addresses, addressRow{Address: a, Default: a.IsDefault != nil && *a.IsDefault})
	}
	return c.render(v, status, "settings", d)
}

// settingsRefused shows the settings page with a refusal at its status;
// an internal error is the error page's.
func (c *Console) settingsRefused(v *visit, err error, d settingsData) error {
	e := refusal(err)
	if e == nil {
		return err
	}
	d.Error = e
	return c.showSettings(v, httpapi.Status(e.Code), d)
}

func (c *Console) savedRedirect(v *visit, what string) {
	http.Redirect(v.w, v.r, "/settings?saved="+what, http.StatusSeeOther)
}

// updateProfile changes the display name and username as PATCH /auth/me
// does.
func (c *Console) updateProfile(v *visit) error {
	f := v.r.PostForm
	name, username := f.Get("displayName"), f.Get("username")
	httpapi.Entity(v.r, "user", v.user.ID)
	if _, err := c.Ops.AccountOps().UpdateProfile(v.r.Context(), v.caller(), accounts.ProfileUpdate{DisplayName: &name,
		Username: &username}); err != nil {
		return c.settingsRefused(v, err, settingsData{DisplayName: name, Username: username})
	}
	c.savedRedirect(v, "profile")
	return nil
}

// changePassword sets a new password as POST /auth/set-password does, with
// its rule that it is done from a private network. The service ends every
// console session of the user, this one too, so this browser is signed in
// again with a new session.
func (c *Console) changePassword(v *visit) error {
	f := v.r.PostForm
	httpapi.Entity(v.r, "user", v.user.ID)
	if err := httpapi.FromPrivateNetwork(v.r); err != nil {
		return c.settingsRefused(v, err, settingsData{})
	}
	if f.Get("newPassword") != f.Get("confirmPassword") {
		return c.settingsRefused(v, market.Invalid(market.FieldError{Field: "confirmPassword", Message: "the two new passwords differ"}), settingsData{})
	}
	if err := c.Ops.Accounts.SetPassword(v.r.Context(), v.caller().Actor, f.Get("currentPassword"), f.Get("newPassword")); err != nil {
		return c.settingsRefused(v, err, settingsData{})
	}
	return c.signIn(v, v.user, "/settings?saved=password")
}

// updatePrefs saves every category's channels as PUT
// /auth/me/notification-prefs does: a box left unticked is off.
func (c *Console) updatePrefs(v *visit) error {
	f := v.r.PostForm
	change := notify.PrefsChange{}
	for _, cat := range events.Categories {
		change[cat] = map[string]bool{
			events.ChannelEmail:   f.Get(cat+"."+events.ChannelEmail) == "on",
			events.ChannelWebhook: f.Get(cat+"."+events.ChannelWebhook) == "on",
		}
	}
	if _, err := c.Ops.Notify.UpdatePrefs(v.r.Context(), v.user.ID, change); err != nil {
		return c.settingsRefused(v, err, settingsData{})
	}
	c.savedRedirect(v, "notifications")
	return nil
}
