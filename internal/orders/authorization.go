package orders

import (
	"context"
	"time"

	"marketplace/internal/agents"
)

// Caps are four amounts in cents, one per spending cap; nil where there is
// no cap.
type Caps struct {
	PerTransaction *int64 `json:"per_transaction"`
	Daily          *int64 `json:"daily"`
	Weekly         *int64 `json:"weekly"`
	Monthly        *int64 `json:"monthly"`
}

// Authorization is what allowed an agent's order (CONTRACT.md section 15):
// the key and the request that made it, the caps in force and what was
// left of them just before it. It is written once, in the transaction that
// reserves the listing, and never changed. The json tags are its stored
// form (orders.authorization_record), not a wire shape.
type Authorization struct {
	KeyID          string `json:"key_id"`
	KeyPrefix      string `json:"key_prefix"`
	KeyLabel       string `json:"key_label"`
	Scope          string `json:"scope"` // agents.Scope, Variant A's name
	MaxPrice       *int64 `json:"max_price"`
	ExpectedPrice  *int64 `json:"expected_price"`
	OfferID        string `json:"offer_id"`
	IdempotencyKey string `json:"idempotency_key"`
	// Limits are the caps in force, the tighter of the owner's and the
	// key's; RemainingBefore what was left of them before this purchase.
	Limits          Caps                   `json:"limits"`
	RemainingBefore Caps                   `json:"remaining_before"`
	Approval        *AuthorizationApproval `json:"approval"`
	RequestID       string                 `json:"request_id"`
	CreatedAt       time.Time              `json:"created_at"`
}

// AuthorizationApproval is the owner's decision on a purchase that waited.
type AuthorizationApproval struct {
	ID        string    `json:"id"`
	DecidedBy string    `json:"decided_by"`
	DecidedAt time.Time `json:"decided_at"`
}

// newAuthorization is the record of an agent's order about to be reserved.
// The order's own fields stand for the request (maxPrice, expectedPrice,
// offer, idempotency key); requestID is the purchase call's.
func newAuthorization(key *agents.Key, keyID string, o *Order, st *standing, requestID string, approval *AuthorizationApproval, now time.Time) *Authorization {
	a := &Authorization{KeyID: keyID, MaxPrice: o.MaxPrice, ExpectedPrice: o.ExpectedPrice, OfferID: o.OfferID,
		IdempotencyKey: o.IdempotencyKey, Approval: approval, RequestID: requestID, CreatedAt: now}
	if key != nil {
		a.KeyID, a.KeyPrefix, a.KeyLabel, a.Scope = key.ID, key.Prefix, key.Label, string(key.Scope)
	}
	if st != nil {
		a.Limits, a.RemainingBefore = st.limits, st.remaining
	}
	return a
}

// capState is one cap of one level (the owner's, or the key's own) and what
// counts against it now.
type capState struct {
	level  string // owner or key
	kind   string // per_transaction, daily, weekly, monthly
	limit  int64
	used   int64      // spent and reserved in the window; 0 for per_transaction
	resets *time.Time // when the window ends; nil for per_transaction
}

// standing is where an owner's agents stand against the caps now: every
// cap, and per kind the tighter cap and what is left of it.
type standing struct {
	caps              []capState
	limits, remaining Caps
	threshold         *int64 // the approval threshold, if any
}

// spendStanding reads the caps and what counts against them as
// agents.CheckSpend counts it (the same snapshot query, offers' reservations
// included, the offer being bought left out). In the purchase it runs after
// CheckSpend, under the owner's lock, so the figures are the ones checked.
func spendStanding(ctx context.Context, tx Tx, now time.Time, ownerID string, key *agents.Key, excludeOfferID string) (*standing, error) {
	day, week, month := agents.Windows(now)
	q := agents.SpentQuery{UserID: ownerID, DayStart: day, WeekStart: week, MonthStart: month, Now: now,
		ExcludeOfferID: excludeOfferID}
	if key != nil && !key.Limits.Empty() {
		q.KeyID = key.ID
	}
	snap, err := tx.SpendingSnapshot(ctx, q)
	if err != nil {
		return nil, err
	}
	c := agents.DefaultControls()
	if snap.Controls != nil {
		c = *snap.Controls
	}
	dayEnd, weekEnd, monthEnd := day.AddDate(0, 0, 1), week.AddDate(0, 0, 7), month.AddDate(0, 1, 0)
	st := &standing{threshold: c.ApprovalThreshold}
	add := func(level, kind string, limit *int64, used int64, resets *time.Time) {
		if limit != nil {
			st.caps = append(st.caps, capState{level: level, kind: kind, limit: *limit, used: used, resets: resets})
		}
	}
	o, or := snap.Owner, snap.OwnerReserved
	add("owner", "per_transaction", &c.PerTransaction, 0, nil)
	add("owner", "daily", &c.Daily, o.Today+or, &dayEnd)
	add("owner", "weekly", &c.Weekly, o.ThisWeek+or, &weekEnd)
	add("owner", "monthly", &c.Monthly, o.ThisMonth+or, &monthEnd)
	if q.KeyID != "" {
		l, k, kr := key.Limits, snap.Key, snap.KeyReserved
		add("key", "per_transaction", l.PerTransaction, 0, nil)
		add("key", "daily", l.Daily, k.Today+kr, &dayEnd)
		add("key", "weekly", l.Weekly, k.ThisWeek+kr, &weekEnd)
		add("key", "monthly", l.Monthly, k.ThisMonth+kr, &monthEnd)
	}
	for _, cs := range st.caps {
		lim, rem := st.limits.of(cs.kind), st.remaining.of(cs.kind)
		left := max(cs.limit-cs.used, 0)
		if *lim == nil || cs.limit < **lim {
			v := cs.limit
			*lim = &v
		}
		if *rem == nil || left < **rem {
			v := left
			*rem = &v
		}
	}
	return st, nil
}

// of is the field of c for a cap kind.
func (c *Caps) of(kind string) **int64 {
	switch kind {
	case "per_transaction":
		return &c.PerTransaction
	case "daily":
		return &c.Daily
	case "weekly":
		return &c.Weekly
	}
	return &c.Monthly
}
