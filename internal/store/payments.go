package store

import (
	"context"
	"database/sql"

	"marketplace/internal/payments"
)

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
