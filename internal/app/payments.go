package app

import (
	"fmt"

	"marketplace/internal/config"
	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/payments"
	"marketplace/internal/store"
)

// newPayments picks the payment processor configuration names: the built-in
// sandbox (the default; its records live in this service's database) or
// Stripe. Each is both sides of the seam: payout accounts and money.
func newPayments(cfg config.Config, db *store.DB, clock market.Clock) (payments.Processor, payments.Gateway, error) {
	if cfg.Stripe() {
		s, err := payments.NewStripe(payments.StripeOptions{
			SecretKey: cfg.StripeSecretKey, APIBase: cfg.StripeAPIBase, PublicURL: cfg.PublicURL,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("stripe: %w", err)
		}
		return s, s, nil
	}
	sb := payments.NewSandbox(cfg.PublicURL, store.PaymentsSandbox(db), clock)
	return sb, sb, nil
}

// Stripe's search lags, so the reconciler must wait it out before it
// releases an order whose payment it cannot find.
var _ orders.LaggingLookup = (*payments.Stripe)(nil)
