package users

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// The admin's user tools (CONTRACT.md section 14): the list and detail,
// changes to status, trust tier, role and verification, suspend, ban and
// reinstate, and the override of a user's spending controls. Every change
// notes the values before and after for the request's audit entry
// (ChangeLog).

// UserFilter selects users for the admin's list; zero fields match all.
type UserFilter struct {
	Status    string
	TrustTier string
	Role      string
	Search    string // lower case: a substring of e-mail, username or display name
	Limit     int
	Offset    int
}

// UsersTx is what the admin's user tools need from a transaction.
type UsersTx interface {
	events.Tx
	LockUser(ctx context.Context, userID string) error
	UserByID(ctx context.Context, id string) (*accounts.User, error)
	UpdateUser(ctx context.Context, u *accounts.User) error
	// ListUsers returns users matching f, newest first, and the total.
	ListUsers(ctx context.Context, f UserFilter) ([]accounts.User, int, error)
	KeysOf(ctx context.Context, userID string) ([]agents.Key, error)
	UpdateKey(ctx context.Context, k *agents.Key) error
	ListingsBySeller(ctx context.Context, sellerID string, statuses []listings.Status, limit, offset int) ([]listings.Listing, int, error)
	UpdateListing(ctx context.Context, l *listings.Listing) error
	Controls(ctx context.Context, userID string) (*agents.Controls, error)
	PutControls(ctx context.Context, userID string, c agents.Controls, at time.Time) error
	Watchers(ctx context.Context, listingID string) ([]string, error)
	PayoutAccountOf(ctx context.Context, userID string) (*payments.PayoutAccount, error)
	PaymentMethods(ctx context.Context, userID string) ([]payments.PaymentMethod, error)
}

// UsersStore opens transactions over UsersTx.
type UsersStore interface {
	InTx(ctx context.Context, fn func(UsersTx) error) error
	Read() UsersTx
}

// Users is the admin's user service.
type Users struct {
	store   UsersStore
	clock   market.Clock
	agents  *agents.Service
	offers  listings.OffersFollow
	changes ChangeLog
}

// ChangeLog notes what the request running in ctx changed, for its entry in
// the audit log: the user's audited fields before and after, and anything
// more the entry keeps (package audit's Notes, wired by the app).
type ChangeLog interface {
	NoteChange(ctx context.Context, before, after any, details map[string]any)
}

// Options are the user service's collaborators.
type Options struct {
	// Agents owns the spending controls the admin overrides (required).
	Agents *agents.Service
	// Offers has a ban end the open offers on the listings it removes, as
	// every other removal does (listings.OffersFollow); nil: nothing follows.
	Offers listings.OffersFollow
	// Changes notes each change for the audit log; nil: not noted.
	Changes ChangeLog
}

// NewUsers returns the admin's user service.
func NewUsers(store UsersStore, clock market.Clock, opts Options) *Users {
	return &Users{store: store, clock: clock, agents: opts.Agents, offers: opts.Offers, changes: opts.Changes}
}

// noteChange notes a change for the request's audit entry.
func (s *Users) noteChange(ctx context.Context, before, after any, details map[string]any) {
	if s.changes != nil {
		s.changes.NoteChange(ctx, before, after, details)
	}
}

// UserDetail is the admin's view of one user.
type UserDetail struct {
	User           *accounts.User
	Keys           []agents.Key
	PayoutAccount  *payments.PayoutAccount // nil when none was started
	PaymentMethods []payments.PaymentMethod
	Spending       *agents.SpendingStatus
}

var (
	userStatuses = map[string]bool{"active": true, "suspended": true, "banned": true}
	userTiers    = map[string]bool{"new": true, "verified": true, "trusted": true, "partner": true}
	userRoles    = map[string]bool{"user": true, "admin": true}
)

func mustAdmin(actor market.Actor) error {
	if !actor.Admin || actor.IsAgent() {
		return market.Errorf(market.CodeForbidden, "admins only")
	}
	return nil
}

// List returns users matching f, newest first, and the total.
func (s *Users) List(ctx context.Context, actor market.Actor, f UserFilter) ([]accounts.User, int, error) {
	if err := mustAdmin(actor); err != nil {
		return nil, 0, err
	}
	var c market.Check
	c.Require(f.Status == "" || userStatuses[f.Status], "status", "must be active, suspended or banned")
	c.Require(f.TrustTier == "" || userTiers[f.TrustTier], "trustTier", "must be new, verified, trusted or partner")
	c.Require(f.Role == "" || userRoles[f.Role], "role", "must be user or admin")
	f.Search = strings.ToLower(strings.TrimSpace(f.Search))
	c.Require(utf8.RuneCountInString(f.Search) <= 100 && utf8.ValidString(f.Search) && !strings.ContainsRune(f.Search, 0),
		"search", "at most 100 characters")
	if err := c.Err(); err != nil {
		return nil, 0, err
	}
	return s.store.Read().ListUsers(ctx, f)
}

func (s *Users) user(ctx context.Context, tx UsersTx, id string) (*accounts.User, error) {
	if !market.ValidID(id) {
		return nil, market.NotFound("user")
	}
	return tx.UserByID(ctx, id)
}

// Detail returns one user with keys, processor data and spending controls.
func (s *Users) Detail(ctx context.Context, actor market.Actor, id string) (*UserDetail, error) {
	if err := mustAdmin(actor); err != nil {
		return nil, err
	}
	tx := s.store.Read()
	u, err := s.user(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	d := &UserDetail{User: u}
	if d.Keys, err = tx.KeysOf(ctx, id); err != nil {
		return nil, err
	}
	d.PayoutAccount, err = tx.PayoutAccountOf(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound {
		d.PayoutAccount, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	if d.PaymentMethods, err = tx.PaymentMethods(ctx, id); err != nil {
		return nil, err
	}
	if d.Spending, err = s.agents.Spending(ctx, owner(id), nil); err != nil {
		return nil, err
	}
	return d, nil
}

// owner is the user as the agents service knows an owner.
func owner(id string) market.Actor { return market.Actor{Type: market.ActorUser, UserID: id} }

// Keys lists a user's agent keys, newest first.
func (s *Users) Keys(ctx context.Context, actor market.Actor, id string) ([]agents.Key, error) {
	if err := mustAdmin(actor); err != nil {
		return nil, err
	}
	tx := s.store.Read()
	if _, err := s.user(ctx, tx, id); err != nil {
		return nil, err
	}
	return tx.KeysOf(ctx, id)
}

// UserUpdate is PATCH /admin/users/{id}; nil fields stay.
type UserUpdate struct {
	Status           *string
	TrustTier        *string
	Role             *string
	IdentityVerified *bool
	Reason           string
}

func snapshot(u *accounts.User) map[string]any {
	return map[string]any{"status": string(u.Status), "trustTier": string(u.TrustTier), "role": string(u.Role),
		"identityVerified": u.IdentityVerified}
}

// Update changes a user's status, trust tier, role or verification. A
// change to banned has a ban's effects. An admin cannot suspend, ban or
// demote their own account.
func (s *Users) Update(ctx context.Context, actor market.Actor, id string, upd UserUpdate) (*accounts.User, error) {
	if err := mustAdmin(actor); err != nil {
		return nil, err
	}
	var c market.Check
	c.Require(upd.Status == nil || userStatuses[*upd.Status], "status", "must be active, suspended or banned")
	c.Require(upd.TrustTier == nil || userTiers[*upd.TrustTier], "trustTier", "must be new, verified, trusted or partner")
	c.Require(upd.Role == nil || userRoles[*upd.Role], "role", "must be user or admin")
	if err := c.Err(); err != nil {
		return nil, err
	}
	return s.change(ctx, actor, id, "user.update", upd)
}

// Suspend, Ban and Reinstate are the moderation actions; each takes a reason.
func (s *Users) Suspend(ctx context.Context, actor market.Actor, id, reason string) (*accounts.User, error) {
	return s.moderate(ctx, actor, id, reason, accounts.StatusSuspended)
}

// Ban bans the user, revokes their agent keys and removes their active and
// held listings.
func (s *Users) Ban(ctx context.Context, actor market.Actor, id, reason string) (*accounts.User, error) {
	return s.moderate(ctx, actor, id, reason, accounts.StatusBanned)
}

// Reinstate makes the account active; removed listings and revoked keys
// stay as they are.
func (s *Users) Reinstate(ctx context.Context, actor market.Actor, id, reason string) (*accounts.User, error) {
	return s.moderate(ctx, actor, id, reason, accounts.StatusActive)
}

var moderationAction = map[accounts.Status]string{
	accounts.StatusSuspended: "user.suspend", accounts.StatusBanned: "user.ban", accounts.StatusActive: "user.reinstate"}

func (s *Users) moderate(ctx context.Context, actor market.Actor, id, reason string, to accounts.Status) (*accounts.User, error) {
	if err := mustAdmin(actor); err != nil {
		return nil, err
	}
	reason = strings.TrimSpace(reason)
	var c market.Check
	c.Require(reason != "" && utf8.RuneCountInString(reason) <= 500, "reason", "1 to 500 characters")
	if err := c.Err(); err != nil {
		return nil, err
	}
	st := string(to)
	return s.change(ctx, actor, id, moderationAction[to], UserUpdate{Status: &st, Reason: reason})
}

func (s *Users) change(ctx context.Context, actor market.Actor, id, action string, upd UserUpdate) (*accounts.User, error) {
	var out *accounts.User
	err := s.store.InTx(ctx, func(tx UsersTx) error {
		if !market.ValidID(id) {
			return market.NotFound("user")
		}
		if err := tx.LockUser(ctx, id); err != nil {
			return err
		}
		u, err := tx.UserByID(ctx, id)
		if err != nil {
			return err
		}
		before := snapshot(u)
		self := id == actor.UserID
		if upd.Status != nil {
			to := accounts.Status(*upd.Status)
			if self && to != accounts.StatusActive {
				return market.Errorf(market.CodeForbidden, "an admin cannot suspend or ban their own account")
			}
			if action == "user.suspend" && u.Status == accounts.StatusBanned {
				return market.Errorf(market.CodeInvalidState, "a banned account cannot be suspended; reinstate it first")
			}
			u.Status = to
		}
		if upd.Role != nil {
			if self && accounts.Role(*upd.Role) != accounts.RoleAdmin {
				return market.Errorf(market.CodeForbidden, "an admin cannot demote their own account")
			}
			u.Role = accounts.Role(*upd.Role)
		}
		if upd.IdentityVerified != nil {
			u.IdentityVerified = *upd.IdentityVerified
			if u.IdentityVerified && upd.TrustTier == nil {
				u.TrustTier = u.TrustTier.AtLeast(accounts.TierVerified)
			}
		}
		if upd.TrustTier != nil {
			u.TrustTier = accounts.TrustTier(*upd.TrustTier)
		}
		now := s.clock.Now()
		details := map[string]any{}
		if upd.Reason != "" {
			details["reason"] = upd.Reason
		}
		changed := before["status"] != string(u.Status) || before["trustTier"] != string(u.TrustTier) ||
			before["role"] != string(u.Role) || before["identityVerified"] != u.IdentityVerified
		if changed {
			u.UpdatedAt = now
			if err := tx.UpdateUser(ctx, u); err != nil {
				return err
			}
		}
		// A ban's effects run on every ban, also a repeated one: a key or
		// listing made since (by a race) goes too.
		if u.Status == accounts.StatusBanned {
			keys, listed, err := s.banEffects(ctx, tx, actor, u.ID, now)
			if err != nil {
				return err
			}
			details["revokedKeys"], details["removedListings"] = keys, listed
		}
		out = u
		s.noteChange(ctx, before, snapshot(u), details)
		return nil
	})
	return out, err
}

// banEffects revokes the user's live keys and removes their active and held
// listings; it returns the ids of what it changed.
func (s *Users) banEffects(ctx context.Context, tx UsersTx, actor market.Actor, userID string, now time.Time) ([]string, []string, error) {
	keys, err := tx.KeysOf(ctx, userID)
	if err != nil {
		return nil, nil, err
	}
	revoked := []string{}
	for i := range keys {
		k := &keys[i]
		if k.Status == agents.KeyRevoked {
			continue
		}
		at := now
		k.Status, k.RevokedAt = agents.KeyRevoked, &at
		if err := tx.UpdateKey(ctx, k); err != nil {
			return nil, nil, err
		}
		if err := events.Record(ctx, tx, now, actor, "agent_key.revoked", "agent_key", k.ID, map[string]any{
			"key_id": k.ID, "label": k.Label, "prefix": k.Prefix, "status": string(k.Status)}, k.UserID); err != nil {
			return nil, nil, err
		}
		revoked = append(revoked, k.ID)
	}
	removed := []string{}
	for {
		// Each removed listing leaves the filter, so the first page is
		// always the next one.
		ls, _, err := tx.ListingsBySeller(ctx, userID, []listings.Status{listings.StatusActive, listings.StatusHeld}, 100, 0)
		if err != nil {
			return nil, nil, err
		}
		if len(ls) == 0 {
			break
		}
		for i := range ls {
			l := &ls[i]
			from := l.Status
			l.Status, l.UpdatedAt = listings.StatusRemoved, now
			if err := tx.UpdateListing(ctx, l); err != nil {
				return nil, nil, err
			}
			if err := listings.GoneForWatchers(ctx, tx, actor, l, from); err != nil {
				return nil, nil, err
			}
			if s.offers != nil {
				if err := s.offers(ctx, tx, l); err != nil {
					return nil, nil, err
				}
			}
			removed = append(removed, l.ID)
		}
	}
	return revoked, removed, nil
}

// SpendingOverride sets a user's spending controls as the admin says (the
// body of PUT /spending-controls), noting the controls before and after for
// the request's audit entry; the event names the admin.
func (s *Users) SpendingOverride(ctx context.Context, actor market.Actor, id string, upd agents.ControlsUpdate) (*agents.SpendingStatus, error) {
	if err := mustAdmin(actor); err != nil {
		return nil, err
	}
	err := s.store.InTx(ctx, func(tx UsersTx) error {
		if _, err := s.user(ctx, tx, id); err != nil {
			return err
		}
		now := s.clock.Now()
		before, after, err := agents.ApplyControls(ctx, tx, now, actor, id, upd)
		if err != nil {
			return err
		}
		s.noteChange(ctx, controls(before), controls(after), nil)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.agents.Spending(ctx, owner(id), nil)
}

func controls(c agents.Controls) map[string]any {
	return map[string]any{"perTransactionLimit": c.PerTransaction, "dailyLimit": c.Daily, "weeklyLimit": c.Weekly,
		"monthlyLimit": c.Monthly, "categoryRestrictions": c.CategoryRestrictions, "approvalThreshold": c.ApprovalThreshold}
}
