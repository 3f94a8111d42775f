package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"time"

	"marketplace/internal/market"
)

// Console sessions (CONTRACT.md section 20): a person signed in to the web
// console holds a random secret in a cookie; the store keeps only its
// SHA-256, so a copy of the database signs nobody in. A session is apart
// from the API's bearer tokens: neither works in the other's place.
const (
	// SessionTTL is how long a session lasts from sign-in at most.
	SessionTTL = 30 * 24 * time.Hour
	// SessionIdle ends a session nobody used for this long.
	SessionIdle = 7 * 24 * time.Hour
	// sessionTouch is how stale SeenAt may get before a use writes it
	// again: a page view is a read, not a write, most of the time.
	sessionTouch = time.Hour
)

// Session is a console sign-in.
type Session struct {
	Hash      string // SHA-256 of the cookie's secret, hex
	UserID    string
	CreatedAt time.Time
	SeenAt    time.Time
	ExpiresAt time.Time
}

// SessionTx is what the sessions need of the store; accounts.Tx has it.
type SessionTx interface {
	CreateSession(ctx context.Context, s *Session) error
	// SessionByHash finds a session (NOT_FOUND when there is none).
	SessionByHash(ctx context.Context, hash string) (*Session, error)
	TouchSession(ctx context.Context, hash string, seenAt time.Time) error
	// DeleteSession ends one session; ending one already gone is no error.
	DeleteSession(ctx context.Context, hash string) error
	// DeleteUserSessions ends every session of a user, and every session
	// of anyone that expired before cutoff.
	DeleteUserSessions(ctx context.Context, userID string, cutoff time.Time) error
}

// SessionHash is the stored form of a session secret.
func SessionHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// StartSession signs userID in to the console with a new secret, which the
// caller puts in the cookie; a secret is never reused or taken from the
// client (no session fixation). Sessions that expired are cleared on the way.
func (s *Service) StartSession(ctx context.Context, userID string) (string, *Session, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", nil, market.Internal(err)
	}
	secret := base64.RawURLEncoding.EncodeToString(b)
	now := realNow()
	sess := &Session{Hash: SessionHash(secret), UserID: userID, CreatedAt: now, SeenAt: now, ExpiresAt: now.Add(SessionTTL)}
	err := s.store.InTx(ctx, func(tx Tx) error {
		if err := tx.DeleteUserSessions(ctx, "", now); err != nil {
			return err
		}
		return tx.CreateSession(ctx, sess)
	})
	if err != nil {
		return "", nil, err
	}
	return secret, sess, nil
}

// SessionUser resolves a session secret to its active user. An unknown,
// expired or idle session, or a blocked user, is UNAUTHORIZED: the console
// shows "Sign in" for all of them.
func (s *Service) SessionUser(ctx context.Context, secret string) (*User, *Session, error) {
	none := market.Errorf(market.CodeUnauthorized, "not signed in")
	if secret == "" || len(secret) > 100 {
		return nil, nil, none
	}
	sess, err := s.store.Read().SessionByHash(ctx, SessionHash(secret))
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, nil, none
	}
	if err != nil {
		return nil, nil, err
	}
	now := realNow()
	if !now.Before(sess.ExpiresAt) || !now.Before(sess.SeenAt.Add(SessionIdle)) {
		return nil, nil, none
	}
	u, err := s.store.Read().UserByID(ctx, sess.UserID)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, nil, none
	}
	if err != nil {
		return nil, nil, err
	}
	if u.Blocked() {
		return nil, nil, none
	}
	if now.Sub(sess.SeenAt) > sessionTouch {
		if err := s.store.InTx(ctx, func(tx Tx) error { return tx.TouchSession(ctx, sess.Hash, now) }); err != nil {
			return nil, nil, err
		}
		sess.SeenAt = now
	}
	return u, sess, nil
}

// EndSession signs one session out.
func (s *Service) EndSession(ctx context.Context, secret string) error {
	return s.store.InTx(ctx, func(tx Tx) error { return tx.DeleteSession(ctx, SessionHash(secret)) })
}

// realNow is the wall clock: like token expiry, sessions ignore the sandbox
// clock, so advancing sandbox time signs nobody out.
func realNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
