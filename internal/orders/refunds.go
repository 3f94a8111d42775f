package orders

import (
	"context"
	"errors"
	"strconv"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// Refunds after the sale. A refund is booked in one transaction on the
// locked order (the refund row, the order's refunded amounts and payout,
// the spending given back, the timeline event) and only then sent to the
// processor: a crash or a processor that does not answer leaves a pending
// refund that ReleasePayouts retries with the same idempotency keys, so
// nothing is refunded or reversed twice and the books never show money
// the processor has not been asked to move.
//
// Who pays: a refund of A is taken from the seller's side first,
// min(A, SellerPayout - SellerRefunded), and the rest from the platform's
// fees. Before the payout is released the seller's pending payout shrinks;
// after it, the seller's share is reversed from the transfer.

// RefundStatus is where a refund stands.
type RefundStatus string

const (
	RefundRequested RefundStatus = "requested" // the buyer asked; the seller has not answered
	RefundDeclined  RefundStatus = "declined"  // the seller said no (or the order was refunded otherwise)
	RefundPending   RefundStatus = "pending"   // booked; the processor has not taken it (or the reversal) yet
	RefundSucceeded RefundStatus = "succeeded" // the buyer has the money back
)

// Who started a refund.
const (
	InitiatedByBuyer   = "buyer"
	InitiatedBySeller  = "seller"
	InitiatedByAdmin   = "admin"
	InitiatedByDispute = "dispute"
)

// Refund is one refund of an order, or a buyer's request for one.
type Refund struct {
	ID          string
	OrderID     string
	Amount      int64 // cents; a request's amount until it is decided
	Status      RefundStatus
	Reason      string
	Message     string // the seller's answer, or a note
	RequestedBy string // the user who asked for (or made) the refund
	InitiatedBy string // buyer, seller, admin, dispute
	DecidedBy   string // the actor id that approved, declined or made it
	// Once booked: SellerShare + PlatformShare = Amount. ReverseAmount is
	// the part of SellerShare taken back from a payout already
	// transferred; ReversedAmount what the processor has reversed.
	SellerShare       int64
	PlatformShare     int64
	ReverseAmount     int64
	ReversedAmount    int64
	ProcessorRefundID string
	ReversalID        string
	// IdemOwner and IdemKey are the idempotency key the refund was made
	// under, and whose it is: a retry of a request whose process died
	// finds the refund instead of making a second one.
	IdemOwner, IdemKey string
	CreatedAt          time.Time
	DecidedAt          *time.Time
	IssuedAt           *time.Time // when the processor took the refund
	UpdatedAt          time.Time
}

// unfinished reports whether the processor still has work on r.
func (r *Refund) unfinished() bool {
	return r.Status == RefundPending || r.ReverseAmount > r.ReversedAmount
}

// RefundTx is what refunds need from a transaction.
type RefundTx interface {
	// CreateRefund inserts r. A second open request (status requested) for
	// one order is INVALID_STATE.
	CreateRefund(ctx context.Context, r *Refund) error
	UpdateRefund(ctx context.Context, r *Refund) error
	RefundByIdempotencyKey(ctx context.Context, orderID, ownerID, key string, since time.Time) (*Refund, error)
	// RefundByID finds a refund, locking it inside a transaction.
	RefundByID(ctx context.Context, id string) (*Refund, error)
	// RefundsOf lists an order's refunds, oldest first.
	RefundsOf(ctx context.Context, orderID string) ([]Refund, error)
	// UnfinishedRefunds lists the orders with refunds or reversals the
	// processor has not taken yet, longest waiting first.
	UnfinishedRefunds(ctx context.Context, limit int) ([]string, error)
	// GiveBackSpend lowers the agent spending counted for an order by
	// amount (not below zero): a partial refund.
	GiveBackSpend(ctx context.Context, orderID string, amount int64) error
}

// maxRefundText bounds a refund's or a cancellation's reason and message,
// in characters.
const maxRefundText = 500

// refundLeft is what is left of the charge to give back.
func refundLeft(o *Order) int64 { return o.Fees.TotalCharged - o.AmountRefunded }

// refundableStatuses are where a buyer may ask, and a seller may give, a
// refund.
var refundableStatuses = []Status{StatusPaid, StatusPickupReady, StatusShipped, StatusDelivered, StatusCompleted}

// refundAmount validates a refund of amount cents against what is left; 0
// is all of it.
func refundAmount(o *Order, amount int64) (int64, error) {
	left := refundLeft(o)
	if left <= 0 {
		return 0, market.Errorf(market.CodeInvalidState, "the order is refunded in full already").
			WithDetails(map[string]any{"status": string(o.Status)})
	}
	if amount == 0 {
		return left, nil
	}
	if amount < 0 || amount > left {
		return 0, market.Invalid(market.FieldError{Field: "amount",
			Message: "must be from 1 to " + centsText(left) + " cents (what is left to refund)"})
	}
	return amount, nil
}

// planRefund books a refund of amount cents (0 = all that is refundable)
// on the locked order o inside tx: inserts the pending refund row, updates
// o in memory (AmountRefunded, SellerRefunded, PayoutAmount, Status
// refunded + PayoutStatus void when full), gives back spending, records
// the timeline event. It does NOT save o; the caller saves it with
// tx.UpdateOrder. A refund of a disputed order is initiated by "dispute".
// reason is checked text (market.Check.Text) or the service's own.
func (s *Service) planRefund(ctx context.Context, tx Tx, o *Order, amount int64, actor market.Actor, reason string,
	now time.Time) (*Refund, error) {
	amount, err := refundAmount(o, amount)
	if err != nil {
		return nil, err
	}
	r := &Refund{ID: market.NewID(), OrderID: o.ID, Amount: amount, Status: RefundPending, Reason: reason,
		RequestedBy: actor.UserID, InitiatedBy: refundInitiator(o, actor), DecidedBy: actor.ID(), CreatedAt: now, DecidedAt: &now,
		UpdatedAt: now, IdemOwner: actor.UserID, IdemKey: market.IdempotencyKey(ctx)}
	if err := s.bookRefund(ctx, tx, o, r, actor, now); err != nil {
		return nil, err
	}
	if err := tx.CreateRefund(ctx, r); err != nil {
		return nil, err
	}
	return r, events.Record(ctx, tx, now, actor, "refund.created", "order", o.ID, refundBookedData(r, o))
}

func refundInitiator(o *Order, actor market.Actor) string {
	switch {
	case o.Status == StatusDisputed:
		return InitiatedByDispute
	case actor.UserID == o.BuyerID && !privileged(actor):
		return InitiatedByBuyer
	case actor.UserID == o.SellerID && !privileged(actor):
		return InitiatedBySeller
	}
	return InitiatedByAdmin
}

func refundBookedData(r *Refund, o *Order) map[string]any {
	return map[string]any{"refund_id": r.ID, "amount": r.Amount, "seller_share": r.SellerShare,
		"platform_share": r.PlatformShare, "amount_refunded": o.AmountRefunded, "full": refundLeft(o) == 0,
		"initiated_by": r.InitiatedBy}
}

// splitRefund says who pays a refund of amount cents on o: the seller's
// side first, up to what is left of their payout (SellerPayout less what
// refunds took from it already), and the platform's fees the rest.
func splitRefund(o *Order, amount int64) (sellerShare, platformShare int64) {
	sellerLeft := max(0, SellerPayout(o)-o.SellerRefunded)
	sellerShare = min(amount, sellerLeft)
	return sellerShare, amount - sellerShare
}

// applyRefund books r's split on r and o in memory: r becomes pending with
// its shares, o's refunded amounts grow, a payout still waiting shrinks to
// what the seller is owed now, and a payout already transferred gets the
// seller's share to reverse.
func applyRefund(o *Order, r *Refund, now time.Time) {
	share, platform := splitRefund(o, r.Amount)
	r.SellerShare, r.PlatformShare, r.Status, r.UpdatedAt = share, platform, RefundPending, now
	o.AmountRefunded += r.Amount
	o.SellerRefunded += share
	o.UpdatedAt = now
	switch o.PayoutStatus {
	case PayoutReleased:
		if o.TransferID != "" { // a payout of nothing has nothing to take back
			r.ReverseAmount = share
		}
	case PayoutPending, PayoutFrozen:
		o.PayoutAmount = max(0, SellerPayout(o)-o.SellerRefunded)
	}
}

// bookRefund splits r.Amount between the seller and the platform and applies it
// to o in memory (see planRefund); r becomes pending.
func (s *Service) bookRefund(ctx context.Context, tx Tx, o *Order, r *Refund, actor market.Actor, now time.Time) error {
	applyRefund(o, r, now)
	if refundLeft(o) > 0 {
		return tx.GiveBackSpend(ctx, o.ID, r.Amount)
	}
	// Refunded in full.
	if o.Status == StatusPaid || o.Status == StatusPickupReady {
		// Never handed over: the item can be sold again.
		if err := relist(ctx, tx, actor, o, now); err != nil {
			return err
		}
	}
	o.Status = StatusRefunded
	if o.PayoutStatus != PayoutReleased {
		o.PayoutStatus, o.PayoutAmount = PayoutVoid, 0
	}
	if err := tx.ReleaseSpend(ctx, o.ID, now); err != nil {
		return err
	}
	// Nothing is left to give: an open request is answered by this refund.
	rs, err := tx.RefundsOf(ctx, o.ID)
	if err != nil {
		return err
	}
	for i := range rs {
		q := &rs[i]
		if q.Status != RefundRequested || q.ID == r.ID {
			continue
		}
		q.Status, q.Message, q.DecidedBy, q.DecidedAt, q.UpdatedAt = RefundDeclined,
			"the order was refunded in full by another refund", actor.ID(), &now, now
		if err := tx.UpdateRefund(ctx, q); err != nil {
			return err
		}
		if err := events.Record(ctx, tx, now, actor, "refund.declined", "order", o.ID, map[string]any{
			"refund_id": q.ID, "amount": q.Amount, "message": q.Message}); err != nil {
			return err
		}
	}
	return nil
}

// executeRefunds runs the processor calls of the order's pending refunds
// (refund, then transfer reversal) and marks them succeeded; safe to call
// twice. A processor failure is logged and leaves the refund pending for
// ReleasePayouts to retry; the error reports the store's failures only.
func (s *Service) executeRefunds(ctx context.Context, orderID string) (*Order, error) {
	o, perr, err := s.runRefunds(ctx, orderID)
	if perr != nil {
		s.opts.Log.Warn("refund left pending", "order_id", orderID, "err", perr.Error())
	}
	return o, err
}

// runRefunds is executeRefunds that also answers the processor's failures
// (perr), for the retrying job.
func (s *Service) runRefunds(ctx context.Context, orderID string) (o *Order, perr, err error) {
	rd := s.store.Read()
	rs, err := rd.RefundsOf(ctx, orderID)
	if err != nil {
		return nil, nil, err
	}
	var perrs []error
	for i := range rs {
		r := &rs[i]
		if !r.unfinished() {
			continue
		}
		cur, err := rd.OrderByID(ctx, orderID)
		if err != nil {
			return nil, nil, err
		}
		if r.ProcessorRefundID == "" {
			pr, err := s.opts.Gateway.Refund(ctx, payments.RefundRequest{PaymentID: cur.PaymentID, Amount: r.Amount,
				IdempotencyKey: "refund-" + r.ID, Reason: "requested_by_customer"})
			if err != nil {
				perrs = append(perrs, err)
				continue // the reversal waits for the refund
			}
			if err := s.recordRefundIssued(ctx, r.ID, pr); err != nil {
				return nil, nil, err
			}
		}
		if r.ReverseAmount > r.ReversedAmount && cur.TransferID != "" {
			amount := r.ReverseAmount - r.ReversedAmount
			rv, err := s.opts.Gateway.ReverseTransfer(ctx, payments.TransferReversalRequest{TransferID: cur.TransferID,
				Amount: amount, IdempotencyKey: "reversal-" + r.ID})
			if err != nil {
				perrs = append(perrs, err)
				continue
			}
			if err := s.recordReversal(ctx, r.ID, rv); err != nil {
				return nil, nil, err
			}
		}
	}
	o, err = rd.OrderByID(ctx, orderID)
	return o, errors.Join(perrs...), err
}

// recordRefundIssued records that the processor took refund id.
func (s *Service) recordRefundIssued(ctx context.Context, id string, pr *payments.Refund) error {
	return s.store.InTx(ctx, func(tx Tx) error {
		r, err := tx.RefundByID(ctx, id)
		if err != nil {
			return err
		}
		o, err := tx.OrderByID(ctx, r.OrderID)
		if err != nil || r.ProcessorRefundID != "" {
			return err // recorded by a concurrent run
		}
		now := s.clock.Now()
		r.ProcessorRefundID, r.IssuedAt, r.UpdatedAt = pr.ID, &now, now
		if r.ReversedAmount >= r.ReverseAmount {
			r.Status = RefundSucceeded
		}
		if err := tx.UpdateRefund(ctx, r); err != nil {
			return err
		}
		return recordOrder(ctx, tx, now, market.System, "refund.issued", o, map[string]any{
			"refund_id": r.ID, "amount": r.Amount, "processor_refund_id": pr.ID})
	})
}

// recordReversal records that the processor took back r's seller share from the
// order's transfer.
func (s *Service) recordReversal(ctx context.Context, id string, rv *payments.TransferReversal) error {
	return s.store.InTx(ctx, func(tx Tx) error {
		r, err := tx.RefundByID(ctx, id)
		if err != nil {
			return err
		}
		o, err := tx.OrderByID(ctx, r.OrderID)
		if err != nil || r.ReversedAmount >= r.ReverseAmount {
			return err
		}
		now := s.clock.Now()
		amount := r.ReverseAmount - r.ReversedAmount
		r.ReversedAmount, r.ReversalID, r.UpdatedAt = r.ReverseAmount, rv.ID, now
		if r.ProcessorRefundID != "" {
			r.Status = RefundSucceeded
		}
		if err := tx.UpdateRefund(ctx, r); err != nil {
			return err
		}
		o.TransferReversed += amount
		o.UpdatedAt = now
		if _, err := tx.UpdateOrder(ctx, o, o.Status); err != nil {
			return err
		}
		return events.Record(ctx, tx, now, market.System, "transfer.reversed", "order", o.ID, map[string]any{
			"refund_id": r.ID, "amount": amount, "reversal_id": rv.ID, "transfer_id": o.TransferID,
			"transfer_reversed": o.TransferReversed})
	})
}

// retryRefunds finishes refunds and reversals the processor did not take
// (the payout job). It returns how many orders it finished.
func (s *Service) retryRefunds(ctx context.Context) (int, error) {
	ids, err := s.store.Read().UnfinishedRefunds(ctx, 200)
	if err != nil {
		return 0, err
	}
	var errs []error
	n := 0
	for _, id := range ids {
		_, perr, err := s.runRefunds(ctx, id)
		switch {
		case err != nil:
			errs = append(errs, err)
		case perr != nil:
			errs = append(errs, perr)
		default:
			n++
		}
	}
	return n, errors.Join(errs...)
}

// assignReversals handles a payout transferred while refunds were booked
// against it as still pending: the transfer paid `excess` more than the
// seller is now owed, so the newest refunds that shrank the pending payout
// get that much to reverse (their reversal key was never used).
func assignReversals(ctx context.Context, tx Tx, orderID string, excess int64, now time.Time) error {
	rs, err := tx.RefundsOf(ctx, orderID)
	if err != nil {
		return err
	}
	for i := len(rs) - 1; i >= 0 && excess > 0; i-- {
		r := &rs[i]
		if r.SellerShare == 0 || r.ReverseAmount > 0 || r.ReversalID != "" ||
			r.Status != RefundPending && r.Status != RefundSucceeded {
			continue
		}
		r.ReverseAmount = min(r.SellerShare, excess)
		excess -= r.ReverseAmount
		r.UpdatedAt = now
		if err := tx.UpdateRefund(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// ---- the routes' side ----

// RefundRequestInput is the buyer's RequestRefundDto.
type RefundRequestInput struct {
	Reason  string
	Amount  *int64 // nil: everything refundable
	Message string
}

// RefundAnswer is the seller's RespondRefundDto.
type RefundAnswer struct {
	RefundID string // the request answered; "" is the open one
	Action   string // approve (default) or decline
	Amount   *int64 // approve less than asked; a seller refund's amount (nil: everything refundable)
	Reason   string
	Message  string
}

// Refund actions.
const (
	ActionApprove = "approve"
	ActionDecline = "decline"
)

// RequestRefund is the buyer asking for a refund (POST
// /purchases/{id}/refund): a request the seller answers; the order does not
// change until then. It returns the request and the order.
func (s *Service) RequestRefund(ctx context.Context, actor market.Actor, orderID string, in RefundRequestInput) (*Refund, *Order, error) {
	var c market.Check
	in.Reason = c.Text("reason", in.Reason, maxRefundText, true)
	in.Message = c.Text("message", in.Message, maxRefundText, false)
	c.Require(in.Amount == nil || *in.Amount > 0, "amount", "must be a positive number of cents")
	if err := c.Err(); err != nil {
		return nil, nil, err
	}
	var r *Refund
	var o *Order
	err := s.store.InTx(ctx, func(tx Tx) error {
		var err error
		if o, err = s.visible(ctx, tx, actor, orderID); err != nil {
			return err
		}
		if o.BuyerID != actor.UserID {
			return market.Errorf(market.CodeForbidden, "only the buyer may ask for a refund")
		}
		if r, err = s.keyedRefund(ctx, tx, o.ID, actor.UserID); err != nil || r != nil {
			return err // a retry of a request whose process died: its request stands
		}
		if !statusIn(o.Status, refundableStatuses) {
			return market.Errorf(market.CodeInvalidState, "cannot ask for a refund of an order that is %s", o.Status).
				WithDetails(map[string]any{"status": string(o.Status)})
		}
		if open, err := openRefundRequest(ctx, tx, o.ID); err != nil || open != nil {
			if err == nil {
				err = market.Errorf(market.CodeInvalidState, "a refund request of this order is open already").
					WithDetails(map[string]any{"status": string(o.Status), "refund_id": open.ID})
			}
			return err
		}
		var amount int64
		if in.Amount != nil {
			amount = *in.Amount
		}
		if amount, err = refundAmount(o, amount); err != nil {
			return err
		}
		now := s.clock.Now()
		r = &Refund{ID: market.NewID(), OrderID: o.ID, Amount: amount, Status: RefundRequested, Reason: in.Reason,
			Message: in.Message, RequestedBy: actor.UserID, InitiatedBy: InitiatedByBuyer, CreatedAt: now, UpdatedAt: now,
			IdemOwner: actor.UserID, IdemKey: market.IdempotencyKey(ctx)}
		if err := tx.CreateRefund(ctx, r); err != nil {
			return err
		}
		return events.Record(ctx, tx, now, actor, "refund.requested", "order", o.ID, map[string]any{
			"refund_id": r.ID, "amount": amount, "reason": in.Reason})
	})
	if err != nil {
		return nil, nil, err
	}
	return r, o, nil
}

// openRefundRequest is the order's open buyer request, or nil.
func openRefundRequest(ctx context.Context, tx Tx, orderID string) (*Refund, error) {
	rs, err := tx.RefundsOf(ctx, orderID)
	if err != nil {
		return nil, err
	}
	for i := range rs {
		if rs[i].Status == RefundRequested {
			return &rs[i], nil
		}
	}
	return nil, nil
}

// RespondRefund is the seller (or an admin) answering the buyer's request,
// or refunding on their own (POST /purchases/{id}/refund/seller):
//
//   - refundId, or an open request: approve pays the requested amount (or
//     the smaller amount given), decline closes the request;
//   - no open request and no refundId: a refund of amount (default all that
//     is refundable);
//   - an answer already given is answered again (an approval posted twice
//     pays once); answering it the other way is INVALID_STATE. An explicit
//     action with no open request and no refundId answers the buyer's
//     latest request again.
//
// It returns the refund and the order after the processor's answer.
func (s *Service) RespondRefund(ctx context.Context, actor market.Actor, orderID string, in RefundAnswer) (*Refund, *Order, error) {
	if err := checkRefundAnswer(&in); err != nil {
		return nil, nil, err
	}
	var r *Refund
	var o *Order
	err := s.store.InTx(ctx, func(tx Tx) error {
		var err error
		r, o, err = s.answerRefund(ctx, tx, actor, orderID, in)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return s.finishRefund(ctx, r, o)
}

// checkRefundAnswer validates an answer's fields and trims its texts.
func checkRefundAnswer(in *RefundAnswer) error {
	var c market.Check
	c.Require(in.Action == "" || in.Action == ActionApprove || in.Action == ActionDecline, "action", "must be approve or decline")
	c.Require(in.Amount == nil || *in.Amount > 0, "amount", "must be a positive number of cents")
	c.Require(in.RefundID == "" || market.ValidID(in.RefundID), "refund_id", "must be a refund id")
	in.Reason = c.Text("reason", in.Reason, maxRefundText, false)
	in.Message = c.Text("message", in.Message, maxRefundText, false)
	return c.Err()
}

// answerRefund is RespondRefund's transaction: it loads the order for its
// seller (or an admin), finds what the answer is about and books it: a
// retry's refund as it stands, the seller's own refund, an answer given
// before given again, or the open request declined or approved. It returns
// the refund and the order, both as booked.
func (s *Service) answerRefund(ctx context.Context, tx Tx, actor market.Actor, orderID string, in RefundAnswer) (*Refund, *Order, error) {
	o, err := s.orderForRefundAnswer(ctx, tx, actor, orderID)
	if err != nil {
		return nil, nil, err
	}
	if r, err := s.keyedRefund(ctx, tx, o.ID, actor.UserID); err != nil || r != nil {
		return r, o, err // a retry of a request whose process died: its refund stands
	}
	r, err := s.answeredRequest(ctx, tx, o, in)
	if err != nil {
		return nil, nil, err
	}
	now := s.clock.Now()
	switch {
	case r == nil:
		r, err = s.refundBySeller(ctx, tx, actor, o, in, now)
	case r.Status != RefundRequested:
		err = s.sameRefundAnswer(r, in.Action)
	case in.Action == ActionDecline:
		err = declineRequest(ctx, tx, actor, o, r, in.Message, now)
	default:
		err = s.approveRequest(ctx, tx, actor, o, r, in, now)
	}
	return r, o, err
}

// orderForRefundAnswer loads an order whose refunds the actor may answer or
// make: its seller's, or any for an admin.
func (s *Service) orderForRefundAnswer(ctx context.Context, tx Tx, actor market.Actor, orderID string) (*Order, error) {
	o, err := s.visible(ctx, tx, actor, orderID)
	if err != nil {
		return nil, err
	}
	if o.SellerID != actor.UserID && !privileged(actor) {
		return nil, market.Errorf(market.CodeForbidden, "only the seller may answer a refund request or refund")
	}
	return o, nil
}

// refundBySeller books the seller's (or an admin's) own refund of in.Amount
// (nil: all that is refundable) on the locked order o and saves o.
func (s *Service) refundBySeller(ctx context.Context, tx Tx, actor market.Actor, o *Order, in RefundAnswer,
	now time.Time) (*Refund, error) {
	if err := refundableNow(o); err != nil {
		return nil, err
	}
	var amount int64
	if in.Amount != nil {
		amount = *in.Amount
	}
	from := o.Status
	r, err := s.planRefund(ctx, tx, o, amount, actor, in.Reason, now)
	if err != nil {
		return nil, err
	}
	r.Message = in.Message
	if err := tx.UpdateRefund(ctx, r); err != nil {
		return nil, err
	}
	return r, saveRefunded(ctx, tx, o, from)
}

// decideRequest marks the open request r as decided now by actor, with the
// answer's message when it gave one.
func decideRequest(r *Refund, actor market.Actor, message string, now time.Time) {
	r.DecidedBy, r.DecidedAt, r.UpdatedAt = actor.ID(), &now, now
	if message != "" {
		r.Message = message
	}
}

// declineRequest closes the open request r without a refund; the order does
// not change.
func declineRequest(ctx context.Context, tx Tx, actor market.Actor, o *Order, r *Refund, message string, now time.Time) error {
	decideRequest(r, actor, message, now)
	r.Status = RefundDeclined
	if err := tx.UpdateRefund(ctx, r); err != nil {
		return err
	}
	return events.Record(ctx, tx, now, actor, "refund.declined", "order", o.ID, map[string]any{
		"refund_id": r.ID, "amount": r.Amount, "message": r.Message})
}

// approveRequest books the open request r as a refund of the requested
// amount (or the smaller amount the answer gives) on the locked order o and
// saves o.
func (s *Service) approveRequest(ctx context.Context, tx Tx, actor market.Actor, o *Order, r *Refund, in RefundAnswer,
	now time.Time) error {
	decideRequest(r, actor, in.Message, now)
	if err := refundableNow(o); err != nil {
		return err
	}
	amount, err := approvedAmount(o, r, in.Amount)
	if err != nil {
		return err
	}
	r.Amount = amount
	from := o.Status
	if err := s.bookRefund(ctx, tx, o, r, actor, now); err != nil {
		return err
	}
	if err := tx.UpdateRefund(ctx, r); err != nil {
		return err
	}
	if err := events.Record(ctx, tx, now, actor, "refund.approved", "order", o.ID, refundBookedData(r, o)); err != nil {
		return err
	}
	return saveRefunded(ctx, tx, o, from)
}

// approvedAmount is what approving request r pays: the requested amount, or
// the smaller amount the seller gives (never more than asked), and never
// more than is left of the charge.
func approvedAmount(o *Order, r *Refund, amount *int64) (int64, error) {
	want := r.Amount
	if amount != nil {
		if *amount > r.Amount {
			return 0, market.Invalid(market.FieldError{Field: "amount",
				Message: "must be at most the requested " + centsText(r.Amount) + " cents"})
		}
		want = *amount
	} else if left := refundLeft(o); left > 0 && want > left {
		// The request was made when more was refundable (a dispute or
		// another refund has taken some since): the seller sent no amount
		// to blame, so the state is what refuses.
		return 0, market.Errorf(market.CodeInvalidState,
			"the request asks for %d cents but only %d are left to refund; approve it with an amount of at most %d", want, left, left).
			WithDetails(map[string]any{"status": string(o.Status), "refundable_amount": left})
	}
	return refundAmount(o, want)
}

// finishRefund asks the processor for what is unfinished of the answered
// refund r (a refund just booked, or one an earlier call left pending) and
// reads the refund and its order back; a finished refund is answered as it
// is.
func (s *Service) finishRefund(ctx context.Context, r *Refund, o *Order) (*Refund, *Order, error) {
	if !r.unfinished() {
		return r, o, nil
	}
	o, err := s.executeRefunds(ctx, o.ID)
	if err != nil {
		return nil, nil, err
	}
	if r, err = s.store.Read().RefundByID(ctx, r.ID); err != nil {
		return nil, nil, err
	}
	return r, o, nil
}

// answeredRequest finds the request the seller answers: by id, the open one, or
// (an explicit action with nothing open) the buyer's latest; nil means the
// seller refunds on their own.
func (s *Service) answeredRequest(ctx context.Context, tx Tx, o *Order, in RefundAnswer) (*Refund, error) {
	if in.RefundID != "" {
		r, err := tx.RefundByID(ctx, in.RefundID)
		if market.CodeOf(err) == market.CodeNotFound || err == nil && r.OrderID != o.ID {
			return nil, market.NotFound("refund")
		}
		return r, err
	}
	rs, err := tx.RefundsOf(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	var latest *Refund
	for i := range rs {
		if rs[i].Status == RefundRequested {
			return &rs[i], nil
		}
		if rs[i].InitiatedBy == InitiatedByBuyer {
			latest = &rs[i]
		}
	}
	if in.Action == "" {
		return nil, nil
	}
	if latest == nil && in.Action == ActionDecline {
		return nil, market.Errorf(market.CodeInvalidState, "there is no refund request to decline").
			WithDetails(map[string]any{"status": string(o.Status)})
	}
	return latest, nil
}

// sameRefundAnswer answers a request decided before: again if the action agrees,
// INVALID_STATE if not.
func (s *Service) sameRefundAnswer(r *Refund, action string) error {
	declined := r.Status == RefundDeclined
	if declined == (action == ActionDecline) {
		return nil
	}
	return market.Errorf(market.CodeInvalidState, "this refund request was answered already (%s)", r.Status).
		WithDetails(map[string]any{"status": string(r.Status), "refund_id": r.ID})
}

func refundableNow(o *Order) error {
	if !statusIn(o.Status, refundableStatuses) {
		return market.Errorf(market.CodeInvalidState, "cannot refund an order that is %s", o.Status).
			WithDetails(map[string]any{"status": string(o.Status)})
	}
	return nil
}

func saveRefunded(ctx context.Context, tx Tx, o *Order, from Status) error {
	ok, err := tx.UpdateOrder(ctx, o, from)
	if err == nil && !ok {
		err = market.Errorf(market.CodeInvalidState, "the order changed meanwhile; read it again")
	}
	return err
}

// Refunds lists an order's refunds and requests, oldest first, to its
// buyer, its seller or an admin, with the order.
func (s *Service) Refunds(ctx context.Context, actor market.Actor, orderID string) (*Order, []Refund, error) {
	rd := s.store.Read()
	o, err := s.visible(ctx, rd, actor, orderID)
	if err != nil {
		return nil, nil, err
	}
	rs, err := rd.RefundsOf(ctx, orderID)
	if err != nil {
		return nil, nil, err
	}
	return o, rs, nil
}

func centsText(n int64) string { return strconv.FormatInt(n, 10) }
