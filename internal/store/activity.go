package store

import (
	"context"
	"time"

	"marketplace/internal/activity"
	"marketplace/internal/events"
)

var _ activity.Store = (*Tx)(nil)

// PendingActions lists what waits for userID (activity.Store): paid orders
// to ship or to make ready for pickup, refund requests to answer and open
// disputes to respond to as the seller, offers awaiting the user's answer
// (due when the round expires), and purchases waiting for the owner's
// approval.
func (tx *Tx) PendingActions(ctx context.Context, userID string, now time.Time) ([]activity.Action, error) {
	queries := []struct {
		typ   string
		offer bool
		sql   string
		args  []any
	}{
		{activity.ActionShip, false, `SELECT id, created_at FROM orders
			WHERE seller_id = ? AND status = 'paid' AND fulfillment_type = 'shipping' ORDER BY created_at, id`, []any{userID}},
		{activity.ActionMarkPickupReady, false, `SELECT id, created_at FROM orders
			WHERE seller_id = ? AND status = 'paid' AND fulfillment_type = 'local_pickup' ORDER BY created_at, id`, []any{userID}},
		{activity.ActionAnswerRefundRequest, false, `SELECT r.order_id, r.created_at FROM refunds r JOIN orders o ON o.id = r.order_id
			WHERE o.seller_id = ? AND r.status = 'requested' ORDER BY r.created_at, r.id`, []any{userID}},
		{activity.ActionRespondToDispute, false, `SELECT order_id, created_at FROM disputes
			WHERE seller_id = ? AND status = 'open' ORDER BY created_at, id`, []any{userID}},
		{activity.ActionRespondToOffer, true, `SELECT id, expires_at FROM offers
			WHERE ((seller_id = ? AND awaiting = 'seller') OR (buyer_id = ? AND awaiting = 'buyer'))
			AND status IN ('pending', 'countered') AND expires_at > ? ORDER BY expires_at, id`, []any{userID, userID, now}},
		{activity.ActionApprovePurchase, false, `SELECT order_id, created_at FROM purchase_approvals
			WHERE owner_id = ? AND status = 'pending' ORDER BY created_at, id`, []any{userID}},
	}
	out := []activity.Action{}
	for _, q := range queries {
		rows, err := tx.query(ctx, q.sql, q.args...)
		if err != nil {
			return nil, wrap(err)
		}
		for rows.Next() {
			var id string
			var at time.Time
			if err := rows.Scan(&id, &at); err != nil {
				rows.Close()
				return nil, wrap(err)
			}
			a := activity.Action{Type: q.typ, OrderID: id}
			if q.offer {
				due := at.UTC()
				a = activity.Action{Type: q.typ, OfferID: id, DueAt: &due}
			}
			out = append(out, a)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, wrap(err)
		}
	}
	return out, nil
}

// RecentFeed is userID's latest n feed events, newest first
// (activity.Store).
func (tx *Tx) RecentFeed(ctx context.Context, userID string, n int) ([]events.Event, error) {
	return queryAll(ctx, tx, scanEvent, `SELECT e.id, e.type, e.actor_type, e.actor_id, e.entity_type, e.entity_id, e.data, e.created_at
		FROM event_feed f JOIN events e ON e.id = f.event_id
		WHERE f.user_id = ? ORDER BY f.txid DESC, f.seq DESC LIMIT ?`, userID, n)
}
