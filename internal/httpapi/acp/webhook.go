package acp

import (
	"context"
	"encoding/json"
	"time"

	"marketplace/internal/checkouts"
	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// The order webhooks a connected platform receives (ACP's
// openapi.agentic_checkout_webhook.yaml; CONTRACT.md section 18):
// order_create when its order is paid, order_update on every change
// after. Each carries the order as it is when the delivery is sent.

type webhookEvent struct {
	Type string         `json:"type"`
	Data webhookOrderV1 `json:"data"`
}

type webhookOrderV1 struct {
	Type              string             `json:"type"`
	ID                string             `json:"id"`
	CheckoutSessionID string             `json:"checkout_session_id"`
	PermalinkURL      string             `json:"permalink_url"`
	Status            string             `json:"status"`
	LineItems         []orderLineItem    `json:"line_items"`
	Fulfillments      []orderFulfillment `json:"fulfillments,omitempty"`
	Adjustments       []orderAdjustment  `json:"adjustments,omitempty"`
	Totals            []total            `json:"totals"`
}

type orderQuantity struct {
	Ordered   int `json:"ordered"`
	Current   int `json:"current"`
	Fulfilled int `json:"fulfilled"`
}

type orderLineItem struct {
	ID        string        `json:"id"`
	Title     string        `json:"title"`
	Quantity  orderQuantity `json:"quantity"`
	UnitPrice int64         `json:"unit_price"`
}

type lineRef struct {
	ID       string `json:"id"`
	Quantity int    `json:"quantity"`
}

type fulfillmentEvent struct {
	ID         string    `json:"id"`
	Type       string    `json:"type"`
	OccurredAt time.Time `json:"occurred_at"`
}

type orderFulfillment struct {
	ID             string             `json:"id"`
	Type           string             `json:"type"`
	Status         string             `json:"status"`
	LineItems      []lineRef          `json:"line_items"`
	Carrier        string             `json:"carrier,omitempty"`
	TrackingNumber string             `json:"tracking_number,omitempty"`
	Events         []fulfillmentEvent `json:"events,omitempty"`
}

type orderAdjustment struct {
	ID         string    `json:"id"`
	Type       string    `json:"type"`
	OccurredAt time.Time `json:"occurred_at"`
	Status     string    `json:"status"`
	Amount     int64     `json:"amount"`
	Currency   string    `json:"currency"`
	Reason     string    `json:"reason,omitempty"`
}

// OrderEvent is the body of the webhook a platform gets for e, one of
// checkouts.OrderEventTypes about its order.
func (b *Binding) OrderEvent(ctx context.Context, e *events.Event) ([]byte, error) {
	o, refunds, err := b.Ops.Orders.Refunds(ctx, market.System, e.EntityID)
	if err != nil {
		return nil, err
	}
	typ := "order_update"
	if e.Type == "order.created" {
		typ = "order_create"
	}
	return json.Marshal(webhookEvent{Type: typ, Data: b.webhookOrder(o, refunds)})
}

func (b *Binding) webhookOrder(o *orders.Order, refunds []orders.Refund) webhookOrderV1 {
	line := checkouts.LineItemID(o.ListingID)
	out := webhookOrderV1{Type: "order", ID: o.ID, CheckoutSessionID: o.CheckoutSessionID, PermalinkURL: b.permalink(o.ID),
		Status: orderStatus(string(o.Status)), Totals: totalsOf(checkouts.OrderTotals(o.Fees))}
	if o.Status == orders.StatusRefunded || o.AmountRefunded >= o.Fees.TotalCharged && o.AmountRefunded > 0 {
		out.Status = "canceled"
	}
	current := 1
	if out.Status == "canceled" {
		current = 0
	}
	f := orderFulfillment{ID: "ful_" + o.ID, Type: "shipping", Status: "pending", LineItems: []lineRef{{ID: line, Quantity: 1}},
		Carrier: o.ShipmentCarrier, TrackingNumber: o.TrackingNumber}
	if o.Fulfillment == orders.FulfillLocalPickup {
		f.Type = "pickup"
	}
	fulfilled := 0
	if o.ShippedAt != nil {
		f.Status = "shipped"
		f.Events = append(f.Events, fulfillmentEvent{ID: "fev_" + o.ID + "_shipped", Type: "shipped", OccurredAt: *o.ShippedAt})
	}
	if o.DeliveredAt != nil {
		f.Status, fulfilled = "delivered", 1
		f.Events = append(f.Events, fulfillmentEvent{ID: "fev_" + o.ID + "_delivered", Type: "delivered", OccurredAt: *o.DeliveredAt})
	}
	if o.PaidAt != nil {
		out.Fulfillments = []orderFulfillment{f}
	}
	out.LineItems = []orderLineItem{{ID: line, Title: o.ListingTitle, UnitPrice: o.Fees.ItemPrice,
		Quantity: orderQuantity{Ordered: 1, Current: current, Fulfilled: fulfilled}}}
	for _, r := range refunds {
		if r.Status != orders.RefundSucceeded && r.Status != orders.RefundPending {
			continue
		}
		at := r.CreatedAt
		if r.IssuedAt != nil {
			at = *r.IssuedAt
		}
		status := "completed"
		if r.Status == orders.RefundPending {
			status = "pending"
		}
		out.Adjustments = append(out.Adjustments, orderAdjustment{ID: "adj_" + r.ID, Type: "refund", OccurredAt: at,
			Status: status, Amount: r.Amount, Currency: "usd", Reason: r.Reason})
	}
	return out
}
