package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/market"
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

// Spent sums what is still counted (not released) in each window, for an
// owner or, with KeyID, one key.
func (tx *Tx) Spent(ctx context.Context, q agents.SpentQuery) (agents.Spent, error) {
	from := q.MonthStart
	if q.WeekStart.Before(from) {
		from = q.WeekStart
	}
	col, id := "user_id", q.UserID
	if q.KeyID != "" {
		col, id = "key_id", q.KeyID
	}
	var s agents.Spent
	err := tx.queryRow(ctx, `SELECT
		COALESCE(SUM(CASE WHEN created_at >= ? THEN amount ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN created_at >= ? THEN amount ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN created_at >= ? THEN amount ELSE 0 END), 0)
		FROM agent_spending WHERE `+col+` = ? AND released_at IS NULL AND created_at >= ?`,
		q.DayStart, q.WeekStart, q.MonthStart, id, from).Scan(&s.Today, &s.ThisWeek, &s.ThisMonth)
	return s, wrap(err)
}
