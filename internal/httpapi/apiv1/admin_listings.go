package apiv1

import (
	"context"
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// The admin's listing routes (CONTRACT.md sections 6 and 14). Each answers
// the admin's view of the listing: every field, the seller's floor price
// and cost basis included.

// registerAdminListings adds the admin listing and moderation routes.
func (a *API) registerAdminListings(rt *httpapi.Router, p string) {
	rt = rt.In("admin")
	rt.Handle("GET", p+"/admin/listings", httpapi.Admin, a.adminListings)
	rt.Handle("GET", p+"/admin/listings/{id}", httpapi.Admin, a.adminListing)
	rt.Handle("PATCH", p+"/admin/listings/{id}", httpapi.Admin, a.adminUpdateListing)
	rt.Handle("POST", p+"/admin/listings/{id}/approve", httpapi.Admin, a.adminApproveListing)
	rt.Handle("POST", p+"/admin/listings/{id}/reject", httpapi.Admin, a.adminRejectListing)
	rt.Handle("POST", p+"/admin/listings/{id}/delist", httpapi.Admin, a.adminDelistListing)
	rt.Handle("GET", p+"/admin/moderation/rejections", httpapi.Admin, a.adminRejections)
	rt.Handle("GET", p+"/admin/moderation/rejections/user/{userId}", httpapi.Admin, a.adminUserRejections)
	rt.Handle("POST", p+"/admin/moderation/rejections/{id}/override", httpapi.Admin, a.adminOverrideRejection)
}

// ownListing is the seller's view, the admins' view of a listing.
type ownListing = api.OwnListing

// adminListingViews is the admin's view of ls: the seller's view.
func (a *API) adminListingViews(ctx context.Context, ls []listings.Listing) ([]ownListing, error) {
	return a.ListingOps().SellerViews(ctx, ls)
}

func (a *API) writeAdminListing(w http.ResponseWriter, r *http.Request, l *listings.Listing) error {
	vs, err := a.adminListingViews(r.Context(), []listings.Listing{*l})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, vs[0])
}

// adminListings is GET /admin/listings?status=&sellerId=&search=&limit=&offset=.
func (a *API) adminListings(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	ls, total, err := a.Listings.AdminList(r.Context(), actor(r).Actor, listings.AdminFilter{
		Status: listings.Status(q.Get("status")), SellerID: q.Get("sellerId"), Search: q.Get("search"),
		Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	vs, err := a.adminListingViews(r.Context(), ls)
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, vs, adminPageMeta(total, limit, offset, market.CountBound, q.Get("status"), q.Get("sellerId"), q.Get("search")))
}

// adminListing is GET /admin/listings/{id}: any listing, in any status.
func (a *API) adminListing(w http.ResponseWriter, r *http.Request) error {
	l, err := a.Listings.AdminGet(r.Context(), actor(r).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	return a.writeAdminListing(w, r, l)
}

type adminListingPatch struct {
	Price      httpapi.Opt[int64]  `json:"price" minimum:"1" maximum:"1000000000" doc:"Cents. A floor price above it comes down to it."`
	CategoryID httpapi.Opt[string] `json:"categoryId" doc:"A known category id."`
	Status     httpapi.Opt[string] `json:"status" enum:"active,held,archived,removed"`
}

// adminUpdateListing is PATCH /admin/listings/{id}.
func (a *API) adminUpdateListing(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "listing")
	var b adminListingPatch
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	l, err := a.Listings.AdminUpdate(r.Context(), actor(r).Actor, id, listings.AdminPatch{Price: b.Price,
		CategoryID: b.CategoryID, Status: b.Status})
	if err != nil {
		return err
	}
	return a.writeAdminListing(w, r, l)
}

// adminApproveListing is POST /admin/listings/{id}/approve: held -> active.
func (a *API) adminApproveListing(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "listing")
	l, err := a.Listings.Approve(r.Context(), actor(r).Actor, id)
	if err != nil {
		return err
	}
	return a.writeAdminListing(w, r, l)
}

type moderationReason struct {
	Reason string `json:"reason" required:"true" minLength:"1" maxLength:"500" doc:"Why. For delist, 'counterfeit' also suspends the seller when the config 'moderation.suspend_on_counterfeit' is true."`
}

// adminRejectListing is POST /admin/listings/{id}/reject {reason}: held -> removed.
func (a *API) adminRejectListing(w http.ResponseWriter, r *http.Request) error {
	return a.adminRemoveListing(w, r, a.Listings.Reject)
}

// adminDelistListing is POST /admin/listings/{id}/delist {reason}: active or held -> removed.
func (a *API) adminDelistListing(w http.ResponseWriter, r *http.Request) error {
	return a.adminRemoveListing(w, r, a.Listings.Delist)
}

func (a *API) adminRemoveListing(w http.ResponseWriter, r *http.Request,
	do func(ctx context.Context, actor market.Actor, id, reason string) (*listings.Listing, error)) error {
	id := httpapi.PathEntity(r, "listing")
	var b moderationReason
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	l, err := do(r.Context(), actor(r).Actor, id, b.Reason)
	if err != nil {
		return err
	}
	return a.writeAdminListing(w, r, l)
}
