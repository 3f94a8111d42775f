package store

import (
	"context"
	"encoding/json"

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
