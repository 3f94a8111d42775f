package orders

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// A buyer disputes an order; the seller may answer once; an admin resolves
// it by refunding the buyer (in full or in part) or releasing the money to
// the seller. While the dispute is open the order is `disputed` and its
// payout frozen, so no sweep pays the seller meanwhile.

// DisputeStatus is where a dispute stands: open -> seller_responded ->
// resolved (an admin may resolve an open one directly).
type DisputeStatus string

const (
	DisputeOpen      DisputeStatus = "open"
	DisputeResponded DisputeStatus = "seller_responded"
	DisputeResolved  DisputeStatus = "resolved"
)

// DisputeStatuses lists every dispute status, for filters.
var DisputeStatuses = []DisputeStatus{DisputeOpen, DisputeResponded, DisputeResolved}

// Resolution is how an admin settles a dispute.
type Resolution string

const (
	ResolveRefundBuyer   Resolution = "refund_buyer"   // everything refundable goes back; the order is refunded
	ResolveReleaseSeller Resolution = "release_seller" // the order goes on as before the dispute
	ResolvePartialRefund Resolution = "partial_refund" // part goes back; the order goes on with a smaller payout
)

// Resolutions lists every resolution.
var Resolutions = []Resolution{ResolveRefundBuyer, ResolveReleaseSeller, ResolvePartialRefund}

// DisputeReasons are the reasons a buyer may give.
var DisputeReasons = []string{"not_received", "not_as_described", "damaged", "counterfeit", "other"}

// Limits of dispute input.
const (
	MaxDisputeText    = 2000 // description and seller response, in characters
	MaxEvidencePhotos = 8
	MaxResolutionNote = 1000
)

// disputable are the statuses a buyer may dispute from: paid, and every
// later status where the money has not gone back to the buyer.
var disputable = []Status{StatusPaid, StatusPickupReady, StatusShipped, StatusDelivered, StatusCompleted}

// Dispute is a buyer's complaint about one order.
type Dispute struct {
	ID               string
	OrderID          string
	BuyerID          string
	SellerID         string
	Status           DisputeStatus
	Reason           string
	Description      string
	PhotoIDs         []string // the buyer's evidence (photo upload ids)
	SellerResponse   string
	SellerPhotoIDs   []string
	RespondedAt      *time.Time
	Resolution       Resolution
	ResolutionAmount *int64 // refunded by the resolution (0 for release_seller)
	ResolutionNote   string
	ResolvedBy       string
	ResolvedAt       *time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// DisputeFilter selects a page of disputes.
type DisputeFilter struct {
	UserID string        // the buyer or seller; "" for everyone's (admin)
	Role   string        // buyer, seller, or "" for both
	Status DisputeStatus // "" for every status
	Limit  int
	Offset int
}

// DisputeTx is what disputes need from a transaction.
type DisputeTx interface {
	// CreateDispute inserts d; a second unresolved dispute of one order is
	// INVALID_STATE.
	CreateDispute(ctx context.Context, d *Dispute) error
	UpdateDispute(ctx context.Context, d *Dispute) error
	// DisputeByID finds a dispute, locking it inside a transaction.
	DisputeByID(ctx context.Context, id string) (*Dispute, error)
	// OpenDisputeOf finds the unresolved dispute of an order.
	OpenDisputeOf(ctx context.Context, orderID string) (*Dispute, error)
	Disputes(ctx context.Context, f DisputeFilter) ([]Dispute, int, error)
	PhotoUploadByID(ctx context.Context, id string) (*listings.PhotoUpload, error)
}

// DisputeInput opens a dispute. PhotoIDs are the upload ids of the
// evidence photos ("" for a URL this service did not issue).
type DisputeInput struct {
	OrderID     string
	Reason      string
	Description string
	PhotoIDs    []string
}

// OpenDispute is the buyer (or an admin, or the sandbox acting for the
// buyer) disputing an order. In one transaction on the locked order the
// dispute is inserted, the order becomes `disputed` remembering its status,
// a pending payout is frozen, and the timeline gets order.disputed.
func (s *Service) OpenDispute(ctx context.Context, actor market.Actor, in DisputeInput) (*Dispute, error) {
	var c market.Check
	c.Require(in.OrderID != "", "order_id", "is required")
	c.Require(slices.Contains(DisputeReasons, in.Reason), "reason", "must be one of "+strings.Join(DisputeReasons, ", "))
	in.Description = c.Text("description", in.Description, MaxDisputeText, true)
	checkPhotos(&c, "evidence_photos", in.PhotoIDs)
	if err := c.Err(); err != nil {
		return nil, err
	}
	id := market.NewID()
	var d *Dispute
	o, err := s.move(ctx, actor, in.OrderID, transition{name: "dispute", by: byBuyer, from: disputable, to: StatusDisputed,
		event: "order.disputed", apply: func(ctx context.Context, tx Tx, o *Order, now time.Time) error {
			if err := ownPhotos(ctx, tx, actor.UserID, "evidence_photos", in.PhotoIDs); err != nil {
				return err
			}
			d = &Dispute{ID: id, OrderID: o.ID, BuyerID: o.BuyerID, SellerID: o.SellerID, Status: DisputeOpen,
				Reason: in.Reason, Description: in.Description, PhotoIDs: nonNil(in.PhotoIDs), SellerPhotoIDs: []string{},
				CreatedAt: now, UpdatedAt: now}
			if err := tx.CreateDispute(ctx, d); err != nil {
				return err
			}
			o.StatusBeforeDispute = o.Status
			if o.PayoutStatus == PayoutPending {
				o.PayoutStatus = PayoutFrozen
			}
			return nil
		}}, map[string]any{"dispute_id": id, "reason": in.Reason})
	if err != nil {
		return nil, err
	}
	if d == nil {
		// The order is disputed already: one open dispute per order.
		e := market.Errorf(market.CodeInvalidState, "the order already has an open dispute")
		details := map[string]any{"status": string(o.Status)}
		if open, err := s.store.Read().OpenDisputeOf(ctx, o.ID); err == nil {
			details["dispute_id"] = open.ID
		} else if market.CodeOf(err) != market.CodeNotFound {
			return nil, err
		}
		return nil, e.WithDetails(details)
	}
	return d, nil
}

// DisputeReply is the seller's answer to a dispute.
type DisputeReply struct {
	Response string
	PhotoIDs []string
}

// RespondDispute is the seller answering an open dispute, once. The same
// answer sent again (a retry) is answered unchanged; a different one, or
// any answer after the resolution, is INVALID_STATE.
func (s *Service) RespondDispute(ctx context.Context, actor market.Actor, id string, in DisputeReply) (*Dispute, error) {
	var c market.Check
	in.Response = c.Text("response", in.Response, MaxDisputeText, true)
	checkPhotos(&c, "evidence_photos", in.PhotoIDs)
	if err := c.Err(); err != nil {
		return nil, err
	}
	if !market.ValidID(id) {
		return nil, market.NotFound("dispute")
	}
	var d *Dispute
	err := s.store.InTx(ctx, func(tx Tx) error {
		var err error
		if d, err = s.visibleDispute(ctx, tx, actor, id); err != nil {
			return err
		}
		if d.SellerID != actor.UserID {
			return market.Errorf(market.CodeForbidden, "only the seller responds to a dispute")
		}
		if err := ownPhotos(ctx, tx, actor.UserID, "evidence_photos", in.PhotoIDs); err != nil {
			return err
		}
		photos := nonNil(in.PhotoIDs)
		switch d.Status {
		case DisputeResponded:
			if d.SellerResponse == in.Response && slices.Equal(d.SellerPhotoIDs, photos) {
				return nil // a retry: answer it again
			}
			fallthrough
		case DisputeResolved:
			return market.Errorf(market.CodeInvalidState, "the dispute is %s; the seller responds once, while it is open", d.Status).
				WithDetails(map[string]any{"status": string(d.Status)})
		}
		now := s.clock.Now()
		d.Status, d.SellerResponse, d.SellerPhotoIDs, d.RespondedAt, d.UpdatedAt = DisputeResponded, in.Response, photos, &now, now
		if err := tx.UpdateDispute(ctx, d); err != nil {
			return err
		}
		return events.Record(ctx, tx, now, actor, "dispute.responded", "order", d.OrderID, map[string]any{"dispute_id": d.ID})
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Dispute returns one dispute to its buyer, its seller or an admin.
func (s *Service) Dispute(ctx context.Context, actor market.Actor, id string) (*Dispute, error) {
	if !market.ValidID(id) {
		return nil, market.NotFound("dispute")
	}
	return s.visibleDispute(ctx, s.store.Read(), actor, id)
}

// MyDisputes lists the caller's disputes, newest first: role buyer, seller
// or "" (both); status "" is every status.
func (s *Service) MyDisputes(ctx context.Context, actor market.Actor, role, status string, limit, offset int) ([]Dispute, int, error) {
	var c market.Check
	c.Require(role == "" || role == "buyer" || role == "seller", "role", "must be buyer or seller")
	checkDisputeStatus(&c, status)
	if err := c.Err(); err != nil {
		return nil, 0, err
	}
	return s.store.Read().Disputes(ctx, DisputeFilter{UserID: actor.UserID, Role: role, Status: DisputeStatus(status),
		Limit: limit, Offset: offset})
}

// AdminDisputes lists every dispute, newest first (admin).
func (s *Service) AdminDisputes(ctx context.Context, actor market.Actor, status string, limit, offset int) ([]Dispute, int, error) {
	if !actor.Admin {
		return nil, 0, market.Errorf(market.CodeForbidden, "only admins list every dispute")
	}
	var c market.Check
	checkDisputeStatus(&c, status)
	if err := c.Err(); err != nil {
		return nil, 0, err
	}
	return s.store.Read().Disputes(ctx, DisputeFilter{Status: DisputeStatus(status), Limit: limit, Offset: offset})
}

// DisputeDetail is a dispute with its order and the order's timeline.
type DisputeDetail struct {
	Dispute *Dispute
	Order   *Order
	Events  []events.Event
}

// AdminDispute returns a dispute with its order and timeline (admin).
func (s *Service) AdminDispute(ctx context.Context, actor market.Actor, id string) (*DisputeDetail, error) {
	if !actor.Admin {
		return nil, market.Errorf(market.CodeForbidden, "only admins see dispute details")
	}
	d, err := s.Dispute(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	return s.disputeDetail(ctx, d)
}

func (s *Service) disputeDetail(ctx context.Context, d *Dispute) (*DisputeDetail, error) {
	rd := s.store.Read()
	o, err := rd.OrderByID(ctx, d.OrderID)
	if err != nil {
		return nil, err
	}
	es, err := rd.EventsFor(ctx, "order", d.OrderID)
	if err != nil {
		return nil, err
	}
	return &DisputeDetail{Dispute: d, Order: o, Events: es}, nil
}

// visibleDispute loads a dispute its buyer, its seller or an admin may see
// (FORBIDDEN for anyone else, as for orders).
func (s *Service) visibleDispute(ctx context.Context, tx Tx, actor market.Actor, id string) (*Dispute, error) {
	d, err := tx.DisputeByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.NotFound("dispute")
	}
	if err != nil {
		return nil, err
	}
	if !privileged(actor) && d.BuyerID != actor.UserID && d.SellerID != actor.UserID {
		return nil, market.Errorf(market.CodeForbidden, "only the buyer, the seller and admins see a dispute")
	}
	return d, nil
}

// checkPhotos validates the shape of evidence photo ids: at most
// MaxEvidencePhotos, each a photo URL of this service, none twice.
func checkPhotos(c *market.Check, field string, ids []string) {
	if len(ids) > MaxEvidencePhotos {
		c.Add(field, "must hold at most 8 photo URLs")
		return
	}
	for i, id := range ids {
		f := field + "[" + strconv.Itoa(i) + "]"
		switch {
		case !market.ValidID(id):
			c.Add(f, "is not a photo URL uploaded to this marketplace")
		case slices.Contains(ids[:i], id):
			c.Add(f, "appears twice")
		}
	}
}

// ownPhotos makes sure every photo was uploaded by userID (the same rule as
// a listing's photos: a user may only show photos they uploaded here).
func ownPhotos(ctx context.Context, tx Tx, userID, field string, ids []string) error {
	var c market.Check
	for i, id := range ids {
		p, err := tx.PhotoUploadByID(ctx, id)
		if err != nil && market.CodeOf(err) != market.CodeNotFound {
			return err
		}
		c.Require(err == nil && p.OwnerID == userID && p.UploadedAt != nil, field+"["+strconv.Itoa(i)+"]",
			"is not a photo you uploaded to this marketplace")
	}
	return c.Err()
}

func checkDisputeStatus(c *market.Check, status string) {
	c.Require(status == "" || slices.Contains(DisputeStatuses, DisputeStatus(status)), "status",
		"must be open, seller_responded or resolved")
}

func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

// DisputeDecision is an admin's resolution of a dispute.
type DisputeDecision struct {
	Resolution string
	Amount     *int64 // partial_refund only: the cents refunded, 1 to refundable-1
	Note       string
}

// ResolveDispute is an admin settling a dispute, with the money moving in
// the same transaction as the decision:
//
//   - refund_buyer: everything still refundable goes back to the buyer and
//     the order ends `refunded` (the payout is void);
//   - partial_refund: Amount goes back; the order returns to the status it
//     had before the dispute and its payout, smaller now, is pending again;
//   - release_seller: the order returns to its status before the dispute
//     and the payout is pending again.
//
// After the commit the processor calls of the refunds run, and a payout
// whose hold already ended is released at once. Resolving a resolved
// dispute answers it unchanged (nothing moves twice) but finishes refunds
// or a payout an earlier call left undone.
func (s *Service) ResolveDispute(ctx context.Context, actor market.Actor, id string, in DisputeDecision) (*DisputeDetail, error) {
	if !actor.Admin {
		return nil, market.Errorf(market.CodeForbidden, "only admins resolve disputes")
	}
	res := Resolution(in.Resolution)
	var c market.Check
	c.Require(slices.Contains(Resolutions, res), "resolution", "must be refund_buyer, release_seller or partial_refund")
	switch {
	case res == ResolvePartialRefund && in.Amount == nil:
		c.Add("amount", "is required for partial_refund")
	case res != ResolvePartialRefund && in.Amount != nil && c.Err() == nil:
		c.Add("amount", "is only for partial_refund")
	case in.Amount != nil && *in.Amount < 1:
		c.Add("amount", "must be at least 1 cent")
	}
	in.Note = c.Text("note", in.Note, MaxResolutionNote, false)
	if err := c.Err(); err != nil {
		return nil, err
	}
	if !market.ValidID(id) {
		return nil, market.NotFound("dispute")
	}
	// Lock the order before the dispute, as an admin's force action on the
	// order does when it closes the dispute: the other way round the two
	// could deadlock.
	pre, err := s.Dispute(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	var d *Dispute
	err = s.store.InTx(ctx, func(tx Tx) error {
		if _, err := tx.OrderByID(ctx, pre.OrderID); err != nil {
			return err
		}
		var err error
		if d, err = s.visibleDispute(ctx, tx, actor, id); err != nil || d.Status == DisputeResolved {
			return err // resolved before: answer it again
		}
		o, err := tx.OrderByID(ctx, d.OrderID)
		if err != nil {
			return err
		}
		if o.Status != StatusDisputed {
			return market.Errorf(market.CodeInvalidState, "the order is %s, no longer disputed", o.Status).
				WithDetails(map[string]any{"status": string(o.Status)})
		}
		now := s.clock.Now()
		before := disputeAudit(d, o)
		amount, err := s.settleDispute(ctx, tx, o, d, res, in.Amount, actor, now)
		if err != nil {
			return err
		}
		o.UpdatedAt = now
		if ok, err := tx.UpdateOrder(ctx, o, StatusDisputed); err != nil || !ok {
			if err == nil {
				err = market.Errorf(market.CodeInvalidState, "the order changed meanwhile; read it again")
			}
			return err
		}
		d.Status, d.Resolution, d.ResolutionAmount, d.ResolutionNote = DisputeResolved, res, &amount, in.Note
		d.ResolvedBy, d.ResolvedAt, d.UpdatedAt = actor.UserID, &now, now
		if err := tx.UpdateDispute(ctx, d); err != nil {
			return err
		}
		s.noteChange(ctx, before, disputeAudit(d, o))
		return events.Record(ctx, tx, now, actor, "dispute.resolved", "order", o.ID, map[string]any{
			"dispute_id": d.ID, "resolution": string(res), "amount": amount})
	})
	if err != nil {
		return nil, err
	}
	if d.Resolution != ResolveReleaseSeller {
		if _, err := s.executeRefunds(ctx, d.OrderID); err != nil {
			return nil, err
		}
	}
	if d.Resolution != ResolveRefundBuyer {
		if _, err := s.payOut(ctx, d.OrderID, false); err != nil {
			return nil, err
		}
	}
	return s.disputeDetail(ctx, d)
}

// settleDispute books a resolution's money on the locked, disputed order o and
// returns the amount refunded.
func (s *Service) settleDispute(ctx context.Context, tx Tx, o *Order, d *Dispute, res Resolution, amount *int64,
	actor market.Actor, now time.Time) (int64, error) {
	reason := "dispute: " + d.Reason
	if res == ResolveRefundBuyer {
		r, err := s.planRefund(ctx, tx, o, 0, actor, reason, now)
		if err != nil {
			return 0, err
		}
		if o.StatusBeforeDispute == StatusPaid || o.StatusBeforeDispute == StatusPickupReady {
			// Never handed over: the item can be sold again, as after a cancel.
			if err := relist(ctx, tx, actor, o, now); err != nil {
				return 0, err
			}
		}
		return r.Amount, nil
	}
	var refunded int64
	if res == ResolvePartialRefund {
		refundable := o.Fees.TotalCharged - o.AmountRefunded
		if *amount >= refundable {
			return 0, market.Invalid(market.FieldError{Field: "amount", Message: "must be less than the " +
				strconv.FormatInt(refundable, 10) + " cents still refundable; resolve with refund_buyer to refund everything"})
		}
		if _, err := s.planRefund(ctx, tx, o, *amount, actor, reason, now); err != nil {
			return 0, err
		}
		refunded = *amount
	}
	// The order goes on where the dispute stopped it.
	o.Status = o.StatusBeforeDispute
	if o.PayoutStatus == PayoutFrozen {
		o.PayoutStatus = PayoutPending
	}
	return refunded, nil
}
