package orders

import (
	"context"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// Checkout is a human purchase waiting on the hosted payment page.
type Checkout struct {
	Order        *Order
	CheckoutURL  string
	ClientSecret string
	ExpiresAt    time.Time
}

// CheckoutPath is where the hosted payment page of an order is served.
const CheckoutPath = "/checkout/"

// StartCheckout is a human purchase (POST /purchases): the listing is
// reserved for ReservationTTL and the order waits as pending_payment while
// the buyer pays on the hosted page; Confirm (or the page itself) settles it.
func (s *Service) StartCheckout(ctx context.Context, b Buyer, in PurchaseInput) (*Checkout, error) {
	if b.Actor.IsAgent() {
		return nil, market.Errorf(market.CodeForbidden, "agents buy with POST /agent/purchase")
	}
	if err := in.check(false); err != nil {
		return nil, err
	}
	if earlier, err := s.keyed(ctx, b.User.ID); err != nil || earlier != nil {
		if err != nil {
			return nil, err
		}
		return s.resumeCheckout(ctx, earlier, in.ListingID)
	}
	rates, err := s.feeRates(ctx)
	if err != nil {
		return nil, err
	}
	var o *Order
	var customer string
	now := s.clock.Now()
	err = s.store.InTx(ctx, func(tx Tx) error {
		d, err := s.prepare(ctx, tx, b, &in, rates, now)
		if err != nil {
			return err
		}
		o = d.order
		until := now.Add(ReservationTTL)
		o.ReservedUntil, o.Processor = &until, s.opts.Gateway.Name()
		if c, err := tx.PaymentCustomer(ctx, b.User.ID); err == nil {
			customer = c
		}
		return s.reserve(ctx, tx, o, "", now)
	})
	if err != nil {
		return nil, err
	}
	return s.openPayment(ctx, o, customer)
}

// openPayment opens the processor payment the hosted page collects for a
// reserved order, under the order's id as idempotency key.
func (s *Service) openPayment(ctx context.Context, o *Order, customer string) (*Checkout, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), chargeTimeout)
	defer cancel()
	pay, err := s.opts.Gateway.StartPayment(cctx, payments.ChargeRequest{
		IdempotencyKey: o.ID, CustomerID: customer, Amount: o.Fees.TotalCharged, Currency: "usd",
		Description: truncate(o.ListingTitle, 200),
		Metadata:    map[string]string{"order_id": o.ID, "listing_id": o.ListingID, "buyer_id": o.BuyerID},
	})
	if err != nil {
		return nil, s.release(ctx, o, "processor_unavailable", market.Errorf(market.CodePaymentFailed,
			"the payment processor could not be reached; nothing was reserved, try again"))
	}
	err = s.store.InTx(ctx, func(tx Tx) error {
		o.PaymentID, o.UpdatedAt = pay.ID, s.clock.Now()
		_, err := tx.UpdateOrder(ctx, o, StatusPendingPayment)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Checkout{Order: o, CheckoutURL: s.opts.PublicURL + CheckoutPath + o.ID, ClientSecret: pay.ClientSecret,
		ExpiresAt: *o.ReservedUntil}, nil
}

// CheckoutPage is what the hosted payment page shows.
type CheckoutPage struct {
	Order        *Order
	ClientSecret string
	Processor    string
}

// CheckoutOf returns the order behind a hosted payment page. The page's URL
// is the bearer of the right to pay, like a processor's checkout session.
func (s *Service) CheckoutOf(ctx context.Context, orderID string) (*CheckoutPage, error) {
	if !market.ValidID(orderID) {
		return nil, market.NotFound("checkout")
	}
	o, err := s.store.Read().OrderByID(ctx, orderID)
	if market.CodeOf(err) == market.CodeNotFound || err == nil && (o.Channel != ChannelHuman || o.PaymentID == "") {
		return nil, market.NotFound("checkout")
	}
	if err != nil {
		return nil, err
	}
	page := &CheckoutPage{Order: o, Processor: o.Processor}
	if o.Status == StatusPendingPayment {
		pay, err := s.opts.Gateway.Payment(ctx, o.PaymentID)
		if err != nil {
			return nil, err
		}
		page.ClientSecret = pay.ClientSecret
	}
	return page, nil
}

// CardPayer is the sandbox processor's hosted-page payment.
type CardPayer interface {
	PayWithCard(ctx context.Context, paymentID, cardNumber string) (*payments.Payment, error)
}

// PayCheckout pays a checkout with a card number on the sandbox hosted page
// and settles the order at once when the payment succeeds.
func (s *Service) PayCheckout(ctx context.Context, orderID, cardNumber string) (*Order, error) {
	payer, ok := s.opts.Gateway.(CardPayer)
	if !ok {
		return nil, market.NotFound("checkout")
	}
	page, err := s.CheckoutOf(ctx, orderID)
	if err != nil {
		return nil, err
	}
	o := page.Order
	if o.Status != StatusPendingPayment {
		if o.Status == StatusExpired || o.Status == StatusCancelled {
			return nil, market.Errorf(market.CodeInvalidState, "this checkout has %s", o.Status)
		}
		return o, nil
	}
	if o.ReservedUntil != nil && !s.clock.Now().Before(*o.ReservedUntil) {
		return nil, market.Errorf(market.CodeInvalidState, "this checkout expired at %s", o.ReservedUntil.Format(time.RFC3339))
	}
	pay, err := payer.PayWithCard(ctx, o.PaymentID, cardNumber)
	if err != nil {
		return nil, err
	}
	return s.confirmWith(ctx, o, pay)
}

// Confirm is POST /purchases/confirm: it asks the processor about the
// order's payment and settles the order when it succeeded. Confirming a paid
// order answers the order again.
func (s *Service) Confirm(ctx context.Context, actor market.Actor, orderID string) (*Order, error) {
	if !market.ValidID(orderID) {
		return nil, market.Invalid(market.FieldError{Field: "order_id", Message: "must be an order id"})
	}
	o, err := s.store.Read().OrderByID(ctx, orderID)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.NotFound("order")
	}
	if err != nil {
		return nil, err
	}
	if o.BuyerID != actor.UserID {
		return nil, market.Errorf(market.CodeForbidden, "only the buyer confirms a purchase")
	}
	switch o.Status {
	case StatusPendingPayment:
	case StatusExpired, StatusCancelled, StatusPendingApproval:
		return nil, market.Errorf(market.CodeInvalidState, "the order is %s and cannot be paid", o.Status)
	default:
		return o, nil
	}
	if o.PaymentID == "" {
		return nil, market.Errorf(market.CodeInvalidState, "the order has no payment to confirm")
	}
	pay, err := s.opts.Gateway.Payment(ctx, o.PaymentID)
	if err != nil {
		return nil, err
	}
	return s.confirmWith(ctx, o, pay)
}

// confirmWith settles a human order whose payment succeeded; otherwise the
// reservation stands (the buyer may try another card until it expires).
func (s *Service) confirmWith(ctx context.Context, o *Order, pay *payments.Payment) (*Order, error) {
	switch pay.Status {
	case payments.PaymentSucceeded:
		return s.settle(ctx, o.ID, pay)
	case payments.PaymentRequiresAction:
		return nil, market.Errorf(market.CodeSCARequired, "the card's bank requires authentication; complete it on the payment page").
			WithDetails(map[string]any{"order_id": o.ID})
	}
	msg := "the payment has not succeeded"
	if pay.FailureMessage != "" {
		msg = pay.FailureMessage
	}
	return nil, market.Errorf(market.CodePaymentFailed, "%s; the listing stays reserved until %s", msg, o.ReservedUntil.Format(time.RFC3339)).
		WithDetails(map[string]any{"order_id": o.ID, "payment_status": string(pay.Status), "decline_code": pay.FailureCode})
}

// expire ends an unpaid human checkout: the payment is cancelled so it can
// no longer be paid, the order is expired and the listing active again.
func (s *Service) expire(ctx context.Context, o *Order) error {
	if o.PaymentID != "" {
		if err := s.opts.Gateway.CancelPayment(ctx, o.PaymentID); err != nil {
			return err
		}
	}
	return s.store.InTx(ctx, func(tx Tx) error {
		now := s.clock.Now()
		cur, err := tx.OrderByID(ctx, o.ID)
		if err != nil || cur.Status != StatusPendingPayment {
			return err
		}
		cur.Status, cur.CancelledAt, cur.UpdatedAt = StatusExpired, &now, now
		if ok, err := tx.UpdateOrder(ctx, cur, StatusPendingPayment); err != nil || !ok {
			return err
		}
		if _, err := tx.MoveListing(ctx, cur.ListingID, []listings.Status{listings.StatusReserved}, listings.StatusActive, now); err != nil {
			return err
		}
		return events.Record(ctx, tx, now, market.System, "order.expired", "order", cur.ID, map[string]any{
			"reserved_until": cur.ReservedUntil})
	})
}
