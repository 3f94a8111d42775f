// Package queue is the admin approval queue (CONTRACT.md section 14): it
// merges the purchase approvals of orders with the listing reviews of
// listings (held listings, type listing_review), newest first, and routes
// an admin's decision to the area the item belongs to.
package queue

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// Item types.
const (
	TypePurchaseApproval = "purchase_approval"
	TypeListingReview    = "listing_review"
)

// MaxWindow bounds offset+limit: the merge reads that many of each kind.
const MaxWindow = 10000

// Item is one queue entry: a purchase approval (Approval set) or a listing
// waiting for review (Listing set; its id is the listing's).
type Item struct {
	Type      string
	Approval  *orders.ApprovalView
	Listing   *listings.Listing
	CreatedAt time.Time
}

// ID is the item's id in the queue.
func (it Item) ID() string {
	if it.Listing != nil {
		return it.Listing.ID
	}
	return it.Approval.Approval.ID
}

// Status is pending, approved or rejected.
func (it Item) Status() string {
	if it.Listing != nil {
		return orders.ApprovalPending
	}
	return it.Approval.Approval.Status
}

// Summary is one line for the admin.
func (it Item) Summary() string {
	if l := it.Listing; l != nil {
		return fmt.Sprintf("Held listing %q at %d cents", l.Title, l.Price)
	}
	return fmt.Sprintf("Agent purchase of %d cents waiting for approval", it.Approval.Approval.Amount)
}

// Service is the queue over orders and listings.
type Service struct {
	Orders   *orders.Service
	Listings *listings.Service
}

// Query selects queue items; empty fields match all.
type Query struct {
	Type, Status  string
	Limit, Offset int
}

// List merges the kinds asked for, newest first. Listing reviews are
// pending while their listing is held; a decided review leaves the queue
// (its decision is in the audit log), so status approved or rejected lists
// purchase approvals only.
func (s *Service) List(ctx context.Context, actor market.Actor, q Query) ([]Item, int, error) {
	var c market.Check
	c.Require(q.Type == "" || q.Type == TypePurchaseApproval || q.Type == TypeListingReview, "type",
		"must be purchase_approval or listing_review")
	c.Require(q.Offset+q.Limit <= MaxWindow, "offset", "offset plus limit must be at most 10000")
	if err := c.Err(); err != nil {
		return nil, 0, err
	}
	window := q.Offset + q.Limit
	var items []Item
	total := 0
	if q.Type != TypeListingReview {
		as, n, err := s.Orders.Queue(ctx, actor, q.Status, window, 0)
		if err != nil {
			return nil, 0, err
		}
		for i := range as {
			items = append(items, Item{Type: TypePurchaseApproval, Approval: &as[i], CreatedAt: as[i].Approval.CreatedAt})
		}
		total += n
	} else if !actor.Admin {
		return nil, 0, market.Errorf(market.CodeForbidden, "the queue is for admins")
	}
	if q.Type != TypePurchaseApproval && (q.Status == "" || q.Status == orders.ApprovalPending) {
		ls, n, err := s.Listings.AdminList(ctx, actor, listings.AdminFilter{Status: listings.StatusHeld, Limit: window})
		if err != nil {
			return nil, 0, err
		}
		for i := range ls {
			items = append(items, Item{Type: TypeListingReview, Listing: &ls[i], CreatedAt: ls[i].CreatedAt})
		}
		total += n
	} else if q.Status != "" && q.Status != orders.ApprovalPending && q.Status != orders.ApprovalApproved &&
		q.Status != orders.ApprovalRejected {
		return nil, 0, market.Invalid(market.FieldError{Field: "status", Message: "must be pending, approved or rejected"})
	}
	slices.SortStableFunc(items, func(a, b Item) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID(), a.ID())
	})
	if q.Offset >= len(items) {
		return []Item{}, total, nil
	}
	return items[q.Offset:min(len(items), window)], total, nil
}

// Decision is the outcome of a decision: the order of a purchase approval
// or the listing of a review.
type Decision struct {
	Order   *orders.Order
	Listing *listings.Listing
}

// Approve decides an item: a purchase approval is charged; a held listing
// goes live. id is an approval id or a held listing's id.
func (s *Service) Approve(ctx context.Context, actor market.Actor, id string) (Decision, error) {
	o, err := s.Orders.Approve(ctx, actor, id)
	if market.CodeOf(err) != market.CodeNotFound {
		return Decision{Order: o}, err
	}
	l, err := s.Listings.Approve(ctx, actor, id)
	if market.CodeOf(err) == market.CodeListingNotFound {
		return Decision{}, market.NotFound("queue item")
	}
	return Decision{Listing: l}, err
}

// DefaultRejectReason is recorded when an admin rejects a review without
// a reason.
const DefaultRejectReason = "rejected in review"

// Reject decides an item the other way: the queued order is cancelled; a
// held listing is removed.
func (s *Service) Reject(ctx context.Context, actor market.Actor, id, reason string) (Decision, error) {
	o, err := s.Orders.Reject(ctx, actor, id, reason)
	if market.CodeOf(err) != market.CodeNotFound {
		return Decision{Order: o}, err
	}
	if strings.TrimSpace(reason) == "" {
		reason = DefaultRejectReason
	}
	l, err := s.Listings.Reject(ctx, actor, id, reason)
	if market.CodeOf(err) == market.CodeListingNotFound {
		return Decision{}, market.NotFound("queue item")
	}
	return Decision{Listing: l}, err
}
