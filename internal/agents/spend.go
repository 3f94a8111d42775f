package agents

import (
	"context"
	"time"

	"marketplace/internal/market"
)

// SpendTx is what a spending check needs from the purchase's transaction:
// the spending, and the key itself, read again under the owner's lock and
// frozen there when the purchase-velocity rule trips.
type SpendTx interface {
	FreezeTx
	LockUser(ctx context.Context, userID string) error
	SpendingSnapshot(ctx context.Context, q SpentQuery) (*SpendingSnapshot, error)
	// KeyPurchasesSince counts the key's purchases from since on.
	KeyPurchasesSince(ctx context.Context, keyID string, since time.Time) (int, error)
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
	// MaxPurchasesPerHour, when positive, is the purchase-velocity rule
	// (config anomaly.max_purchases_per_hour): the purchase that makes the
	// key's count in the last hour exceed it goes through and freezes the
	// key in the same transaction (frozenReason purchase_velocity). Only a
	// real purchase sets it.
	MaxPurchasesPerHour int64
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
	// The key as it is now, not as authentication saw it: a freeze or a
	// revocation that committed since stops the purchase here, before any
	// money is reserved. Freezes take the same owner lock, so none can slip
	// in between this read and the commit.
	if req.Key != nil {
		k, err := tx.KeyByID(ctx, req.Key.ID)
		if err != nil {
			return SpendVerdict{}, err
		}
		switch k.Status {
		case KeyFrozen:
			return SpendVerdict{}, market.Errorf(market.CodeAgentFrozen, "this agent key is frozen; the owner can unfreeze it")
		case KeyRevoked:
			return SpendVerdict{}, market.Errorf(market.CodeInvalidAgentKey, "the agent key is invalid, expired or revoked")
		}
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
	if req.Key != nil && req.MaxPurchasesPerHour > 0 {
		if err := velocity(ctx, tx, now, req); err != nil {
			return SpendVerdict{}, err
		}
	}
	return SpendVerdict{}, nil
}

// velocityWindow is the span of the purchase-velocity rule.
const velocityWindow = time.Hour

// velocity freezes the key when this purchase is one more than the rule
// allows in the last hour. The purchase itself proceeds: the freeze commits
// with it, and the next request is AGENT_FROZEN.
func velocity(ctx context.Context, tx SpendTx, now time.Time, req SpendRequest) error {
	n, err := tx.KeyPurchasesSince(ctx, req.Key.ID, now.Add(-velocityWindow))
	if err != nil {
		return err
	}
	if int64(n)+1 <= req.MaxPurchasesPerHour {
		return nil
	}
	_, err = freezeKey(ctx, tx, now, req.Key.ID, FrozenPurchaseVelocity, "", map[string]any{
		"purchasesInHour": n + 1, "maxPurchasesPerHour": req.MaxPurchasesPerHour})
	return err
}
