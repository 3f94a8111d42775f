package store

import (
	"context"
	"database/sql"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
)

// The accounts area's chat link: the link columns of users and the codes
// the chat bot hands out (discord_link_codes).

// discordDest scans the link columns of userColumns.
type discordDest struct {
	id, username sql.NullString
	linkedAt     sql.NullTime
}

func (d *discordDest) link() *accounts.DiscordLink {
	if !d.id.Valid {
		return nil
	}
	return &accounts.DiscordLink{DiscordUserID: d.id.String, DiscordUsername: d.username.String,
		LinkedAt: d.linkedAt.Time.UTC()}
}

// discordArgs are the link columns' values for link (NULLs for none).
func discordArgs(link *accounts.DiscordLink) [3]any {
	if link == nil {
		return [3]any{nil, nil, nil}
	}
	return [3]any{link.DiscordUserID, link.DiscordUsername, link.LinkedAt}
}

// UserByDiscordID finds the user a chat account is linked to.
func (tx *Tx) UserByDiscordID(ctx context.Context, discordUserID string) (*accounts.User, error) {
	return scanUser(tx.queryRow(ctx, `SELECT `+userColumns+` FROM users WHERE discord_user_id = ?`, discordUserID))
}

// SetDiscordLink writes (or with nil, clears) userID's chat link alone; a
// chat account already linked to another user is INVALID_STATE.
func (tx *Tx) SetDiscordLink(ctx context.Context, userID string, link *accounts.DiscordLink, updatedAt time.Time) error {
	d := discordArgs(link)
	res, err := tx.exec(ctx, `UPDATE users SET discord_user_id = ?, discord_username = ?, discord_linked_at = ?, updated_at = ?
		WHERE id = ?`, d[0], d[1], d[2], updatedAt, userID)
	if isUnique(err, "discord_user_id") {
		return market.Errorf(market.CodeInvalidState, "this chat account is linked to another user")
	}
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "user")
}

const discordCodeColumns = `code_hash, discord_user_id, discord_username, expires_at, used_at, created_at`

// CreateDiscordCode stores an issued code.
func (tx *Tx) CreateDiscordCode(ctx context.Context, c *accounts.DiscordCode) error {
	_, err := tx.exec(ctx, `INSERT INTO discord_link_codes (`+discordCodeColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
		c.Hash, c.DiscordUserID, c.DiscordUsername, c.ExpiresAt, c.UsedAt, c.CreatedAt)
	return wrap(err)
}

// DiscordCodeByHash finds a code by its hash, locking it inside a
// transaction.
func (tx *Tx) DiscordCodeByHash(ctx context.Context, hash string) (*accounts.DiscordCode, error) {
	var c accounts.DiscordCode
	var used sql.NullTime
	err := tx.queryRow(ctx, `SELECT `+discordCodeColumns+` FROM discord_link_codes WHERE code_hash = ?`+tx.lockInTx(), hash).
		Scan(&c.Hash, &c.DiscordUserID, &c.DiscordUsername, &c.ExpiresAt, &used, &c.CreatedAt)
	if err != nil {
		return nil, notFound(err, "code")
	}
	c.UsedAt, c.ExpiresAt, c.CreatedAt = nullTime(used), c.ExpiresAt.UTC(), c.CreatedAt.UTC()
	return &c, nil
}

// UseDiscordCode marks a code used, once: false when it was used already.
func (tx *Tx) UseDiscordCode(ctx context.Context, hash string, at time.Time) (bool, error) {
	res, err := tx.exec(ctx, `UPDATE discord_link_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL`, at, hash)
	if err != nil {
		return false, wrap(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, wrap(err)
	}
	return n == 1, nil
}

// DeleteDiscordCodes removes discordUserID's codes and every code that
// expired before cutoff.
func (tx *Tx) DeleteDiscordCodes(ctx context.Context, discordUserID string, cutoff time.Time) error {
	_, err := tx.exec(ctx, `DELETE FROM discord_link_codes WHERE discord_user_id = ? OR expires_at < ?`, discordUserID, cutoff)
	return wrap(err)
}
