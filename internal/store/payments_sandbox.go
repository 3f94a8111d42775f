package store

import (
	"context"
	"encoding/json"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/payments"
)

var _ payments.SandboxTx = (*Tx)(nil)

// PayoutAccountByExternalID finds the payout account of a processor account
// id.
func (tx *Tx) PayoutAccountByExternalID(ctx context.Context, externalID string) (*payments.PayoutAccount, error) {
	return scanPayout(tx.queryRow(ctx, `SELECT `+payoutColumns+` FROM payout_accounts WHERE external_id = ?`+tx.lockInTx(), externalID))
}

// ---- saved cards, our side ----

// PaymentCustomer is the user's customer id at the processor.
func (tx *Tx) PaymentCustomer(ctx context.Context, userID string) (string, error) {
	var id string
	err := tx.queryRow(ctx, `SELECT customer_id FROM payment_customers WHERE user_id = ?`, userID).Scan(&id)
	return id, notFound(err, "payment customer")
}

// InsertPaymentCustomer records the user's customer unless one is recorded.
func (tx *Tx) InsertPaymentCustomer(ctx context.Context, userID, processor, customerID string, at time.Time) (bool, error) {
	res, err := tx.exec(ctx, `INSERT INTO payment_customers (user_id, processor, customer_id, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (user_id) DO NOTHING`, userID, processor, customerID, at)
	return inserted(res, err)
}

const setupColumns = `id, user_id, processor, client_secret, status, confirmed_with, payment_method_id, created_at`

// CreateSetupRecord inserts r.
func (tx *Tx) CreateSetupRecord(ctx context.Context, r *payments.SetupRecord) error {
	_, err := tx.exec(ctx, `INSERT INTO setup_intents (`+setupColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.UserID, r.Processor, r.ClientSecret, string(r.Status), r.ConfirmedWith, r.PaymentMethodID, r.CreatedAt)
	return wrap(err)
}

// SetupRecord finds a setup intent by the processor's id.
func (tx *Tx) SetupRecord(ctx context.Context, id string) (*payments.SetupRecord, error) {
	var r payments.SetupRecord
	var status string
	err := tx.queryRow(ctx, `SELECT `+setupColumns+` FROM setup_intents WHERE id = ?`, id).Scan(&r.ID, &r.UserID,
		&r.Processor, &r.ClientSecret, &status, &r.ConfirmedWith, &r.PaymentMethodID, &r.CreatedAt)
	if err != nil {
		return nil, notFound(err, "setup intent")
	}
	r.Status, r.CreatedAt = payments.SetupStatus(status), r.CreatedAt.UTC()
	return &r, nil
}

// UpdateSetupRecord writes r's status and the card it saved.
func (tx *Tx) UpdateSetupRecord(ctx context.Context, r *payments.SetupRecord) error {
	res, err := tx.exec(ctx, `UPDATE setup_intents SET status = ?, confirmed_with = ?, payment_method_id = ? WHERE id = ?`,
		string(r.Status), r.ConfirmedWith, r.PaymentMethodID, r.ID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "setup intent")
}

const methodColumns = `id, user_id, processor, external_id, brand, last4, exp_month, exp_year, is_default, created_at`

// PaymentMethods lists a user's cards, the default first, then newest first.
func (tx *Tx) PaymentMethods(ctx context.Context, userID string) ([]payments.PaymentMethod, error) {
	return queryAll(ctx, tx, scanMethod, `SELECT `+methodColumns+` FROM payment_methods WHERE user_id = ?
		ORDER BY is_default DESC, created_at DESC, id DESC`, userID)
}

// PaymentMethodByID finds a card by our id.
func (tx *Tx) PaymentMethodByID(ctx context.Context, id string) (*payments.PaymentMethod, error) {
	return scanMethod(tx.queryRow(ctx, `SELECT `+methodColumns+` FROM payment_methods WHERE id = ?`, id))
}

// DefaultPaymentMethod finds a user's default card.
func (tx *Tx) DefaultPaymentMethod(ctx context.Context, userID string) (*payments.PaymentMethod, error) {
	return scanMethod(tx.queryRow(ctx, `SELECT `+methodColumns+` FROM payment_methods WHERE user_id = ? AND is_default`, userID))
}

// CreatePaymentMethod inserts m. A second default for one user violates the
// unique index.
func (tx *Tx) CreatePaymentMethod(ctx context.Context, m *payments.PaymentMethod) error {
	_, err := tx.exec(ctx, `INSERT INTO payment_methods (`+methodColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.UserID, m.Processor, m.ExternalID, m.Brand, m.Last4, m.ExpMonth, m.ExpYear, m.IsDefault, m.CreatedAt)
	return wrap(err)
}

// DeletePaymentMethod removes one of a user's cards.
func (tx *Tx) DeletePaymentMethod(ctx context.Context, userID, id string) error {
	res, err := tx.exec(ctx, `DELETE FROM payment_methods WHERE id = ? AND user_id = ?`, id, userID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "payment method")
}

// SetDefaultPaymentMethod makes id the only default card of userID: the old
// default is cleared first, as the unique index checks every row.
func (tx *Tx) SetDefaultPaymentMethod(ctx context.Context, userID, id string) error {
	var one int
	err := tx.queryRow(ctx, `SELECT 1 FROM payment_methods WHERE id = ? AND user_id = ?`, id, userID).Scan(&one)
	if err != nil {
		return notFound(err, "payment method")
	}
	if _, err := tx.exec(ctx, `UPDATE payment_methods SET is_default = FALSE WHERE user_id = ? AND is_default AND id <> ?`,
		userID, id); err != nil {
		return wrap(err)
	}
	_, err = tx.exec(ctx, `UPDATE payment_methods SET is_default = TRUE WHERE id = ?`, id)
	return wrap(err)
}

func scanMethod(row scanner) (*payments.PaymentMethod, error) {
	var m payments.PaymentMethod
	if err := row.Scan(&m.ID, &m.UserID, &m.Processor, &m.ExternalID, &m.Brand, &m.Last4, &m.ExpMonth, &m.ExpYear,
		&m.IsDefault, &m.CreatedAt); err != nil {
		return nil, notFound(err, "payment method")
	}
	m.CreatedAt = m.CreatedAt.UTC()
	return &m, nil
}

// ---- the sandbox processor ----

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
