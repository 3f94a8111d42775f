package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// RegisterFulfilment adds the routes that move an order after the sale.
func (a *API) RegisterFulfilment(rt *httpapi.Router) {
	p := Prefix
	rt.Handle("POST", p+"/orders/{id}/ship", httpapi.Bearer, a.ship)
	rt.Handle("POST", p+"/orders/{id}/shipping/manual", httpapi.Bearer, a.ship)
	rt.Handle("GET", p+"/orders/{id}/shipping", httpapi.Bearer, a.orderShipping)
	rt.Handle("POST", p+"/orders/{id}/cancel", httpapi.Bearer, a.cancelOrder)
	rt.Handle("POST", p+"/orders/{id}/pickup-ready", httpapi.Bearer, a.pickupReady)
	rt.Handle("POST", p+"/orders/{id}/confirm-pickup", httpapi.Bearer, a.confirmPickup)
	rt.Handle("POST", p+"/orders/{id}/delivered", httpapi.Bearer, a.delivered)
	rt.Handle("POST", p+"/agent/orders/{id}/ship", httpapi.Agent, a.ship)
	rt.Handle("GET", p+"/agent/orders/{id}/shipping", httpapi.Agent, a.orderShipping)
	rt.Handle("POST", p+"/agent/orders/{id}/cancel", httpapi.Agent, a.cancelOrder)
	rt.Handle("POST", p+"/agent/orders/{id}/delivered", httpapi.Agent, a.delivered)
	rt.Handle("POST", p+"/agent/orders/{id}/confirm-pickup", httpapi.Agent, a.confirmPickup)
	rt.Handle("POST", p+"/admin/orders/{id}/force-complete", httpapi.Admin, a.forceComplete)
	rt.Handle("POST", p+"/admin/orders/{id}/force-cancel", httpapi.Admin, a.forceCancel)
	rt.Handle("PATCH", p+"/admin/orders/{id}/hold", httpapi.Admin, a.holdOrder)
}

// orderCall runs one transition for the caller, with the scope it needs
// when the caller is an agent, and answers the order.
func (a *API) orderCall(w http.ResponseWriter, r *http.Request, op agents.Op,
	fn func(p *httpapi.Principal, id string) (*orders.Order, error)) error {
	id := r.PathValue("id")
	httpapi.Entity(r, "order", id)
	if err := httpapi.RequireScope(r, op); err != nil {
		return err
	}
	p := actor(r)
	o, err := fn(p, id)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toOrder(o, p.Actor))
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
	return a.orderCall(w, r, agents.OpSell, func(p *httpapi.Principal, id string) (*orders.Order, error) {
		return a.Orders.Ship(r.Context(), p.Actor, id, orders.Shipment{Carrier: b.Carrier, TrackingNumber: b.TrackingNumber})
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
	return a.orderCall(w, r, agents.OpSell, func(p *httpapi.Principal, id string) (*orders.Order, error) {
		return a.Orders.Cancel(r.Context(), p.Actor, id, b.Reason)
	})
}

func (a *API) pickupReady(w http.ResponseWriter, r *http.Request) error {
	return a.orderCall(w, r, agents.OpSell, func(p *httpapi.Principal, id string) (*orders.Order, error) {
		return a.Orders.PickupReady(r.Context(), p.Actor, id)
	})
}

func (a *API) confirmPickup(w http.ResponseWriter, r *http.Request) error {
	return a.orderCall(w, r, agents.OpBuy, func(p *httpapi.Principal, id string) (*orders.Order, error) {
		return a.Orders.ConfirmPickup(r.Context(), p.Actor, id)
	})
}

func (a *API) delivered(w http.ResponseWriter, r *http.Request) error {
	return a.orderCall(w, r, agents.OpBuy, func(p *httpapi.Principal, id string) (*orders.Order, error) {
		return a.Orders.ConfirmDelivery(r.Context(), p.Actor, id)
	})
}

func (a *API) forceComplete(w http.ResponseWriter, r *http.Request) error {
	return a.orderCall(w, r, agents.OpRead, func(p *httpapi.Principal, id string) (*orders.Order, error) {
		return a.Orders.ForceComplete(r.Context(), p.Actor, id)
	})
}

func (a *API) forceCancel(w http.ResponseWriter, r *http.Request) error {
	var b reasonBody
	if err := decodeOptional(r, &b); err != nil {
		return err
	}
	return a.orderCall(w, r, agents.OpRead, func(p *httpapi.Principal, id string) (*orders.Order, error) {
		return a.Orders.ForceCancel(r.Context(), p.Actor, id, b.Reason)
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
	return a.orderCall(w, r, agents.OpRead, func(p *httpapi.Principal, id string) (*orders.Order, error) {
		return a.Orders.Hold(r.Context(), p.Actor, id, b.PayoutDueAt, b.HoldHours)
	})
}

type shipmentView struct {
	OrderID           string     `json:"orderId"`
	Status            string     `json:"status" ref:"OrderStatus"`
	FulfillmentType   string     `json:"fulfillmentType" enum:"shipping,local_pickup"`
	Carrier           *string    `json:"carrier" doc:"The carrier that carries it once shipped; before, the carrier of the rate chosen at purchase; null when neither."`
	Service           *string    `json:"service" doc:"The service of the rate chosen at purchase."`
	TrackingNumber    *string    `json:"trackingNumber" doc:"Set once shipped."`
	ShippingAddress   *address   `json:"shippingAddress,omitempty" ref:"OrderShippingAddress"`
	ShippedAt         *time.Time `json:"shippedAt"`
	DeliveredAt       *time.Time `json:"deliveredAt"`
	EstimatedDelivery *string    `json:"estimatedDelivery" format:"date" doc:"Set when a carrier rate was chosen at purchase."`
}

// orderShipping is GET /orders/{id}/shipping and the agent form.
func (a *API) orderShipping(w http.ResponseWriter, r *http.Request) error {
	p := actor(r)
	o, err := a.Orders.Get(r.Context(), p.Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	v := toOrder(o, p.Actor)
	out := shipmentView{OrderID: o.ID, Status: string(o.Status), FulfillmentType: string(o.Fulfillment),
		Carrier: strOrNil(o.ShipmentCarrier), TrackingNumber: strOrNil(o.TrackingNumber), ShippingAddress: v.ShippingAddress,
		ShippedAt: o.ShippedAt, DeliveredAt: o.DeliveredAt, EstimatedDelivery: v.EstimatedDelivery}
	if o.ShipmentCarrier == "" {
		out.Carrier = strOrNil(o.Carrier)
	}
	out.Service = strOrNil(o.Service)
	return httpapi.OK(w, r, http.StatusOK, out)
}
