package orders

import (
	"context"
	"time"

	"marketplace/internal/messaging"
)

// System messages: shipped, delivered, completed and cancelled orders post
// a system message into the buyer's thread on the listing (created if
// needed), in the transaction that records the order event.

// orderMessages are the order events that post a system message, and what
// it says.
var orderMessages = map[string]string{
	"order.shipped":   "The seller shipped this order.",
	"order.delivered": "This order was delivered.",
	"order.completed": "This order is complete; the seller has been paid.",
	"order.cancelled": "This order was cancelled; the buyer is refunded in full.",
}

// postOrderMessage posts the system message of event about o, if the event
// has one.
func postOrderMessage(ctx context.Context, tx Tx, now time.Time, o *Order, event string) error {
	text, ok := orderMessages[event]
	if !ok {
		return nil
	}
	if event == "order.shipped" && o.ShipmentCarrier != "" && o.TrackingNumber != "" {
		text = "The seller shipped this order with " + o.ShipmentCarrier + ", tracking number " + o.TrackingNumber + "."
	}
	fields := map[string]any{"event": event, "orderId": o.ID, "status": string(o.Status)}
	if event == "order.shipped" && o.TrackingNumber != "" {
		fields["carrier"], fields["trackingNumber"] = o.ShipmentCarrier, o.TrackingNumber
	}
	return messaging.Auto(ctx, tx, now, messaging.AutoMessage{ListingID: o.ListingID, BuyerID: o.BuyerID,
		SellerID: o.SellerID, Type: messaging.TypeSystem, Content: text, Fields: fields})
}
