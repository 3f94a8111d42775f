package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/admin/queue"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
)

// The admin approval queue (CONTRACT.md section 14): purchase approvals
// (the same items owners decide at /approvals) and listing reviews (held
// listings), merged newest first.

// queueItem is a queue entry: the contract's fields, then the purchase
// approval's own fields (and order) or the held listing.
type queueItem struct {
	ID         string      `json:"id" doc:"The approval id, or for a listing review the listing's id."`
	Type       string      `json:"type" enum:"purchase_approval,listing_review,moderation_appeal"`
	Status     string      `json:"status" enum:"pending,approved,rejected"`
	EntityType string      `json:"entityType" enum:"order,listing"`
	EntityID   string      `json:"entityId"`
	Summary    string      `json:"summary"`
	CreatedAt  time.Time   `json:"createdAt"`
	DecidedAt  *time.Time  `json:"decidedAt"`
	DecidedBy  *string     `json:"decidedBy" doc:"Who decided: the owner or an admin (purchase approvals)."`
	OrderID    string      `json:"orderId,omitempty" doc:"purchase_approval only."`
	KeyID      *string     `json:"keyId,omitempty" doc:"purchase_approval only: the agent key that asked."`
	Amount     *int64      `json:"amount,omitempty" doc:"purchase_approval only: the purchase's 'totalCharged' when it was queued, in cents."`
	Reason     *string     `json:"reason,omitempty" doc:"purchase_approval only: the rejection reason."`
	Order      *api.Order  `json:"order,omitempty" doc:"purchase_approval only."`
	Listing    *ownListing `json:"listing,omitempty" doc:"listing_review only: the held listing (admin view)."`
}

func (a *API) queueService() *queue.Service {
	return &queue.Service{Orders: a.Orders, Listings: a.Listings}
}

// adminQueue is GET /admin/queue?status=&type=&limit=&offset=.
func (a *API) adminQueue(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	p := actor(r)
	q := r.URL.Query()
	items, total, err := a.queueService().List(r.Context(), p.Actor, queue.Query{Type: q.Get("type"),
		Status: q.Get("status"), Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	var held []listings.Listing
	for _, it := range items {
		if it.Listing != nil {
			held = append(held, *it.Listing)
		}
	}
	views, err := a.adminListingViews(r.Context(), held)
	if err != nil {
		return err
	}
	out := make([]queueItem, len(items))
	for i, it := range items {
		qi := queueItem{ID: it.ID(), Type: it.Type, Status: it.Status(), Summary: it.Summary(), CreatedAt: it.CreatedAt}
		if it.Listing != nil {
			v := views[0]
			views = views[1:]
			qi.EntityType, qi.EntityID, qi.Listing = "listing", it.Listing.ID, &v
		} else {
			ap := toApproval(*it.Approval, p.Actor)
			qi.EntityType, qi.EntityID, qi.DecidedAt = "order", ap.OrderID, ap.DecidedAt
			qi.OrderID, qi.KeyID, qi.Amount, qi.Reason, qi.Order = ap.OrderID, ap.KeyID, &ap.Amount, ap.Reason, ap.Order
			if ap.DecidedAt != nil {
				qi.DecidedBy = strOrNil(it.Approval.Approval.DecidedBy)
			}
		}
		out[i] = qi
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, httpapi.PageMeta(total, limit, offset))
}

// writeDecision answers a queue decision: the order of a purchase approval,
// the listing (admin view) of a listing review.
func (a *API) writeDecision(w http.ResponseWriter, r *http.Request, d queue.Decision) error {
	if d.Listing != nil {
		return a.writeAdminListing(w, r, d.Listing)
	}
	return httpapi.OK(w, r, http.StatusOK, api.OrderOf(d.Order, actor(r).Actor))
}

// adminQueueApprove is POST /admin/queue/{id}/approve.
func (a *API) adminQueueApprove(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "queue_item")
	d, err := a.queueService().Approve(r.Context(), actor(r).Actor, id)
	if err != nil {
		return err
	}
	return a.writeDecision(w, r, d)
}

// adminQueueReject is POST /admin/queue/{id}/reject {reason?}.
func (a *API) adminQueueReject(w http.ResponseWriter, r *http.Request) error {
	var b rejectBody
	if err := decodeOptional(r, &b); err != nil {
		return err
	}
	id := httpapi.PathEntity(r, "queue_item")
	d, err := a.queueService().Reject(r.Context(), actor(r).Actor, id, b.Reason)
	if err != nil {
		return err
	}
	return a.writeDecision(w, r, d)
}
