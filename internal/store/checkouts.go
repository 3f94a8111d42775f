package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"marketplace/internal/checkouts"
	"marketplace/internal/market"
)

// The checkouts area (checkouts.Tx).
var _ checkouts.Tx = (*Tx)(nil)

// Checkouts is db as checkouts.Store.
func Checkouts(db *DB) Area[checkouts.Tx] {
	return area(db, func(tx *Tx) checkouts.Tx { return tx })
}

const checkoutColumns = `id, key_id, platform_id, user_id, state, attempt, order_id, cart, created_at, updated_at`

// checkoutCart is the part of a session kept as one JSON document.
type checkoutCart struct {
	Buyer       *checkouts.Contact       `json:"buyer,omitempty"`
	Items       []checkouts.Item         `json:"items"`
	Destination *checkouts.Destination   `json:"destination,omitempty"`
	Options     []checkouts.Option       `json:"options,omitempty"`
	Selected    []checkouts.Selection    `json:"selected,omitempty"`
	SeenPrice   int64                    `json:"seen_price"`
	Currency    string                   `json:"currency"`
	ApprovalID  string                   `json:"approval_id,omitempty"`
	Payment     *checkouts.PaymentChoice `json:"payment,omitempty"`
}

func checkoutArgs(s *checkouts.Session) ([]any, error) {
	cart, err := json.Marshal(checkoutCart{Buyer: s.Buyer, Items: s.Items, Destination: s.Destination, Options: s.Options,
		Selected: s.Selected, SeenPrice: s.SeenPrice, Currency: s.Currency, ApprovalID: s.ApprovalID, Payment: s.Payment})
	if err != nil {
		return nil, market.Internal(err)
	}
	return []any{s.ID, s.KeyID, s.PlatformID, s.UserID, string(s.State), s.Attempt, s.OrderID, string(cart), s.CreatedAt,
		s.UpdatedAt}, nil
}

// CreateCheckout inserts s.
func (tx *Tx) CreateCheckout(ctx context.Context, s *checkouts.Session) error {
	args, err := checkoutArgs(s)
	if err != nil {
		return err
	}
	_, err = tx.exec(ctx, `INSERT INTO checkout_sessions (`+checkoutColumns+`) VALUES (`+placeholders(len(args))+`)`, args...)
	return wrap(err)
}

// UpdateCheckout writes every mutable field of s.
func (tx *Tx) UpdateCheckout(ctx context.Context, s *checkouts.Session) error {
	args, err := checkoutArgs(s)
	if err != nil {
		return err
	}
	// Skip id and the credential: they never change.
	res, err := tx.exec(ctx, `UPDATE checkout_sessions SET user_id = ?, state = ?, attempt = ?, order_id = ?, cart = ?,
		created_at = ?, updated_at = ? WHERE id = ?`, append(args[3:], s.ID)...)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "checkout session")
}

// CheckoutByID finds a session, locking it inside a transaction.
func (tx *Tx) CheckoutByID(ctx context.Context, id string) (*checkouts.Session, error) {
	var s checkouts.Session
	var state, cart string
	err := tx.queryRow(ctx, `SELECT `+checkoutColumns+` FROM checkout_sessions WHERE id = ?`+tx.lockInTx(), id).Scan(
		&s.ID, &s.KeyID, &s.PlatformID, &s.UserID, &state, &s.Attempt, &s.OrderID, &cart, &s.CreatedAt, &s.UpdatedAt)
	if err != nil {
		return nil, notFound(err, "checkout session")
	}
	var c checkoutCart
	if err := json.Unmarshal([]byte(cart), &c); err != nil {
		return nil, market.Internal(err)
	}
	s.State = checkouts.State(state)
	s.Buyer, s.Items, s.Destination, s.Options, s.Selected = c.Buyer, c.Items, c.Destination, c.Options, c.Selected
	s.SeenPrice, s.Currency, s.ApprovalID, s.Payment = c.SeenPrice, c.Currency, c.ApprovalID, c.Payment
	s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
	return &s, nil
}

// The agent platforms (checkouts.PlatformTx).
var _ checkouts.PlatformTx = (*Tx)(nil)

// Platforms is db as checkouts.PlatformStore.
func Platforms(db *DB) Area[checkouts.PlatformTx] {
	return area(db, func(tx *Tx) checkouts.PlatformTx { return tx })
}

const platformColumns = `id, account_id, endpoint_id, name, webhook_url, secret_hash, signing_secret, created_at, deleted_at`

// CreatePlatform inserts p.
func (tx *Tx) CreatePlatform(ctx context.Context, p *checkouts.Platform) error {
	_, err := tx.exec(ctx, `INSERT INTO acp_platforms (`+platformColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.ID, p.AccountID, p.EndpointID, p.Name, p.WebhookURL, p.SecretHash, p.SigningSecret, p.CreatedAt, p.DeletedAt)
	return wrap(err)
}

func scanPlatform(row scanner) (*checkouts.Platform, error) {
	var p checkouts.Platform
	var deleted sql.NullTime
	if err := row.Scan(&p.ID, &p.AccountID, &p.EndpointID, &p.Name, &p.WebhookURL, &p.SecretHash, &p.SigningSecret, &p.CreatedAt, &deleted); err != nil {
		return nil, notFound(err, "platform")
	}
	p.CreatedAt, p.DeletedAt = p.CreatedAt.UTC(), nullTime(deleted)
	return &p, nil
}

// PlatformByID finds a platform, locking it inside a transaction.
func (tx *Tx) PlatformByID(ctx context.Context, id string) (*checkouts.Platform, error) {
	return scanPlatform(tx.queryRow(ctx, `SELECT `+platformColumns+` FROM acp_platforms WHERE id = ?`+tx.lockInTx(), id))
}

// PlatformBySecret finds the live platform of a secret hash.
func (tx *Tx) PlatformBySecret(ctx context.Context, hash string) (*checkouts.Platform, error) {
	return scanPlatform(tx.queryRow(ctx, `SELECT `+platformColumns+` FROM acp_platforms WHERE secret_hash = ? AND deleted_at IS NULL`, hash))
}

// Platforms lists the live platforms, oldest first.
func (tx *Tx) Platforms(ctx context.Context) ([]checkouts.Platform, error) {
	return queryAll(ctx, tx, scanPlatform, `SELECT `+platformColumns+` FROM acp_platforms WHERE deleted_at IS NULL ORDER BY created_at, id`)
}

// DeletePlatform marks a platform deleted.
func (tx *Tx) DeletePlatform(ctx context.Context, id string, at time.Time) error {
	res, err := tx.exec(ctx, `UPDATE acp_platforms SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`, at, id)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "platform")
}
