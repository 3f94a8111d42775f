package store

import (
	"context"
	"database/sql"

	"marketplace/internal/orders"
)

// The orders area (orders.Tx): purchase approvals, the purchases an agent's
// owner must approve.
var _ orders.Tx = (*Tx)(nil)

const approvalColumns = `id, order_id, owner_id, key_id, amount, status, reason, decided_by, decided_at, created_at, request_id`

// CreateApproval inserts a.
func (tx *Tx) CreateApproval(ctx context.Context, a *orders.Approval) error {
	_, err := tx.exec(ctx, `INSERT INTO purchase_approvals (`+approvalColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.OrderID, a.OwnerID, nullString(a.KeyID), a.Amount, a.Status, a.Reason, a.DecidedBy, a.DecidedAt, a.CreatedAt,
		a.RequestID)
	return wrap(err)
}

// UpdateApproval saves a decision.
func (tx *Tx) UpdateApproval(ctx context.Context, a *orders.Approval) error {
	res, err := tx.exec(ctx, `UPDATE purchase_approvals SET status = ?, reason = ?, decided_by = ?, decided_at = ? WHERE id = ?`,
		a.Status, a.Reason, a.DecidedBy, a.DecidedAt, a.ID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "approval")
}

// ApprovalByID finds an approval, locking it inside a transaction.
func (tx *Tx) ApprovalByID(ctx context.Context, id string) (*orders.Approval, error) {
	return scanApproval(tx.queryRow(ctx, `SELECT `+approvalColumns+` FROM purchase_approvals WHERE id = ?`+tx.forUpdate(), id))
}

// ApprovalOfOrder finds the approval an order waited for.
func (tx *Tx) ApprovalOfOrder(ctx context.Context, orderID string) (*orders.Approval, error) {
	return scanApproval(tx.queryRow(ctx, `SELECT `+approvalColumns+` FROM purchase_approvals WHERE order_id = ?`, orderID))
}

// Approvals lists an owner's approvals (every owner's for ""), newest
// first, in one status or all, with the total.
func (tx *Tx) Approvals(ctx context.Context, ownerID, status string, limit, offset int) ([]orders.Approval, int, error) {
	where, args := "1 = 1", []any{}
	if ownerID != "" {
		where, args = where+" AND owner_id = ?", append(args, ownerID)
	}
	if status != "" {
		where, args = where+" AND status = ?", append(args, status)
	}
	var total int
	if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM purchase_approvals WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, wrap(err)
	}
	out, err := queryAll(ctx, tx, scanApproval, `SELECT `+approvalColumns+` FROM purchase_approvals WHERE `+where+
		` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

func scanApproval(row scanner) (*orders.Approval, error) {
	var a orders.Approval
	var keyID sql.NullString
	var decided sql.NullTime
	if err := row.Scan(&a.ID, &a.OrderID, &a.OwnerID, &keyID, &a.Amount, &a.Status, &a.Reason, &a.DecidedBy, &decided,
		&a.CreatedAt, &a.RequestID); err != nil {
		return nil, notFound(err, "approval")
	}
	a.KeyID, a.DecidedAt, a.CreatedAt = keyID.String, nullTime(decided), a.CreatedAt.UTC()
	return &a, nil
}
