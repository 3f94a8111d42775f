package store

import (
	"context"
	"database/sql"
	"time"

	"marketplace/internal/payments"
)

// The payments area (payments.Tx): payout accounts and saved cards, our
// side of the processor.
var _ payments.Tx = (*Tx)(nil)

const payoutColumns = `id, user_id, processor, external_id, status, payouts_enabled, onboarding_token, country, business_type,
	created_at, updated_at, verified_at`

// PayoutAccountOf finds a user's payout account.
func (tx *Tx) PayoutAccountOf(ctx context.Context, userID string) (*payments.PayoutAccount, error) {
	return scanPayout(tx.queryRow(ctx, `SELECT `+payoutColumns+` FROM payout_accounts WHERE user_id = ?`+tx.forUpdate(), userID))
}

// PayoutAccountByToken finds the account of an onboarding token.
func (tx *Tx) PayoutAccountByToken(ctx context.Context, token string) (*payments.PayoutAccount, error) {
	return scanPayout(tx.queryRow(ctx, `SELECT `+payoutColumns+` FROM payout_accounts WHERE onboarding_token = ?`+tx.forUpdate(), token))
}

// PayoutAccountByExternalID finds the payout account of a processor account
// id.
func (tx *Tx) PayoutAccountByExternalID(ctx context.Context, externalID string) (*payments.PayoutAccount, error) {
	return scanPayout(tx.queryRow(ctx, `SELECT `+payoutColumns+` FROM payout_accounts WHERE external_id = ?`+tx.lockInTx(), externalID))
}

// CreatePayoutAccount inserts a.
func (tx *Tx) CreatePayoutAccount(ctx context.Context, a *payments.PayoutAccount) error {
	_, err := tx.exec(ctx, `INSERT INTO payout_accounts (`+payoutColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.UserID, a.Processor, a.ExternalID, string(a.Status), a.PayoutsEnabled, a.OnboardingToken, a.Country,
		a.BusinessType, a.CreatedAt, a.UpdatedAt, a.VerifiedAt)
	return wrap(err)
}

// UpdatePayoutAccount writes a's status and onboarding token.
func (tx *Tx) UpdatePayoutAccount(ctx context.Context, a *payments.PayoutAccount) error {
	res, err := tx.exec(ctx, `UPDATE payout_accounts SET status = ?, payouts_enabled = ?, onboarding_token = ?, updated_at = ?,
		verified_at = ? WHERE id = ?`, string(a.Status), a.PayoutsEnabled, a.OnboardingToken, a.UpdatedAt, a.VerifiedAt, a.ID)
	if err != nil {
		return wrap(err)
	}
	return affectedOne(res, "payout account")
}

func scanPayout(row scanner) (*payments.PayoutAccount, error) {
	var a payments.PayoutAccount
	var status string
	var verified sql.NullTime
	if err := row.Scan(&a.ID, &a.UserID, &a.Processor, &a.ExternalID, &status, &a.PayoutsEnabled, &a.OnboardingToken,
		&a.Country, &a.BusinessType, &a.CreatedAt, &a.UpdatedAt, &verified); err != nil {
		return nil, notFound(err, "payout account")
	}
	a.Status, a.VerifiedAt = payments.AccountStatus(status), nullTime(verified)
	a.CreatedAt, a.UpdatedAt = a.CreatedAt.UTC(), a.UpdatedAt.UTC()
	return &a, nil
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
