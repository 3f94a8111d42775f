package store

import (
	"context"
	"database/sql"
	"encoding/json"

	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// The orders area's disputes (orders.DisputeTx). PhotoUploadByID, which it
// names for evidence photos, is listings.go's.
var _ orders.DisputeTx = (*Tx)(nil)

const disputeColumns = `id, order_id, buyer_id, seller_id, status, reason, description, evidence_photos, seller_response,
	seller_photos, responded_at, resolution, resolution_amount, resolution_note, resolved_by, resolved_at, created_at,
	updated_at`

func disputeArgs(d *orders.Dispute) ([]any, error) {
	photos, err := photoJSON(d.PhotoIDs)
	if err != nil {
		return nil, err
	}
	sellerPhotos, err := photoJSON(d.SellerPhotoIDs)
	if err != nil {
		return nil, err
	}
	return []any{d.ID, d.OrderID, d.BuyerID, d.SellerID, string(d.Status), d.Reason, d.Description, photos,
		d.SellerResponse, sellerPhotos, d.RespondedAt, string(d.Resolution), d.ResolutionAmount, d.ResolutionNote,
		d.ResolvedBy, d.ResolvedAt, d.CreatedAt, d.UpdatedAt}, nil
}

// CreateDispute inserts d. A second unresolved dispute of one order violates
// the disputes_order_open index and answers INVALID_STATE.
func (tx *Tx) CreateDispute(ctx context.Context, d *orders.Dispute) error {
	args, err := disputeArgs(d)
	if err != nil {
		return err
	}
	_, err = tx.exec(ctx, `INSERT INTO disputes (`+disputeColumns+`) VALUES (`+placeholders(len(args))+`)`, args...)
	if isUnique(err, "order") {
		return market.Errorf(market.CodeInvalidState, "the order already has an open dispute")
	}
	return wrap(err)
}

// UpdateDispute writes every mutable field of d.
func (tx *Tx) UpdateDispute(ctx context.Context, d *orders.Dispute) error {
	args, err := disputeArgs(d)
	if err != nil {
		return err
	}
	// Skip id, order, buyer, seller and created_at: they never change.
	res, err := tx.exec(ctx, `UPDATE disputes SET status = ?, reason = ?, description = ?, evidence_photos = ?,
		seller_response = ?, seller_photos = ?, responded_at = ?, resolution = ?, resolution_amount = ?,
		resolution_note = ?, resolved_by = ?, resolved_at = ?, updated_at = ? WHERE id = ?`,
		append(append(append([]any{}, args[4:16]...), args[17]), d.ID)...)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "dispute")
}

// DisputeByID finds a dispute, locking it inside a transaction.
func (tx *Tx) DisputeByID(ctx context.Context, id string) (*orders.Dispute, error) {
	return scanDispute(tx.queryRow(ctx, `SELECT `+disputeColumns+` FROM disputes WHERE id = ?`+tx.forUpdate(), id))
}

// OpenDisputeOf finds the unresolved dispute of an order.
func (tx *Tx) OpenDisputeOf(ctx context.Context, orderID string) (*orders.Dispute, error) {
	return scanDispute(tx.queryRow(ctx, `SELECT `+disputeColumns+` FROM disputes WHERE order_id = ? AND status <> 'resolved'`,
		orderID))
}

// OpenDisputes counts a seller's disputes not resolved yet (the seller
// dashboard).
func (tx *Tx) OpenDisputes(ctx context.Context, sellerID string) (int, error) {
	var n int
	err := tx.queryRow(ctx, `SELECT COUNT(*) FROM disputes WHERE seller_id = ? AND status <> 'resolved'`, sellerID).Scan(&n)
	return n, wrap(err)
}

// Disputes lists a page of disputes, newest first, with the total.
func (tx *Tx) Disputes(ctx context.Context, f orders.DisputeFilter) ([]orders.Dispute, int, error) {
	where, args := "1 = 1", []any{}
	switch {
	case f.UserID == "":
	case f.Role == "buyer":
		where, args = "buyer_id = ?", []any{f.UserID}
	case f.Role == "seller":
		where, args = "seller_id = ?", []any{f.UserID}
	default:
		where, args = "(buyer_id = ? OR seller_id = ?)", []any{f.UserID, f.UserID}
	}
	if f.Status != "" {
		where, args = where+" AND status = ?", append(args, string(f.Status))
	}
	var total int
	if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM disputes WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, wrap(err)
	}
	out, err := queryAll(ctx, tx, scanDispute, `SELECT `+disputeColumns+` FROM disputes WHERE `+where+
		` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

func scanDispute(row scanner) (*orders.Dispute, error) {
	var d orders.Dispute
	var status, photos, sellerPhotos, resolution string
	var responded, resolved sql.NullTime
	var amount sql.NullInt64
	err := row.Scan(&d.ID, &d.OrderID, &d.BuyerID, &d.SellerID, &status, &d.Reason, &d.Description, &photos,
		&d.SellerResponse, &sellerPhotos, &responded, &resolution, &amount, &d.ResolutionNote, &d.ResolvedBy, &resolved,
		&d.CreatedAt, &d.UpdatedAt)
	if err != nil {
		return nil, notFound(err, "dispute")
	}
	if err := json.Unmarshal([]byte(photos), &d.PhotoIDs); err != nil {
		return nil, market.Internal(err)
	}
	if err := json.Unmarshal([]byte(sellerPhotos), &d.SellerPhotoIDs); err != nil {
		return nil, market.Internal(err)
	}
	d.Status, d.Resolution = orders.DisputeStatus(status), orders.Resolution(resolution)
	d.RespondedAt, d.ResolvedAt, d.ResolutionAmount = nullTime(responded), nullTime(resolved), nullInt(amount)
	d.CreatedAt, d.UpdatedAt = d.CreatedAt.UTC(), d.UpdatedAt.UTC()
	return &d, nil
}
