package orders

import (
	"context"
	"errors"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// SettleGrace is how long an order may sit between reservation and
// settlement before the reconciler takes it over: several times the longest
// processor call, so it never races a purchase still in flight.
const SettleGrace = 2 * time.Minute

// Reconcile repairs orders stuck in pending_payment: a crash (or a failed
// settle) after the charge, a processor that did not answer, or a human
// checkout that was paid but never confirmed, or never paid at all. It
// settles each from the processor's record, releases what was never
// charged, and expires checkouts whose reservation ran out. It returns how
// many orders it changed.
func (s *Service) Reconcile(ctx context.Context) (int, error) {
	now := s.clock.Now()
	stuck, err := s.store.Read().StuckOrders(ctx, now.Add(-SettleGrace), 200)
	if err != nil {
		return 0, err
	}
	var errs []error
	n := 0
	for i := range stuck {
		changed, err := s.reconcileOne(ctx, &stuck[i], now)
		if err != nil {
			errs = append(errs, err)
		}
		if changed {
			n++
		}
	}
	return n, errors.Join(errs...)
}

func (s *Service) reconcileOne(ctx context.Context, o *Order, now time.Time) (bool, error) {
	if s.charging.has(o.ID) {
		return false, nil // its purchase is still at the processor (charging)
	}
	var pay *payments.Payment
	var err error
	if o.PaymentID != "" {
		pay, err = s.opts.Gateway.Payment(ctx, o.PaymentID)
	} else {
		pay, err = s.opts.Gateway.PaymentByKey(ctx, o.ID)
	}
	switch {
	case err == nil && pay.Status == payments.PaymentSucceeded:
		_, err = s.settle(ctx, o.ID, pay)
		return err == nil, err
	case o.ReservedUntil != nil: // a human checkout: it waits until it expires
		if err != nil && market.CodeOf(err) != market.CodeNotFound {
			return false, err
		}
		if now.Before(*o.ReservedUntil) {
			return false, nil
		}
		return true, s.expire(ctx, o)
	case market.CodeOf(err) == market.CodeNotFound:
		if lagging, ok := s.opts.Gateway.(LaggingLookup); ok && now.Sub(o.UpdatedAt) < SettleGrace+lagging.LookupLag() {
			return false, nil // the payment may exist and not be findable yet
		}
		return true, ignoreCause(s.release(ctx, o, "never_charged", errReleased))
	case err != nil:
		return false, err
	case pay.Status == payments.PaymentProcessing:
		return false, nil
	}
	return true, ignoreCause(s.release(ctx, o, pay.FailureCode, errReleased))
}

// LaggingLookup is a gateway whose PaymentByKey may not find a payment made
// recently (Stripe's search). The reconciler releases an order whose payment
// it cannot find only after that lag, so it never releases a charged order.
type LaggingLookup interface {
	LookupLag() time.Duration
}

type releasedError struct{}

func (releasedError) Error() string { return "released" }

var errReleased = releasedError{}

// ignoreCause drops the marker release returns on success.
func ignoreCause(err error) error {
	if errors.Is(err, errReleased) {
		return nil
	}
	return err
}

// PaymentUpdated applies a processor's report of a payment (Stripe's
// payment_intent.* webhooks): a success settles the order it paid for.
func (s *Service) PaymentUpdated(ctx context.Context, p *payments.Payment) error {
	o, err := s.store.Read().OrderByPayment(ctx, p.ID)
	if market.CodeOf(err) == market.CodeNotFound && p.IdempotencyKey != "" && market.ValidID(p.IdempotencyKey) {
		o, err = s.store.Read().OrderByID(ctx, p.IdempotencyKey)
	}
	if market.CodeOf(err) == market.CodeNotFound {
		return nil // not ours, or released already
	}
	if err != nil {
		return err
	}
	if p.Status == payments.PaymentSucceeded && o.Status == StatusPendingPayment {
		_, err = s.settle(ctx, o.ID, p)
	}
	return err
}

// PaymentRefunded records refunds the processor reports (Stripe's
// charge.refunded): the order's refunded amount catches up with the
// processor's, with an event. Reports that add nothing are ignored, so a
// redelivered webhook changes nothing.
func (s *Service) PaymentRefunded(ctx context.Context, paymentID string, amountRefunded int64) error {
	return s.store.InTx(ctx, func(tx Tx) error {
		o, err := tx.OrderByPayment(ctx, paymentID)
		if market.CodeOf(err) == market.CodeNotFound {
			return nil
		}
		if err != nil || amountRefunded <= o.AmountRefunded {
			return err
		}
		from := o.Status
		now := s.clock.Now()
		added := amountRefunded - o.AmountRefunded
		o.AmountRefunded, o.UpdatedAt = min(amountRefunded, o.Fees.TotalCharged), now
		if _, err := tx.UpdateOrder(ctx, o, from); err != nil {
			return err
		}
		return recordOrder(ctx, tx, now, market.System, "refund.issued", o, map[string]any{
			"amount": added, "source": "processor"})
	})
}
