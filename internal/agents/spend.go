package agents

import (
	"context"
	"time"

	"marketplace/internal/market"
)

// SpendTx is what a spending check needs from the purchase's transaction.
type SpendTx interface {
	LockUser(ctx context.Context, userID string) error
	SpendingSnapshot(ctx context.Context, q SpentQuery) (*SpendingSnapshot, error)
}

// SpendRequest is one purchase an agent wants to make for its owner.
type SpendRequest struct {
	OwnerID string
	Key     *Key
	Amount  int64 // totalCharged, cents
	// InCategory reports whether the listing is in the category a
	// restriction names (an id or slug), or one of its sub-categories.
	InCategory func(restriction string) bool
	// Approved skips the approval threshold: the owner already approved.
	Approved bool
	// ExcludeOfferID leaves one offer's reservation out of the count: the
	// purchase of that accepted offer, or a new amount on it, replaces it.
	ExcludeOfferID string
}

// SpendVerdict is the outcome of a spending check that passed.
type SpendVerdict struct {
	NeedsApproval bool // above the owner's approval threshold
	Threshold     int64
}

// CheckSpend runs the owner's spending controls and the key's own caps for
// one purchase (CONTRACT.md section 5), inside the purchase's transaction.
// It locks the owner first, so concurrent purchases by the owner's agents
// are checked one after another and can never together pass a cap: each
// sees what the ones before it recorded.
func CheckSpend(ctx context.Context, tx SpendTx, now time.Time, req SpendRequest) (SpendVerdict, error) {
	if err := tx.LockUser(ctx, req.OwnerID); err != nil {
		return SpendVerdict{}, err
	}
	day, week, month := Windows(now)
	q := SpentQuery{UserID: req.OwnerID, DayStart: day, WeekStart: week, MonthStart: month, Now: now,
		ExcludeOfferID: req.ExcludeOfferID}
	if req.Key != nil && !req.Key.Limits.Empty() {
		q.KeyID = req.Key.ID
	}
	snap, err := tx.SpendingSnapshot(ctx, q)
	if err != nil {
		return SpendVerdict{}, err
	}
	c := DefaultControls()
	if snap.Controls != nil {
		c = *snap.Controls
	}
	for _, r := range c.CategoryRestrictions {
		if req.InCategory != nil && req.InCategory(r) {
			return SpendVerdict{}, market.Errorf(market.CodeCategoryRestricted,
				"the owner does not allow purchases in this category").WithDetails(map[string]any{"category": r})
		}
	}
	type capCheck struct {
		kind  string
		limit int64
		spent int64
	}
	// Open offers count as if bought now (CONTRACT.md section 8): what they
	// reserve is committed spend in every window.
	owner, ks := snap.Owner.plus(snap.OwnerReserved), snap.Key.plus(snap.KeyReserved)
	checks := []capCheck{
		{"per_transaction", c.PerTransaction, 0},
		{"daily", c.Daily, owner.Today},
		{"weekly", c.Weekly, owner.ThisWeek},
		{"monthly", c.Monthly, owner.ThisMonth},
	}
	if q.KeyID != "" {
		l := req.Key.Limits
		for _, k := range []struct {
			kind  string
			cap   *int64
			spent int64
		}{{"per_transaction", l.PerTransaction, 0}, {"daily", l.Daily, ks.Today}, {"weekly", l.Weekly, ks.ThisWeek}, {"monthly", l.Monthly, ks.ThisMonth}} {
			if k.cap != nil {
				checks = append(checks, capCheck{k.kind, *k.cap, k.spent})
			}
		}
	}
	// The tightest failing cap is the one reported, per-transaction first.
	order := map[string]int{"per_transaction": 0, "daily": 1, "weekly": 2, "monthly": 3}
	var worst *capCheck
	for i := range checks {
		ch := &checks[i]
		if ch.spent+req.Amount <= ch.limit {
			continue
		}
		if worst == nil || order[ch.kind] < order[worst.kind] ||
			order[ch.kind] == order[worst.kind] && ch.limit-ch.spent < worst.limit-worst.spent {
			worst = ch
		}
	}
	if worst != nil {
		return SpendVerdict{}, market.Errorf(market.CodeSpendingLimitExceeded,
			"this purchase of %d cents exceeds the %s spending limit", req.Amount, worst.kind).WithDetails(map[string]any{
			"requested_amount": req.Amount,
			"limit":            worst.limit,
			"limit_type":       worst.kind,
			"remaining":        floor0(worst.limit - worst.spent),
		})
	}
	if !req.Approved && c.ApprovalThreshold != nil && req.Amount > *c.ApprovalThreshold {
		return SpendVerdict{NeedsApproval: true, Threshold: *c.ApprovalThreshold}, nil
	}
	return SpendVerdict{}, nil
}
