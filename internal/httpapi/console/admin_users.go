package console

import (
	"context"
	"net/http"

	"marketplace/internal/accounts"
	"marketplace/internal/admin/users"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// The admin's user pages: the list as GET /admin/users filters it, one
// user as GET /admin/users/{id} shows them, and suspend, ban and reinstate
// as POST /admin/users/{id}/suspend|ban|reinstate do them.

type adminUsersData struct {
	Users                  []api.User
	Search                 string
	Statuses, Tiers, Roles []option
	Page                   pager
}

func (c *Console) adminUsersPage(v *visit) error {
	limit, offset, err := httpapi.Page(v.r)
	if err != nil {
		return err
	}
	q := v.r.URL.Query()
	f := users.UserFilter{Status: q.Get("status"), TrustTier: q.Get("trustTier"), Role: q.Get("role"), Search: q.Get("search"),
		Limit: limit, Offset: offset}
	us, total, err := c.Admin.Users.List(v.r.Context(), v.caller().Actor, f)
	if err != nil {
		return err
	}
	d := adminUsersData{Search: f.Search, Statuses: choices(f.Status, "active", "suspended", "banned"),
		Tiers: choices(f.TrustTier, "new", "verified", "trusted", "partner"), Roles: choices(f.Role, "user", "admin"), Users: make([]api.User, len(us)), Page: adminPage(v.r, len(us), total, limit, offset, true)}
	for i := range us {
		d.Users[i] = *api.UserOf(&us[i])
	}
	return c.render(v, http.StatusOK, "admin_users", d)
}

// adminUserData is one user as the admin sees them: their keys, what the
// processor holds of them, and their spending.
type adminUserData struct {
	User           *api.User
	Keys           []api.AgentKey
	PayoutAccount  *payments.PayoutAccount
	PaymentMethods []api.PaymentMethod
	Spending       *api.SpendingStatus
	Error          *market.Error
}

// moderation is an action of the user's page, with its button's words and
// class.
type moderation struct{ Action, Button, Class string }

// Moderations are the actions the user's status allows: suspend an active
// user, ban one not banned, reinstate one not active.
func (d adminUserData) Moderations() []moderation {
	var out []moderation
	if d.User.Status == "active" {
		out = append(out, moderation{"suspend", "Suspend", "warn"})
	}
	if d.User.Status != "banned" {
		out = append(out, moderation{"ban", "Ban", "danger"})
	}
	if d.User.Status != "active" {
		out = append(out, moderation{"reinstate", "Reinstate", ""})
	}
	return out
}

func (c *Console) adminUserPage(v *visit) error {
	return c.showAdminUser(v, http.StatusOK, nil)
}

func (c *Console) showAdminUser(v *visit, status int, refusal *market.Error) error {
	det, err := c.Admin.Users.Detail(v.r.Context(), v.caller().Actor, v.r.PathValue("id"))
	if err != nil {
		return err
	}
	d := adminUserData{User: api.UserOf(det.User), Keys: api.KeysOf(det.Keys, api.Camel), PayoutAccount: det.PayoutAccount,
		Spending: api.SpendingOf(det.Spending), Error: refusal}
	for i := range det.PaymentMethods {
		d.PaymentMethods = append(d.PaymentMethods, *api.PaymentMethodOf(&det.PaymentMethods[i]))
	}
	return c.render(v, status, "admin_user", d)
}

// adminModerateUser suspends, bans or reinstates a user with a reason, as
// the API's moderation routes do; a refusal (no reason, the admin's own
// account, a banned user suspended) shows on the user's page.
func (c *Console) adminModerateUser(action string) pageFunc {
	do := map[string]func(context.Context, market.Actor, string, string) (*accounts.User, error){
		"suspend": c.Admin.Users.Suspend, "ban": c.Admin.Users.Ban, "reinstate": c.Admin.Users.Reinstate}[action]
	return func(v *visit) error {
		id := httpapi.PathEntity(v.r, "user")
		_, err := do(v.r.Context(), v.caller().Actor, id, v.r.PostForm.Get("reason"))
		return c.answer(v, err, "/admin/users/"+id, c.showAdminUser)
	}
}
