package orders

import (
	"context"
	"fmt"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// queueApproval records a purchase above the owner's approval threshold: the
// order waits as pending_approval (holding neither the listing nor any
// spending) until the owner decides.
func (s *Service) queueApproval(ctx context.Context, tx Tx, b Buyer, o *Order, requestID string, now time.Time) (*Approval, error) {
	o.Status = StatusPendingApproval
	if err := tx.CreateOrder(ctx, o); err != nil {
		return nil, err
	}
	a := &Approval{ID: market.NewID(), OrderID: o.ID, OwnerID: b.User.ID, KeyID: b.Actor.KeyID,
		Amount: o.Fees.TotalCharged, Status: ApprovalPending, CreatedAt: now, RequestID: requestID}
	if err := tx.CreateApproval(ctx, a); err != nil {
		return nil, err
	}
	// The owner is asked to decide (CONTRACT.md section 12).
	return a, recordOrder(ctx, tx, now, b.Actor, "approval.required", o, map[string]any{
		"approval_id": a.ID, "amount": a.Amount, "key_id": a.KeyID})
}

// wasApproval reports whether an order went through the approval queue.
func wasApproval(ctx context.Context, tx Tx, o *Order) (bool, error) {
	if o.Channel != ChannelAgent {
		return false, nil
	}
	_, err := tx.ApprovalOfOrder(ctx, o.ID)
	if market.CodeOf(err) == market.CodeNotFound {
		return false, nil
	}
	return err == nil, err
}

// ApprovalView is an approval with its order.
type ApprovalView struct {
	Approval Approval
	Order    *Order
}

// Approvals lists the owner's purchase approvals, newest first; status ""
// lists all.
func (s *Service) Approvals(ctx context.Context, actor market.Actor, status string, limit, offset int) ([]ApprovalView, int, error) {
	return s.approvals(ctx, actor.UserID, status, limit, offset)
}

func (s *Service) approvals(ctx context.Context, ownerID, status string, limit, offset int) ([]ApprovalView, int, error) {
	switch status {
	case "", ApprovalPending, ApprovalApproved, ApprovalRejected:
	default:
		return nil, 0, market.Invalid(market.FieldError{Field: "status", Message: "must be pending, approved or rejected"})
	}
	rd := s.store.Read()
	as, total, err := rd.Approvals(ctx, ownerID, status, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	ids := make([]string, len(as))
	for i, a := range as {
		ids[i] = a.OrderID
	}
	os, err := rd.OrdersByID(ctx, ids)
	if err != nil {
		return nil, 0, err
	}
	byID := make(map[string]*Order, len(os))
	for i := range os {
		byID[os[i].ID] = &os[i]
	}
	out := make([]ApprovalView, len(as))
	for i, a := range as {
		o := byID[a.OrderID]
		if o == nil { // approvals cascade with their order, so this is a broken store
			return nil, 0, market.Internal(fmt.Errorf("approval %s: order %s is missing", a.ID, a.OrderID))
		}
		out[i] = ApprovalView{Approval: a, Order: o}
	}
	return out, total, nil
}

// pendingApproval loads an approval of the caller's that is still pending.
func pendingApproval(ctx context.Context, tx Tx, actor market.Actor, id string) (*Approval, *Order, error) {
	if !market.ValidID(id) {
		return nil, nil, market.NotFound("approval")
	}
	a, err := tx.ApprovalByID(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if a.OwnerID != actor.UserID && !actor.Admin {
		return nil, nil, market.NotFound("approval")
	}
	if a.Status != ApprovalPending {
		return nil, nil, market.Errorf(market.CodeInvalidState, "the approval was already %s", a.Status)
	}
	o, err := tx.OrderByID(ctx, a.OrderID)
	if err != nil {
		return nil, nil, err
	}
	return a, o, nil
}

// Approve re-runs every check of the purchase (the listing may have sold or
// changed price, the spending may have moved) and charges. The threshold
// itself is what the owner is waiving; every cap still applies.
func (s *Service) Approve(ctx context.Context, actor market.Actor, id string) (*Order, error) {
	if o, ok, err := s.resumeApproval(ctx, actor, id); ok {
		return o, err
	}
	rates, err := s.feeRates(ctx)
	if err != nil {
		return nil, err
	}
	tax, err := s.taxonomy(ctx)
	if err != nil {
		return nil, err
	}
	var o *Order
	var method *payments.PaymentMethod
	var customer string
	var before map[string]any
	now := s.clock.Now()
	err = s.store.InTx(ctx, func(tx Tx) error {
		a, queued, err := pendingApproval(ctx, tx, actor, id)
		if err != nil {
			return err
		}
		before = approvalAudit(a.Status, queued)
		owner, err := tx.UserByID(ctx, queued.BuyerID)
		if err != nil {
			return err
		}
		b := Buyer{Actor: market.Actor{Type: market.ActorAgent, UserID: owner.ID, KeyID: queued.BuyerKeyID}, User: owner}
		if b.Key, err = usableKey(ctx, tx, queued.BuyerKeyID); err != nil {
			return err
		}
		if !owner.IdentityVerified {
			return market.Errorf(market.CodeOwnerNotVerified, "the owner must verify their identity before the agent can buy")
		}
		price := queued.Fees.ItemPrice
		in := PurchaseInput{ListingID: queued.ListingID, MaxPrice: queued.MaxPrice, ExpectedPrice: &price,
			ShippingAddress: queued.ShippingAddress, Fulfillment: string(queued.Fulfillment), OfferID: queued.OfferID,
			PaymentMethodID: queued.PaymentMethodID, PaymentToken: queued.PaymentToken, CheckoutSessionID: queued.CheckoutSessionID}
		d, err := s.prepareApproved(ctx, tx, b, &in, queued, rates, now)
		if err != nil {
			return err
		}
		o = d.order
		if _, err := agents.CheckSpend(ctx, tx, now, agents.SpendRequest{OwnerID: owner.ID, Key: b.Key,
			Amount: o.Fees.TotalCharged, InCategory: func(r string) bool { return tax.Restricts(r, d.listing) }, Approved: true,
			ExcludeOfferID: queued.OfferID}); err != nil {
			return err
		}
		st, err := spendStanding(ctx, tx, now, owner.ID, b.Key, queued.OfferID)
		if err != nil {
			return err
		}
		o.Processor, o.PaymentToken = s.opts.Gateway.Name(), queued.PaymentToken
		if o.PaymentToken == "" {
			if method, customer, err = s.opts.Payments.ChargeableMethod(ctx, tx, owner.ID, queued.PaymentMethodID); err != nil {
				return err
			}
			o.PaymentMethodID = method.ID
		}
		// The record is made now, when the order is created from the
		// approval: it names the agent's call and the owner's decision.
		o.Authorization = newAuthorization(b.Key, queued.BuyerKeyID, o, st, a.RequestID,
			&AuthorizationApproval{ID: a.ID, DecidedBy: actor.ID(), DecidedAt: now}, now)
		if err := s.reserve(ctx, tx, o, StatusPendingApproval, now); err != nil {
			return err
		}
		a.Status, a.DecidedBy, a.DecidedAt = ApprovalApproved, actor.ID(), &now
		if err := tx.UpdateApproval(ctx, a); err != nil {
			return err
		}
		return events.Record(ctx, tx, now, actor, "purchase_approval.approved", "order", o.ID, map[string]any{"approval_id": a.ID})
	})
	if err != nil {
		if o != nil {
			s.charging.done(o.ID)
		}
		return nil, err
	}
	if err := s.keyStopped(ctx, o); err != nil {
		return nil, err
	}
	paid, err := s.charge(ctx, o, customer, externalID(method))
	if paid != nil && paid.Authorization == nil {
		paid.Authorization = o.Authorization
	}
	if err == nil {
		s.noteChange(ctx, before, approvalAudit(ApprovalApproved, paid))
	}
	return paid, err
}

// usableKey loads the key that queued a purchase: approval re-runs the key
// checks too, so a key frozen or revoked since cannot buy.
func usableKey(ctx context.Context, tx Tx, id string) (*agents.Key, error) {
	k, err := tx.KeyByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.Errorf(market.CodeInvalidState, "the agent key that made this purchase no longer exists")
	}
	if err != nil {
		return nil, err
	}
	switch k.Status {
	case agents.KeyFrozen:
		return nil, market.Errorf(market.CodeAgentFrozen, "the agent key that made this purchase is frozen")
	case agents.KeyRevoked:
		return nil, market.Errorf(market.CodeInvalidState, "the agent key that made this purchase was revoked")
	}
	return k, nil
}

// prepareApproved re-runs the pre-spending checks for a queued order and
// carries its identity and shipping over (the queued rate's amount stands:
// it was verified when the agent asked).
func (s *Service) prepareApproved(ctx context.Context, tx Tx, b Buyer, in *PurchaseInput, queued *Order, rates FeeRates, now time.Time) (*draft, error) {
	l, err := s.buyable(ctx, tx, in.ListingID, queued.BuyerID)
	if err != nil {
		return nil, err
	}
	price := l.Price
	if queued.OfferID != "" && s.opts.Offers != nil {
		if price, err = s.offerPrice(ctx, tx, queued.OfferID, queued.BuyerID, l, now); err != nil {
			return nil, err
		}
	}
	if price != queued.Fees.ItemPrice {
		return nil, market.Errorf(market.CodePriceChanged, "the price changed from %d to %d cents since the purchase was queued",
			queued.Fees.ItemPrice, price).WithDetails(map[string]any{"current_price": price, "expected_price": queued.Fees.ItemPrice})
	}
	if queued.MaxPrice != nil && price > *queued.MaxPrice {
		return nil, market.Errorf(market.CodeMaxPriceExceeded, "the price is above maxPrice")
	}
	o := *queued
	o.Fees = Compute(rates, price, queued.Fees.ShippingCost)
	return &draft{listing: l, order: &o}, nil
}

// maxRejectReason bounds an owner's reason for rejecting a purchase, in
// characters as sent.
const maxRejectReason = 500

// Reject ends a queued purchase: the order is cancelled. The reason is
// checked as every other text is (characters, not bytes; no control
// characters) and stored trimmed.
func (s *Service) Reject(ctx context.Context, actor market.Actor, id, reason string) (*Order, error) {
	var c market.Check
	reason = c.Text("reason", reason, maxRejectReason, false)
	if err := c.Err(); err != nil {
		return nil, err
	}
	var o *Order
	err := s.store.InTx(ctx, func(tx Tx) error {
		a, queued, err := pendingApproval(ctx, tx, actor, id)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		before := approvalAudit(a.Status, queued)
		o = queued
		o.Status, o.CancelledAt, o.UpdatedAt = StatusCancelled, &now, now
		if ok, err := tx.UpdateOrder(ctx, o, StatusPendingApproval); err != nil || !ok {
			if err == nil {
				err = market.Errorf(market.CodeInvalidState, "the order is no longer waiting for approval")
			}
			return err
		}
		a.Status, a.Reason, a.DecidedBy, a.DecidedAt = ApprovalRejected, reason, actor.ID(), &now
		if err := tx.UpdateApproval(ctx, a); err != nil {
			return err
		}
		s.noteChange(ctx, before, approvalAudit(a.Status, o))
		return recordOrder(ctx, tx, now, actor, "order.cancelled", o, map[string]any{
			"reason": "approval_rejected", "approval_id": a.ID})
	})
	return o, err
}

// Queue lists every owner's purchase approvals for admins (the admin queue's
// purchase_approval items), newest first.
func (s *Service) Queue(ctx context.Context, actor market.Actor, status string, limit, offset int) ([]ApprovalView, int, error) {
	if !actor.Admin {
		return nil, 0, market.Errorf(market.CodeForbidden, "the queue is for admins")
	}
	return s.approvals(ctx, "", status, limit, offset)
}
