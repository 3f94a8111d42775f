package orders

import (
	"context"
	"errors"
	"strings"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// Who may move an order, and from where (the spec's Order table). Every
// transition runs in one transaction on the locked order, checks the actor's
// role and the order's status (INVALID_STATE otherwise), and records its
// timeline event; a transition already made answers the order unchanged, so
// a retry posts nothing twice.

// role is a side of an order a transition requires.
type role int

const (
	bySeller role = iota
	byBuyer
	byAdmin
)

// transition is one move of an order.
type transition struct {
	name  string
	by    role
	from  []Status
	to    Status
	event string
	// check, when set, validates the move's input once the caller is known
	// to be allowed to make it: a stranger learns nothing of the order,
	// not even that the input would have been refused.
	check func() error
	// only, when set, is the one kind of order the move is for (checked
	// before anything else about the order's state, so a pickup order is
	// never "already delivered" by a shipping move, nor the reverse).
	only Fulfillment
	// apply makes the move's other changes on the order (and elsewhere in
	// the transaction) before it is saved.
	apply func(ctx context.Context, tx Tx, o *Order, now time.Time) error
}

// move runs t on order id for actor, inside one transaction.
func (s *Service) move(ctx context.Context, actor market.Actor, id string, t transition, data map[string]any) (*Order, error) {
	if !market.ValidID(id) {
		return nil, market.NotFound("order")
	}
	var o *Order
	err := s.store.InTx(ctx, func(tx Tx) error {
		var err error
		if o, err = s.visible(ctx, tx, actor, id); err != nil {
			return err
		}
		switch {
		case t.by == byAdmin && !privileged(actor),
			t.by == bySeller && o.SellerID != actor.UserID && !privileged(actor),
			t.by == byBuyer && o.BuyerID != actor.UserID && !privileged(actor):
			return market.Errorf(market.CodeForbidden, "only the %s may %s", [...]string{"seller", "buyer", "admin"}[t.by], t.name)
		}
		if t.check != nil {
			if err := t.check(); err != nil {
				return err
			}
		}
		if t.only != "" && o.Fulfillment != t.only {
			return market.Errorf(market.CodeInvalidState, "cannot %s a %s order", t.name, strings.ReplaceAll(string(o.Fulfillment), "_", " ")).
				WithDetails(map[string]any{"status": string(o.Status), "fulfillment_type": string(o.Fulfillment)})
		}
		if o.Status == t.to {
			return nil // done before: answer it again
		}
		if !statusIn(o.Status, t.from) {
			return market.Errorf(market.CodeInvalidState, "cannot %s an order that is %s", t.name, o.Status).
				WithDetails(map[string]any{"status": string(o.Status)})
		}
		from, now := o.Status, s.clock.Now()
		if t.apply != nil {
			if err := t.apply(ctx, tx, o, now); err != nil {
				return err
			}
		}
		o.Status, o.UpdatedAt = t.to, now
		if ok, err := tx.UpdateOrder(ctx, o, from); err != nil || !ok {
			if err == nil {
				err = market.Errorf(market.CodeInvalidState, "the order changed meanwhile; read it again")
			}
			return err
		}
		if err := recordOrder(ctx, tx, now, actor, t.event, o, data); err != nil {
			return err
		}
		return postOrderMessage(ctx, tx, now, o, t.event)
	})
	return o, err
}

func statusIn(s Status, set []Status) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// Shipment is what a seller reports when shipping by hand.
type Shipment struct {
	Carrier        string
	TrackingNumber string
}

// TrackingChecker validates a carrier's tracking number and returns the
// carrier's canonical name and the number's normalized form
// (VALIDATION_ERROR naming carrier or trackingNumber).
type TrackingChecker func(carrier, number string) (string, string, error)

// Ship marks a paid order shipped with the seller's carrier and tracking
// number (POST /orders/{id}/ship and /shipping/manual).
// The carrier and number are checked once the caller is known to be the
// seller (or an admin), before the order's state.
func (s *Service) Ship(ctx context.Context, actor market.Actor, id string, in Shipment) (*Order, error) {
	carrier, number := in.Carrier, in.TrackingNumber
	data := map[string]any{}
	check := func() error {
		var c market.Check
		c.Require(in.Carrier != "", "carrier", "is required")
		c.Require(in.TrackingNumber != "", "tracking_number", "is required")
		if err := c.Err(); err != nil {
			return err
		}
		if s.opts.Tracking != nil {
			var err error
			if carrier, number, err = s.opts.Tracking(in.Carrier, in.TrackingNumber); err != nil {
				return err
			}
		}
		data["carrier"], data["tracking_number"] = carrier, number
		return nil
	}
	return s.move(ctx, actor, id, transition{name: "ship", by: bySeller, from: []Status{StatusPaid}, to: StatusShipped,
		event: "order.shipped", check: check, only: FulfillShipping, apply: func(_ context.Context, _ Tx, o *Order, now time.Time) error {
			o.ShipmentCarrier, o.TrackingNumber, o.ShippedAt = carrier, number, &now
			return nil
		}}, data)
}

// PickupReady is the seller saying a local pickup order can be collected.
func (s *Service) PickupReady(ctx context.Context, actor market.Actor, id string) (*Order, error) {
	return s.move(ctx, actor, id, transition{name: "mark pickup-ready", by: bySeller, from: []Status{StatusPaid},
		to: StatusPickupReady, event: "pickup.ready", only: FulfillLocalPickup}, nil)
}

// ConfirmPickup is the buyer collecting a local pickup order: delivered.
func (s *Service) ConfirmPickup(ctx context.Context, actor market.Actor, id string) (*Order, error) {
	return s.move(ctx, actor, id, transition{name: "confirm pickup of", by: byBuyer, from: []Status{StatusPickupReady},
		to: StatusDelivered, event: "order.delivered", only: FulfillLocalPickup, apply: s.deliver}, map[string]any{"via": "pickup"})
}

// ConfirmDelivery is the buyer confirming a shipped order arrived.
func (s *Service) ConfirmDelivery(ctx context.Context, actor market.Actor, id string) (*Order, error) {
	return s.move(ctx, actor, id, transition{name: "confirm delivery of", by: byBuyer, from: []Status{StatusShipped},
		to: StatusDelivered, event: "order.delivered", only: FulfillShipping, apply: s.deliver}, map[string]any{"via": "buyer"})
}

// deliver starts the hold period: the payout is due hold_hours after
// delivery (CONTRACT.md section 7), on the service clock.
func (s *Service) deliver(ctx context.Context, _ Tx, o *Order, now time.Time) error {
	hold := DefaultPayoutHold
	if s.opts.Settings != nil {
		var err error
		if hold, err = s.opts.Settings.PayoutHold(ctx); err != nil {
			return err
		}
	}
	due := now.Add(hold)
	// Refunds made before delivery were taken from the seller's side first.
	o.DeliveredAt, o.PayoutDueAt, o.PayoutStatus, o.PayoutAmount = &now, &due, PayoutPending, max(0, SellerPayout(o)-o.SellerRefunded)
	return nil
}

// SellerPayout is what the seller is paid: the sale price minus commission,
// plus the shipping the buyer paid unless the platform bought the label.
func SellerPayout(o *Order) int64 {
	p := o.Fees.ItemPrice - o.Fees.Commission
	if o.LabelCost == 0 {
		p += o.Fees.ShippingCost
	}
	return p
}

// NetPayout is what the seller is, or will be, paid once refunds are taken
// from it: a released payout less what was reversed from the transfer; a
// waiting one as it stands; nothing for an order cancelled, expired or
// refunded before the payout; and before delivery the gross payout less
// what refunds took from the seller so far.
func (o *Order) NetPayout() int64 {
	switch {
	case o.PayoutStatus == PayoutReleased:
		return max(0, o.PayoutAmount-o.TransferReversed)
	case o.PayoutStatus == PayoutPending, o.PayoutStatus == PayoutFrozen:
		return o.PayoutAmount
	case o.PayoutStatus == PayoutVoid, o.Status == StatusCancelled, o.Status == StatusExpired,
		o.Status == StatusRefunded:
		return 0
	}
	return max(0, SellerPayout(o)-o.SellerRefunded)
}

// Cancel is the seller (or an admin, forcing it) cancelling before shipment:
// the buyer is refunded in full through the processor, the agent's spending
// is given back, and the listing is active again.
func (s *Service) Cancel(ctx context.Context, actor market.Actor, id, reason string) (*Order, error) {
	var c market.Check
	if reason = c.Text("reason", reason, maxRefundText, false); c.Err() != nil {
		return nil, c.Err()
	}
	return s.cancel(ctx, actor, id, reason, bySeller, []Status{StatusPaid, StatusPickupReady})
}

// ForceCancel is the admin's cancel, from any live status before the money
// reached the seller. Cancelling a disputed order resolves its dispute for
// the buyer (refund_buyer) in the same transaction: the cancel's full
// refund is the resolution's.
func (s *Service) ForceCancel(ctx context.Context, actor market.Actor, id, reason string) (*Order, error) {
	var c market.Check
	if reason = c.Text("reason", reason, maxRefundText, false); c.Err() != nil {
		return nil, c.Err()
	}
	cur, err := s.Get(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	o, err := s.cancel(ctx, actor, id, reason, byAdmin,
		[]Status{StatusPaid, StatusPickupReady, StatusShipped, StatusDelivered, StatusDisputed})
	if err != nil {
		return nil, err
	}
	s.noteOrderChange(ctx, cur, o)
	return o, nil
}

func (s *Service) cancel(ctx context.Context, actor market.Actor, id, reason string, by role, from []Status) (*Order, error) {
	o, err := s.move(ctx, actor, id, transition{name: "cancel", by: by, from: from, to: StatusCancelled, event: "order.cancelled",
		apply: func(ctx context.Context, tx Tx, o *Order, now time.Time) error {
			if o.PayoutStatus == PayoutReleased {
				return market.Errorf(market.CodeInvalidState, "the seller was already paid; refund the order instead")
			}
			disputed := o.Status == StatusDisputed // planRefund moves o.Status
			o.CancelledAt = &now
			var refunded int64
			if refundLeft(o) > 0 && o.PaymentID != "" {
				why := reason
				if why == "" {
					why = "order cancelled"
				}
				r, err := s.planRefund(ctx, tx, o, 0, actor, why, now)
				if err != nil {
					return err
				}
				refunded = r.Amount
			}
			o.PayoutStatus, o.PayoutAmount = PayoutVoid, 0
			if err := tx.ReleaseSpend(ctx, o.ID, now); err != nil {
				return err
			}
			if err := relist(ctx, tx, actor, o, now); err != nil {
				return err
			}
			if disputed {
				return closeDispute(ctx, tx, actor, o.ID, ResolveRefundBuyer, refunded, "closed by admin force-cancel", now)
			}
			return nil
		}}, map[string]any{"reason": reason, "refund": "full"})
	if err != nil {
		return nil, err
	}
	// The refund was booked with the cancel; the processor is asked now
	// (again, on a repeated cancel, if it did not take it the first time;
	// the payout job retries it too).
	o, perr, err := s.runRefunds(ctx, o.ID)
	if err == nil && perr != nil {
		return nil, perr
	}
	return o, err
}

// refundRest books and sends a refund of whatever of a cancelled order's
// charge is not refunded yet (an order cancelled before cancellations
// booked their refund).
func (s *Service) refundRest(ctx context.Context, o *Order) (*Order, error) {
	err := s.store.InTx(ctx, func(tx Tx) error {
		cur, err := tx.OrderByID(ctx, o.ID)
		if err != nil || cur.Status != StatusCancelled || cur.PaymentID == "" || refundLeft(cur) <= 0 {
			return err
		}
		now := s.clock.Now()
		if _, err := s.planRefund(ctx, tx, cur, 0, market.System, "order cancelled", now); err != nil {
			return err
		}
		cur.Status = StatusCancelled // cancelled, not refunded: the refund follows the cancel
		return saveRefunded(ctx, tx, cur, StatusCancelled)
	})
	if err != nil {
		return nil, err
	}
	return s.executeRefunds(ctx, o.ID)
}

// Hold is the admin overriding when the payout is released: at until, or
// hours after delivery.
func (s *Service) Hold(ctx context.Context, actor market.Actor, id string, until *time.Time, hours *int64) (*Order, error) {
	if !actor.Admin {
		return nil, market.Errorf(market.CodeForbidden, "only admins change the hold period")
	}
	var o *Order
	err := s.store.InTx(ctx, func(tx Tx) error {
		var err error
		if o, err = s.visible(ctx, tx, actor, id); err != nil {
			return err
		}
		if o.PayoutStatus != PayoutPending && o.PayoutStatus != PayoutFrozen {
			return market.Errorf(market.CodeInvalidState, "the order has no payout waiting (it is %s)", o.Status).
				WithDetails(map[string]any{"status": string(o.Status)})
		}
		due := until
		if hours != nil && o.DeliveredAt == nil {
			return market.Errorf(market.CodeInvalidState, "the order is not delivered yet; give payoutDueAt")
		}
		if hours != nil {
			t := o.DeliveredAt.Add(time.Duration(*hours) * time.Hour)
			due = &t
		}
		now := s.clock.Now()
		prev, before := o.PayoutDueAt, *o
		o.PayoutDueAt, o.UpdatedAt = due, now
		if _, err := tx.UpdateOrder(ctx, o, o.Status); err != nil {
			return err
		}
		s.noteOrderChange(ctx, &before, o)
		return events.Record(ctx, tx, now, actor, "payout.hold_changed", "order", o.ID, map[string]any{
			"payout_due_at": due, "previous": prev})
	})
	return o, err
}

// ForceComplete releases the payout now, skipping the hold (admin). A
// disputed order's dispute is resolved for the seller first (see
// forceRelease).
func (s *Service) ForceComplete(ctx context.Context, actor market.Actor, id string) (*Order, error) {
	if !actor.Admin {
		return nil, market.Errorf(market.CodeForbidden, "only admins force-complete orders")
	}
	cur, err := s.Get(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	o, err := s.forceComplete(ctx, actor, cur)
	if err != nil {
		return nil, err
	}
	s.noteOrderChange(ctx, cur, o)
	return o, nil
}

func (s *Service) forceComplete(ctx context.Context, actor market.Actor, cur *Order) (*Order, error) {
	id := cur.ID
	if cur.Status == StatusDisputed {
		o, err := s.forceRelease(ctx, actor, id)
		if err != nil {
			return nil, err
		}
		if o != nil {
			return s.payOut(ctx, o.ID, true)
		}
		// No longer disputed: completed as any other order.
	}
	o, err := s.move(ctx, actor, id, transition{name: "force-complete", by: byAdmin,
		from: []Status{StatusPaid, StatusPickupReady, StatusShipped, StatusDelivered}, to: StatusDelivered,
		event: "order.delivered", apply: s.deliver}, map[string]any{"via": "admin"})
	if market.CodeOf(err) == market.CodeInvalidState {
		// Delivered already (or completed): release what is waiting.
		cur, gerr := s.Get(ctx, actor, id)
		if gerr != nil || cur.Status != StatusCompleted && cur.Status != StatusDelivered {
			return nil, err
		}
		o, err = cur, nil
	}
	if err != nil {
		return nil, err
	}
	return s.payOut(ctx, o.ID, true)
}

// forceRelease takes a disputed order out of its dispute for an admin's
// force-complete, in one transaction on the locked order: the dispute is
// resolved release_seller, the order returns to where the dispute stopped
// it with its payout unfrozen (as ResolveDispute's release_seller does),
// and one not delivered yet is delivered now, so payOut pays it. It answers
// nil when the order is no longer disputed.
func (s *Service) forceRelease(ctx context.Context, actor market.Actor, id string) (*Order, error) {
	var out *Order
	err := s.store.InTx(ctx, func(tx Tx) error {
		o, err := s.visible(ctx, tx, actor, id)
		if err != nil || o.Status != StatusDisputed {
			return err
		}
		now := s.clock.Now()
		o.Status, o.UpdatedAt = o.StatusBeforeDispute, now
		if o.PayoutStatus == PayoutFrozen {
			o.PayoutStatus = PayoutPending
		}
		delivering := statusIn(o.Status, []Status{StatusPaid, StatusPickupReady, StatusShipped})
		if delivering {
			if err := s.deliver(ctx, tx, o, now); err != nil {
				return err
			}
			o.Status = StatusDelivered
		}
		if err := saveRefunded(ctx, tx, o, StatusDisputed); err != nil {
			return err
		}
		if err := closeDispute(ctx, tx, actor, o.ID, ResolveReleaseSeller, 0, "closed by admin force-complete", now); err != nil {
			return err
		}
		out = o
		if !delivering {
			return nil
		}
		if err := recordOrder(ctx, tx, now, actor, "order.delivered", o, map[string]any{"via": "admin"}); err != nil {
			return err
		}
		return postOrderMessage(ctx, tx, now, o, "order.delivered")
	})
	return out, err
}

// closeDispute resolves the open dispute of order orderID, which an admin's
// force action takes out of `disputed`, in that action's transaction and
// with the money it moved (amount refunded): ResolveDispute only settles a
// disputed order, so a dispute left open would stay open for good. The
// dispute is locked after the order, as everywhere.
func closeDispute(ctx context.Context, tx Tx, actor market.Actor, orderID string, res Resolution, amount int64,
	note string, now time.Time) error {
	open, err := tx.OpenDisputeOf(ctx, orderID)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	d, err := tx.DisputeByID(ctx, open.ID)
	if err != nil || d.Status == DisputeResolved {
		return err
	}
	d.Status, d.Resolution, d.ResolutionAmount, d.ResolutionNote = DisputeResolved, res, &amount, note
	d.ResolvedBy, d.ResolvedAt, d.UpdatedAt = actor.UserID, &now, now
	if err := tx.UpdateDispute(ctx, d); err != nil {
		return err
	}
	return events.Record(ctx, tx, now, actor, "dispute.resolved", "order", orderID, map[string]any{
		"dispute_id": d.ID, "resolution": string(res), "amount": amount})
}

// ReleasePayouts pays out every delivered order whose hold has ended,
// confirms delivery of shipped orders nobody confirmed within
// AutoDeliverAfter, and finishes refunds and transfer reversals the
// processor did not take. It returns how many orders it changed.
func (s *Service) ReleasePayouts(ctx context.Context) (int, error) {
	now := s.clock.Now()
	rd := s.store.Read()
	var errs []error
	n := 0
	overdue, err := rd.OverdueShipments(ctx, now.Add(-AutoDeliverAfter), 200)
	if err != nil {
		return 0, err
	}
	for _, o := range overdue {
		if late := autoDeliverAt(&o); late.After(now) {
			continue
		}
		if _, err := s.move(ctx, market.System, o.ID, transition{name: "confirm delivery of", by: byAdmin,
			from: []Status{StatusShipped}, to: StatusDelivered, event: "order.delivered", apply: s.deliver},
			map[string]any{"via": "auto"}); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	retried, err := s.retryRefunds(ctx)
	n += retried
	if err != nil {
		errs = append(errs, err)
	}
	unrefunded, err := rd.UnrefundedCancellations(ctx, 200)
	if err != nil {
		return n, err
	}
	for i := range unrefunded {
		if _, err := s.refundRest(ctx, &unrefunded[i]); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	due, err := rd.PayoutsDue(ctx, now, 200)
	if err != nil {
		return n, err
	}
	for _, o := range due {
		got, err := s.payOut(ctx, o.ID, false)
		if err != nil {
			errs = append(errs, err)
		} else if got.Status == StatusCompleted {
			n++
		}
	}
	return n, errors.Join(errs...)
}

// AutoDeliverAfter is how long after the estimated delivery a shipped order
// nobody confirmed counts as delivered.
const AutoDeliverAfter = 14 * 24 * time.Hour

// autoDeliverAt is when a shipped order is confirmed on its own: 14 days
// after its estimated delivery (shipping date plus the quoted days, or a
// week when no quote said).
func autoDeliverAt(o *Order) time.Time {
	days := 7
	if o.EstimatedDays != nil {
		days = *o.EstimatedDays
	}
	return o.ShippedAt.AddDate(0, 0, days).Add(AutoDeliverAfter)
}

// payOut transfers a delivered order's payout to the seller's payout
// account and completes the order. A seller without a verified account
// keeps the payout pending; a dispute keeps it frozen. The transfer's
// idempotency key is the order's, so a retry never pays twice.
func (s *Service) payOut(ctx context.Context, id string, force bool) (*Order, error) {
	rd := s.store.Read()
	o, err := rd.OrderByID(ctx, id)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	if o.Status != StatusDelivered || o.PayoutStatus != PayoutPending || !force && o.PayoutDueAt != nil && o.PayoutDueAt.After(now) {
		return o, nil
	}
	acct, err := rd.PayoutAccountOf(ctx, o.SellerID)
	if market.CodeOf(err) == market.CodeNotFound || err == nil && acct.Status != payments.AccountVerified {
		return o, nil // paid once the seller has a verified payout account
	}
	if err != nil {
		return nil, err
	}
	var transferID string
	var paid int64
	if o.PayoutAmount > 0 {
		tr, err := s.opts.Gateway.Transfer(ctx, payments.TransferRequest{Destination: acct.ExternalID, Amount: o.PayoutAmount,
			IdempotencyKey: "payout-" + o.ID, Metadata: map[string]string{"order_id": o.ID}})
		if err != nil {
			return nil, err
		}
		transferID, paid = tr.ID, tr.Amount
	}
	reverse := false
	err = s.store.InTx(ctx, func(tx Tx) error {
		cur, err := tx.OrderByID(ctx, id)
		if err != nil {
			return err
		}
		o = cur
		if cur.PayoutStatus == PayoutReleased || transferID == "" && (cur.Status != StatusDelivered || cur.PayoutStatus != PayoutPending) {
			return nil // recorded by a concurrent run, or nothing was paid and the order moved on
		}
		now := s.clock.Now()
		from := cur.Status
		// Refunds booked while the transfer was under way shrank (or
		// voided) the pending payout the transfer paid: what they took
		// from the seller is reversed from the transfer instead.
		if owed := max(0, SellerPayout(cur)-cur.SellerRefunded); paid > owed {
			if err := assignReversals(ctx, tx, cur.ID, paid-owed, now); err != nil {
				return err
			}
			reverse = true
		}
		cur.PayoutStatus, cur.PayoutAmount, cur.TransferID, cur.UpdatedAt = PayoutReleased, paid, transferID, now
		completed := from == StatusDelivered
		if completed {
			cur.Status, cur.CompletedAt = StatusCompleted, &now
		}
		if err := saveRefunded(ctx, tx, cur, from); err != nil {
			return err
		}
		if err := recordOrder(ctx, tx, now, market.System, "payment.released", cur, map[string]any{
			"amount": cur.PayoutAmount, "transfer_id": transferID}); err != nil {
			return err
		}
		if !completed {
			return nil
		}
		if err := recordOrder(ctx, tx, now, market.System, "order.completed", cur, nil); err != nil {
			return err
		}
		return postOrderMessage(ctx, tx, now, cur, "order.completed")
	})
	if err != nil || !reverse {
		return o, err
	}
	return s.executeRefunds(ctx, o.ID)
}
