package api

import (
	"context"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/shipping"
)

// Shipment is how an order's item travels, for its buyer or seller.
type Shipment struct {
	OrderID           string        `json:"orderId"`
	Status            string        `json:"status" ref:"OrderStatus"`
	FulfillmentType   string        `json:"fulfillmentType" enum:"shipping,local_pickup"`
	Carrier           *string       `json:"carrier" doc:"The carrier that carries it once shipped; before, the carrier of the rate chosen at purchase; null when neither."`
	Service           *string       `json:"service" doc:"The service of the rate chosen at purchase."`
	TrackingNumber    *string       `json:"trackingNumber" doc:"Set once shipped."`
	TrackingURL       *string       `json:"-" snake:"tracking_url" doc:"The carrier's public tracking page, once shipped."`
	ShippingAddress   *OrderAddress `json:"shippingAddress,omitempty" ref:"OrderShippingAddress"`
	ShippedAt         *time.Time    `json:"shippedAt"`
	DeliveredAt       *time.Time    `json:"deliveredAt"`
	EstimatedDelivery *string       `json:"estimatedDelivery" format:"date" doc:"Set when a carrier rate was chosen at purchase."`
}

// ShipmentOf is o's shipment.
func ShipmentOf(o *orders.Order) *Shipment {
	out := &Shipment{OrderID: o.ID, Status: string(o.Status), FulfillmentType: string(o.Fulfillment),
		Carrier: strOrNil(o.ShipmentCarrier), Service: strOrNil(o.Service), TrackingNumber: strOrNil(o.TrackingNumber),
		ShippingAddress: AddressOf(o.ShippingAddress), ShippedAt: o.ShippedAt, DeliveredAt: o.DeliveredAt,
		EstimatedDelivery: dateOrNil(o.EstimatedDelivery)}
	if o.ShipmentCarrier == "" {
		out.Carrier = strOrNil(o.Carrier)
	}
	if o.TrackingNumber != "" {
		out.TrackingURL = strOrNil(shipping.TrackingURL(o.ShipmentCarrier, o.TrackingNumber))
	}
	return out
}

// Label is a label the platform bought, with the order it shipped.
type Label struct {
	ID             string    `json:"id" doc:"The label's id."`
	OrderID        string    `json:"orderId"`
	Carrier        string    `json:"carrier" example:"usps"`
	Service        string    `json:"service" example:"ground_advantage"`
	TrackingNumber string    `json:"trackingNumber" example:"9400100000000000000000"`
	TrackingURL    *string   `json:"trackingUrl" doc:"The carrier's public tracking page."`
	Cost           int64     `json:"cost" doc:"What the platform paid the carrier, in cents."`
	LabelURL       string    `json:"labelUrl" doc:"'GET' it with the seller's bearer token for the PDF."`
	Bought         bool      `json:"-" snake:"bought" doc:"True when this call bought the label; false when an earlier call had (nothing was bought again)."`
	CreatedAt      time.Time `json:"createdAt" doc:"When the label was bought."`
	Order          Order     `json:"order"`
}

// LabelPath is where a label's PDF is served, below the public URL: one
// route, Variant A's, for every surface.
func LabelPath(orderID string) string { return "/api/v1/orders/" + orderID + "/shipping/label" }

// Shipment is where an order's parcel is.
func (x Orders) Shipment(ctx context.Context, c *Caller, id string) (*Shipment, error) {
	o, err := x.Service.Get(ctx, c.Actor, id)
	if err != nil {
		return nil, err
	}
	return ShipmentOf(o), nil
}

// Rates are carrier quotes for the seller (or buyer) of a paid order about
// to ship, to zip or, when zip is "", the order's address.
func (x Orders) Rates(ctx context.Context, c *Caller, id, zip string) (*shipping.Quote, error) {
	o, err := x.Service.Get(ctx, c.Actor, id)
	if err != nil {
		return nil, err
	}
	if o.Status != orders.StatusPaid {
		return nil, market.Errorf(market.CodeInvalidState, "shipping rates are quoted for paid orders; this one is %s", o.Status)
	}
	if zip == "" && o.ShippingAddress != nil {
		zip = o.ShippingAddress.Zip
	}
	return x.Shipping.OrderQuote(ctx, o.ListingID, zip)
}

// Ship is the seller's shipment of a paid order with the carrier and
// tracking number of a parcel sent.
func (x Orders) Ship(ctx context.Context, c *Caller, id string, s orders.Shipment) (*Order, error) {
	return orderView(c)(x.Service.Ship(ctx, c.Actor, id, s))
}

// BuyLabel has the platform buy the seller a prepaid label and ships the
// order on it; a label an earlier call bought is answered again (Bought
// false), never bought twice.
func (x Orders) BuyLabel(ctx context.Context, c *Caller, id string, req orders.LabelRequest) (*Label, error) {
	o, l, err := x.Service.BuyLabel(ctx, c.Actor, id, req)
	if err != nil {
		return nil, err
	}
	return &Label{ID: l.ID, OrderID: o.ID, Carrier: l.Carrier, Service: l.Service, TrackingNumber: l.TrackingNumber,
		TrackingURL: strOrNil(shipping.TrackingURL(l.Carrier, l.TrackingNumber)), Cost: l.Cost,
		LabelURL: x.PublicURL + LabelPath(o.ID), Bought: l.Bought, CreatedAt: l.CreatedAt, Order: *OrderOf(o, c.Actor)}, nil
}

// Cancel is the seller's cancellation before shipment (a full refund).
func (x Orders) Cancel(ctx context.Context, c *Caller, id, reason string) (*Order, error) {
	return orderView(c)(x.Service.Cancel(ctx, c.Actor, id, reason))
}

// PickupReady is the seller's word that a pickup order can be collected.
func (x Orders) PickupReady(ctx context.Context, c *Caller, id string) (*Order, error) {
	return orderView(c)(x.Service.PickupReady(ctx, c.Actor, id))
}

// ConfirmPickup is the buyer's word that a pickup order was collected.
func (x Orders) ConfirmPickup(ctx context.Context, c *Caller, id string) (*Order, error) {
	return orderView(c)(x.Service.ConfirmPickup(ctx, c.Actor, id))
}

// ConfirmDelivery is the buyer's word that a shipped order arrived.
func (x Orders) ConfirmDelivery(ctx context.Context, c *Caller, id string) (*Order, error) {
	return orderView(c)(x.Service.ConfirmDelivery(ctx, c.Actor, id))
}

// ForceComplete is an admin's release of the payout now.
func (x Orders) ForceComplete(ctx context.Context, c *Caller, id string) (*Order, error) {
	return orderView(c)(x.Service.ForceComplete(ctx, c.Actor, id))
}

// ForceCancel is an admin's cancellation (a full refund).
func (x Orders) ForceCancel(ctx context.Context, c *Caller, id, reason string) (*Order, error) {
	return orderView(c)(x.Service.ForceCancel(ctx, c.Actor, id, reason))
}

// Hold is an admin's change of when the payout is released: at until, or
// hours after delivery.
func (x Orders) Hold(ctx context.Context, c *Caller, id string, until *time.Time, hours *int64) (*Order, error) {
	return orderView(c)(x.Service.Hold(ctx, c.Actor, id, until, hours))
}
