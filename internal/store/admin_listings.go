package store

import (
	"context"
	"strings"
	"unicode/utf8"

	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/moderation"
)

// The admin's listing tools (listings.AdminTx): the admin list of every
// listing and the moderation rejections queue.
var _ listings.AdminTx = (*Tx)(nil)

// AdminListings lists listings matching f, newest first, with the total.
// Indexes (migration 00023), each read in order without a sort: no filter
// walks listings_created (created_at, id); status listings_status_created;
// sellerId listings_seller_created; sellerId and status
// listings_seller_status. search is a listing id (the primary key) or text:
// on PostgreSQL a case-insensitive substring (3 characters or more) of the
// title or brand, which the trigram indexes listings_title_trgm and
// listings_brand_trgm answer (migration 00027); on SQLite the words of the
// public search (stemmed, any case) in the title or brand, which the
// listings' full-text index search_fts answers: a trigram index of every
// listing would double the listings' write cost and size for an admin's
// occasional search. storetest/admin_listings_test.go checks the plans.
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
		var ors []string
		if market.ValidID(f.Search) {
			ors, args = append(ors, "id = ?"), append(args, f.Search)
		}
		if tx.db.dialect == Postgres && utf8.RuneCountInString(f.Search) >= 3 {
			like := "%" + likeEscape(strings.ToLower(f.Search)) + "%"
			ors = append(ors, `lower(title) LIKE ? ESCAPE '\'`, `lower(brand) LIKE ? ESCAPE '\'`)
			args = append(args, like, like)
		} else if terms := listings.ParseText(f.Search); tx.db.dialect == SQLite && len(terms) > 0 {
			ors = append(ors, `id IN (SELECT d.listing_id FROM search_docs d WHERE d.docid IN
				(SELECT rowid FROM search_fts WHERE search_fts MATCH ?))`)
			args = append(args, ftsTier(terms, false, tierBrand))
		}
		if len(ors) == 0 {
			return []listings.Listing{}, 0, nil
		}
		where = append(where, "("+strings.Join(ors, " OR ")+")")
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	total, err := tx.adminTotal(ctx, "listings", cond, args, f.Offset)
	if err != nil {
		return nil, 0, err
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
