package console

import (
	"net/url"

	"marketplace/internal/accounts"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// Saved addresses, as /addresses keeps them: add one (the first is the
// default), make one the default, remove one. Another user's address is
// NOT_FOUND, as on the API.

// addressOf reads an address form.
func addressOf(f url.Values) accounts.Address {
	return accounts.Address{Name: f.Get("name"), Line1: f.Get("line1"), Line2: f.Get("line2"), City: f.Get("city"),
		State: f.Get("state"), Zip: f.Get("zip"), Country: f.Get("country"), Phone: f.Get("phone")}
}

// setShipFrom sets where the seller's labels ship from, as PUT
// /auth/me/address does.
func (c *Console) setShipFrom(v *visit) error {
	a := addressOf(v.r.PostForm)
	if _, err := c.Ops.AccountOps().SetShipFrom(v.r.Context(), v.caller(), a); err != nil {
		return c.settingsRefused(v, err, settingsData{ShipFrom: a})
	}
	c.savedRedirect(v, "shipFrom")
	return nil
}

func (c *Console) addAddress(v *visit) error {
	a := addressOf(v.r.PostForm)
	f := v.r.PostForm
	typed := a // the service trims and fills in what it is given
	ad, err := c.Ops.AccountOps().AddAddress(v.r.Context(), v.caller(), a, f.Get("isDefault") == "on")
	if err != nil {
		return c.settingsRefused(v, err, settingsData{Address: typed})
	}
	httpapi.Entity(v.r, "address", ad.ID)
	c.savedRedirect(v, "addresses")
	return nil
}

func (c *Console) addressAction(v *visit) error {
	id, ctx := httpapi.PathEntity(v.r, "address"), v.r.Context()
	var err error
	switch v.r.PathValue("action") {
	case "default":
		_, err = c.Ops.AccountOps().SetDefaultAddress(ctx, v.caller(), id)
	case "delete":
		err = c.Ops.Accounts.DeleteAddress(ctx, v.caller().Actor, id)
	default:
		return market.Errorf(market.CodeNotFound, "no such page")
	}
	return c.answer(v, err, "/settings?saved=addresses", func(v *visit, status int, refusal *market.Error) error {
		return c.showSettings(v, status, settingsData{Error: refusal})
	})
}
