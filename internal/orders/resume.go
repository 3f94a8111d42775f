package orders

import (
	"context"
	"errors"

	"marketplace/internal/market"
)

// Resuming a purchase. An idempotency key is claimed by the process that
// runs its request; if that process dies mid-purchase, a retry takes the
// claim over (httpapi) and runs the purchase again. The order the first run
// made carries the key, so the second run finds it and finishes it: it
// never reserves, charges or answers twice, and a retry after a crash gets
// the paid order or a single charge.

// resumeChargeWindow is how old a pending order may be for a resumed
// purchase to charge it itself: the reconciler takes over orders older than
// SettleGrace, and a charge takes at most chargeTimeout (twice, to be safe),
// so the two never race to charge and release one order.
const resumeChargeWindow = SettleGrace - 2*chargeTimeout

// keyed finds the order buyerID made under the request's idempotency key,
// or nil.
func (s *Service) keyed(ctx context.Context, buyerID string) (*Order, error) {
	key := market.IdempotencyKey(ctx)
	if key == "" {
		return nil, nil
	}
	o, err := s.store.Read().OrderByIdempotencyKey(ctx, buyerID, key, s.clock.Now().Add(-market.IdempotencyTTL))
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, nil
	}
	return o, err
}

// errRunAgain says the earlier run left nothing to finish (its order was
// released): the purchase runs afresh.
var errRunAgain = errors.New("orders: run the purchase again")

// resume finishes the off-session purchase o that an earlier run under the
// same key began, answering as that run would have.
func (s *Service) resume(ctx context.Context, o *Order, listingID string) (*Order, error) {
	if o.ListingID != listingID {
		return nil, market.Errorf(market.CodeDuplicateRequest,
			"this idempotency key was used for a purchase of another listing; use a new key for a new request")
	}
	if a, err := s.store.Read().ApprovalOfOrder(ctx, o.ID); err == nil && a.Status != ApprovalApproved {
		// The first run queued the purchase for the owner: that was its answer.
		return o, approvalRequired(a.ID, o.ID)
	} else if err != nil && market.CodeOf(err) != market.CodeNotFound {
		return nil, err
	}
	if o.Status != StatusPendingPayment {
		return o, nil // it went through (or was dealt with since): the order is the answer
	}
	return s.finishPending(ctx, o)
}

// finishPending brings a pending off-session order to its end: a young one
// is charged again under its own idempotency key (the processor answers the
// first charge if there was one), an older one is left to the reconciler's
// rules. errRunAgain means the order was released.
func (s *Service) finishPending(ctx context.Context, o *Order) (*Order, error) {
	now := s.clock.Now()
	if now.Sub(o.UpdatedAt) < resumeChargeWindow && o.PaymentToken != "" {
		return s.charge(ctx, o, "", "")
	}
	if now.Sub(o.UpdatedAt) < resumeChargeWindow {
		method, customer, err := s.opts.Payments.ChargeableMethod(ctx, s.store.Read(), o.BuyerID, o.PaymentMethodID)
		if err == nil {
			return s.charge(ctx, o, customer, method.ExternalID)
		}
		if market.CodeOf(err) == market.CodeInternal {
			return nil, err
		}
		// The card is gone: only the processor's record can settle it now.
	}
	if _, err := s.reconcileOne(ctx, o, now); err != nil {
		return nil, err
	}
	cur, err := s.store.Read().OrderByID(ctx, o.ID)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, errRunAgain
	}
	return cur, err
}

// resumeApproval finishes an approval an earlier run under the request's
// idempotency key decided: the approval is approved already, so its order is
// charged (or settled) and answered. ok is false when there is nothing to
// resume and the approval runs as usual (and answers INVALID_STATE if it
// was decided).
func (s *Service) resumeApproval(ctx context.Context, actor market.Actor, id string) (*Order, bool, error) {
	if market.IdempotencyKey(ctx) == "" || !market.ValidID(id) {
		return nil, false, nil
	}
	rd := s.store.Read()
	a, err := rd.ApprovalByID(ctx, id)
	if err != nil || a.Status != ApprovalApproved || a.OwnerID != actor.UserID && !actor.Admin {
		return nil, false, nil
	}
	o, err := rd.OrderByID(ctx, a.OrderID)
	if err != nil {
		return nil, true, err
	}
	if o.Status == StatusPendingPayment {
		if o, err = s.finishPending(ctx, o); errors.Is(err, errRunAgain) {
			err = market.Errorf(market.CodeInvalidState, "the approved purchase was released; nothing was charged")
		}
	}
	return o, true, err
}

func approvalRequired(approvalID, orderID string) error {
	return market.Errorf(market.CodeApprovalRequired,
		"the purchase is above the owner's approval threshold and waits for the owner's approval").
		WithDetails(map[string]any{"approval_id": approvalID, "order_id": orderID})
}

// resumeCheckout answers a human checkout an earlier run under the same key
// began: the same order and payment page, the payment opened if the first
// run died before it was.
func (s *Service) resumeCheckout(ctx context.Context, o *Order, listingID string) (*Checkout, error) {
	if o.ListingID != listingID {
		return nil, market.Errorf(market.CodeDuplicateRequest,
			"this idempotency key was used for a purchase of another listing; use a new key for a new request")
	}
	expires := o.CreatedAt.Add(ReservationTTL)
	c := &Checkout{Order: o, CheckoutURL: s.opts.PublicURL + CheckoutPath + o.ID, ExpiresAt: expires}
	if o.Status != StatusPendingPayment {
		return c, nil
	}
	if o.PaymentID == "" {
		customer, err := s.store.Read().PaymentCustomer(ctx, o.BuyerID)
		if err != nil && market.CodeOf(err) != market.CodeNotFound {
			return nil, err
		}
		return s.openPayment(ctx, o, customer)
	}
	pay, err := s.opts.Gateway.Payment(ctx, o.PaymentID)
	if err != nil {
		return nil, err
	}
	c.ClientSecret = pay.ClientSecret
	return c, nil
}

// keyedRefund finds the refund the caller made under the request's
// idempotency key on an order, or nil.
func (s *Service) keyedRefund(ctx context.Context, tx Tx, orderID, ownerID string) (*Refund, error) {
	key := market.IdempotencyKey(ctx)
	if key == "" {
		return nil, nil
	}
	r, err := tx.RefundByIdempotencyKey(ctx, orderID, ownerID, key, s.clock.Now().Add(-market.IdempotencyTTL))
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, nil
	}
	return r, err
}
