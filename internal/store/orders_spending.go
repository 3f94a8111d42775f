package store

import (
	"context"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// The orders area (orders.Tx): the agent spending rows a purchase records,
// releases or deletes. The agents area reads them (agents_spending.go); a
// partial refund gives part back (GiveBackSpend, orders_refunds.go).
var _ orders.Tx = (*Tx)(nil)

// RecordSpend writes one agent spending row. Purchases write these; until the
// checkout exists, tests use it to put spending on the books.
func (tx *Tx) RecordSpend(ctx context.Context, userID, keyID, orderID string, amount int64, at time.Time, releasedAt *time.Time) error {
	_, err := tx.exec(ctx, `INSERT INTO agent_spending (id, user_id, key_id, order_id, amount, created_at, released_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, market.NewID(), userID, keyID, orderID, amount, at, releasedAt)
	return wrap(err)
}

// ReleaseSpend gives an order's spending back (cancelled or refunded).
func (tx *Tx) ReleaseSpend(ctx context.Context, orderID string, at time.Time) error {
	_, err := tx.exec(ctx, `UPDATE agent_spending SET released_at = ? WHERE order_id = ? AND released_at IS NULL`, at, orderID)
	return wrap(err)
}

// DeleteSpend removes the spending of an order that was never charged.
func (tx *Tx) DeleteSpend(ctx context.Context, orderID string) error {
	_, err := tx.exec(ctx, `DELETE FROM agent_spending WHERE order_id = ?`, orderID)
	return wrap(err)
}
