package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// The listings area (listings.Tx): listings, photo uploads, watches and
// sellers' public faces. Categories (listings_categories.go) and search
// (search*.go, listings.Searcher) serve listings.Tx too.
var _ listings.Tx = (*Tx)(nil)

const listingColumns = `id, seller_id, status, title, description, brief, brand, price, price_source, item_condition,
	category_id, shipping_type, shipping_cost, accept_offers, min_offer_amount, floor_price, cost_basis, weight_oz,
	dim_l, dim_w, dim_h, photo_ids, generator, watchers_count, created_at, updated_at, sold_at`

// CreateListing inserts l.
func (tx *Tx) CreateListing(ctx context.Context, l *listings.Listing) error {
	args, err := listingArgs(l)
	if err != nil {
		return err
	}
	_, err = tx.exec(ctx, `INSERT INTO listings (`+listingColumns+`) VALUES (`+placeholders(len(args))+`)`, args...)
	return wrap(err)
}

// listingArgs is l's values in listingColumns' order, for CreateListing and
// CreateListings (listings_bulk.go).
func listingArgs(l *listings.Listing) ([]any, error) {
	photos, err := photoJSON(l.PhotoIDs)
	if err != nil {
		return nil, err
	}
	return []any{l.ID, l.SellerID, string(l.Status), l.Title, l.Description, l.Brief, l.Brand, l.Price, l.PriceSource,
		l.Condition, l.CategoryID, string(l.ShippingType), l.ShippingCost, l.AcceptOffers, l.MinOfferAmount, l.FloorPrice,
		l.CostBasis, l.WeightOz, l.Dimensions.L, l.Dimensions.W, l.Dimensions.H, photos, l.Generator, l.WatchersCount,
		l.CreatedAt, l.UpdatedAt, l.SoldAt}, nil
}

// UpdateListing writes every mutable field of l (watchers_count is kept by
// Watch and Unwatch, never overwritten here).
func (tx *Tx) UpdateListing(ctx context.Context, l *listings.Listing) error {
	photos, err := photoJSON(l.PhotoIDs)
	if err != nil {
		return err
	}
	res, err := tx.exec(ctx, `UPDATE listings SET status = ?, title = ?, description = ?, brief = ?, brand = ?, price = ?,
		price_source = ?, item_condition = ?, category_id = ?, shipping_type = ?, shipping_cost = ?, accept_offers = ?,
		min_offer_amount = ?, floor_price = ?, cost_basis = ?, weight_oz = ?, dim_l = ?, dim_w = ?, dim_h = ?, photo_ids = ?,
		generator = ?, updated_at = ?, sold_at = ? WHERE id = ?`,
		string(l.Status), l.Title, l.Description, l.Brief, l.Brand, l.Price, l.PriceSource, l.Condition, l.CategoryID,
		string(l.ShippingType), l.ShippingCost, l.AcceptOffers, l.MinOfferAmount, l.FloorPrice, l.CostBasis, l.WeightOz,
		l.Dimensions.L, l.Dimensions.W, l.Dimensions.H, photos, l.Generator, l.UpdatedAt, l.SoldAt, l.ID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "listing")
}

// ListingByID finds a listing, locking it inside a transaction.
func (tx *Tx) ListingByID(ctx context.Context, id string) (*listings.Listing, error) {
	l, err := scanListing(tx.queryRow(ctx, `SELECT `+listingColumns+` FROM listings WHERE id = ?`+tx.forUpdate(), id))
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.Errorf(market.CodeListingNotFound, "listing not found")
	}
	return l, err
}

// listingWithSellerQuery adds the seller's public face (as Sellers reads it)
// to the listing; a seller row that is missing reads as empty, as Sellers
// leaves it out. Subqueries, not a LEFT JOIN: SQLite re-prepared the join
// at nearly every execution once several connections ran it at once.
var listingWithSellerQuery = `SELECT ` + prefixed("l.", listingColumns) + `,
	COALESCE((SELECT u.username FROM users u WHERE u.id = l.seller_id), ''),
	COALESCE((SELECT u.display_name FROM users u WHERE u.id = l.seller_id), '')
	FROM listings l WHERE l.id = ?`

// ListingWithSeller is ListingByID outside any lock with the seller's public
// face, in one statement: the public listing read needs both, and a second
// query cost as much as the first.
func (tx *Tx) ListingWithSeller(ctx context.Context, id string) (*listings.Listing, listings.Seller, error) {
	var d listingDest
	var s listings.Seller
	if err := tx.queryRow(ctx, listingWithSellerQuery, id).Scan(d.targets(&s.Username, &s.DisplayName)...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, s, market.Errorf(market.CodeListingNotFound, "listing not found")
		}
		return nil, s, wrap(err)
	}
	l, err := d.listing()
	if err != nil {
		return nil, s, err
	}
	s.ID = l.SellerID
	return l, s, nil
}

// ListingsBySeller lists a seller's listings in the given statuses (all when
// none), newest first, with the total.
func (tx *Tx) ListingsBySeller(ctx context.Context, sellerID string, statuses []Status, limit, offset int) ([]listings.Listing, int, error) {
	where, args := "seller_id = ?", []any{sellerID}
	if len(statuses) > 0 {
		where += " AND status IN (" + placeholders(len(statuses)) + ")"
		for _, s := range statuses {
			args = append(args, string(s))
		}
	}
	var total int
	if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM listings WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, wrap(err)
	}
	list, err := tx.listingRows(ctx, `SELECT `+listingColumns+` FROM listings WHERE `+where+
		` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return list, total, err
}

// Status is listings.Status, short for the signatures here.
type Status = listings.Status

func (tx *Tx) listingRows(ctx context.Context, query string, args ...any) ([]listings.Listing, error) {
	return queryAll(ctx, tx, scanListing, query, args...)
}

func scanListing(row scanner) (*listings.Listing, error) {
	var d listingDest
	if err := row.Scan(d.targets()...); err != nil {
		return nil, notFound(err, "listing")
	}
	return d.listing()
}

// listingDest receives the listingColumns of one row.
type listingDest struct {
	l                               listings.Listing
	status, shipping, photos        string
	shipCost, minOffer, floor, cost sql.NullInt64
	sold                            sql.NullTime
}

// targets are the Scan destinations, in listingColumns order.
func (d *listingDest) targets(more ...any) []any {
	l := &d.l
	return append([]any{&l.ID, &l.SellerID, &d.status, &l.Title, &l.Description, &l.Brief, &l.Brand, &l.Price, &l.PriceSource,
		&l.Condition, &l.CategoryID, &d.shipping, &d.shipCost, &l.AcceptOffers, &d.minOffer, &d.floor, &d.cost, &l.WeightOz,
		&l.Dimensions.L, &l.Dimensions.W, &l.Dimensions.H, &d.photos, &l.Generator, &l.WatchersCount, &l.CreatedAt,
		&l.UpdatedAt, &d.sold}, more...)
}

// listing is the scanned row as a listing.
func (d *listingDest) listing() (*listings.Listing, error) {
	l := &d.l
	l.Status, l.ShippingType = listings.Status(d.status), listings.ShippingType(d.shipping)
	l.ShippingCost, l.MinOfferAmount, l.FloorPrice, l.CostBasis = nullInt(d.shipCost), nullInt(d.minOffer), nullInt(d.floor), nullInt(d.cost)
	l.CreatedAt, l.UpdatedAt, l.SoldAt = l.CreatedAt.UTC(), l.UpdatedAt.UTC(), nullTime(d.sold)
	if err := json.Unmarshal([]byte(d.photos), &l.PhotoIDs); err != nil {
		return nil, market.Internal(err)
	}
	return l, nil
}

const uploadColumns = `id, owner_id, expires_at, uploaded_at, content_type, width, height, size, listing_id, created_at`

// CreatePhotoUpload records an issued upload slot.
func (tx *Tx) CreatePhotoUpload(ctx context.Context, p *listings.PhotoUpload) error {
	_, err := tx.exec(ctx, `INSERT INTO photo_uploads (`+uploadColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.ID, p.OwnerID, p.ExpiresAt, p.UploadedAt, p.ContentType, p.Width, p.Height, p.Size, nullString(p.ListingID), p.CreatedAt)
	return wrap(err)
}

// PhotoUploadByID finds an upload slot, locking it inside a transaction.
func (tx *Tx) PhotoUploadByID(ctx context.Context, id string) (*listings.PhotoUpload, error) {
	var p listings.PhotoUpload
	var uploaded sql.NullTime
	var listing sql.NullString
	err := tx.queryRow(ctx, `SELECT `+uploadColumns+` FROM photo_uploads WHERE id = ?`+tx.forUpdate(), id).Scan(
		&p.ID, &p.OwnerID, &p.ExpiresAt, &uploaded, &p.ContentType, &p.Width, &p.Height, &p.Size, &listing, &p.CreatedAt)
	if err != nil {
		return nil, notFound(err, "photo upload")
	}
	p.UploadedAt, p.ListingID = nullTime(uploaded), listing.String
	p.ExpiresAt, p.CreatedAt = p.ExpiresAt.UTC(), p.CreatedAt.UTC()
	return &p, nil
}

// MarkPhotoUploaded fills a slot once: a second PUT to the same slot finds
// it used and changes nothing (INVALID_STATE).
func (tx *Tx) MarkPhotoUploaded(ctx context.Context, p *listings.PhotoUpload) error {
	res, err := tx.exec(ctx, `UPDATE photo_uploads SET uploaded_at = ?, content_type = ?, width = ?, height = ?, size = ?
		WHERE id = ? AND uploaded_at IS NULL`, p.UploadedAt, p.ContentType, p.Width, p.Height, p.Size, p.ID)
	if err != nil {
		return wrap(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return market.Errorf(market.CodeInvalidState, "this upload URL has already been used")
	}
	return nil
}

// AttachPhotos makes photoIDs the photos bound to a listing: every one must
// be the owner's, uploaded, and free or already this listing's; the
// listing's photos not among them are freed for another listing.
func (tx *Tx) AttachPhotos(ctx context.Context, listingID, ownerID string, photoIDs []string) error {
	if len(photoIDs) == 0 {
		return nil
	}
	args := []any{listingID, ownerID, listingID}
	for _, id := range photoIDs {
		args = append(args, id)
	}
	if _, err := tx.exec(ctx, `UPDATE photo_uploads SET listing_id = NULL WHERE listing_id = ? AND id NOT IN (`+
		placeholders(len(photoIDs))+`)`, append([]any{listingID}, args[3:]...)...); err != nil {
		return wrap(err)
	}
	res, err := tx.exec(ctx, `UPDATE photo_uploads SET listing_id = ? WHERE owner_id = ? AND uploaded_at IS NOT NULL
		AND (listing_id IS NULL OR listing_id = ?) AND id IN (`+placeholders(len(photoIDs))+`)`, args...)
	if err != nil {
		return wrap(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return wrap(err)
	}
	if int(n) != len(photoIDs) {
		return market.Invalid(market.FieldError{Field: "photo_urls", Message: "every photo must be one you uploaded here and not used by another listing"})
	}
	return nil
}

// Watch adds a watch (watching twice is fine) and returns the watcher count.
func (tx *Tx) Watch(ctx context.Context, userID, listingID string, at time.Time) (int, error) {
	res, err := tx.exec(ctx, `INSERT INTO watches (user_id, listing_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
		userID, listingID, at)
	if err != nil {
		return 0, wrap(err)
	}
	return tx.adjustWatchers(ctx, res, listingID, "+")
}

// Unwatch removes a watch (unwatching twice is fine) and returns the count.
func (tx *Tx) Unwatch(ctx context.Context, userID, listingID string) (int, error) {
	res, err := tx.exec(ctx, `DELETE FROM watches WHERE user_id = ? AND listing_id = ?`, userID, listingID)
	if err != nil {
		return 0, wrap(err)
	}
	return tx.adjustWatchers(ctx, res, listingID, "-")
}

// adjustWatchers keeps listings.watchers_count in step with the watches
// table when res changed a row, and returns the count.
func (tx *Tx) adjustWatchers(ctx context.Context, res sql.Result, listingID, op string) (int, error) {
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrap(err)
	}
	if n == 1 {
		if _, err := tx.exec(ctx, `UPDATE listings SET watchers_count = watchers_count `+op+` 1 WHERE id = ?`, listingID); err != nil {
			return 0, wrap(err)
		}
	}
	var count int
	err = tx.queryRow(ctx, `SELECT watchers_count FROM listings WHERE id = ?`, listingID).Scan(&count)
	return count, notFound(err, "listing")
}

// Watching reports whether userID watches the listing, and its count.
func (tx *Tx) Watching(ctx context.Context, userID, listingID string) (bool, int, error) {
	var count, mine int
	err := tx.queryRow(ctx, `SELECT l.watchers_count, (SELECT COUNT(*) FROM watches w WHERE w.listing_id = l.id AND w.user_id = ?)
		FROM listings l WHERE l.id = ?`, userID, listingID).Scan(&count, &mine)
	if err != nil {
		return false, 0, notFound(err, "listing")
	}
	return mine > 0, count, nil
}

// WatchedListings lists what userID watches that anyone may see, most
// recently watched first.
func (tx *Tx) WatchedListings(ctx context.Context, userID string, limit, offset int) ([]listings.Listing, int, error) {
	// Only listings anyone may see: a watched listing that was archived,
	// removed or deleted drops out of the list (the watch stays, in case
	// it comes back).
	const from = ` FROM watches w JOIN listings l ON l.id = w.listing_id
		WHERE w.user_id = ? AND l.status IN ('active', 'reserved', 'sold')`
	var total int
	if err := tx.queryRow(ctx, `SELECT COUNT(*)`+from, userID).Scan(&total); err != nil {
		return nil, 0, wrap(err)
	}
	list, err := tx.listingRows(ctx, `SELECT `+prefixed("l.", listingColumns)+from+`
		ORDER BY w.created_at DESC, l.id DESC LIMIT ? OFFSET ?`, userID, limit, offset)
	return list, total, err
}

// Watchers lists the users watching a listing, for change notices.
func (tx *Tx) Watchers(ctx context.Context, listingID string) ([]string, error) {
	ids, err := queryAll(ctx, tx, scanOne[string], `SELECT user_id FROM watches WHERE listing_id = ? ORDER BY created_at, user_id`, listingID)
	if err != nil || len(ids) == 0 {
		return nil, err // none is nil, as before: listing.sold records "watchers": null
	}
	return ids, nil
}

// Sellers finds the public face of each seller id given.
func (tx *Tx) Sellers(ctx context.Context, ids []string) (map[string]listings.Seller, error) {
	out := make(map[string]listings.Seller, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	// The ids are one bound list: one statement for any number of them,
	// which SQLite does not plan again per value as it did "IN (?, ?, ...)".
	frag, arg := tx.inList(`id`, ids)
	rows, err := tx.query(ctx, `SELECT id, username, display_name FROM users WHERE `+frag, arg)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s listings.Seller
		if err := rows.Scan(&s.ID, &s.Username, &s.DisplayName); err != nil {
			return nil, wrap(err)
		}
		out[s.ID] = s
	}
	return out, wrap(rows.Err())
}
