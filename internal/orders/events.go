package orders

import (
	"context"
	"maps"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// recordOrder records typ about o with a snapshot of the order (CONTRACT.md
// section 12: the ids involved and the object), for the buyer and the
// seller; payment.released is the seller's alone and approval.required the
// buying owner's. An order the seller is not shown (SellerSees: one
// waiting for the owner's approval, or refused by them) is the buyer's
// alone. extra adds to the snapshot.
func recordOrder(ctx context.Context, tx Tx, now time.Time, actor market.Actor, typ string, o *Order, extra map[string]any) error {
	data := orderSnapshot(o)
	maps.Copy(data, extra)
	to := []string{o.BuyerID, o.SellerID}
	switch {
	case typ == "payment.released":
		to = to[1:]
	case typ == "approval.required", !o.SellerSees():
		to = to[:1]
	}
	return events.Record(ctx, tx, now, actor, typ, "order", o.ID, data, to...)
}

// orderSnapshot is what both parties may see of an order: no processor
// ids, no payout figures.
func orderSnapshot(o *Order) map[string]any {
	s := map[string]any{
		"orderId": o.ID, "listingId": o.ListingID, "listingTitle": o.ListingTitle,
		"buyerId": o.BuyerID, "sellerId": o.SellerID, "status": string(o.Status), "channel": string(o.Channel),
		"fulfillmentType": string(o.Fulfillment), "itemPrice": o.Fees.ItemPrice, "shippingCost": o.Fees.ShippingCost,
		"serviceFee": o.Fees.ServiceFee, "totalCharged": o.Fees.TotalCharged, "amountRefunded": o.AmountRefunded,
	}
	if o.ShipmentCarrier != "" {
		s["carrier"] = o.ShipmentCarrier
	}
	if o.TrackingNumber != "" {
		s["trackingNumber"] = o.TrackingNumber
	}
	return s
}
