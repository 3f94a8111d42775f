package store

import (
	"context"
	"database/sql"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// The orders area's refunds (orders.RefundTx).
var _ orders.RefundTx = (*Tx)(nil)

const refundColumns = `id, order_id, amount, status, reason, message, requested_by, initiated_by, decided_by, seller_share,
	platform_share, reverse_amount, reversed_amount, processor_refund_id, reversal_id, created_at, decided_at, issued_at,
	updated_at`

// CreateRefund inserts r. A second open request of one order violates the
// refunds_open_request index and answers INVALID_STATE.
func (tx *Tx) CreateRefund(ctx context.Context, r *orders.Refund) error {
	_, err := tx.exec(ctx, `INSERT INTO refunds (`+refundColumns+`, idem_owner, idem_key) VALUES (`+placeholders(21)+`)`,
		r.ID, r.OrderID, r.Amount, string(r.Status), r.Reason, r.Message, r.RequestedBy, r.InitiatedBy, r.DecidedBy,
		r.SellerShare, r.PlatformShare, r.ReverseAmount, r.ReversedAmount, r.ProcessorRefundID, r.ReversalID,
		r.CreatedAt, r.DecidedAt, r.IssuedAt, r.UpdatedAt, r.IdemOwner, r.IdemKey)
	if isUnique(err, "order_id") || isUnique(err, "open_request") {
		return market.Errorf(market.CodeInvalidState, "a refund request of this order is open already")
	}
	return wrap(err)
}

// UpdateRefund saves every mutable field of r.
func (tx *Tx) UpdateRefund(ctx context.Context, r *orders.Refund) error {
	res, err := tx.exec(ctx, `UPDATE refunds SET amount = ?, status = ?, reason = ?, message = ?, decided_by = ?,
		seller_share = ?, platform_share = ?, reverse_amount = ?, reversed_amount = ?, processor_refund_id = ?,
		reversal_id = ?, decided_at = ?, issued_at = ?, updated_at = ? WHERE id = ?`,
		r.Amount, string(r.Status), r.Reason, r.Message, r.DecidedBy, r.SellerShare, r.PlatformShare, r.ReverseAmount,
		r.ReversedAmount, r.ProcessorRefundID, r.ReversalID, r.DecidedAt, r.IssuedAt, r.UpdatedAt, r.ID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "refund")
}

// RefundByID finds a refund, locking it inside a transaction.
func (tx *Tx) RefundByID(ctx context.Context, id string) (*orders.Refund, error) {
	return scanRefund(tx.queryRow(ctx, `SELECT `+refundColumns+` FROM refunds WHERE id = ?`+tx.lockInTx(), id))
}

// RefundByIdempotencyKey finds the newest refund of an order that ownerID
// made under key since the given time, locking it inside a transaction.
func (tx *Tx) RefundByIdempotencyKey(ctx context.Context, orderID, ownerID, key string, since time.Time) (*orders.Refund, error) {
	return scanRefund(tx.queryRow(ctx, `SELECT `+refundColumns+` FROM refunds WHERE order_id = ? AND idem_owner = ?
		AND idem_key = ? AND idem_key <> '' AND created_at >= ? ORDER BY created_at DESC LIMIT 1`+tx.lockInTx(),
		orderID, ownerID, key, since))
}

// RefundsOf lists an order's refunds, oldest first.
func (tx *Tx) RefundsOf(ctx context.Context, orderID string) ([]orders.Refund, error) {
	return queryAll(ctx, tx, scanRefund, `SELECT `+refundColumns+` FROM refunds WHERE order_id = ? ORDER BY created_at, id`, orderID)
}

// UnfinishedRefunds lists the orders whose refunds or reversals the
// processor has not taken yet, longest waiting first.
func (tx *Tx) UnfinishedRefunds(ctx context.Context, limit int) ([]string, error) {
	return queryAll(ctx, tx, scanOne[string], `SELECT order_id FROM refunds WHERE status = 'pending' OR reverse_amount > reversed_amount
		GROUP BY order_id ORDER BY MIN(updated_at) LIMIT ?`, limit)
}

// GiveBackSpend lowers the agent spending counted for an order by amount,
// not below zero (a partial refund; a full one releases it).
func (tx *Tx) GiveBackSpend(ctx context.Context, orderID string, amount int64) error {
	_, err := tx.exec(ctx, `UPDATE agent_spending SET amount = CASE WHEN amount > ? THEN amount - ? ELSE 0 END
		WHERE order_id = ? AND released_at IS NULL`, amount, amount, orderID)
	return wrap(err)
}

func scanRefund(row scanner) (*orders.Refund, error) {
	var r orders.Refund
	var status string
	var decided, issued sql.NullTime
	if err := row.Scan(&r.ID, &r.OrderID, &r.Amount, &status, &r.Reason, &r.Message, &r.RequestedBy, &r.InitiatedBy,
		&r.DecidedBy, &r.SellerShare, &r.PlatformShare, &r.ReverseAmount, &r.ReversedAmount, &r.ProcessorRefundID,
		&r.ReversalID, &r.CreatedAt, &decided, &issued, &r.UpdatedAt); err != nil {
		return nil, notFound(err, "refund")
	}
	r.Status, r.DecidedAt, r.IssuedAt = orders.RefundStatus(status), nullTime(decided), nullTime(issued)
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	return &r, nil
}
