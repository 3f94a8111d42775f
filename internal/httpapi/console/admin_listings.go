package console

import (
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// The held listings: the listing reviews of the admin's queue, as GET
// /admin/listings?status=held lists them, approved (held -> active) or
// rejected with a reason (held -> removed) as POST
// /admin/listings/{id}/approve|reject do it.

type adminListingsData struct {
	Listings []api.OwnListing
	Page     pager
	Error    *market.Error
}

func (c *Console) adminListingsPage(v *visit) error {
	return c.showHeld(v, http.StatusOK, nil)
}

func (c *Console) showHeld(v *visit, status int, refusal *market.Error) error {
	limit, offset, err := httpapi.Page(v.r)
	if err != nil {
		return err
	}
	ctx := v.r.Context()
	ls, total, err := c.Ops.Listings.AdminList(ctx, v.caller().Actor, listings.AdminFilter{Status: listings.StatusHeld,
		Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	views, err := c.Ops.ListingOps().SellerViews(ctx, ls)
	if err != nil {
		return err
	}
	return c.render(v, status, "admin_listings", adminListingsData{Listings: views, Page: adminPage(v.r, len(ls), total, limit, offset, false),
		Error: refusal})
}

// adminApproveListing makes a held listing active; then back to the held
// listings, or a refusal there (a listing no longer held). An unknown
// listing is the 404 page.
func (c *Console) adminApproveListing(v *visit) error {
	_, err := c.Ops.Listings.Approve(v.r.Context(), v.caller().Actor, httpapi.PathEntity(v.r, "listing"))
	return c.answer(v, err, "/admin/listings", c.showHeld)
}

// adminRejectListing removes a held listing, with a reason (refused
// without one), as adminApproveListing answers.
func (c *Console) adminRejectListing(v *visit) error {
	_, err := c.Ops.Listings.Reject(v.r.Context(), v.caller().Actor, httpapi.PathEntity(v.r, "listing"), v.r.PostForm.Get("reason"))
	return c.answer(v, err, "/admin/listings", c.showHeld)
}
