package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/moderation"
)

// moderationRejection is a moderation rejection as admins see it.
type moderationRejection struct {
	ID         string     `json:"id"`
	ListingID  string     `json:"listingId"`
	UserID     string     `json:"userId" doc:"The seller."`
	Reason     string     `json:"reason" doc:"Why moderation refused the listing, e.g. 'restricted_brand'."`
	Brand      string     `json:"brand,omitempty" doc:"The restricted brand matched, as configured."`
	Field      string     `json:"field,omitempty" doc:"Where it was found: title, description or brand."`
	Status     string     `json:"status" enum:"open,overridden"`
	CreatedAt  time.Time  `json:"createdAt"`
	ResolvedAt *time.Time `json:"resolvedAt" nullable:"true"`
	ResolvedBy *string    `json:"resolvedBy" nullable:"true" doc:"The admin who overrode it."`
}

func toRejection(r *moderation.Rejection) moderationRejection {
	return moderationRejection{ID: r.ID, ListingID: r.ListingID, UserID: r.UserID, Reason: r.Reason, Brand: r.Brand,
		Field: r.Field, Status: string(r.Status), CreatedAt: r.CreatedAt, ResolvedAt: r.ResolvedAt,
		ResolvedBy: strOrNil(r.ResolvedBy)}
}

// rejectionOverride is the answer of an override: the rejection and its
// listing, now active.
type rejectionOverride struct {
	Rejection moderationRejection `json:"rejection"`
	Listing   ownListing          `json:"listing"`
}

func writeRejections(w http.ResponseWriter, r *http.Request, rs []moderation.Rejection, total, limit, offset int) error {
	out := make([]moderationRejection, len(rs))
	for i := range rs {
		out[i] = toRejection(&rs[i])
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, httpapi.PageMeta(total, limit, offset))
}

// adminRejections is GET /admin/moderation/rejections?limit=&offset=.
func (a *API) adminRejections(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	rs, total, err := a.Listings.Rejections(r.Context(), actor(r).Actor, limit, offset)
	if err != nil {
		return err
	}
	return writeRejections(w, r, rs, total, limit, offset)
}

// adminUserRejections is GET /admin/moderation/rejections/user/{userId}.
func (a *API) adminUserRejections(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	rs, total, err := a.Listings.RejectionsOfUser(r.Context(), actor(r).Actor, r.PathValue("userId"), limit, offset)
	if err != nil {
		return err
	}
	return writeRejections(w, r, rs, total, limit, offset)
}

// adminOverrideRejection is POST /admin/moderation/rejections/{id}/override.
func (a *API) adminOverrideRejection(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "moderation_rejection")
	rej, l, err := a.Listings.Override(r.Context(), actor(r).Actor, id)
	if err != nil {
		return err
	}
	vs, err := a.adminListingViews(r.Context(), []listings.Listing{*l})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, rejectionOverride{Rejection: toRejection(rej), Listing: vs[0]})
}
