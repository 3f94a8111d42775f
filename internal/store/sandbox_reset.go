package store

import (
	"context"
	"time"

	"marketplace/internal/sandbox"
)

// The sandbox's reset (sandbox.Store): clearing one user's own data.
var _ sandbox.Store = (*DB)(nil)

// SandboxReset clears a user's own data for the sandbox (POST
// /v1/sandbox/reset) in one transaction; see (*Tx).SandboxReset.
func (db *DB) SandboxReset(ctx context.Context, userID string, now time.Time) (sandbox.Cleared, error) {
	var out sandbox.Cleared
	err := db.InTx(ctx, func(tx *Tx) error {
		var err error
		out, err = tx.SandboxReset(ctx, userID, now)
		return err
	})
	return out, err
}

// sandboxBuyerGone are the buyer's orders a reset deletes: those that never
// went ahead or are settled. An order still moving money (pending_payment,
// paid, pickup_ready, shipped, delivered, disputed), or a cancelled one whose
// refund has not been booked yet, is kept: deleting it would strand the
// charge, the seller's payout and the listing it holds. So is any order with
// a refund the processor has not taken (or a transfer reversal not made)
// yet: refunds are booked before the processor is asked, and deleting the
// order would delete the refund row with it, which the payout job then
// could never finish; and any order with a dispute not resolved, which
// holds the money until an admin decides.
const sandboxBuyerGone = `buyer_id = ? AND (status IN ('pending_approval', 'completed', 'refunded', 'expired')
	OR status = 'cancelled' AND NOT (paid_at IS NOT NULL AND amount_refunded < total_charged))
	AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.order_id = orders.id
		AND (r.status = 'pending' OR r.reverse_amount > r.reversed_amount))
	AND NOT EXISTS (SELECT 1 FROM disputes d WHERE d.order_id = orders.id AND d.status <> 'resolved')`

// SandboxReset clears userID's own data and keeps the account, its agent
// keys, addresses, payment methods, payout account and spending controls:
//
//   - watches the user holds (the watched listings' counts follow);
//   - the message threads the user is part of, as buyer or seller, with
//     their messages;
//   - the offers the user made, and every offer on the user's listings
//     (their reservations go with them);
//   - the user's orders as buyer, except those still in progress or with
//     a refund or dispute not finished (see sandboxBuyerGone), with their
//     purchase approvals;
//   - every agent spending record of the user, so the spending windows
//     start empty;
//   - the user's finished idempotency keys (a request still running keeps
//     its claim), also as the keys its kept orders and refunds name;
//   - the user's listings that no order names, deleted with what hangs on
//     them (other users' watches, moderation rejections; photos are
//     detached). A listing some other user ordered is the buyer's history
//     too: it is archived when it is still on sale (pending_ai, active,
//     held) and otherwise, reserved or sold for that buyer or retired
//     already, left as it is.
//
// The event and audit logs are append-only and stay.
func (tx *Tx) SandboxReset(ctx context.Context, userID string, now time.Time) (sandbox.Cleared, error) {
	var out sandbox.Cleared
	// Lock the user's listings first (PostgreSQL): a purchase of one that
	// is committing meanwhile is then seen by the checks below, so its
	// order is never deleted along with the listing.
	var locked int64
	if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT id FROM listings WHERE seller_id = ?`+tx.forUpdate()+`) l`,
		userID).Scan(&locked); err != nil {
		return out, wrap(err)
	}

	if _, err := tx.exec(ctx, `UPDATE listings SET watchers_count = watchers_count - 1
		WHERE id IN (SELECT listing_id FROM watches WHERE user_id = ?) AND watchers_count > 0`, userID); err != nil {
		return out, wrap(err)
	}
	var err error
	if out.Watches, err = tx.sandboxExec(ctx, `DELETE FROM watches WHERE user_id = ?`, userID); err != nil {
		return out, err
	}

	// Every thread the user is part of, as buyer or seller, with its
	// messages (the other participant's copy of it too: a thread is one).
	if out.Threads, err = tx.sandboxExec(ctx, `DELETE FROM threads WHERE buyer_id = ? OR seller_id = ?`, userID,
		userID); err != nil {
		return out, err
	}

	if out.Offers, err = tx.sandboxExec(ctx, `DELETE FROM offers WHERE buyer_id = ? OR seller_id = ?`, userID, userID); err != nil {
		return out, err
	}

	if out.OrdersDeleted, err = tx.sandboxExec(ctx, `DELETE FROM orders WHERE `+sandboxBuyerGone, userID); err != nil {
		return out, err
	}
	if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM orders WHERE buyer_id = ?`, userID).Scan(&out.OrdersKept); err != nil {
		return out, wrap(err)
	}
	if out.SpendingRecords, err = tx.sandboxExec(ctx, `DELETE FROM agent_spending WHERE user_id = ?`, userID); err != nil {
		return out, err
	}
	if out.IdempotencyKeys, err = tx.sandboxExec(ctx, `DELETE FROM idempotency_keys WHERE owner_id = ? AND state = 'done'`,
		userID); err != nil {
		return out, err
	}
	// A freed key no longer names what the kept orders and refunds were
	// made under (a retry finds work by it), so it is free for new work.
	if _, err := tx.exec(ctx, `UPDATE orders SET idempotency_key = '' WHERE buyer_id = ? AND idempotency_key <> ''
		AND NOT EXISTS (SELECT 1 FROM idempotency_keys k WHERE k.owner_id = orders.buyer_id AND k.idem_key = orders.idempotency_key)`,
		userID); err != nil {
		return out, wrap(err)
	}
	if _, err := tx.exec(ctx, `UPDATE refunds SET idem_key = '' WHERE idem_owner = ? AND idem_key <> ''
		AND NOT EXISTS (SELECT 1 FROM idempotency_keys k WHERE k.owner_id = refunds.idem_owner AND k.idem_key = refunds.idem_key)`,
		userID); err != nil {
		return out, wrap(err)
	}

	if out.ListingsArchived, err = tx.sandboxExec(ctx, `UPDATE listings SET status = 'archived', updated_at = ?
		WHERE seller_id = ? AND status IN ('pending_ai', 'active', 'held')
		AND EXISTS (SELECT 1 FROM orders o WHERE o.listing_id = listings.id)`, now, userID); err != nil {
		return out, err
	}
	if out.ListingsDeleted, err = tx.sandboxExec(ctx, `DELETE FROM listings WHERE seller_id = ?
		AND status NOT IN ('reserved', 'sold')
		AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.listing_id = listings.id)`, userID); err != nil {
		return out, err
	}
	var left int64
	if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM listings WHERE seller_id = ?`, userID).Scan(&left); err != nil {
		return out, wrap(err)
	}
	out.ListingsKept = left - out.ListingsArchived
	return out, nil
}

// sandboxExec runs a statement and returns how many rows it changed.
func (tx *Tx) sandboxExec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := tx.exec(ctx, query, args...)
	if err != nil {
		return 0, wrap(err)
	}
	n, err := res.RowsAffected()
	return n, wrap(err)
}
