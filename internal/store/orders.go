package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// The orders area (orders.Tx): orders, and the listing moves of the
// purchase path. orders.Tx embeds more, served elsewhere: approvals and
// spending rows (orders_approvals.go, orders_spending.go), refunds,
// disputes and the seller dashboard (orders_refunds.go, orders_disputes.go,
// orders_dashboard.go), and other areas' interfaces.
var _ orders.Tx = (*Tx)(nil)

// orderColumns are the columns every order read scans: orderWriteColumns
// and the authorization record, which only RecordAuthorization writes.
const orderColumns = orderWriteColumns + `, authorization_record`

const orderWriteColumns = `id, listing_id, buyer_id, seller_id, buyer_key_id, channel, status, listing_title, item_price,
	shipping_cost, service_fee, total_charged, commission, fulfillment_type, shipping_address, shipping_carrier,
	shipping_service, shipping_rate_id, estimated_days, estimated_delivery, max_price, expected_price, offer_id,
	payment_method_id, processor, payment_id, amount_refunded, failure_code, reserved_until, paid_at, cancelled_at,
	created_at, updated_at, shipment_carrier, tracking_number, label_cost, shipped_at, delivered_at, payout_due_at,
	payout_status, payout_amount, transfer_id, completed_at, seller_refunded, transfer_reversed, status_before_dispute, payment_token, checkout_session_id, idempotency_key`

func orderArgs(o *orders.Order) ([]any, error) {
	var addr any
	if o.ShippingAddress != nil {
		b, err := json.Marshal(o.ShippingAddress)
		if err != nil {
			return nil, market.Internal(err)
		}
		addr = string(b)
	}
	f := o.Fees
	return []any{o.ID, o.ListingID, o.BuyerID, o.SellerID, nullString(o.BuyerKeyID), string(o.Channel), string(o.Status),
		o.ListingTitle, f.ItemPrice, f.ShippingCost, f.ServiceFee, f.TotalCharged, f.Commission, string(o.Fulfillment), addr,
		o.Carrier, o.Service, o.RateID, o.EstimatedDays, o.EstimatedDelivery, o.MaxPrice, o.ExpectedPrice,
		nullString(o.OfferID), nullString(o.PaymentMethodID), o.Processor, o.PaymentID, o.AmountRefunded, o.FailureCode,
		o.ReservedUntil, o.PaidAt, o.CancelledAt, o.CreatedAt, o.UpdatedAt, o.ShipmentCarrier, o.TrackingNumber, o.LabelCost,
		o.ShippedAt, o.DeliveredAt, o.PayoutDueAt, string(o.PayoutStatus), o.PayoutAmount, o.TransferID, o.CompletedAt,
		o.SellerRefunded, o.TransferReversed, string(o.StatusBeforeDispute), o.PaymentToken, o.CheckoutSessionID, o.IdempotencyKey}, nil
}

// CreateOrder inserts o. A second live order for one listing violates the
// orders_listing_live index and answers INVALID_STATE.
func (tx *Tx) CreateOrder(ctx context.Context, o *orders.Order) error {
	args, err := orderArgs(o)
	if err != nil {
		return err
	}
	_, err = tx.exec(ctx, `INSERT INTO orders (`+orderWriteColumns+`) VALUES (`+placeholders(len(args))+`)`, args...)
	if isUnique(err, "listing") {
		return market.Errorf(market.CodeInvalidState, "the listing already has a live order")
	}
	return wrap(err)
}

// UpdateOrder writes every mutable field of o if its status is still from.
func (tx *Tx) UpdateOrder(ctx context.Context, o *orders.Order, from orders.Status) (bool, error) {
	args, err := orderArgs(o)
	if err != nil {
		return false, err
	}
	// Skip id, listing, buyer, seller, created_at and the idempotency key:
	// they never change. The authorization record is not among the args.
	res, err := tx.exec(ctx, `UPDATE orders SET buyer_key_id = ?, channel = ?, status = ?, listing_title = ?, item_price = ?,
		shipping_cost = ?, service_fee = ?, total_charged = ?, commission = ?, fulfillment_type = ?, shipping_address = ?,
		shipping_carrier = ?, shipping_service = ?, shipping_rate_id = ?, estimated_days = ?, estimated_delivery = ?,
		max_price = ?, expected_price = ?, offer_id = ?, payment_method_id = ?, processor = ?, payment_id = ?,
		amount_refunded = ?, failure_code = ?, reserved_until = ?, paid_at = ?, cancelled_at = ?, updated_at = ?,
		shipment_carrier = ?, tracking_number = ?, label_cost = ?, shipped_at = ?, delivered_at = ?, payout_due_at = ?,
		payout_status = ?, payout_amount = ?, transfer_id = ?, completed_at = ?, seller_refunded = ?,
		transfer_reversed = ?, status_before_dispute = ?, payment_token = ?, checkout_session_id = ?
		WHERE id = ? AND status = ?`, append(append(append([]any{}, args[4:31]...), args[32:len(args)-1]...), o.ID, string(from))...)
	if err != nil {
		if isUnique(err, "listing") {
			return false, market.Errorf(market.CodeInvalidState, "the listing already has a live order")
		}
		return false, wrap(err)
	}
	n, err := res.RowsAffected()
	return n == 1, wrap(err)
}

// RecordAuthorization sets an order's authorization record, once: an order
// that has one already is not changed, and that is an error.
func (tx *Tx) RecordAuthorization(ctx context.Context, orderID string, a *orders.Authorization) error {
	b, err := json.Marshal(a)
	if err != nil {
		return market.Internal(err)
	}
	res, err := tx.exec(ctx, `UPDATE orders SET authorization_record = ? WHERE id = ? AND authorization_record IS NULL`,
		string(b), orderID)
	if err != nil {
		return wrap(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return market.Internal(fmt.Errorf("order %s: authorization record not written (it is written once)", orderID))
	}
	return nil
}

// DeleteOrder removes an order that never got its charge.
func (tx *Tx) DeleteOrder(ctx context.Context, id string) error {
	_, err := tx.exec(ctx, `DELETE FROM orders WHERE id = ?`, id)
	return wrap(err)
}

// OrderByID finds an order, locking it inside a transaction.
func (tx *Tx) OrderByID(ctx context.Context, id string) (*orders.Order, error) {
	return scanOrder(tx.queryRow(ctx, `SELECT `+orderColumns+` FROM orders WHERE id = ?`+tx.forUpdate(), id))
}

// OrdersByID reads the orders with the given ids (in no particular order;
// unknown ids are left out).
func (tx *Tx) OrdersByID(ctx context.Context, ids []string) ([]orders.Order, error) {
	if len(ids) == 0 {
		return []orders.Order{}, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return queryAll(ctx, tx, scanOrder, `SELECT `+orderColumns+` FROM orders WHERE id IN (`+placeholders(len(ids))+`)`, args...)
}

// OrderByPayment finds the order a processor payment belongs to.
func (tx *Tx) OrderByPayment(ctx context.Context, paymentID string) (*orders.Order, error) {
	if paymentID == "" {
		return nil, market.NotFound("order")
	}
	return scanOrder(tx.queryRow(ctx, `SELECT `+orderColumns+` FROM orders WHERE payment_id = ?`+tx.forUpdate(), paymentID))
}

// PayoutsDue lists delivered orders whose hold ended before now and whose
// payout is pending, oldest first.
func (tx *Tx) PayoutsDue(ctx context.Context, now time.Time, limit int) ([]orders.Order, error) {
	return tx.orderRows(ctx, `SELECT `+orderColumns+` FROM orders WHERE status = 'delivered' AND payout_due_at <= ?
		AND payout_status = 'pending' ORDER BY payout_due_at LIMIT ?`, now, limit)
}

// OverdueShipments lists shipped orders shipped before before, oldest first.
func (tx *Tx) OverdueShipments(ctx context.Context, before time.Time, limit int) ([]orders.Order, error) {
	return tx.orderRows(ctx, `SELECT `+orderColumns+` FROM orders WHERE status = 'shipped' AND shipped_at < ?
		ORDER BY shipped_at LIMIT ?`, before, limit)
}

// UnrefundedCancellations lists cancelled orders that were paid and are not
// refunded in full (a refund the processor did not take).
func (tx *Tx) UnrefundedCancellations(ctx context.Context, limit int) ([]orders.Order, error) {
	return tx.orderRows(ctx, `SELECT `+orderColumns+` FROM orders WHERE status = 'cancelled' AND paid_at IS NOT NULL
		AND amount_refunded < total_charged ORDER BY updated_at LIMIT ?`, limit)
}

// liveStatuses are the statuses the orders_listing_live index covers.
var liveStatuses = `'pending_payment', 'paid', 'pickup_ready', 'shipped', 'delivered', 'completed', 'disputed'`

// LiveOrderOf finds the live order of a listing.
func (tx *Tx) LiveOrderOf(ctx context.Context, listingID string) (*orders.Order, error) {
	return scanOrder(tx.queryRow(ctx, `SELECT `+orderColumns+` FROM orders WHERE listing_id = ? AND status IN (`+
		liveStatuses+`)`, listingID))
}

// OrderByIdempotencyKey finds the newest order buyerID made under key since
// the given time, locking it inside a transaction.
func (tx *Tx) OrderByIdempotencyKey(ctx context.Context, buyerID, key string, since time.Time) (*orders.Order, error) {
	return scanOrder(tx.queryRow(ctx, `SELECT `+orderColumns+` FROM orders WHERE buyer_id = ? AND idempotency_key = ?
		AND idempotency_key <> '' AND created_at >= ? ORDER BY created_at DESC LIMIT 1`+tx.forUpdate(), buyerID, key, since))
}

// Orders lists a page of one user's orders, newest first, with the total.
func (tx *Tx) Orders(ctx context.Context, f orders.OrderFilter) ([]orders.Order, int, error) {
	var where string
	var args []any
	// A seller sees an order once it holds their listing or was paid
	// (orders.Order.SellerSees).
	const sellerSees = "seller_id = ? AND (paid_at IS NOT NULL OR status = 'pending_payment')"
	switch f.Role {
	case "buyer":
		where, args = "buyer_id = ?", []any{f.UserID}
	case "seller":
		where, args = sellerSees, []any{f.UserID}
	default:
		where, args = "(buyer_id = ? OR ("+sellerSees+"))", []any{f.UserID, f.UserID}
	}
	if f.KeyID != "" {
		where, args = where+" AND buyer_key_id = ?", append(args, f.KeyID)
	}
	if len(f.Statuses) > 0 {
		where += " AND status IN (" + placeholders(len(f.Statuses)) + ")"
		for _, s := range f.Statuses {
			args = append(args, string(s))
		}
	}
	var total int
	if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM orders WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, wrap(err)
	}
	out, err := tx.orderRows(ctx, `SELECT `+orderColumns+` FROM orders WHERE `+where+
		` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	return out, total, err
}

// StuckOrders lists pending_payment orders last touched before before,
// oldest first.
func (tx *Tx) StuckOrders(ctx context.Context, before time.Time, limit int) ([]orders.Order, error) {
	return tx.orderRows(ctx, `SELECT `+orderColumns+` FROM orders WHERE status = 'pending_payment' AND updated_at < ?
		ORDER BY updated_at LIMIT ?`, before, limit)
}

func (tx *Tx) orderRows(ctx context.Context, query string, args ...any) ([]orders.Order, error) {
	return queryAll(ctx, tx, scanOrder, query, args...)
}

func scanOrder(row scanner) (*orders.Order, error) {
	var o orders.Order
	var keyID, addr, offerID, methodID, auth sql.NullString
	var channel, status, fulfillment string
	var days, maxPrice, expected sql.NullInt64
	var eta, reserved, paid, cancelled, shipped, delivered, due, completed sql.NullTime
	var payout, before string
	f := &o.Fees
	err := row.Scan(&o.ID, &o.ListingID, &o.BuyerID, &o.SellerID, &keyID, &channel, &status, &o.ListingTitle, &f.ItemPrice,
		&f.ShippingCost, &f.ServiceFee, &f.TotalCharged, &f.Commission, &fulfillment, &addr, &o.Carrier, &o.Service,
		&o.RateID, &days, &eta, &maxPrice, &expected, &offerID, &methodID, &o.Processor, &o.PaymentID, &o.AmountRefunded,
		&o.FailureCode, &reserved, &paid, &cancelled, &o.CreatedAt, &o.UpdatedAt, &o.ShipmentCarrier, &o.TrackingNumber,
		&o.LabelCost, &shipped, &delivered, &due, &payout, &o.PayoutAmount, &o.TransferID, &completed,
		&o.SellerRefunded, &o.TransferReversed, &before, &o.PaymentToken, &o.CheckoutSessionID, &o.IdempotencyKey, &auth)
	if err != nil {
		return nil, notFound(err, "order")
	}
	o.BuyerKeyID, o.OfferID, o.PaymentMethodID = keyID.String, offerID.String, methodID.String
	o.Channel, o.Status, o.Fulfillment = orders.Channel(channel), orders.Status(status), orders.Fulfillment(fulfillment)
	if days.Valid {
		d := int(days.Int64)
		o.EstimatedDays = &d
	}
	o.EstimatedDelivery, o.ReservedUntil, o.PaidAt, o.CancelledAt = nullTime(eta), nullTime(reserved), nullTime(paid), nullTime(cancelled)
	o.MaxPrice, o.ExpectedPrice = nullInt(maxPrice), nullInt(expected)
	o.ShippedAt, o.DeliveredAt, o.PayoutDueAt, o.CompletedAt = nullTime(shipped), nullTime(delivered), nullTime(due), nullTime(completed)
	o.PayoutStatus, o.StatusBeforeDispute = orders.PayoutStatus(payout), orders.Status(before)
	o.CreatedAt, o.UpdatedAt = o.CreatedAt.UTC(), o.UpdatedAt.UTC()
	if addr.Valid {
		var a accounts.Address
		if err := json.Unmarshal([]byte(addr.String), &a); err != nil {
			return nil, market.Internal(err)
		}
		o.ShippingAddress = &a
	}
	if auth.Valid {
		var a orders.Authorization
		if err := json.Unmarshal([]byte(auth.String), &a); err != nil {
			return nil, market.Internal(err)
		}
		a.CreatedAt = a.CreatedAt.UTC()
		if a.Approval != nil {
			a.Approval.DecidedAt = a.Approval.DecidedAt.UTC()
		}
		o.Authorization = &a
	}
	return &o, nil
}

// MoveListing changes a listing's status from one of from to to. The
// condition is the reservation: of two purchases, only one finds the
// listing still active.
func (tx *Tx) MoveListing(ctx context.Context, id string, from []listings.Status, to listings.Status, at time.Time) (bool, error) {
	args := []any{string(to), at}
	soldAt := "sold_at"
	if to == listings.StatusSold {
		soldAt = "?"
		args = append(args, at)
	}
	args = append(args, id)
	for _, s := range from {
		args = append(args, string(s))
	}
	res, err := tx.exec(ctx, `UPDATE listings SET status = ?, updated_at = ?, sold_at = `+soldAt+` WHERE id = ? AND status IN (`+
		placeholders(len(from))+`)`, args...)
	if err != nil {
		return false, wrap(err)
	}
	n, err := res.RowsAffected()
	return n == 1, wrap(err)
}
