package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/market"
)

// The agents area (agents.Tx): agent-initiated onboarding sessions.
var _ agents.Tx = (*Tx)(nil)

const onboardingColumns = `id, magic_token_hash, poll_secret_hash, seal_public_key, status, owner_email, owner_first_name,
	owner_last_name, desired_scope, agent_label, agent_metadata, user_id, key_id, sealed_key, key_delivered_at, expires_at,
	created_at, updated_at`

// CreateOnboarding inserts a session.
func (tx *Tx) CreateOnboarding(ctx context.Context, o *agents.Onboarding) error {
	meta, err := jsonOrNull(o.AgentMetadata)
	if err != nil {
		return err
	}
	_, err = tx.exec(ctx, `INSERT INTO onboarding_sessions (`+onboardingColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		o.ID, o.MagicHash, o.PollSecretHash, o.SealPublicKey, string(o.Status), o.OwnerEmail, o.OwnerFirstName,
		o.OwnerLastName, string(o.DesiredScope), o.AgentLabel, meta, nullString(o.UserID), nullString(o.KeyID),
		nullString(o.SealedKey), o.KeyDeliveredAt, o.ExpiresAt, o.CreatedAt, o.UpdatedAt)
	return wrap(err)
}

// UpdateOnboarding writes a session's progress.
func (tx *Tx) UpdateOnboarding(ctx context.Context, o *agents.Onboarding) error {
	res, err := tx.exec(ctx, `UPDATE onboarding_sessions SET status = ?, user_id = ?, key_id = ?, sealed_key = ?,
		key_delivered_at = ?, updated_at = ? WHERE id = ?`,
		string(o.Status), nullString(o.UserID), nullString(o.KeyID), nullString(o.SealedKey), o.KeyDeliveredAt, o.UpdatedAt, o.ID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "onboarding session")
}

// OnboardingByID finds a session, locking it in a transaction.
func (tx *Tx) OnboardingByID(ctx context.Context, id string) (*agents.Onboarding, error) {
	return scanOnboarding(tx.queryRow(ctx, `SELECT `+onboardingColumns+` FROM onboarding_sessions WHERE id = ?`+tx.forUpdate(), id))
}

// OnboardingByMagicHash finds a session by its magic token's hash.
func (tx *Tx) OnboardingByMagicHash(ctx context.Context, hash string) (*agents.Onboarding, error) {
	return scanOnboarding(tx.queryRow(ctx, `SELECT `+onboardingColumns+` FROM onboarding_sessions WHERE magic_token_hash = ?`+tx.forUpdate(), hash))
}

// ExpireOnboardings expires every open session past its expiry.
func (tx *Tx) ExpireOnboardings(ctx context.Context, now time.Time) (int, error) {
	res, err := tx.exec(ctx, `UPDATE onboarding_sessions SET status = 'expired', updated_at = ?
		WHERE status IN ('pending_human', 'human_completing') AND expires_at <= ?`, now, now)
	if err != nil {
		return 0, wrap(err)
	}
	n, err := res.RowsAffected()
	return int(n), wrap(err)
}

func scanOnboarding(row scanner) (*agents.Onboarding, error) {
	var o agents.Onboarding
	var status, scope string
	var meta, userID, keyID, sealed sql.NullString
	var delivered sql.NullTime
	if err := row.Scan(&o.ID, &o.MagicHash, &o.PollSecretHash, &o.SealPublicKey, &status, &o.OwnerEmail, &o.OwnerFirstName,
		&o.OwnerLastName, &scope, &o.AgentLabel, &meta, &userID, &keyID, &sealed, &delivered, &o.ExpiresAt,
		&o.CreatedAt, &o.UpdatedAt); err != nil {
		return nil, notFound(err, "onboarding session")
	}
	o.Status, o.DesiredScope = agents.OnboardingStatus(status), agents.Scope(scope)
	o.UserID, o.KeyID, o.SealedKey = userID.String, keyID.String, sealed.String
	o.KeyDeliveredAt = nullTime(delivered)
	o.ExpiresAt, o.CreatedAt, o.UpdatedAt = o.ExpiresAt.UTC(), o.CreatedAt.UTC(), o.UpdatedAt.UTC()
	if meta.Valid && meta.String != "" {
		if err := json.Unmarshal([]byte(meta.String), &o.AgentMetadata); err != nil {
			return nil, market.Internal(err)
		}
	}
	return &o, nil
}
