package apiv1

import (
	"context"
	"net/http"
	"time"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// getOrder is GET /orders/{id}, /purchases/{id} and /agent/orders/{id}.
func (a *API) getOrder(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.OrderOps().Get(r.Context(), actor(r), r.PathValue("id")))
}

// orderEvents is the timeline: GET /orders/{id}/events and its twins.
func (a *API) orderEvents(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.OrderOps().Events(r.Context(), actor(r), r.PathValue("id")))
}

// listOrders is GET /agent/orders (role and status from the query).
func (a *API) listOrders(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	return a.writeOrders(w, r, q.Get("role"), q.Get("status"))
}

// myPurchases is GET /purchases/buyer; mySales is GET /purchases/seller.
func (a *API) myPurchases(w http.ResponseWriter, r *http.Request) error {
	return a.writeOrders(w, r, "buyer", r.URL.Query().Get("status"))
}

func (a *API) mySales(w http.ResponseWriter, r *http.Request) error {
	return a.writeOrders(w, r, "seller", r.URL.Query().Get("status"))
}

func (a *API) writeOrders(w http.ResponseWriter, r *http.Request, role, status string) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	os, total, err := a.OrderOps().List(r.Context(), actor(r), role, status, limit, offset)
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, os, httpapi.PageMeta(total, limit, offset))
}

// approval is a purchase waiting for (or decided by) the owner, with its
// order.
type approval struct {
	ID        string     `json:"id"`
	Type      string     `json:"type" enum:"purchase_approval"`
	Status    string     `json:"status" enum:"pending,approved,rejected"`
	OrderID   string     `json:"orderId"`
	KeyID     *string    `json:"keyId" doc:"The agent key that asked."`
	Amount    int64      `json:"amount" doc:"The purchase's 'totalCharged' when it was queued, in cents."`
	Reason    *string    `json:"reason" doc:"The rejection reason."`
	Order     *api.Order `json:"order"`
	DecidedAt *time.Time `json:"decidedAt"`
	CreatedAt time.Time  `json:"createdAt"`
}

func toApproval(v orders.ApprovalView, viewer market.Actor) approval {
	a := v.Approval
	out := approval{ID: a.ID, Type: "purchase_approval", Status: a.Status, OrderID: a.OrderID, KeyID: strOrNil(a.KeyID),
		Amount: a.Amount, Reason: strOrNil(a.Reason), DecidedAt: a.DecidedAt, CreatedAt: a.CreatedAt}
	if v.Order != nil {
		out.Order = api.OrderOf(v.Order, viewer)
	}
	return out
}

// listApprovals is GET /approvals.
func (a *API) listApprovals(w http.ResponseWriter, r *http.Request) error {
	return a.writeApprovals(w, r, a.Orders.Approvals)
}

// writeApprovals answers a page of approvals from list (the owner's, or
// the admin queue).
func (a *API) writeApprovals(w http.ResponseWriter, r *http.Request,
	list func(context.Context, market.Actor, string, int, int) ([]orders.ApprovalView, int, error)) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	p := actor(r)
	vs, total, err := list(r.Context(), p.Actor, r.URL.Query().Get("status"), limit, offset)
	if err != nil {
		return err
	}
	out := make([]approval, len(vs))
	for i, v := range vs {
		out[i] = toApproval(v, p.Actor)
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, httpapi.PageMeta(total, limit, offset))
}

// approve is POST /approvals/{id}/approve: every check runs again and the
// purchase is charged.
func (a *API) approve(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "purchase_approval")
	return httpapi.Reply(w, r, http.StatusOK).With(a.OrderOps().Approve(r.Context(), actor(r), id))
}

type rejectBody struct {
	Reason string `json:"reason" maxLength:"500" doc:"Why; kept on the approval."`
}

// reject is POST /approvals/{id}/reject: the queued order is cancelled.
func (a *API) reject(w http.ResponseWriter, r *http.Request) error {
	var b rejectBody
	if err := decodeOptional(r, &b); err != nil {
		return err
	}
	id := httpapi.PathEntity(r, "purchase_approval")
	return httpapi.Reply(w, r, http.StatusOK).With(a.OrderOps().Reject(r.Context(), actor(r), id, b.Reason))
}

type orderRatesBody struct {
	Zip string `json:"zip" doc:"The destination US ZIP code; the order's shipping address ZIP code when absent or empty."`
}

// orderShippingRates is POST /orders/{id}/shipping/rates: quotes for the
// seller of a paid order (or its buyer), to the order's address.
func (a *API) orderShippingRates(w http.ResponseWriter, r *http.Request) error {
	var b orderRatesBody
	if err := decodeOptional(r, &b); err != nil {
		return err
	}
	q, err := a.OrderOps().Rates(r.Context(), actor(r), r.PathValue("id"), b.Zip)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, httpapi.ToShippingQuote(q))
}
