package agents

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// Controls are an owner's caps on what all their agents spend together
// (CONTRACT.md section 5). A human's own purchases are not capped.
type Controls struct {
	PerTransaction       int64
	Daily                int64
	Weekly               int64
	Monthly              int64
	CategoryRestrictions []string // category ids or slugs
	ApprovalThreshold    *int64
	UpdatedAt            time.Time
}

// DefaultControls are what an owner has until they change them.
func DefaultControls() Controls {
	return Controls{PerTransaction: 10000, Daily: 50000, Weekly: 200000, Monthly: 500000, CategoryRestrictions: []string{}}
}

// MaxLimit bounds every cap (ten million in currency units).
const MaxLimit int64 = 1_000_000_000

// Spent is what was spent in the current calendar windows.
type Spent struct {
	Today, ThisWeek, ThisMonth int64
}

// plus is s with a reservation counted in every window.
func (s Spent) plus(reserved int64) Spent {
	return Spent{Today: s.Today + reserved, ThisWeek: s.ThisWeek + reserved, ThisMonth: s.ThisMonth + reserved}
}

// SpentQuery asks for the spending of an owner, or of one key when KeyID is
// set, in the windows that start at the given times.
type SpentQuery struct {
	UserID     string
	KeyID      string
	DayStart   time.Time
	WeekStart  time.Time
	MonthStart time.Time
	// Now counts the reservations of offers still open at this time.
	Now time.Time
	// ExcludeOfferID leaves one offer's reservation out.
	ExcludeOfferID string
}

// Windows returns the starts of the UTC calendar day, ISO week (Monday) and
// month containing now.
func Windows(now time.Time) (day, week, month time.Time) {
	now = now.UTC()
	day = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	offset := (int(day.Weekday()) + 6) % 7 // days since Monday
	week = day.AddDate(0, 0, -offset)
	month = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	return day, week, month
}

// Remaining is what may still be spent per window.
type Remaining struct {
	Daily, Weekly, Monthly int64
}

// SpendingStatus is the controls and where spending stands against them.
// For an agent, Remaining also honours the key's own caps.
type SpendingStatus struct {
	Controls  Controls
	KeyLimits *Limits // the calling key's own caps, when it has any
	Spent     Spent
	// KeySpent is what that key itself spent, when it has caps of its own.
	KeySpent  *Spent
	Remaining Remaining
	// ReservedForOffers is what the owner's agents' open offers hold of
	// the caps (their amounts plus the buyer's fee); Remaining leaves it out.
	ReservedForOffers int64
}

func floor0(v int64) int64 {
	if v < 0 {
		return 0
	}
	return v
}

func minCap(a int64, b *int64) int64 {
	if b != nil && *b < a {
		return *b
	}
	return a
}

// SpendingSnapshot is an owner's saved controls (nil while the defaults
// apply) and what was spent in the current windows, by the owner's agents
// together and by one key.
type SpendingSnapshot struct {
	Controls   *Controls
	Owner, Key Spent
	// What open offers reserve, for the owner's agents together and for
	// the key (CONTRACT.md section 8).
	OwnerReserved, KeyReserved int64
}

// controlsOf returns the owner's controls, or the defaults.
func controlsOf(ctx context.Context, tx interface {
	Controls(ctx context.Context, userID string) (*Controls, error)
}, userID string) (Controls, error) {
	c, err := tx.Controls(ctx, userID)
	if market.CodeOf(err) == market.CodeNotFound {
		return DefaultControls(), nil
	}
	if err != nil {
		return Controls{}, err
	}
	return *c, nil
}

// Spending returns the caller's controls and spending: the owner's for a
// human; for an agent (key is the caller's key), the owner's combined with
// the key's own caps.
func (s *Service) Spending(ctx context.Context, actor market.Actor, key *Key) (*SpendingStatus, error) {
	return s.spending(ctx, s.store.Read(), actor, key)
}

func (s *Service) spending(ctx context.Context, tx Tx, actor market.Actor, key *Key) (*SpendingStatus, error) {
	if actor.IsAgent() && (key == nil || key.ID != actor.KeyID) {
		return nil, market.Internal(errNoKey)
	}
	day, week, month := Windows(s.clock.Now())
	q := SpentQuery{UserID: actor.UserID, DayStart: day, WeekStart: week, MonthStart: month, Now: s.clock.Now()}
	if key != nil && !key.Limits.Empty() {
		q.KeyID = key.ID
	}
	snap, err := tx.SpendingSnapshot(ctx, q)
	if err != nil {
		return nil, err
	}
	c := DefaultControls()
	if snap.Controls != nil {
		c = *snap.Controls
	}
	spent := snap.Owner
	held := spent.plus(snap.OwnerReserved)
	st := &SpendingStatus{Controls: c, Spent: spent, ReservedForOffers: snap.OwnerReserved, Remaining: Remaining{
		Daily:   floor0(c.Daily - held.Today),
		Weekly:  floor0(c.Weekly - held.ThisWeek),
		Monthly: floor0(c.Monthly - held.ThisMonth),
	}}
	if q.KeyID != "" {
		lim, keySpent := key.Limits, snap.Key
		st.KeyLimits, st.KeySpent = &lim, &keySpent
		sub := func(cap *int64, used int64) *int64 {
			if cap == nil {
				return nil
			}
			v := floor0(*cap - used)
			return &v
		}
		ks := snap.Key.plus(snap.KeyReserved)
		st.Remaining.Daily = minCap(st.Remaining.Daily, sub(lim.Daily, ks.Today))
		st.Remaining.Weekly = minCap(st.Remaining.Weekly, sub(lim.Weekly, ks.ThisWeek))
		st.Remaining.Monthly = minCap(st.Remaining.Monthly, sub(lim.Monthly, ks.ThisMonth))
	}
	return st, nil
}

type noKeyError struct{}

func (noKeyError) Error() string { return "agent spending read without the agent's key" }

var errNoKey = noKeyError{}

// ControlsUpdate changes the fields that are set. ClearApproval removes the
// approval threshold (a JSON null).
type ControlsUpdate struct {
	PerTransaction       *int64
	Daily                *int64
	Weekly               *int64
	Monthly              *int64
	CategoryRestrictions *[]string
	ApprovalThreshold    *int64
	ClearApproval        bool
}

// checkLimit validates one cap.
func checkLimit(c *market.Check, field string, v *int64) {
	if v != nil {
		c.Require(*v >= 0 && *v <= MaxLimit, field, "must be an amount in cents from 0 to 1000000000")
	}
}

// UpdateControls changes the caller's own controls (PUT /spending-controls):
// only the fields upd sets. Agents may read controls, never change them.
func (s *Service) UpdateControls(ctx context.Context, actor market.Actor, upd ControlsUpdate) (*SpendingStatus, error) {
	if actor.IsAgent() {
		return nil, market.Errorf(market.CodeForbidden, "agents can read spending controls but not change them")
	}
	var st *SpendingStatus
	err := s.store.InTx(ctx, func(tx Tx) error {
		if _, _, err := ApplyControls(ctx, tx, s.clock.Now(), actor, actor.UserID, upd); err != nil {
			return err
		}
		var err error
		st, err = s.spending(ctx, tx, actor, nil)
		return err
	})
	return st, err
}

// ControlsTx is what changing an owner's controls needs of a transaction.
type ControlsTx interface {
	events.Tx
	LockUser(ctx context.Context, userID string) error
	Controls(ctx context.Context, userID string) (*Controls, error)
	PutControls(ctx context.Context, userID string, c Controls, at time.Time) error
}

// ApplyControls sets the fields upd names of ownerID's controls inside tx,
// by actor (the owner, or an admin overriding them, whose other work then
// shares the transaction), and answers the controls before and after.
func ApplyControls(ctx context.Context, tx ControlsTx, now time.Time, actor market.Actor, ownerID string, upd ControlsUpdate) (before, after Controls, err error) {
	cats, err := checkControls(upd)
	if err != nil {
		return before, after, err
	}
	// An owner who never saved controls has no row to lock, so two partial
	// updates would both start from the defaults and the later would undo
	// the earlier's field: lock the owner instead.
	if err := tx.LockUser(ctx, ownerID); err != nil {
		return before, after, err
	}
	before, err = controlsOf(ctx, tx, ownerID)
	if err != nil {
		return before, after, err
	}
	after = before
	after.CategoryRestrictions = slices.Clone(before.CategoryRestrictions)
	set := func(dst *int64, v *int64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&after.PerTransaction, upd.PerTransaction)
	set(&after.Daily, upd.Daily)
	set(&after.Weekly, upd.Weekly)
	set(&after.Monthly, upd.Monthly)
	if upd.CategoryRestrictions != nil {
		after.CategoryRestrictions = cats
	}
	if upd.ClearApproval {
		after.ApprovalThreshold = nil
	} else if upd.ApprovalThreshold != nil {
		after.ApprovalThreshold = upd.ApprovalThreshold
	}
	if err := tx.PutControls(ctx, ownerID, after, now); err != nil {
		return before, after, err
	}
	after.UpdatedAt = now
	return before, after, events.Record(ctx, tx, now, actor, "spending_controls.updated", "user", ownerID, nil)
}

// checkControls validates an update; it answers the category restrictions
// trimmed and without repeats.
func checkControls(upd ControlsUpdate) ([]string, error) {
	var c market.Check
	checkLimit(&c, "per_transaction_limit", upd.PerTransaction)
	checkLimit(&c, "daily_limit", upd.Daily)
	checkLimit(&c, "weekly_limit", upd.Weekly)
	checkLimit(&c, "monthly_limit", upd.Monthly)
	if upd.ApprovalThreshold != nil {
		c.Require(*upd.ApprovalThreshold >= 1 && *upd.ApprovalThreshold <= MaxLimit, "approval_threshold", "must be null or an amount in cents from 1 to 1000000000")
	}
	var cats []string
	if upd.CategoryRestrictions != nil {
		seen := map[string]bool{}
		cats = []string{}
		for _, v := range *upd.CategoryRestrictions {
			v = strings.TrimSpace(v)
			if v == "" || utf8.RuneCountInString(v) > 100 {
				c.Add("category_restrictions", "each entry must be a category id or slug of 1 to 100 characters")
				break
			}
			if !seen[strings.ToLower(v)] {
				seen[strings.ToLower(v)] = true
				cats = append(cats, v)
			}
		}
		c.Require(len(cats) <= 100, "category_restrictions", "at most 100 categories")
	}
	return cats, c.Err()
}
