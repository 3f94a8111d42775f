// Package activity answers GET /auth/me/activity (CONTRACT.md section 12):
// what needs the caller now (unread messages, the order, offer and approval
// actions waiting for them, with their deadlines) and their latest events.
package activity

import (
	"context"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// The action types of a pending action.
const (
	ActionShip                = "ship"
	ActionMarkPickupReady     = "mark_pickup_ready"
	ActionAnswerRefundRequest = "answer_refund_request"
	ActionRespondToDispute    = "respond_to_dispute"
	ActionRespondToOffer      = "respond_to_offer"
	ActionApprovePurchase     = "approve_purchase"
)

// ActionTypes lists them, in the order a summary shows them.
var ActionTypes = []string{ActionShip, ActionMarkPickupReady, ActionAnswerRefundRequest, ActionRespondToDispute,
	ActionRespondToOffer, ActionApprovePurchase}

// RecentCount is how many recent events a summary carries.
const RecentCount = 20

// Action is one thing waiting for the user: about an order or an offer,
// with the deadline where one exists.
type Action struct {
	Type    string
	OrderID string
	OfferID string
	DueAt   *time.Time
}

// Store reads what a summary needs; the store's read handle implements it.
type Store interface {
	// UnreadTotal counts the messages the user has not read.
	UnreadTotal(ctx context.Context, userID string) (int, error)
	// PendingActions lists the actions waiting for the user at now, by
	// type in ActionTypes order, oldest first within a type.
	PendingActions(ctx context.Context, userID string, now time.Time) ([]Action, error)
	// RecentFeed is the user's latest n feed events, newest first.
	RecentFeed(ctx context.Context, userID string, n int) ([]events.Event, error)
}

// Summary is a user's activity.
type Summary struct {
	UnreadMessages int
	PendingActions []Action
	Recent         []events.Event
}

// Service composes summaries.
type Service struct {
	store Store
	clock market.Clock
}

// NewService makes the service.
func NewService(store Store, clock market.Clock) *Service {
	return &Service{store: store, clock: clock}
}

// Of is userID's summary.
func (s *Service) Of(ctx context.Context, userID string) (*Summary, error) {
	unread, err := s.store.UnreadTotal(ctx, userID)
	if err != nil {
		return nil, err
	}
	actions, err := s.store.PendingActions(ctx, userID, s.clock.Now())
	if err != nil {
		return nil, err
	}
	recent, err := s.store.RecentFeed(ctx, userID, RecentCount)
	if err != nil {
		return nil, err
	}
	if actions == nil {
		actions = []Action{}
	}
	if recent == nil {
		recent = []events.Event{}
	}
	return &Summary{UnreadMessages: unread, PendingActions: actions, Recent: recent}, nil
}
