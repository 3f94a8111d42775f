package store

import (
	"context"
	"database/sql"

	"marketplace/internal/moderation"
)

// The moderation area (moderation.Tx): rejections.
var _ moderation.Tx = (*Tx)(nil)

const rejectionColumns = `id, listing_id, user_id, reason, brand, field, status, created_at, resolved_at, resolved_by`

// CreateRejection records a moderation rejection.
func (tx *Tx) CreateRejection(ctx context.Context, r *moderation.Rejection) error {
	_, err := tx.exec(ctx, `INSERT INTO moderation_rejections (`+rejectionColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.ListingID, r.UserID, r.Reason, r.Brand, r.Field, string(r.Status), r.CreatedAt, r.ResolvedAt, r.ResolvedBy)
	return wrap(err)
}

// RejectionsByUser lists a seller's rejections, newest first.
func (tx *Tx) RejectionsByUser(ctx context.Context, userID string) ([]moderation.Rejection, error) {
	return queryAll(ctx, tx, scanRejection, `SELECT `+rejectionColumns+` FROM moderation_rejections WHERE user_id = ?
		ORDER BY created_at DESC, id DESC`, userID)
}

func scanRejection(row scanner) (*moderation.Rejection, error) {
	var r moderation.Rejection
	var status string
	var resolved sql.NullTime
	if err := row.Scan(&r.ID, &r.ListingID, &r.UserID, &r.Reason, &r.Brand, &r.Field, &status, &r.CreatedAt,
		&resolved, &r.ResolvedBy); err != nil {
		return nil, wrap(err)
	}
	r.Status, r.CreatedAt, r.ResolvedAt = moderation.RejectionStatus(status), r.CreatedAt.UTC(), nullTime(resolved)
	return &r, nil
}
