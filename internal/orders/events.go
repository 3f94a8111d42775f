package orders

import (
	"context"
	"maps"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/listings"
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
		"order_id": o.ID, "listing_id": o.ListingID, "listing_title": o.ListingTitle,
		"buyer_id": o.BuyerID, "seller_id": o.SellerID, "status": string(o.Status), "channel": string(o.Channel),
		"fulfillment_type": string(o.Fulfillment), "item_price": o.Fees.ItemPrice, "shipping_cost": o.Fees.ShippingCost,
		"service_fee": o.Fees.ServiceFee, "total_charged": o.Fees.TotalCharged, "amount_refunded": o.AmountRefunded,
	}
	if o.ShipmentCarrier != "" {
		s["carrier"] = o.ShipmentCarrier
	}
	if o.TrackingNumber != "" {
		s["tracking_number"] = o.TrackingNumber
	}
	return s
}

// relist puts o's sold listing back on sale (the order ended before the
// item was handed over) and tells its seller and its watchers, who heard
// it sold, with a snapshot of the listing (CONTRACT.md section 12).
func relist(ctx context.Context, tx Tx, actor market.Actor, o *Order, now time.Time) error {
	moved, err := tx.MoveListing(ctx, o.ListingID, []listings.Status{listings.StatusSold}, listings.StatusActive, now)
	if err != nil || !moved {
		return err
	}
	l, err := tx.ListingByID(ctx, o.ListingID)
	if err != nil {
		return err
	}
	watchers, err := tx.Watchers(ctx, l.ID)
	if err != nil {
		return err
	}
	return events.Record(ctx, tx, now, actor, "listing.updated", "listing", l.ID, listings.Snapshot(l, map[string]any{
		"changes": []string{"status"}, "previous_status": string(listings.StatusSold)}), append([]string{l.SellerID}, watchers...)...)
}
