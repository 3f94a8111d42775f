package agents

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"marketplace/internal/accounts"
	"marketplace/internal/events"
	"marketplace/internal/market"
)

// Service is the agents area.
type Service struct {
	store   Store
	clock   market.Clock
	live    bool
	changes ChangeLog

	mailer  Mailer   // the onboarding magic link's mail (nil: none)
	touched sync.Map // key id -> time.Time of the last lastUsedAt write
}

// ChangeLog notes what the request running in ctx changed, for its entry in
// the audit log: the entity's audited fields before (nil for a creation) and
// after, and anything more the entry keeps (package audit's Notes, wired by
// the app).
type ChangeLog interface {
	NoteChange(ctx context.Context, before, after any, details map[string]any)
}

// Options are the agents service's settings and collaborators.
type Options struct {
	Live    bool      // mk_live_ keys rather than mk_test_
	Changes ChangeLog // nil: changes are not noted
	// Mailer makes AgentInit mail the magic link; nil: the caller hands
	// the link out alone.
	Mailer Mailer
}

// NewService builds the agents service.
func NewService(store Store, clock market.Clock, opts Options) *Service {
	return &Service{store: store, clock: clock, live: opts.Live, changes: opts.Changes, mailer: opts.Mailer}
}

// noteChange notes a change for the request's audit entry.
func (s *Service) noteChange(ctx context.Context, before, after any) {
	if s.changes != nil {
		s.changes.NoteChange(ctx, before, after, nil)
	}
}

// MaxKeysPerUser bounds the live (non-revoked) keys of one owner.
const MaxKeysPerUser = 25

// KeyInput creates a key.
type KeyInput struct {
	Label              string
	Scope              string
	Limits             Limits
	Metadata           map[string]any
	AcceptedAgentTerms bool
}

// NewKey is a created key with its secret, shown once.
type NewKey struct {
	Key
	Secret string
}

// checkKeyInput validates a key's input; metadataField is the metadata's
// name on the caller's wire ("metadata" for key creation, "agent_metadata"
// for onboarding).
func (s *Service) checkKeyInput(in *KeyInput, metadataField string) (Scope, error) {
	in.Label = strings.TrimSpace(in.Label)
	var c market.Check
	c.Require(in.Label != "" && utf8.RuneCountInString(in.Label) <= 100, "label", "must be 1 to 100 characters")
	scope, ok := ParseScope(in.Scope)
	c.Require(ok, "scope", "must be one of buy_only, sell_only, buy_sell (or buy, sell)")
	checkLimit(&c, "spending_controls.per_transaction_limit", in.Limits.PerTransaction)
	checkLimit(&c, "spending_controls.daily_limit", in.Limits.Daily)
	checkLimit(&c, "spending_controls.weekly_limit", in.Limits.Weekly)
	checkLimit(&c, "spending_controls.monthly_limit", in.Limits.Monthly)
	if in.Metadata != nil {
		b, _ := json.Marshal(in.Metadata)
		c.Require(len(b) <= 8192, metadataField, "must be at most 8 KiB of JSON")
	}
	c.Require(in.AcceptedAgentTerms, "accepted_agent_terms", "must be true")
	return scope, c.Err()
}

// CreateKey makes a key for the calling human.
func (s *Service) CreateKey(ctx context.Context, actor market.Actor, in KeyInput) (*NewKey, error) {
	if actor.IsAgent() {
		return nil, market.Errorf(market.CodeForbidden, "only the owner, with a bearer token, can create agent keys")
	}
	scope, err := s.checkKeyInput(&in, "metadata")
	if err != nil {
		return nil, err
	}
	var out *NewKey
	err = s.store.InTx(ctx, func(tx Tx) error {
		var err error
		out, err = s.createKeyTx(ctx, tx, actor, actor.UserID, scope, in)
		return err
	})
	return out, err
}

func (s *Service) createKeyTx(ctx context.Context, tx Tx, actor market.Actor, userID string, scope Scope, in KeyInput) (*NewKey, error) {
	// Without the lock, concurrent creates could all count the same keys
	// and pass MaxKeysPerUser together.
	if err := tx.LockUser(ctx, userID); err != nil {
		return nil, err
	}
	keys, err := tx.KeysOf(ctx, userID)
	if err != nil {
		return nil, err
	}
	live := 0
	for _, k := range keys {
		if k.Status != KeyRevoked {
			live++
		}
	}
	if live >= MaxKeysPerUser {
		return nil, market.Errorf(market.CodeValidation, "at most %d agent keys; revoke one first", MaxKeysPerUser)
	}
	secret := newSecret(s.live)
	k := Key{
		ID: market.NewID(), UserID: userID, Label: in.Label, Scope: scope, Status: KeyActive,
		Prefix: secret[:shownPrefix], Hash: HashSecret(secret), Limits: in.Limits, Metadata: in.Metadata,
		CreatedAt: s.clock.Now(),
	}
	if err := tx.CreateKey(ctx, &k); err != nil {
		return nil, err
	}
	if err := events.Record(ctx, tx, k.CreatedAt, actor, "agent_key.created", "agent_key", k.ID,
		map[string]any{"label": k.Label, "scope": string(k.Scope)}); err != nil {
		return nil, err
	}
	return &NewKey{Key: k, Secret: secret}, nil
}

// Keys lists the caller's keys, newest first.
func (s *Service) Keys(ctx context.Context, actor market.Actor) ([]Key, error) {
	if actor.IsAgent() {
		return nil, market.Errorf(market.CodeForbidden, "only the owner, with a bearer token, can list agent keys")
	}
	return s.store.Read().KeysOf(ctx, actor.UserID)
}

// KeysOfUser lists any user's keys (admin).
func (s *Service) KeysOfUser(ctx context.Context, userID string) ([]Key, error) {
	return s.store.Read().KeysOf(ctx, userID)
}

// Key returns one key by id.
func (s *Service) Key(ctx context.Context, id string) (*Key, error) {
	if !market.ValidID(id) {
		return nil, market.NotFound("agent key")
	}
	return s.store.Read().KeyByID(ctx, id)
}

// Revoke ends one of the caller's keys for good. Revoking twice is fine.
func (s *Service) Revoke(ctx context.Context, actor market.Actor, id string) (*Key, error) {
	if actor.IsAgent() {
		return nil, market.Errorf(market.CodeForbidden, "only the owner, with a bearer token, can revoke agent keys")
	}
	return s.transition(ctx, actor, actor.UserID, id, func(k *Key, now time.Time) (string, error) {
		if k.Status == KeyRevoked {
			return "", nil
		}
		k.Status, k.RevokedAt = KeyRevoked, &now
		return "agent_key.revoked", nil
	})
}

// Unfreeze lets a frozen key act again (owner only), whatever froze it.
func (s *Service) Unfreeze(ctx context.Context, actor market.Actor, id string) (*Key, error) {
	if actor.IsAgent() {
		return nil, market.Errorf(market.CodeForbidden, "only the owner, with a bearer token, can unfreeze agent keys")
	}
	return s.transition(ctx, actor, actor.UserID, id, func(k *Key, now time.Time) (string, error) {
		switch k.Status {
		case KeyActive:
			return "", nil
		case KeyRevoked:
			return "", market.Errorf(market.CodeInvalidState, "a revoked key cannot be unfrozen")
		}
		k.Status, k.FrozenAt, k.FrozenReason = KeyActive, nil, ""
		return "agent_key.unfrozen", nil
	})
}

// Freeze is the owner's panic button: the key stops at once, including a
// purchase already past authentication that has not reserved its money
// (CheckSpend re-reads the key under the owner's lock).
func (s *Service) Freeze(ctx context.Context, actor market.Actor, id string) (*Key, error) {
	if actor.IsAgent() {
		return nil, market.Errorf(market.CodeForbidden, "only the owner, with a bearer token, can freeze agent keys")
	}
	return s.transition(ctx, actor, actor.UserID, id, freezeTo(FrozenByOwner))
}

// AdminFreeze pauses a user's key (admin).
func (s *Service) AdminFreeze(ctx context.Context, actor market.Actor, userID, id string) (*Key, error) {
	return s.transition(ctx, actor, userID, id, freezeTo(FrozenByAdmin))
}

// freezeTo freezes an active key for reason. A key already frozen keeps its
// first reason: that is what the owner needs to read.
func freezeTo(reason FrozenReason) func(*Key, time.Time) (string, error) {
	return func(k *Key, now time.Time) (string, error) {
		switch k.Status {
		case KeyFrozen:
			return "", nil
		case KeyRevoked:
			return "", market.Errorf(market.CodeInvalidState, "a revoked key cannot be frozen")
		}
		k.Status, k.FrozenAt, k.FrozenReason = KeyFrozen, &now, reason
		return "agent_key.frozen", nil
	}
}

// SystemFreeze freezes a key by a rule of the service (rate_limit_abuse),
// with an audit entry of actor type system; details say what tripped it.
// A key no longer active is left alone.
func (s *Service) SystemFreeze(ctx context.Context, keyID string, reason FrozenReason, requestID string, details map[string]any) error {
	return s.store.InTx(ctx, func(tx Tx) error {
		k, err := tx.KeyByID(ctx, keyID)
		if err != nil {
			return err
		}
		if err := tx.LockUser(ctx, k.UserID); err != nil {
			return err
		}
		_, err = freezeKey(ctx, tx, s.clock.Now(), k.ID, reason, requestID, details)
		return err
	})
}

// FreezeTx is what a system freeze needs from a transaction.
type FreezeTx interface {
	events.Tx
	KeyByID(ctx context.Context, id string) (*Key, error)
	UpdateKey(ctx context.Context, k *Key) error
	SystemAuditTx
}

// SystemAuditTx writes, in the transaction of a change the system made on
// its own (no person or agent asked for it), the change's entry in the
// audit log: actor system, result allowed, action on the entity, with
// details, linked to the request it ran in (requestID; "" for none).
type SystemAuditTx interface {
	AppendSystemAudit(ctx context.Context, at time.Time, action, entityType, entityID, requestID string, details map[string]any) error
}

// freezeKey freezes key id for reason in tx, with its event to the owner
// and a system audit entry; it reports whether the key was active.
func freezeKey(ctx context.Context, tx FreezeTx, now time.Time, id string, reason FrozenReason, requestID string, details map[string]any) (bool, error) {
	k, err := tx.KeyByID(ctx, id) // read again: the caller's copy may be stale
	if err != nil {
		return false, err
	}
	if k.Status != KeyActive {
		return false, nil
	}
	k.Status, k.FrozenAt, k.FrozenReason = KeyFrozen, &now, reason
	if err := tx.UpdateKey(ctx, k); err != nil {
		return false, err
	}
	d := map[string]any{"frozenReason": string(reason), "keyPrefix": k.Prefix}
	for key, v := range details {
		d[key] = v
	}
	if err := tx.AppendSystemAudit(ctx, now, "agent_key.freeze", "agent_key", k.ID, requestID, d); err != nil {
		return false, err
	}
	return true, events.Record(ctx, tx, now, market.System, "agent_key.frozen", "agent_key", k.ID, keyEventData(k), k.UserID)
}

func keyEventData(k *Key) map[string]any {
	d := map[string]any{"key_id": k.ID, "label": k.Label, "prefix": k.Prefix, "status": string(k.Status)}
	if k.FrozenReason != "" {
		d["frozen_reason"] = string(k.FrozenReason)
	}
	return d
}

// AdminRevoke ends a user's key (admin).
func (s *Service) AdminRevoke(ctx context.Context, actor market.Actor, userID, id string) (*Key, error) {
	return s.transition(ctx, actor, userID, id, func(k *Key, now time.Time) (string, error) {
		if k.Status == KeyRevoked {
			return "", nil
		}
		k.Status, k.RevokedAt = KeyRevoked, &now
		return "agent_key.revoked", nil
	})
}

// transition applies change to key id of userID; an empty event means
// nothing changed.
func (s *Service) transition(ctx context.Context, actor market.Actor, userID, id string, change func(*Key, time.Time) (string, error)) (*Key, error) {
	if !market.ValidID(id) || !market.ValidID(userID) {
		return nil, market.NotFound("agent key")
	}
	var k *Key
	err := s.store.InTx(ctx, func(tx Tx) error {
		var err error
		if k, err = tx.KeyByID(ctx, id); err != nil {
			return err
		}
		if k.UserID != userID {
			return market.NotFound("agent key")
		}
		// Under the owner's lock, as CheckSpend reads the key: a freeze
		// and a purchase of the owner's go one after the other.
		if err := tx.LockUser(ctx, userID); err != nil {
			return err
		}
		if k, err = tx.KeyByID(ctx, id); err != nil {
			return err
		}
		now := s.clock.Now()
		before := keyAudit(k)
		event, err := change(k, now)
		if err != nil {
			return err
		}
		s.noteChange(ctx, before, keyAudit(k))
		if event == "" {
			return nil
		}
		if err := tx.UpdateKey(ctx, k); err != nil {
			return err
		}
		// The owner hears of a freeze (agent_key.frozen is public).
		return events.Record(ctx, tx, now, actor, event, "agent_key", k.ID, keyEventData(k), k.UserID)
	})
	return k, err
}

// keyAudit is what the audit entry of a change to a key records of it.
func keyAudit(k *Key) map[string]any {
	return map[string]any{"status": string(k.Status), "frozenReason": string(k.FrozenReason)}
}

// touchEvery limits lastUsedAt writes to one a minute per key, keeping the
// authentication path read-only almost always.
const touchEvery = time.Minute

// Authenticate resolves an X-Agent-Key secret. Unknown, malformed and
// revoked keys are INVALID_AGENT_KEY; frozen ones AGENT_FROZEN; keys of
// suspended or banned owners ACCOUNT_SUSPENDED.
func (s *Service) Authenticate(ctx context.Context, secret string) (*Key, *accounts.User, error) {
	invalid := market.Errorf(market.CodeInvalidAgentKey, "the agent key is invalid, expired or revoked")
	if !wellFormed(secret, s.live) {
		return nil, nil, invalid
	}
	hash := HashSecret(secret)
	k, u, err := s.store.Read().KeyByHash(ctx, hash)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, nil, invalid
	}
	if err != nil {
		return nil, nil, err
	}
	// The lookup was by hash; compare again in constant time so no timing of
	// the database's index comparison can leak anything.
	if subtle.ConstantTimeCompare([]byte(k.Hash), []byte(hash)) != 1 {
		return nil, nil, invalid
	}
	switch {
	case k.Status == KeyRevoked:
		return nil, nil, invalid
	case u.Blocked():
		return nil, nil, market.Errorf(market.CodeAccountSuspended, "the owner's account is suspended")
	case k.Status == KeyFrozen:
		return nil, nil, market.Errorf(market.CodeAgentFrozen, "this agent key is frozen; the owner can unfreeze it")
	}
	s.touch(ctx, k)
	return k, u, nil
}

func (s *Service) touch(ctx context.Context, k *Key) {
	now := s.clock.Now()
	if last, ok := s.touched.Load(k.ID); ok && now.Sub(last.(time.Time)) < touchEvery {
		return
	}
	if k.LastUsedAt != nil && now.Sub(*k.LastUsedAt) >= 0 && now.Sub(*k.LastUsedAt) < touchEvery {
		s.touched.Store(k.ID, *k.LastUsedAt)
		return
	}
	s.touched.Store(k.ID, now)
	if err := s.store.InTx(ctx, func(tx Tx) error { return tx.TouchKey(ctx, k.ID, now) }); err == nil {
		k.LastUsedAt = &now
	}
}

// Require checks that an agent's key allows op; humans pass.
func Require(actor market.Actor, scope Scope, op Op) error {
	if actor.IsAgent() && !scope.Allows(op) {
		return market.Errorf(market.CodeInsufficientScope, "this agent key's scope (%s) does not allow this operation", scope)
	}
	return nil
}
