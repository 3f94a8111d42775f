package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/market"
)

// The agents area (agents.Tx): agent keys, and one query for a key and its
// owner. Onboarding sessions and spending controls serve agents.Tx too
// (agents_onboarding.go, agents_spending.go).
var _ agents.Tx = (*Tx)(nil)

const keyColumns = `k.id, k.user_id, k.label, k.scope, k.status, k.key_prefix, k.key_hash, k.per_transaction_limit,
	k.daily_limit, k.weekly_limit, k.monthly_limit, k.metadata, k.created_at, k.last_used_at, k.frozen_at, k.revoked_at, k.frozen_reason`

// CreateKey inserts k.
func (tx *Tx) CreateKey(ctx context.Context, k *agents.Key) error {
	meta, err := jsonOrNull(k.Metadata)
	if err != nil {
		return err
	}
	_, err = tx.exec(ctx, `INSERT INTO agent_keys (id, user_id, label, scope, status, key_prefix, key_hash, per_transaction_limit,
		daily_limit, weekly_limit, monthly_limit, metadata, created_at, last_used_at, frozen_at, revoked_at, frozen_reason)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.UserID, k.Label, string(k.Scope), string(k.Status), k.Prefix, k.Hash, k.Limits.PerTransaction,
		k.Limits.Daily, k.Limits.Weekly, k.Limits.Monthly, meta, k.CreatedAt, k.LastUsedAt, k.FrozenAt, k.RevokedAt,
		nullString(string(k.FrozenReason)))
	return wrap(err)
}

// UpdateKey writes a key's status and its timestamps.
func (tx *Tx) UpdateKey(ctx context.Context, k *agents.Key) error {
	res, err := tx.exec(ctx, `UPDATE agent_keys SET status = ?, frozen_at = ?, revoked_at = ?, label = ?, frozen_reason = ? WHERE id = ?`,
		string(k.Status), k.FrozenAt, k.RevokedAt, k.Label, nullString(string(k.FrozenReason)), k.ID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "agent key")
}

// TouchKey records when a key was last used.
func (tx *Tx) TouchKey(ctx context.Context, id string, at time.Time) error {
	_, err := tx.exec(ctx, `UPDATE agent_keys SET last_used_at = ? WHERE id = ?`, at, id)
	return wrap(err)
}

// KeyByID finds a key.
func (tx *Tx) KeyByID(ctx context.Context, id string) (*agents.Key, error) {
	return scanKey(tx.queryRow(ctx, `SELECT `+keyColumns+` FROM agent_keys k WHERE k.id = ?`, id))
}

// KeysOf lists a user's keys, newest first.
func (tx *Tx) KeysOf(ctx context.Context, userID string) ([]agents.Key, error) {
	return queryAll(ctx, tx, scanKey, `SELECT `+keyColumns+` FROM agent_keys k WHERE k.user_id = ? ORDER BY k.created_at DESC, k.id DESC`, userID)
}

var keyByHashQuery = `SELECT ` + keyColumns + `, ` + prefixed("u.", userColumns) + `
	FROM agent_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ?`

// KeyByHash finds a key and its owner in one query: the hot path of every
// agent request.
func (tx *Tx) KeyByHash(ctx context.Context, hash string) (*agents.Key, *accounts.User, error) {
	row := tx.queryRow(ctx, keyByHashQuery, hash)
	var k agents.Key
	var u accounts.User
	dest := keyDest(&k)
	ud, finishUser := userDest(&u)
	if err := row.Scan(append(dest.ptrs, ud...)...); err != nil {
		return nil, nil, notFound(err, "agent key")
	}
	if err := dest.finish(); err != nil {
		return nil, nil, err
	}
	if err := finishUser(); err != nil {
		return nil, nil, err
	}
	return &k, &u, nil
}

type keyScan struct {
	k                       *agents.Key
	scope, status           string
	per, daily, week, month sql.NullInt64
	meta                    sql.NullString
	last, frozen, revoked   sql.NullTime
	reason                  sql.NullString
	ptrs                    []any
}

func keyDest(k *agents.Key) *keyScan {
	s := &keyScan{k: k}
	s.ptrs = []any{&k.ID, &k.UserID, &k.Label, &s.scope, &s.status, &k.Prefix, &k.Hash, &s.per, &s.daily, &s.week,
		&s.month, &s.meta, &k.CreatedAt, &s.last, &s.frozen, &s.revoked, &s.reason}
	return s
}

func (s *keyScan) finish() error {
	k := s.k
	k.Scope, k.Status = agents.Scope(s.scope), agents.KeyStatus(s.status)
	k.Limits = agents.Limits{PerTransaction: nullInt(s.per), Daily: nullInt(s.daily), Weekly: nullInt(s.week), Monthly: nullInt(s.month)}
	k.CreatedAt = k.CreatedAt.UTC()
	k.LastUsedAt, k.FrozenAt, k.RevokedAt = nullTime(s.last), nullTime(s.frozen), nullTime(s.revoked)
	k.FrozenReason = agents.FrozenReason(s.reason.String)
	if s.meta.Valid && s.meta.String != "" {
		if err := json.Unmarshal([]byte(s.meta.String), &k.Metadata); err != nil {
			return market.Internal(err)
		}
	}
	return nil
}

func scanKey(row scanner) (*agents.Key, error) {
	var k agents.Key
	d := keyDest(&k)
	if err := row.Scan(d.ptrs...); err != nil {
		return nil, notFound(err, "agent key")
	}
	return &k, d.finish()
}

// KeyPurchasesSince counts the purchases key made from since on: the
// spending rows its orders recorded (a purchase whose charge failed leaves
// none), for the purchase-velocity rule.
func (tx *Tx) KeyPurchasesSince(ctx context.Context, keyID string, since time.Time) (int, error) {
	var n int
	err := tx.queryRow(ctx, `SELECT COUNT(*) FROM agent_spending WHERE key_id = ? AND created_at >= ?`, keyID, since).Scan(&n)
	return n, wrap(err)
}
