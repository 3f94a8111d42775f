package console

import (
	"net/http"

	"marketplace/internal/admin/users"
	"marketplace/internal/audit"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/settings"
)

// AdminOps are the admin services the API's admin routes call beyond the
// shared operations (apiv1.API's Users, Audit and Settings): the app hands
// the console the same values, so a change made on a page is the API's
// change, under the same rules.
type AdminOps struct {
	Users    *users.Users
	Audit    *audit.Log
	Settings *settings.Service
	// Clock is the service's clock (the sandbox moves it): the finance
	// page's default range is this month by it.
	Clock market.Clock
}

// adminRoutes adds the admin's pages (CONTRACT.md sections 14 and 20).
func (c *Console) adminRoutes(rt *httpapi.Router) {
	rt.Handle("GET", "/admin", httpapi.Public, c.admin(c.adminPage))
	rt.Handle("GET", "/admin/users", httpapi.Public, c.admin(c.adminUsersPage))
	rt.Handle("GET", "/admin/users/{id}", httpapi.Public, c.admin(c.adminUserPage))
	// One route per action, as on the API, so the audit log names it.
	for _, action := range []string{"suspend", "ban", "reinstate"} {
		rt.Handle("POST", "/admin/users/{id}/"+action, httpapi.Public, c.admin(c.adminModerateUser(action)))
	}
	rt.Handle("GET", "/admin/listings", httpapi.Public, c.admin(c.adminListingsPage))
	rt.Handle("POST", "/admin/listings/{id}/approve", httpapi.Public, c.admin(c.adminApproveListing))
	rt.Handle("POST", "/admin/listings/{id}/reject", httpapi.Public, c.admin(c.adminRejectListing))
	rt.Handle("GET", "/admin/disputes", httpapi.Public, c.admin(c.adminDisputesPage))
	rt.Handle("GET", "/admin/disputes/{id}", httpapi.Public, c.admin(c.adminDisputePage))
	rt.Handle("POST", "/admin/disputes/{id}/resolve", httpapi.Public, c.admin(c.adminResolveDispute))
	rt.Handle("GET", "/admin/config", httpapi.Public, c.admin(c.adminConfigPage))
	rt.Handle("POST", "/admin/config/{key}", httpapi.Public, c.admin(c.adminSetConfig))
	rt.Handle("POST", "/admin/feature-flags/{key}", httpapi.Public, c.admin(c.adminSetFlag))
	rt.Handle("GET", "/admin/audit", httpapi.Public, c.admin(c.adminAuditPage))
	rt.Handle("GET", "/admin/finance", httpapi.Public, c.admin(c.adminFinancePage))
}

// admin serves a page for admins only: a guest goes to "Sign in"; anyone
// else signed in gets the API's answer to a non-admin's bearer token on an
// admin route (httpapi.Admin): 403 FORBIDDEN.
func (c *Console) admin(h pageFunc) httpapi.HandlerFunc {
	return c.member(func(v *visit) error {
		if !v.user.IsAdmin() {
			return market.Errorf(market.CodeForbidden, "this needs an administrator")
		}
		return h(v)
	})
}

func (c *Console) adminPage(v *visit) error {
	o, err := c.Ops.Orders.MetricsOverview(v.r.Context(), v.caller().Actor)
	if err != nil {
		return err
	}
	return c.render(v, http.StatusOK, "admin", o)
}

// adminPage is the pager of an admin list: its links keep every filter of
// the query, and it says where the page stands. bounded: the list's
// filtered total is counted only to market.CountBound past the offset.
func adminPage(r *http.Request, n, total, limit, offset int, bounded bool) pager {
	p := pageOf(n, total, limit, offset, pageLinks(r.URL.Path, r.URL.Query(), limit))
	p.Count, p.Capped = true, bounded && total > offset+market.CountBound
	return p
}
