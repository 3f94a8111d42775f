package apiv1

import (
	"context"
	"net/http"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// getOrder is GET /orders/{id}, /purchases/{id} and /agent/orders/{id}.
func (a *API) getOrder(w http.ResponseWriter, r *http.Request) error {
	p := actor(r)
	o, err := a.Orders.Get(r.Context(), p.Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toOrder(o, p.Actor))
}

// orderEvents is the timeline: GET /orders/{id}/events and its twins.
func (a *API) orderEvents(w http.ResponseWriter, r *http.Request) error {
	es, err := a.Orders.Events(r.Context(), actor(r).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toTimeline(es))
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
	p := actor(r)
	os, total, err := a.Orders.List(r.Context(), p.Actor, role, status, limit, offset)
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, toOrders(os, p.Actor), httpapi.PageMeta(total, limit, offset))
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
	id := r.PathValue("id")
	httpapi.Entity(r, "purchase_approval", id)
	p := actor(r)
	o, err := a.Orders.Approve(r.Context(), p.Actor, id)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toOrder(o, p.Actor))
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
	id := r.PathValue("id")
	httpapi.Entity(r, "purchase_approval", id)
	p := actor(r)
	o, err := a.Orders.Reject(r.Context(), p.Actor, id, b.Reason)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toOrder(o, p.Actor))
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
	o, err := a.Orders.Get(r.Context(), actor(r).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	if o.Status != orders.StatusPaid {
		return market.Errorf(market.CodeInvalidState, "shipping rates are quoted for paid orders; this one is %s", o.Status)
	}
	zip := b.Zip
	if zip == "" && o.ShippingAddress != nil {
		zip = o.ShippingAddress.Zip
	}
	q, err := a.Shipping.OrderQuote(r.Context(), o.ListingID, zip)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, httpapi.ToShippingQuote(q))
}
