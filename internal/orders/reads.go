package orders

import (
	"context"
	"slices"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// Role is the caller's side of an order.
func (o *Order) Role(userID string) string {
	switch userID {
	case o.BuyerID:
		return "buyer"
	case o.SellerID:
		return "seller"
	}
	return ""
}

// SellerSees reports whether the seller is shown the order: once it holds
// their listing (a checkout in progress) or was paid. A purchase still
// waiting for the buyer's owner, or one that never went ahead, is the
// buyer's business alone.
func (o *Order) SellerSees() bool {
	return o.PaidAt != nil || o.Status == StatusPendingPayment
}

// visible loads an order its buyer, its seller or an admin may see.
func (s *Service) visible(ctx context.Context, tx Tx, actor market.Actor, id string) (*Order, error) {
	if !market.ValidID(id) {
		return nil, market.NotFound("order")
	}
	o, err := tx.OrderByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.NotFound("order")
	}
	if err != nil {
		return nil, err
	}
	switch {
	case privileged(actor) || o.BuyerID == actor.UserID:
	case o.SellerID == actor.UserID && !o.SellerSees():
		return nil, market.NotFound("order")
	case o.SellerID != actor.UserID:
		return nil, market.Errorf(market.CodeForbidden, "only the buyer and the seller see an order")
	}
	return o, nil
}

// Get returns one order to its buyer or seller (or an admin).
func (s *Service) Get(ctx context.Context, actor market.Actor, id string) (*Order, error) {
	return s.visible(ctx, s.store.Read(), actor, id)
}

// List returns a page of the caller's orders, newest first. role is buyer,
// seller or "" (both); status "" is every status.
func (s *Service) List(ctx context.Context, actor market.Actor, role, status string, limit, offset int) ([]Order, int, error) {
	var c market.Check
	c.Require(role == "" || role == "buyer" || role == "seller", "role", "must be buyer or seller")
	f := OrderFilter{UserID: actor.UserID, Role: role, Limit: limit, Offset: offset}
	if status != "" {
		c.Require(slices.Contains(AllStatuses, Status(status)), "status", "must be an order status")
		f.Statuses = []Status{Status(status)}
	}
	if err := c.Err(); err != nil {
		return nil, 0, err
	}
	return s.store.Read().Orders(ctx, f)
}

// KeyOrders is a page of the orders one of the actor's agent keys made,
// newest first, with the total: each carries its authorization record. A
// key that is not the actor's has none.
func (s *Service) KeyOrders(ctx context.Context, actor market.Actor, keyID string, limit, offset int) ([]Order, int, error) {
	return s.store.Read().Orders(ctx, OrderFilter{UserID: actor.UserID, Role: "buyer", KeyID: keyID, Limit: limit, Offset: offset})
}

// Events is an order's timeline, oldest first.
func (s *Service) Events(ctx context.Context, actor market.Actor, id string) ([]events.Event, error) {
	rd := s.store.Read()
	if _, err := s.visible(ctx, rd, actor, id); err != nil {
		return nil, err
	}
	return rd.EventsFor(ctx, "order", id)
}

// privileged reports whether actor acts for the service: an admin, or the
// service's own jobs.
func privileged(actor market.Actor) bool {
	return actor.Admin || actor.Type == market.ActorSystem
}
