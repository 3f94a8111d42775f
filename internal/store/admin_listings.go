package store

import (
	"context"
	"strings"

	"marketplace/internal/listings"
	"marketplace/internal/moderation"
)

// The admin's listing tools (listings.AdminTx): the admin list of every
// listing and the moderation rejections queue.
var _ listings.AdminTx = (*Tx)(nil)

// AdminListings lists listings matching f, newest first, with the total.
// Indexes (migration 00023), each read in order without a sort: no filter
// walks listings_created (created_at, id); status listings_status_created;
// sellerId listings_seller_created; sellerId and status
// listings_seller_status. search is a listing id (the primary key) or a
// case-insensitive substring of the title or brand, checked on the rows the
// other filters and the order select (storetest/admin_listings_test.go
// checks the plans).
func (tx *Tx) AdminListings(ctx context.Context, f listings.AdminFilter) ([]listings.Listing, int, error) {
	var where []string
	var args []any
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, string(f.Status))
	}
	if f.SellerID != "" {
		where, args = append(where, "seller_id = ?"), append(args, f.SellerID)
	}
	if f.Search != "" {
		like := "%" + likeEscape(strings.ToLower(f.Search)) + "%"
		where = append(where, `(id = ? OR LOWER(title) LIKE ? ESCAPE '\' OR LOWER(brand) LIKE ? ESCAPE '\')`)
		args = append(args, f.Search, like, like)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var total int
	if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM listings`+cond, args...).Scan(&total); err != nil {
		return nil, 0, wrap(err)
	}
	list, err := tx.listingRows(ctx, `SELECT `+listingColumns+` FROM listings`+cond+
		` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	return list, total, err
}

// RejectionByID finds a rejection, locking it inside a transaction.
func (tx *Tx) RejectionByID(ctx context.Context, id string) (*moderation.Rejection, error) {
	r, err := scanRejection(tx.queryRow(ctx, `SELECT `+rejectionColumns+` FROM moderation_rejections WHERE id = ?`+tx.forUpdate(), id))
	if err != nil {
		return nil, notFound(err, "rejection")
	}
	return r, nil
}

// UpdateRejection writes a rejection's status and resolution.
func (tx *Tx) UpdateRejection(ctx context.Context, r *moderation.Rejection) error {
	res, err := tx.exec(ctx, `UPDATE moderation_rejections SET status = ?, resolved_at = ?, resolved_by = ? WHERE id = ?`,
		string(r.Status), r.ResolvedAt, r.ResolvedBy, r.ID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "rejection")
}

// RecentRejections lists every rejection, newest first (index
// moderation_rejections_created, migration 00023).
func (tx *Tx) RecentRejections(ctx context.Context, limit, offset int) ([]moderation.Rejection, int, error) {
	var total int
	if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM moderation_rejections`).Scan(&total); err != nil {
		return nil, 0, wrap(err)
	}
	list, err := queryAll(ctx, tx, scanRejection, `SELECT `+rejectionColumns+` FROM moderation_rejections
		ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, limit, offset)
	return list, total, err
}

// RejectionsOfUser lists a seller's rejections, newest first (index
// moderation_rejections_user_created, migration 00023).
func (tx *Tx) RejectionsOfUser(ctx context.Context, userID string, limit, offset int) ([]moderation.Rejection, int, error) {
	var total int
	if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM moderation_rejections WHERE user_id = ?`, userID).Scan(&total); err != nil {
		return nil, 0, wrap(err)
	}
	list, err := queryAll(ctx, tx, scanRejection, `SELECT `+rejectionColumns+` FROM moderation_rejections WHERE user_id = ?
		ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, userID, limit, offset)
	return list, total, err
}
