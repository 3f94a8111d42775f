package store

import (
	"context"
	"encoding/json"

	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// The payments area's sandbox processor (payments.SandboxTx): its
// customers, setup intents, cards, payments, refunds, transfers and their
// reversals, and dashboard links, kept in this service's database.
var _ payments.SandboxTx = (*Tx)(nil)

// InsertSandboxCustomer adds c unless its user has a customer.
func (tx *Tx) InsertSandboxCustomer(ctx context.Context, c *payments.SandboxCustomer) (bool, error) {
	res, err := tx.exec(ctx, `INSERT INTO sandbox_customers (id, user_id, email, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (user_id) DO NOTHING`, c.ID, c.UserID, c.Email, c.CreatedAt)
	return inserted(res, err)
}

// SandboxCustomer finds a customer by id.
func (tx *Tx) SandboxCustomer(ctx context.Context, id string) (*payments.SandboxCustomer, error) {
	return scanSandboxCustomer(tx.queryRow(ctx, `SELECT id, user_id, email, created_at FROM sandbox_customers WHERE id = ?`, id))
}

// SandboxCustomerOf finds a user's customer.
func (tx *Tx) SandboxCustomerOf(ctx context.Context, userID string) (*payments.SandboxCustomer, error) {
	return scanSandboxCustomer(tx.queryRow(ctx, `SELECT id, user_id, email, created_at FROM sandbox_customers WHERE user_id = ?`, userID))
}

func scanSandboxCustomer(row scanner) (*payments.SandboxCustomer, error) {
	var c payments.SandboxCustomer
	if err := row.Scan(&c.ID, &c.UserID, &c.Email, &c.CreatedAt); err != nil {
		return nil, notFound(err, "customer")
	}
	c.CreatedAt = c.CreatedAt.UTC()
	return &c, nil
}

// CreateSandboxSetupIntent inserts si.
func (tx *Tx) CreateSandboxSetupIntent(ctx context.Context, si *payments.SandboxSetupIntent) error {
	_, err := tx.exec(ctx, `INSERT INTO sandbox_setup_intents (id, customer_id, client_secret, status, payment_method_id,
		confirmed_with, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		si.ID, si.CustomerID, si.ClientSecret, si.Status, si.PaymentMethodID, si.ConfirmedWith, si.CreatedAt)
	return wrap(err)
}

// SandboxSetupIntent finds a setup intent, locking it inside a transaction.
func (tx *Tx) SandboxSetupIntent(ctx context.Context, id string) (*payments.SandboxSetupIntent, error) {
	var si payments.SandboxSetupIntent
	err := tx.queryRow(ctx, `SELECT id, customer_id, client_secret, status, payment_method_id, confirmed_with, created_at
		FROM sandbox_setup_intents WHERE id = ?`+tx.lockInTx(), id).
		Scan(&si.ID, &si.CustomerID, &si.ClientSecret, &si.Status, &si.PaymentMethodID, &si.ConfirmedWith, &si.CreatedAt)
	if err != nil {
		return nil, notFound(err, "setup intent")
	}
	si.CreatedAt = si.CreatedAt.UTC()
	return &si, nil
}

// UpdateSandboxSetupIntent writes si's status and card.
func (tx *Tx) UpdateSandboxSetupIntent(ctx context.Context, si *payments.SandboxSetupIntent) error {
	res, err := tx.exec(ctx, `UPDATE sandbox_setup_intents SET status = ?, payment_method_id = ?, confirmed_with = ? WHERE id = ?`,
		si.Status, si.PaymentMethodID, si.ConfirmedWith, si.ID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "setup intent")
}

// CreateSandboxCard inserts c.
func (tx *Tx) CreateSandboxCard(ctx context.Context, c *payments.SandboxCard) error {
	_, err := tx.exec(ctx, `INSERT INTO sandbox_payment_methods (id, customer_id, outcome, brand, last4, exp_month, exp_year, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, c.ID, c.CustomerID, string(c.Outcome), c.Brand, c.Last4, c.ExpMonth, c.ExpYear, c.CreatedAt)
	return wrap(err)
}

// SandboxCard finds a card.
func (tx *Tx) SandboxCard(ctx context.Context, id string) (*payments.SandboxCard, error) {
	var c payments.SandboxCard
	var outcome string
	err := tx.queryRow(ctx, `SELECT id, customer_id, outcome, brand, last4, exp_month, exp_year, created_at
		FROM sandbox_payment_methods WHERE id = ?`, id).
		Scan(&c.ID, &c.CustomerID, &outcome, &c.Brand, &c.Last4, &c.ExpMonth, &c.ExpYear, &c.CreatedAt)
	if err != nil {
		return nil, notFound(err, "payment method")
	}
	c.Outcome, c.CreatedAt = payments.CardOutcome(outcome), c.CreatedAt.UTC()
	return &c, nil
}

// DetachSandboxCard detaches a card from its customer (again is fine).
func (tx *Tx) DetachSandboxCard(ctx context.Context, id string) error {
	res, err := tx.exec(ctx, `UPDATE sandbox_payment_methods SET customer_id = '' WHERE id = ?`, id)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "payment method")
}

const sandboxPaymentColumns = `id, idempotency_key, customer_id, payment_method_id, amount, amount_refunded, currency, status,
	client_secret, failure_code, failure_message, description, metadata, created_at, updated_at`

// InsertSandboxPayment adds p unless its idempotency key is taken. On
// PostgreSQL a concurrent insert of the same key waits for the first
// transaction and then does nothing, so the caller reads the winner's row.
func (tx *Tx) InsertSandboxPayment(ctx context.Context, p *payments.SandboxPayment) (bool, error) {
	meta, err := jsonText(p.Metadata)
	if err != nil {
		return false, err
	}
	res, err := tx.exec(ctx, `INSERT INTO sandbox_payments (`+sandboxPaymentColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING`,
		p.ID, p.IdempotencyKey, p.CustomerID, p.PaymentMethodID, p.Amount, p.AmountRefunded, p.Currency, string(p.Status),
		p.ClientSecret, p.FailureCode, p.FailureMessage, p.Description, meta, p.CreatedAt, p.UpdatedAt)
	return inserted(res, err)
}

// SandboxPayment finds a payment, locking it inside a transaction.
func (tx *Tx) SandboxPayment(ctx context.Context, id string) (*payments.SandboxPayment, error) {
	return scanSandboxPayment(tx.queryRow(ctx, `SELECT `+sandboxPaymentColumns+` FROM sandbox_payments WHERE id = ?`+tx.lockInTx(), id))
}

// SandboxPaymentByKey finds the payment of an idempotency key.
func (tx *Tx) SandboxPaymentByKey(ctx context.Context, key string) (*payments.SandboxPayment, error) {
	return scanSandboxPayment(tx.queryRow(ctx, `SELECT `+sandboxPaymentColumns+` FROM sandbox_payments WHERE idempotency_key = ?`, key))
}

// UpdateSandboxPayment writes p's state.
func (tx *Tx) UpdateSandboxPayment(ctx context.Context, p *payments.SandboxPayment) error {
	res, err := tx.exec(ctx, `UPDATE sandbox_payments SET status = ?, amount_refunded = ?, failure_code = ?, failure_message = ?,
		updated_at = ? WHERE id = ?`, string(p.Status), p.AmountRefunded, p.FailureCode, p.FailureMessage, p.UpdatedAt, p.ID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "payment")
}

func scanSandboxPayment(row scanner) (*payments.SandboxPayment, error) {
	var p payments.SandboxPayment
	var status, meta string
	if err := row.Scan(&p.ID, &p.IdempotencyKey, &p.CustomerID, &p.PaymentMethodID, &p.Amount, &p.AmountRefunded, &p.Currency,
		&status, &p.ClientSecret, &p.FailureCode, &p.FailureMessage, &p.Description, &meta, &p.CreatedAt, &p.UpdatedAt); err != nil {
		return nil, notFound(err, "payment")
	}
	if err := json.Unmarshal([]byte(meta), &p.Metadata); err != nil {
		return nil, market.Internal(err)
	}
	p.Status, p.CreatedAt, p.UpdatedAt = payments.PaymentStatus(status), p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	return &p, nil
}

// InsertSandboxRefund adds r unless its idempotency key is taken.
func (tx *Tx) InsertSandboxRefund(ctx context.Context, r *payments.SandboxRefund) (bool, error) {
	res, err := tx.exec(ctx, `INSERT INTO sandbox_refunds (id, payment_id, amount, status, idempotency_key, reason, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING`,
		r.ID, r.PaymentID, r.Amount, r.Status, r.IdempotencyKey, r.Reason, r.CreatedAt)
	return inserted(res, err)
}

// SandboxRefundByKey finds the refund of an idempotency key.
func (tx *Tx) SandboxRefundByKey(ctx context.Context, key string) (*payments.SandboxRefund, error) {
	var r payments.SandboxRefund
	err := tx.queryRow(ctx, `SELECT id, payment_id, amount, status, idempotency_key, reason, created_at
		FROM sandbox_refunds WHERE idempotency_key = ?`, key).
		Scan(&r.ID, &r.PaymentID, &r.Amount, &r.Status, &r.IdempotencyKey, &r.Reason, &r.CreatedAt)
	if err != nil {
		return nil, notFound(err, "refund")
	}
	r.CreatedAt = r.CreatedAt.UTC()
	return &r, nil
}

const sandboxTransferColumns = `id, destination, amount, reversed, idempotency_key, metadata, created_at`

// InsertSandboxTransfer adds t unless its idempotency key is taken.
func (tx *Tx) InsertSandboxTransfer(ctx context.Context, t *payments.SandboxTransfer) (bool, error) {
	meta, err := jsonText(t.Metadata)
	if err != nil {
		return false, err
	}
	res, err := tx.exec(ctx, `INSERT INTO sandbox_transfers (`+sandboxTransferColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (idempotency_key) DO NOTHING`, t.ID, t.Destination, t.Amount, t.Reversed, t.IdempotencyKey, meta, t.CreatedAt)
	return inserted(res, err)
}

// SandboxTransferByKey finds the transfer of an idempotency key.
func (tx *Tx) SandboxTransferByKey(ctx context.Context, key string) (*payments.SandboxTransfer, error) {
	return scanSandboxTransfer(tx.queryRow(ctx, `SELECT `+sandboxTransferColumns+` FROM sandbox_transfers WHERE idempotency_key = ?`, key))
}

// SandboxTransfersTo lists the transfers to an account, newest first.
func (tx *Tx) SandboxTransfersTo(ctx context.Context, destination string) ([]payments.SandboxTransfer, error) {
	return queryAll(ctx, tx, scanSandboxTransfer, `SELECT `+sandboxTransferColumns+` FROM sandbox_transfers WHERE destination = ?
		ORDER BY created_at DESC, id DESC`, destination)
}

func scanSandboxTransfer(row scanner) (*payments.SandboxTransfer, error) {
	var t payments.SandboxTransfer
	var meta string
	if err := row.Scan(&t.ID, &t.Destination, &t.Amount, &t.Reversed, &t.IdempotencyKey, &meta, &t.CreatedAt); err != nil {
		return nil, notFound(err, "transfer")
	}
	if err := json.Unmarshal([]byte(meta), &t.Metadata); err != nil {
		return nil, market.Internal(err)
	}
	t.CreatedAt = t.CreatedAt.UTC()
	return &t, nil
}

// ---- the sandbox processor's transfer reversals ----

// SandboxTransfer finds a transfer, locking it inside a transaction.
func (tx *Tx) SandboxTransfer(ctx context.Context, id string) (*payments.SandboxTransfer, error) {
	return scanSandboxTransfer(tx.queryRow(ctx, `SELECT `+sandboxTransferColumns+` FROM sandbox_transfers WHERE id = ?`+
		tx.lockInTx(), id))
}

// AddSandboxReversal inserts r unless its idempotency key is taken, and adds
// its amount to the transfer's reversed.
func (tx *Tx) AddSandboxReversal(ctx context.Context, r *payments.SandboxReversal) (bool, error) {
	added, err := inserted(tx.exec(ctx, `INSERT INTO sandbox_transfer_reversals (id, transfer_id, amount, idempotency_key,
		created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING`,
		r.ID, r.TransferID, r.Amount, r.IdempotencyKey, r.CreatedAt))
	if err != nil || !added {
		return false, err
	}
	res, err := tx.exec(ctx, `UPDATE sandbox_transfers SET reversed = reversed + ? WHERE id = ?`, r.Amount, r.TransferID)
	if err != nil {
		return false, wrap(err)
	}
	return true, affectedOne(res, "transfer")
}

// SandboxReversalByKey finds the reversal of an idempotency key.
func (tx *Tx) SandboxReversalByKey(ctx context.Context, key string) (*payments.SandboxReversal, error) {
	var r payments.SandboxReversal
	err := tx.queryRow(ctx, `SELECT id, transfer_id, amount, idempotency_key, created_at FROM sandbox_transfer_reversals
		WHERE idempotency_key = ?`, key).Scan(&r.ID, &r.TransferID, &r.Amount, &r.IdempotencyKey, &r.CreatedAt)
	if err != nil {
		return nil, notFound(err, "transfer reversal")
	}
	r.CreatedAt = r.CreatedAt.UTC()
	return &r, nil
}

// CreateSandboxDashboardLink inserts l.
func (tx *Tx) CreateSandboxDashboardLink(ctx context.Context, l *payments.SandboxDashboardLink) error {
	_, err := tx.exec(ctx, `INSERT INTO sandbox_dashboard_links (token, account_id, expires_at, created_at) VALUES (?, ?, ?, ?)`,
		l.Token, l.AccountID, l.ExpiresAt, l.CreatedAt)
	return wrap(err)
}

// SandboxDashboardLink finds a dashboard link, expired or not.
func (tx *Tx) SandboxDashboardLink(ctx context.Context, token string) (*payments.SandboxDashboardLink, error) {
	var l payments.SandboxDashboardLink
	err := tx.queryRow(ctx, `SELECT token, account_id, expires_at, created_at FROM sandbox_dashboard_links WHERE token = ?`, token).
		Scan(&l.Token, &l.AccountID, &l.ExpiresAt, &l.CreatedAt)
	if err != nil {
		return nil, notFound(err, "dashboard link")
	}
	l.ExpiresAt, l.CreatedAt = l.ExpiresAt.UTC(), l.CreatedAt.UTC()
	return &l, nil
}

// jsonText encodes metadata for a TEXT column ({} for none).
func jsonText(m map[string]string) (string, error) {
	if m == nil {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", market.Internal(err)
	}
	return string(b), nil
}

const vaultTokenColumns = `id, owner, outcome, brand, last4, exp_month, exp_year, max_amount, currency, checkout_session_id,
	merchant_id, expires_at, metadata, payment_id, created_at`

// CreateSandboxVaultToken inserts a delegated card token.
func (tx *Tx) CreateSandboxVaultToken(ctx context.Context, t *payments.VaultToken) error {
	meta, err := json.Marshal(t.Metadata)
	if err != nil {
		return market.Internal(err)
	}
	a := t.Allow
	_, err = tx.exec(ctx, `INSERT INTO sandbox_vault_tokens (`+vaultTokenColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.Owner, string(t.Outcome), t.Brand, t.Last4, t.ExpMonth, t.ExpYear, a.MaxAmount, a.Currency, a.CheckoutSessionID,
		a.MerchantID, a.ExpiresAt, string(meta), t.PaymentID, t.CreatedAt)
	return wrap(err)
}

// SandboxVaultToken finds a delegated card token, locking it inside a
// transaction.
func (tx *Tx) SandboxVaultToken(ctx context.Context, id string) (*payments.VaultToken, error) {
	var t payments.VaultToken
	var outcome, meta string
	a := &t.Allow
	err := tx.queryRow(ctx, `SELECT `+vaultTokenColumns+` FROM sandbox_vault_tokens WHERE id = ?`+tx.lockInTx(), id).
		Scan(&t.ID, &t.Owner, &outcome, &t.Brand, &t.Last4, &t.ExpMonth, &t.ExpYear, &a.MaxAmount, &a.Currency,
			&a.CheckoutSessionID, &a.MerchantID, &a.ExpiresAt, &meta, &t.PaymentID, &t.CreatedAt)
	if err != nil {
		return nil, notFound(err, "payment token")
	}
	if err := json.Unmarshal([]byte(meta), &t.Metadata); err != nil {
		return nil, market.Internal(err)
	}
	t.Outcome, t.CreatedAt, a.ExpiresAt = payments.CardOutcome(outcome), t.CreatedAt.UTC(), a.ExpiresAt.UTC()
	return &t, nil
}

// UpdateSandboxVaultToken records the payment that used a token.
func (tx *Tx) UpdateSandboxVaultToken(ctx context.Context, t *payments.VaultToken) error {
	res, err := tx.exec(ctx, `UPDATE sandbox_vault_tokens SET payment_id = ? WHERE id = ?`, t.PaymentID, t.ID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "payment token")
}
