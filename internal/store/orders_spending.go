package store

import (
	"context"
	"time"

	"marketplace/internal/market"
)

// RecordSpend writes one agent spending row. Purchases write these; until the
// checkout exists, tests use it to put spending on the books.
func (tx *Tx) RecordSpend(ctx context.Context, userID, keyID, orderID string, amount int64, at time.Time, releasedAt *time.Time) error {
	_, err := tx.exec(ctx, `INSERT INTO agent_spending (id, user_id, key_id, order_id, amount, created_at, released_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, market.NewID(), userID, keyID, orderID, amount, at, releasedAt)
	return wrap(err)
}
