package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// RegisterFulfilment adds the routes that move an order after the sale.
func (a *API) RegisterFulfilment(rt *httpapi.Router) {
	p := Prefix
	rt.In("shipping").Scope(agents.OpSell).Handle("POST", p+"/orders/{id}/ship", httpapi.Bearer, a.ship)
	rt.In("shipping").Scope(agents.OpSell).Handle("POST", p+"/orders/{id}/shipping/manual", httpapi.Bearer, a.ship)
	rt.In("shipping").Handle("GET", p+"/orders/{id}/shipping", httpapi.Bearer, a.orderShipping)
	rt.In("orders").Scope(agents.OpSell).Handle("POST", p+"/orders/{id}/cancel", httpapi.Bearer, a.cancelOrder)
	rt.In("orders").Scope(agents.OpSell).Handle("POST", p+"/orders/{id}/pickup-ready", httpapi.Bearer, a.pickupReady)
	rt.In("orders").Scope(agents.OpBuy).Handle("POST", p+"/orders/{id}/confirm-pickup", httpapi.Bearer, a.confirmPickup)
	rt.In("orders").Scope(agents.OpBuy).Handle("POST", p+"/orders/{id}/delivered", httpapi.Bearer, a.delivered)
	rt.In("shipping").Scope(agents.OpSell).Handle("POST", p+"/agent/orders/{id}/ship", httpapi.Agent, a.ship)
	rt.In("shipping").Handle("GET", p+"/agent/orders/{id}/shipping", httpapi.Agent, a.orderShipping)
	rt.In("orders").Scope(agents.OpSell).Handle("POST", p+"/agent/orders/{id}/cancel", httpapi.Agent, a.cancelOrder)
	rt.In("orders").Scope(agents.OpBuy).Handle("POST", p+"/agent/orders/{id}/delivered", httpapi.Agent, a.delivered)
	rt.In("orders").Scope(agents.OpBuy).Handle("POST", p+"/agent/orders/{id}/confirm-pickup", httpapi.Agent, a.confirmPickup)
	rt.In("admin").Handle("POST", p+"/admin/orders/{id}/force-complete", httpapi.Admin, a.forceComplete)
	rt.In("admin").Handle("POST", p+"/admin/orders/{id}/force-cancel", httpapi.Admin, a.forceCancel)
	rt.In("admin").Handle("PATCH", p+"/admin/orders/{id}/hold", httpapi.Admin, a.holdOrder)
}

// orderCall runs one transition for the caller (its route holds the scope
// an agent needs) and answers the order.
func (a *API) orderCall(w http.ResponseWriter, r *http.Request,
	fn func(x api.Orders, p *api.Caller, id string) (*api.Order, error)) error {
	id := httpapi.PathEntity(r, "order")
	return httpapi.Reply(w, r, http.StatusOK).With(fn(a.OrderOps(), actor(r), id))
}

type shipBody struct {
	Carrier        string `json:"carrier" example:"ups" required:"true" doc:"'usps', 'ups', 'fedex' or 'dhl', in any case; kept on the order as sent."`
	TrackingNumber string `json:"trackingNumber" example:"1Z999AA10123456784" required:"true" doc:"The carrier's tracking number; spaces and dashes are ignored."`
}

// ship is POST /orders/{id}/ship, /shipping/manual and the agent form.
func (a *API) ship(w http.ResponseWriter, r *http.Request) error {
	var b shipBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	return a.orderCall(w, r, func(x api.Orders, p *api.Caller, id string) (*api.Order, error) {
		return x.Ship(r.Context(), p, id, orders.Shipment{Carrier: b.Carrier, TrackingNumber: b.TrackingNumber})
	})
}

type reasonBody struct {
	Reason string `json:"reason" maxLength:"500" doc:"Why; recorded on the 'order.cancelled' event."`
}

// cancelOrder is the seller's cancel before shipment (full refund).
func (a *API) cancelOrder(w http.ResponseWriter, r *http.Request) error {
	var b reasonBody
	if err := decodeOptional(r, &b); err != nil {
		return err
	}
	return a.orderCall(w, r, func(x api.Orders, p *api.Caller, id string) (*api.Order, error) {
		return x.Cancel(r.Context(), p, id, b.Reason)
	})
}

func (a *API) pickupReady(w http.ResponseWriter, r *http.Request) error {
	return a.orderCall(w, r, func(x api.Orders, p *api.Caller, id string) (*api.Order, error) {
		return x.PickupReady(r.Context(), p, id)
	})
}

func (a *API) confirmPickup(w http.ResponseWriter, r *http.Request) error {
	return a.orderCall(w, r, func(x api.Orders, p *api.Caller, id string) (*api.Order, error) {
		return x.ConfirmPickup(r.Context(), p, id)
	})
}

func (a *API) delivered(w http.ResponseWriter, r *http.Request) error {
	return a.orderCall(w, r, func(x api.Orders, p *api.Caller, id string) (*api.Order, error) {
		return x.ConfirmDelivery(r.Context(), p, id)
	})
}

func (a *API) forceComplete(w http.ResponseWriter, r *http.Request) error {
	return a.orderCall(w, r, func(x api.Orders, p *api.Caller, id string) (*api.Order, error) {
		return x.ForceComplete(r.Context(), p, id)
	})
}

func (a *API) forceCancel(w http.ResponseWriter, r *http.Request) error {
	var b reasonBody
	if err := decodeOptional(r, &b); err != nil {
		return err
	}
	return a.orderCall(w, r, func(x api.Orders, p *api.Caller, id string) (*api.Order, error) {
		return x.ForceCancel(r.Context(), p, id, b.Reason)
	})
}

type holdBody struct {
	PayoutDueAt *time.Time `json:"payoutDueAt" doc:"When the payout is released."`
	HoldHours   *int64     `json:"holdHours" minimum:"0" maximum:"2160" doc:"Release the payout this many hours after delivery."`
}

// holdOrder is PATCH /admin/orders/{id}/hold: {payoutDueAt} sets when the
// payout is released; {holdHours} sets it that many hours after delivery.
func (a *API) holdOrder(w http.ResponseWriter, r *http.Request) error {
	var b holdBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	if (b.PayoutDueAt == nil) == (b.HoldHours == nil) {
		return market.Invalid(market.FieldError{Field: "payoutDueAt", Message: "give payoutDueAt or holdHours (0 to 2160)"})
	}
	if b.HoldHours != nil && (*b.HoldHours < 0 || *b.HoldHours > 2160) {
		return market.Invalid(market.FieldError{Field: "holdHours", Message: "must be from 0 to 2160"})
	}
	return a.orderCall(w, r, func(x api.Orders, p *api.Caller, id string) (*api.Order, error) {
		return x.Hold(r.Context(), p, id, b.PayoutDueAt, b.HoldHours)
	})
}

// orderShipping is GET /orders/{id}/shipping and the agent form.
func (a *API) orderShipping(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.OrderOps().Shipment(r.Context(), actor(r), r.PathValue("id")))
}
