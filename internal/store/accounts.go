package store

import (
	"context"
	"database/sql"
	"encoding/json"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
)

// The accounts area (accounts.Tx): users, the per-user lock and saved
// addresses. userDest scans a user for other areas' joins too.
var _ accounts.Tx = (*Tx)(nil)

const userColumns = `id, email, username, display_name, avatar_url, password_hash, role, status, trust_tier, identity_verified, ship_from, created_at, updated_at, discord_user_id, discord_username, discord_linked_at`

// CreateUser inserts u; a taken e-mail or username is EMAIL_TAKEN or
// USERNAME_TAKEN.
func (tx *Tx) CreateUser(ctx context.Context, u *accounts.User) error {
	shipFrom, err := marshalShipFrom(u.ShipFrom)
	if err != nil {
		return err
	}
	d := discordArgs(u.Discord)
	_, err = tx.exec(ctx, `INSERT INTO users (`+userColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.ID, u.Email, u.Username, u.DisplayName, u.AvatarURL, u.PasswordHash, string(u.Role), string(u.Status),
		string(u.TrustTier), u.IdentityVerified, shipFrom, u.CreatedAt, u.UpdatedAt, d[0], d[1], d[2])
	return userConflict(err)
}

// UpdateUser writes every mutable field of u but the chat link, which
// SetDiscordLink writes alone.
func (tx *Tx) UpdateUser(ctx context.Context, u *accounts.User) error {
	shipFrom, err := marshalShipFrom(u.ShipFrom)
	if err != nil {
		return err
	}
	res, err := tx.exec(ctx, `UPDATE users SET email = ?, username = ?, display_name = ?, avatar_url = ?, password_hash = ?,
		role = ?, status = ?, trust_tier = ?, identity_verified = ?, ship_from = ?, updated_at = ? WHERE id = ?`,
		u.Email, u.Username, u.DisplayName, u.AvatarURL, u.PasswordHash, string(u.Role), string(u.Status),
		string(u.TrustTier), u.IdentityVerified, shipFrom, u.UpdatedAt, u.ID)
	if err != nil {
		return userConflict(err)
	}
	return affectedOne(res, "user")
}

func userConflict(err error) error {
	switch {
	case err == nil:
		return nil
	case isUnique(err, "email"):
		return market.Errorf(market.CodeEmailTaken, "an account with this e-mail already exists")
	case isUnique(err, "username"):
		return market.Errorf(market.CodeUsernameTaken, "this username is taken")
	}
	return wrap(err)
}

// LockUser holds userID's row until the transaction ends, so that changes to
// what hangs off one account (its saved addresses: the limit and the one
// default) run one at a time. NO KEY UPDATE leaves inserts that merely
// reference the user (keys, orders) unblocked. SQLite has one writer at a
// time, so the transaction is the lock there.
func (tx *Tx) LockUser(ctx context.Context, userID string) error {
	lock := ""
	if tx.db.dialect == Postgres {
		lock = " FOR NO KEY UPDATE"
	}
	var id string
	return notFound(tx.queryRow(ctx, `SELECT id FROM users WHERE id = ?`+lock, userID).Scan(&id), "user")
}

// UserByID finds a user by id.
func (tx *Tx) UserByID(ctx context.Context, id string) (*accounts.User, error) {
	return scanUser(tx.queryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
}

// UserByEmail finds a user by normalized e-mail.
func (tx *Tx) UserByEmail(ctx context.Context, email string) (*accounts.User, error) {
	return scanUser(tx.queryRow(ctx, `SELECT `+userColumns+` FROM users WHERE email = ? AND role <> 'guest'`, email))
}

// GuestByEmail finds the guest buyer of a normalized e-mail.
func (tx *Tx) GuestByEmail(ctx context.Context, email string) (*accounts.User, error) {
	return scanUser(tx.queryRow(ctx, `SELECT `+userColumns+` FROM users WHERE email = ? AND role = 'guest'`, email))
}

// UserByUsername finds a user by normalized username.
func (tx *Tx) UserByUsername(ctx context.Context, username string) (*accounts.User, error) {
	return scanUser(tx.queryRow(ctx, `SELECT `+userColumns+` FROM users WHERE username = ?`, username))
}

func scanUser(row scanner) (*accounts.User, error) {
	var u accounts.User
	ptrs, finish := userDest(&u)
	if err := row.Scan(ptrs...); err != nil {
		return nil, notFound(err, "user")
	}
	return &u, finish()
}

// userDest returns scan targets for userColumns and a func that finishes
// the user once scanned.
func userDest(u *accounts.User) ([]any, func() error) {
	var role, status, tier string
	var shipFrom sql.NullString
	var discord discordDest
	ptrs := []any{&u.ID, &u.Email, &u.Username, &u.DisplayName, &u.AvatarURL, &u.PasswordHash, &role, &status,
		&tier, &u.IdentityVerified, &shipFrom, &u.CreatedAt, &u.UpdatedAt, &discord.id, &discord.username, &discord.linkedAt}
	return ptrs, func() error {
		u.Role, u.Status, u.TrustTier = accounts.Role(role), accounts.Status(status), accounts.TrustTier(tier)
		u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
		u.Discord = discord.link()
		u.ShipFrom = nil
		if shipFrom.Valid && shipFrom.String != "" {
			u.ShipFrom = new(accounts.Address)
			if err := json.Unmarshal([]byte(shipFrom.String), u.ShipFrom); err != nil {
				return market.Internal(err)
			}
		}
		return nil
	}
}

func marshalShipFrom(a *accounts.Address) (any, error) {
	if a == nil {
		return nil, nil
	}
	b, err := json.Marshal(a)
	if err != nil {
		return nil, market.Internal(err)
	}
	return string(b), nil
}

const addressColumns = `id, user_id, name, line1, line2, city, state, zip, country, phone, is_default, created_at`

// Addresses lists a user's saved addresses, default first, then newest.
func (tx *Tx) Addresses(ctx context.Context, userID string) ([]accounts.Address, error) {
	return queryAll(ctx, tx, scanAddress, `SELECT `+addressColumns+` FROM addresses WHERE user_id = ?
		ORDER BY is_default DESC, created_at DESC, id DESC`, userID)
}

func scanAddress(row scanner) (*accounts.Address, error) {
	var a accounts.Address
	if err := row.Scan(&a.ID, &a.UserID, &a.Name, &a.Line1, &a.Line2, &a.City, &a.State, &a.Zip, &a.Country,
		&a.Phone, &a.IsDefault, &a.CreatedAt); err != nil {
		return nil, wrap(err)
	}
	a.CreatedAt = a.CreatedAt.UTC()
	return &a, nil
}

// CreateAddress inserts a.
func (tx *Tx) CreateAddress(ctx context.Context, a *accounts.Address) error {
	_, err := tx.exec(ctx, `INSERT INTO addresses (`+addressColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.UserID, a.Name, a.Line1, a.Line2, a.City, a.State, a.Zip, a.Country, a.Phone, a.IsDefault, a.CreatedAt)
	return wrap(err)
}

// DeleteAddress removes one of userID's addresses.
func (tx *Tx) DeleteAddress(ctx context.Context, userID, id string) error {
	res, err := tx.exec(ctx, `DELETE FROM addresses WHERE id = ? AND user_id = ?`, id, userID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "address")
}

// SetDefaultAddress makes id the only default address of userID.
func (tx *Tx) SetDefaultAddress(ctx context.Context, userID, id string) error {
	res, err := tx.exec(ctx, `UPDATE addresses SET is_default = (id = ?) WHERE user_id = ? AND EXISTS
		(SELECT 1 FROM addresses a WHERE a.id = ? AND a.user_id = ?)`, id, userID, id, userID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "address")
}
