package orders

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"marketplace/internal/agents"
	"marketplace/internal/events"
	"marketplace/internal/market"
)

// AdminOrderFilter selects orders for the admin order list. Every field is
// optional; they combine.
type AdminOrderFilter struct {
	Status   Status
	BuyerID  string
	SellerID string
	// Search matches an order id or a listing id exactly, or a substring of
	// the listing title (case-insensitive, at least MinTitleSearch
	// characters).
	Search string
	Limit  int
	Offset int
}

// MinTitleSearch is the shortest search that is matched against listing
// titles: the title indexes are trigram indexes on both engines.
const MinTitleSearch = 3

// TitleSearch reports whether s is matched against listing titles: it is
// not an id and has at least MinTitleSearch characters.
func TitleSearch(s string) bool {
	return !market.ValidID(s) && utf8.RuneCountInString(s) >= MinTitleSearch
}

// TitleCountBound is market.CountBound for a title search. A common word's
// matches are spread over the whole table, one row per page: counting a
// thousand of them read 900 pages, 30 to 60 ms at a million orders on
// PostgreSQL, where the page itself takes 2. A hundred are read in a tenth
// of that, and say as well that the word is common.
const TitleCountBound = 100

// CountBound is how far the total of f's list is counted beyond its offset
// (market.CountBound).
func (f AdminOrderFilter) CountBound() int {
	if TitleSearch(f.Search) {
		return TitleCountBound
	}
	return market.CountBound
}

// AdminTx is what the admin order views need from a transaction.
type AdminTx interface {
	// AdminOrders lists orders matching f, newest first, and their total.
	AdminOrders(ctx context.Context, f AdminOrderFilter) ([]Order, int, error)
	// DisputesOfOrder lists an order's disputes, oldest first.
	DisputesOfOrder(ctx context.Context, orderID string) ([]Dispute, error)
}

// AdminDetail is everything an admin sees of one order.
type AdminDetail struct {
	Order    *Order
	Events   []events.Event
	Refunds  []Refund
	Disputes []Dispute
	// Key is the agent key that bought (nil for a human purchase, or a
	// key no longer found); its caps are today's, not the purchase's.
	Key *agents.Key
	// Approval is the owner's decision on a purchase over their approval
	// threshold (nil when none was needed).
	Approval *Approval
}

// AdminOrders is the admin's order list (GET /admin/orders).
func (s *Service) AdminOrders(ctx context.Context, actor market.Actor, f AdminOrderFilter) ([]Order, int, error) {
	if !actor.Admin {
		return nil, 0, market.Errorf(market.CodeForbidden, "the order list is for admins")
	}
	var c market.Check
	c.Require(f.Status == "" || slices.Contains(AllStatuses, f.Status), "status", "must be an order status")
	c.Require(f.BuyerID == "" || market.ValidID(f.BuyerID), "buyerId", "must be a user id")
	c.Require(f.SellerID == "" || market.ValidID(f.SellerID), "sellerId", "must be a user id")
	f.Search = strings.TrimSpace(f.Search)
	c.Require(len(f.Search) <= 200, "search", "must be at most 200 characters")
	if err := c.Err(); err != nil {
		return nil, 0, err
	}
	return s.store.Read().AdminOrders(ctx, f)
}

// AdminOrder is the admin's view of one order (GET /admin/orders/{id}).
func (s *Service) AdminOrder(ctx context.Context, actor market.Actor, id string) (*AdminDetail, error) {
	if !actor.Admin {
		return nil, market.Errorf(market.CodeForbidden, "the order detail is for admins")
	}
	rd := s.store.Read()
	o, err := s.visible(ctx, rd, actor, id)
	if err != nil {
		return nil, err
	}
	d := &AdminDetail{Order: o}
	if d.Events, err = rd.EventsFor(ctx, "order", id); err != nil {
		return nil, err
	}
	if d.Refunds, err = rd.RefundsOf(ctx, id); err != nil {
		return nil, err
	}
	if d.Disputes, err = rd.DisputesOfOrder(ctx, id); err != nil {
		return nil, err
	}
	if o.BuyerKeyID != "" {
		k, err := rd.KeyByID(ctx, o.BuyerKeyID)
		switch {
		case err == nil:
			d.Key = k
		case market.CodeOf(err) != market.CodeNotFound:
			return nil, err
		}
	}
	a, err := rd.ApprovalOfOrder(ctx, id)
	switch {
	case err == nil:
		d.Approval = a
	case market.CodeOf(err) != market.CodeNotFound:
		return nil, err
	}
	return d, nil
}
