package store

import (
	"context"
	"time"

	"marketplace/internal/accounts"
)

// The accounts area's console sessions (console_sessions), kept as the
// SHA-256 of the cookie's secret.

// CreateSession stores a new session.
func (tx *Tx) CreateSession(ctx context.Context, s *accounts.Session) error {
	_, err := tx.exec(ctx, `INSERT INTO console_sessions (id_hash, user_id, created_at, seen_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
		s.Hash, s.UserID, s.CreatedAt, s.SeenAt, s.ExpiresAt)
	return wrap(err)
}

// SessionByHash finds a session by its hash.
func (tx *Tx) SessionByHash(ctx context.Context, hash string) (*accounts.Session, error) {
	var s accounts.Session
	err := tx.queryRow(ctx, `SELECT id_hash, user_id, created_at, seen_at, expires_at FROM console_sessions WHERE id_hash = ?`, hash).
		Scan(&s.Hash, &s.UserID, &s.CreatedAt, &s.SeenAt, &s.ExpiresAt)
	if err != nil {
		return nil, notFound(err, "session")
	}
	s.CreatedAt, s.SeenAt, s.ExpiresAt = s.CreatedAt.UTC(), s.SeenAt.UTC(), s.ExpiresAt.UTC()
	return &s, nil
}

// TouchSession records that a session was used.
func (tx *Tx) TouchSession(ctx context.Context, hash string, seenAt time.Time) error {
	_, err := tx.exec(ctx, `UPDATE console_sessions SET seen_at = ? WHERE id_hash = ?`, seenAt, hash)
	return wrap(err)
}

// DeleteSession ends one session.
func (tx *Tx) DeleteSession(ctx context.Context, hash string) error {
	_, err := tx.exec(ctx, `DELETE FROM console_sessions WHERE id_hash = ?`, hash)
	return wrap(err)
}

// DeleteUserSessions ends userID's sessions and everyone's that expired
// before cutoff (userID "" ends only those).
func (tx *Tx) DeleteUserSessions(ctx context.Context, userID string, cutoff time.Time) error {
	_, err := tx.exec(ctx, `DELETE FROM console_sessions WHERE user_id = ? OR expires_at <= ?`, userID, cutoff)
	return wrap(err)
}
