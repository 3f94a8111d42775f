package store

import (
	"context"
	"database/sql"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
)

// The accounts area's avatar upload slots (avatar_uploads).

const avatarUploadColumns = `id, owner_id, expires_at, uploaded_at, content_type, size, created_at`

// CreateAvatarUpload records an issued avatar upload slot.
func (tx *Tx) CreateAvatarUpload(ctx context.Context, a *accounts.AvatarUpload) error {
	_, err := tx.exec(ctx, `INSERT INTO avatar_uploads (`+avatarUploadColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.OwnerID, a.ExpiresAt, a.UploadedAt, a.ContentType, a.Size, a.CreatedAt)
	return wrap(err)
}

// AvatarUploadByID finds an avatar upload slot, locking it inside a
// transaction.
func (tx *Tx) AvatarUploadByID(ctx context.Context, id string) (*accounts.AvatarUpload, error) {
	var a accounts.AvatarUpload
	var uploaded sql.NullTime
	err := tx.queryRow(ctx, `SELECT `+avatarUploadColumns+` FROM avatar_uploads WHERE id = ?`+tx.lockInTx(), id).Scan(
		&a.ID, &a.OwnerID, &a.ExpiresAt, &uploaded, &a.ContentType, &a.Size, &a.CreatedAt)
	if err != nil {
		return nil, notFound(err, "avatar upload")
	}
	a.UploadedAt, a.ExpiresAt, a.CreatedAt = nullTime(uploaded), a.ExpiresAt.UTC(), a.CreatedAt.UTC()
	return &a, nil
}

// MarkAvatarUploaded fills a slot once: a second PUT to the same slot finds
// it used and changes nothing (INVALID_STATE).
func (tx *Tx) MarkAvatarUploaded(ctx context.Context, a *accounts.AvatarUpload) error {
	res, err := tx.exec(ctx, `UPDATE avatar_uploads SET uploaded_at = ?, content_type = ?, size = ?
		WHERE id = ? AND uploaded_at IS NULL`, a.UploadedAt, a.ContentType, a.Size, a.ID)
	if err != nil {
		return wrap(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return market.Errorf(market.CodeInvalidState, "this upload URL has already been used")
	}
	return nil
}
