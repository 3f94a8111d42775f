package store

import (
	"context"
	"slices"
	"time"

	"marketplace/internal/orders"
)

// The orders area's seller dashboard (orders.DashboardTx).
var _ orders.DashboardTx = (*Tx)(nil)

// liveSale is the statuses of a sale that went ahead: paid and not
// cancelled, expired or refunded in full.
const liveSale = `status IN ('paid', 'pickup_ready', 'shipped', 'delivered', 'completed', 'disputed')`

// sellerNet is what the seller is owed for an order: the item less
// commission, plus the shipping the buyer paid unless the platform bought
// the label, less the refunds taken from the seller (orders.SellerPayout).
const sellerNet = `(item_price - commission + CASE WHEN label_cost = 0 THEN shipping_cost ELSE 0 END - seller_refunded)`

// SellerDashboard gathers a seller's figures; since starts the recent window.
func (tx *Tx) SellerDashboard(ctx context.Context, sellerID string, since time.Time) (*orders.Dashboard, error) {
	d := &orders.Dashboard{Actions: []orders.ActionItem{}}
	if err := tx.dashboardListings(ctx, sellerID, &d.Listings); err != nil {
		return nil, err
	}
	s := &d.Sales
	err := tx.queryRow(ctx, `SELECT COUNT(*), COALESCE(SUM(item_price + shipping_cost), 0), COALESCE(SUM(commission), 0),
		COALESCE(SUM(seller_refunded), 0), COALESCE(SUM(`+sellerNet+`), 0), COALESCE(SUM(item_price), 0),
		COALESCE(SUM(CASE WHEN paid_at >= ? THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN paid_at >= ? THEN item_price + shipping_cost ELSE 0 END), 0)
		FROM orders WHERE seller_id = ? AND `+liveSale, since, since, sellerID).
		Scan(&s.Count, &s.GrossSales, &s.Commission, &s.Refunded, &s.NetEarnings, &s.AveragePrice, &s.CountRecent, &s.GrossRecent)
	if err != nil {
		return nil, wrap(err)
	}
	if s.Count > 0 {
		s.AveragePrice /= int64(s.Count)
	}
	p := &d.Payouts
	err = tx.queryRow(ctx, `SELECT
		COALESCE(SUM(CASE WHEN payout_status = '' THEN `+sellerNet+` ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN payout_status = 'pending' THEN payout_amount ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN payout_status = 'pending' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN payout_status = 'frozen' THEN payout_amount ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN payout_status = 'frozen' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN payout_status = 'released' THEN payout_amount - transfer_reversed ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN payout_status = 'released' THEN 1 ELSE 0 END), 0)
		FROM orders WHERE seller_id = ? AND (`+liveSale+` OR payout_status = 'released')`, sellerID).
		Scan(&p.Upcoming, &p.Pending, &p.PendingCount, &p.Frozen, &p.FrozenCount, &p.Released, &p.ReleasedCount)
	if err != nil {
		return nil, wrap(err)
	}
	due, err := queryAll(ctx, tx, scanOne[time.Time], `SELECT payout_due_at FROM orders WHERE seller_id = ? AND payout_status = 'pending'
		AND payout_due_at IS NOT NULL ORDER BY payout_due_at LIMIT 1`, sellerID)
	if err != nil {
		return nil, err
	}
	if len(due) > 0 {
		at := due[0].UTC()
		p.NextReleaseAt = &at
	}
	err = tx.queryRow(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN status = 'open' THEN 1 ELSE 0 END), 0)
		FROM disputes WHERE seller_id = ? AND status <> 'resolved'`, sellerID).Scan(&d.Disputes.Open, &d.Disputes.AwaitingResponse)
	if err != nil {
		return nil, wrap(err)
	}
	if d.Actions, err = tx.dashboardActions(ctx, sellerID); err != nil {
		return nil, err
	}
	return d, nil
}

func (tx *Tx) dashboardListings(ctx context.Context, sellerID string, c *orders.ListingCounts) error {
	rows, err := tx.query(ctx, `SELECT status, COUNT(*) FROM listings WHERE seller_id = ? GROUP BY status`, sellerID)
	if err != nil {
		return wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return wrap(err)
		}
		switch status {
		case "active":
			c.Active = n
		case "held":
			c.Held = n
		case "reserved":
			c.Reserved = n
		case "sold":
			c.Sold = n
		case "pending_ai":
			c.Generating = n
		}
	}
	return wrap(rows.Err())
}

// actionLimit bounds each kind of action item on the dashboard.
const actionLimit = 50

// dashboardActions lists what waits for the seller: orders to ship or to
// make ready for pickup, refund requests to answer, disputes to respond to.
func (tx *Tx) dashboardActions(ctx context.Context, sellerID string) ([]orders.ActionItem, error) {
	queries := []string{
		`SELECT id, listing_title, CASE WHEN fulfillment_type = 'local_pickup' THEN 'mark_pickup_ready' ELSE 'ship' END,
			paid_at, '' FROM orders WHERE seller_id = ? AND status = 'paid' AND paid_at IS NOT NULL ORDER BY paid_at LIMIT ?`,
		`SELECT o.id, o.listing_title, 'answer_refund_request', r.created_at, r.id FROM refunds r
			JOIN orders o ON o.id = r.order_id WHERE o.seller_id = ? AND r.status = 'requested' ORDER BY r.created_at LIMIT ?`,
		`SELECT o.id, o.listing_title, 'respond_to_dispute', d.created_at, d.id FROM disputes d
			JOIN orders o ON o.id = d.order_id WHERE d.seller_id = ? AND d.status = 'open' ORDER BY d.created_at LIMIT ?`,
	}
	out := []orders.ActionItem{}
	for _, q := range queries {
		items, err := queryAll(ctx, tx, scanActionItem, q, sellerID, actionLimit)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	slices.SortStableFunc(out, func(a, b orders.ActionItem) int { return a.Since.Compare(b.Since) })
	return out, nil
}

func scanActionItem(row scanner) (*orders.ActionItem, error) {
	var a orders.ActionItem
	if err := row.Scan(&a.OrderID, &a.ListingTitle, &a.Action, &a.Since, &a.RefID); err != nil {
		return nil, wrap(err)
	}
	a.Since = a.Since.UTC()
	return &a, nil
}
