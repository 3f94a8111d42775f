package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/market"
)

// The agents area's spending controls (agents.Tx), and what checking a
// purchase against them reads (agents.SpendTx: the snapshot here, LockUser
// in accounts.go). The orders area writes the spending rows
// (orders_spending.go).
var (
	_ agents.Tx      = (*Tx)(nil)
	_ agents.SpendTx = (*Tx)(nil)
)

// Controls returns an owner's saved spending controls (NOT_FOUND when the
// owner never changed the defaults).
func (tx *Tx) Controls(ctx context.Context, userID string) (*agents.Controls, error) {
	var c agents.Controls
	var cats string
	var approval sql.NullInt64
	err := tx.queryRow(ctx, `SELECT per_transaction_limit, daily_limit, weekly_limit, monthly_limit, category_restrictions,
		approval_threshold, updated_at FROM spending_controls WHERE user_id = ?`+tx.forUpdate(), userID).
		Scan(&c.PerTransaction, &c.Daily, &c.Weekly, &c.Monthly, &cats, &approval, &c.UpdatedAt)
	if err != nil {
		return nil, notFound(err, "spending controls")
	}
	if err := json.Unmarshal([]byte(cats), &c.CategoryRestrictions); err != nil {
		return nil, market.Internal(err)
	}
	if c.CategoryRestrictions == nil {
		c.CategoryRestrictions = []string{}
	}
	c.ApprovalThreshold, c.UpdatedAt = nullInt(approval), c.UpdatedAt.UTC()
	return &c, nil
}

// PutControls saves an owner's controls.
func (tx *Tx) PutControls(ctx context.Context, userID string, c agents.Controls, at time.Time) error {
	cats, err := json.Marshal(c.CategoryRestrictions)
	if err != nil {
		return market.Internal(err)
	}
	_, err = tx.exec(ctx, `INSERT INTO spending_controls (user_id, per_transaction_limit, daily_limit, weekly_limit, monthly_limit,
		category_restrictions, approval_threshold, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET per_transaction_limit = excluded.per_transaction_limit,
		daily_limit = excluded.daily_limit, weekly_limit = excluded.weekly_limit, monthly_limit = excluded.monthly_limit,
		category_restrictions = excluded.category_restrictions, approval_threshold = excluded.approval_threshold,
		updated_at = excluded.updated_at`,
		userID, c.PerTransaction, c.Daily, c.Weekly, c.Monthly, string(cats), c.ApprovalThreshold, at)
	return wrap(err)
}

// spentSums sums one owner's or key's spending per window, in one row.
func spentSums(col string) string {
	return `(SELECT COALESCE(SUM(CASE WHEN created_at >= ? THEN amount ELSE 0 END), 0) AS today,
		COALESCE(SUM(CASE WHEN created_at >= ? THEN amount ELSE 0 END), 0) AS week,
		COALESCE(SUM(CASE WHEN created_at >= ? THEN amount ELSE 0 END), 0) AS month
		FROM agent_spending WHERE ` + col + ` = ? AND released_at IS NULL AND created_at >= ?)`
}

// reservedSum sums what open offers reserve of an owner's or a key's caps
// (offers.go keeps reserved at 0 once an offer ends or is bought). An
// accepted offer whose purchase is charging (its order pending_payment, with
// a spending row of its own) is left out, so that the purchase's few
// moments between reserving and settling do not count it twice and refuse
// a purchase that fits.
func reservedSum(col string) string {
	return `(SELECT COALESCE(SUM(reserved), 0) AS held FROM offers
		WHERE ` + col + ` = ? AND reserved > 0 AND expires_at > ? AND id <> ?
		AND NOT EXISTS (SELECT 1 FROM orders po WHERE po.offer_id = offers.id AND po.status = 'pending_payment'))`
}

var snapshotQuery = `SELECT c.per_transaction_limit, c.daily_limit, c.weekly_limit, c.monthly_limit,
	c.category_restrictions, c.approval_threshold, c.updated_at,
	o.today, o.week, o.month, k.today, k.week, k.month, ro.held, rk.held
	FROM (SELECT 1 AS one) AS one
	LEFT JOIN spending_controls c ON c.user_id = ?
	CROSS JOIN ` + spentSums("user_id") + ` AS o
	CROSS JOIN ` + spentSums("key_id") + ` AS k
	CROSS JOIN ` + reservedSum("buyer_id") + ` AS ro
	CROSS JOIN ` + reservedSum("buyer_key_id") + ` AS rk`

// SpendingSnapshot reads, in one statement, an owner's saved controls and
// what is still counted (not released) in each window, for the owner and,
// with KeyID, for one key, and what their open offers reserve. It runs on every agent identity read, so it is a
// single round trip.
func (tx *Tx) SpendingSnapshot(ctx context.Context, q agents.SpentQuery) (*agents.SpendingSnapshot, error) {
	from := q.MonthStart
	if q.WeekStart.Before(from) {
		from = q.WeekStart
	}
	var snap agents.SpendingSnapshot
	var c agents.Controls
	var per, daily, weekly, monthly, approval sql.NullInt64
	var cats sql.NullString
	var updated sql.NullTime
	err := tx.queryRow(ctx, snapshotQuery,
		q.UserID,
		q.DayStart, q.WeekStart, q.MonthStart, q.UserID, from,
		q.DayStart, q.WeekStart, q.MonthStart, q.KeyID, from,
		q.UserID, q.Now, q.ExcludeOfferID,
		q.KeyID, q.Now, q.ExcludeOfferID,
	).Scan(&per, &daily, &weekly, &monthly, &cats, &approval, &updated,
		&snap.Owner.Today, &snap.Owner.ThisWeek, &snap.Owner.ThisMonth, &snap.Key.Today, &snap.Key.ThisWeek, &snap.Key.ThisMonth,
		&snap.OwnerReserved, &snap.KeyReserved)
	if err != nil {
		return nil, wrap(err)
	}
	if per.Valid {
		c.PerTransaction, c.Daily, c.Weekly, c.Monthly = per.Int64, daily.Int64, weekly.Int64, monthly.Int64
		c.ApprovalThreshold, c.UpdatedAt = nullInt(approval), updated.Time.UTC()
		if err := json.Unmarshal([]byte(cats.String), &c.CategoryRestrictions); err != nil {
			return nil, market.Internal(err)
		}
		if c.CategoryRestrictions == nil {
			c.CategoryRestrictions = []string{}
		}
		snap.Controls = &c
	}
	return &snap, nil
}
