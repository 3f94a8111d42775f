package store

import (
	"context"
	"database/sql"
	"time"

	"marketplace/internal/accounts"
)

// The accounts area's external sign-in (accounts.Tx): identities linked at
// an OpenID provider, and the sign-in flows under way.

const identityColumns = `provider, subject, user_id, email, created_at`

func scanIdentity(row scanner) (*accounts.Identity, error) {
	var id accounts.Identity
	if err := row.Scan(&id.Provider, &id.Subject, &id.UserID, &id.Email, &id.CreatedAt); err != nil {
		return nil, notFound(err, "identity")
	}
	id.CreatedAt = id.CreatedAt.UTC()
	return &id, nil
}

// IdentityBySubject finds the link of provider's subject.
func (tx *Tx) IdentityBySubject(ctx context.Context, provider, subject string) (*accounts.Identity, error) {
	return scanIdentity(tx.queryRow(ctx, `SELECT `+identityColumns+` FROM user_identities WHERE provider = ? AND subject = ?`,
		provider, subject))
}

// IdentityOfUser finds userID's link at provider.
func (tx *Tx) IdentityOfUser(ctx context.Context, provider, userID string) (*accounts.Identity, error) {
	return scanIdentity(tx.queryRow(ctx, `SELECT `+identityColumns+` FROM user_identities WHERE provider = ? AND user_id = ?`,
		provider, userID))
}

// CreateIdentity inserts id. The unique indexes keep one subject to one
// user and one link per provider and user.
func (tx *Tx) CreateIdentity(ctx context.Context, id *accounts.Identity) error {
	_, err := tx.exec(ctx, `INSERT INTO user_identities (`+identityColumns+`) VALUES (?, ?, ?, ?, ?)`,
		id.Provider, id.Subject, id.UserID, id.Email, id.CreatedAt)
	switch {
	case isUnique(err, "subject"):
		return accounts.AlreadyLinked(true)
	case isUnique(err, "user_identities"):
		return accounts.AlreadyLinked(false)
	}
	return wrap(err)
}

// CreateOIDCState records a started sign-in.
func (tx *Tx) CreateOIDCState(ctx context.Context, st *accounts.OIDCState) error {
	var link any
	if st.LinkUserID != "" {
		link = st.LinkUserID
	}
	_, err := tx.exec(ctx, `INSERT INTO oidc_states (id, nonce, code_verifier, return_to, link_user_id, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, st.ID, st.Nonce, st.Verifier, st.ReturnTo, link, st.CreatedAt, st.ExpiresAt)
	return wrap(err)
}

// TakeOIDCState deletes a started sign-in and returns it, in one statement:
// of two callbacks with the same state, one gets it and the other
// NOT_FOUND, on either engine.
func (tx *Tx) TakeOIDCState(ctx context.Context, id string) (*accounts.OIDCState, error) {
	var st accounts.OIDCState
	var link sql.NullString
	err := tx.queryRow(ctx, `DELETE FROM oidc_states WHERE id = ?
		RETURNING id, nonce, code_verifier, return_to, link_user_id, created_at, expires_at`, id).
		Scan(&st.ID, &st.Nonce, &st.Verifier, &st.ReturnTo, &link, &st.CreatedAt, &st.ExpiresAt)
	if err != nil {
		return nil, notFound(err, "sign-in state")
	}
	st.LinkUserID, st.CreatedAt, st.ExpiresAt = link.String, st.CreatedAt.UTC(), st.ExpiresAt.UTC()
	return &st, nil
}

// DeleteExpiredOIDCStates removes the sign-ins that can no longer finish.
func (tx *Tx) DeleteExpiredOIDCStates(ctx context.Context, now time.Time) error {
	_, err := tx.exec(ctx, `DELETE FROM oidc_states WHERE expires_at <= ?`, now)
	return wrap(err)
}
