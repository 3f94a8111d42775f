package payments

import (
	"context"

	"marketplace/internal/market"
)

// AccountUpdate is what the processor reports about a payout account
// (Stripe's account.updated).
type AccountUpdate struct {
	ExternalID       string // the processor's account id
	ChargesEnabled   bool
	PayoutsEnabled   bool
	DetailsSubmitted bool
}

// AccountUpdated applies the processor's news about a payout account: once
// the account can take charges or receive payouts, the processor has
// verified the person, so the account becomes verified and its owner
// identity-verified (what CompleteOnboarding does in sandbox mode). It
// reports whether the account is one of this service's; news about others
// is ignored. Verification is never taken back, so repeated or late
// deliveries change nothing.
func (s *Service) AccountUpdated(ctx context.Context, u AccountUpdate) (bool, error) {
	if !wellFormedToken(u.ExternalID) {
		return false, nil
	}
	known := false
	err := s.store.InTx(ctx, func(tx Tx) error {
		a, err := tx.PayoutAccountByExternalID(ctx, u.ExternalID)
		if market.CodeOf(err) == market.CodeNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		if a.Processor != s.processor.Name() {
			return nil
		}
		known = true
		if !u.ChargesEnabled && !u.PayoutsEnabled {
			return nil
		}
		return s.verifyTx(ctx, tx, a)
	})
	return known, err
}
