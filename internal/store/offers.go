package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/offers"
)

// The offers area (offers.Tx). ListingByID is listings.go's; LockUser and
// SpendingSnapshot, which count the reservations kept here, are
// accounts.go's and agents_spending.go's.
var _ offers.Tx = (*Tx)(nil)

const offerColumns = `id, listing_id, buyer_id, buyer_key_id, seller_id, status, offer_price, counter_price, current_price,
	agreed_price, message, round, max_rounds, awaiting, expires_at, auto_purchase, payment_method_id, shipping_address_id,
	order_id, reserved, sent_by_agent, rounds, created_at, updated_at`

// openOffer is the condition of an offer that still binds someone; the
// offers_open_buyer_listing index names the same one.
const openOffer = `(status IN ('pending', 'countered') OR (status = 'accepted' AND order_id = ''))`

func offerArgs(o *offers.Offer) ([]any, error) {
	rounds := o.Rounds
	if rounds == nil {
		rounds = []offers.Round{}
	}
	js, err := json.Marshal(rounds)
	if err != nil {
		return nil, market.Internal(err)
	}
	return []any{o.ID, o.ListingID, o.BuyerID, o.BuyerKeyID, o.SellerID, string(o.Status), o.OfferPrice, o.CounterPrice,
		o.CurrentPrice, o.AgreedPrice, o.Message, o.Round, o.MaxRounds, string(o.Awaiting), o.ExpiresAt, o.AutoPurchase,
		o.PaymentMethodID, o.ShippingAddressID, o.OrderID, o.Reserved, o.SentByAgent, string(js), o.CreatedAt,
		o.UpdatedAt}, nil
}

func offerConflict(err error) error {
	if isUnique(err, "buyer") {
		return market.Errorf(market.CodeActiveOfferExists, "you already have an open offer on this listing; counter or withdraw it")
	}
	return wrap(err)
}

// CreateOffer inserts o. A second open offer of one buyer on one listing
// violates offers_open_buyer_listing and answers ACTIVE_OFFER_EXISTS.
func (tx *Tx) CreateOffer(ctx context.Context, o *offers.Offer) error {
	args, err := offerArgs(o)
	if err != nil {
		return err
	}
	_, err = tx.exec(ctx, `INSERT INTO offers (`+offerColumns+`) VALUES (`+placeholders(len(args))+`)`, args...)
	return offerConflict(err)
}

// UpdateOffer writes every mutable field of o.
func (tx *Tx) UpdateOffer(ctx context.Context, o *offers.Offer) error {
	args, err := offerArgs(o)
	if err != nil {
		return err
	}
	// Skip id, listing, buyer, seller and created_at: they never change.
	set := append(append([]any{args[3]}, args[5:22]...), args[23], o.ID)
	res, err := tx.exec(ctx, `UPDATE offers SET buyer_key_id = ?, status = ?, offer_price = ?, counter_price = ?,
		current_price = ?, agreed_price = ?, message = ?, round = ?, max_rounds = ?, awaiting = ?, expires_at = ?,
		auto_purchase = ?, payment_method_id = ?, shipping_address_id = ?, order_id = ?, reserved = ?, sent_by_agent = ?,
		rounds = ?, updated_at = ? WHERE id = ?`, set...)
	if err != nil {
		return offerConflict(err)
	}
	return affectedOne(res, "offer")
}

// OfferByID finds an offer, locking it inside a transaction.
func (tx *Tx) OfferByID(ctx context.Context, id string) (*offers.Offer, error) {
	return scanOffer(tx.queryRow(ctx, `SELECT `+offerColumns+` FROM offers WHERE id = ?`+tx.lockInTx(), id))
}

// OpenOfferOf finds the buyer's open offer on a listing.
func (tx *Tx) OpenOfferOf(ctx context.Context, buyerID, listingID string) (*offers.Offer, error) {
	return scanOffer(tx.queryRow(ctx, `SELECT `+offerColumns+` FROM offers WHERE buyer_id = ? AND listing_id = ? AND `+
		openOffer+tx.lockInTx(), buyerID, listingID))
}

// OpenOffersOn lists the open offers on a listing, locking them inside a
// transaction.
func (tx *Tx) OpenOffersOn(ctx context.Context, listingID string) ([]offers.Offer, error) {
	return queryAll(ctx, tx, scanOffer, `SELECT `+offerColumns+` FROM offers WHERE listing_id = ? AND `+openOffer+
		` ORDER BY created_at, id`+tx.lockInTx(), listingID)
}

// DueOffers lists open offers whose time ran out by now, oldest first.
func (tx *Tx) DueOffers(ctx context.Context, now time.Time, limit int) ([]offers.Offer, error) {
	return queryAll(ctx, tx, scanOffer, `SELECT `+offerColumns+` FROM offers WHERE status IN ('pending', 'countered', 'accepted')
		AND expires_at <= ? AND `+openOffer+` ORDER BY expires_at, id LIMIT ?`, now, limit)
}

// Offers lists a page of one user's offers, newest first, with the total.
func (tx *Tx) Offers(ctx context.Context, f offers.Filter) ([]offers.Offer, int, error) {
	where, args := "buyer_id = ?", []any{f.UserID}
	if f.Role == offers.Seller {
		where = "seller_id = ?"
	}
	if f.Status != "" {
		where, args = where+" AND status = ?", append(args, string(f.Status))
	}
	var total int
	if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM offers WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, wrap(err)
	}
	out, err := queryAll(ctx, tx, scanOffer, `SELECT `+offerColumns+` FROM offers WHERE `+where+
		` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

func scanOffer(row scanner) (*offers.Offer, error) {
	var o offers.Offer
	var status, awaiting, rounds string
	var counter, agreed sql.NullInt64
	err := row.Scan(&o.ID, &o.ListingID, &o.BuyerID, &o.BuyerKeyID, &o.SellerID, &status, &o.OfferPrice, &counter,
		&o.CurrentPrice, &agreed, &o.Message, &o.Round, &o.MaxRounds, &awaiting, &o.ExpiresAt, &o.AutoPurchase,
		&o.PaymentMethodID, &o.ShippingAddressID, &o.OrderID, &o.Reserved, &o.SentByAgent, &rounds, &o.CreatedAt,
		&o.UpdatedAt)
	if err != nil {
		return nil, notFound(err, "offer")
	}
	if err := json.Unmarshal([]byte(rounds), &o.Rounds); err != nil {
		return nil, market.Internal(err)
	}
	for i := range o.Rounds {
		o.Rounds[i].CreatedAt = o.Rounds[i].CreatedAt.UTC()
	}
	o.Status, o.Awaiting = offers.Status(status), offers.Party(awaiting)
	o.CounterPrice, o.AgreedPrice = nullInt(counter), nullInt(agreed)
	o.ExpiresAt, o.CreatedAt, o.UpdatedAt = o.ExpiresAt.UTC(), o.CreatedAt.UTC(), o.UpdatedAt.UTC()
	return &o, nil
}
