package orders

import (
	"context"
	"time"

	"marketplace/internal/market"
)

// DashboardTx is what the seller dashboard needs from a transaction.
type DashboardTx interface {
	SellerDashboard(ctx context.Context, sellerID string, since time.Time) (*Dashboard, error)
}

// Dashboard is a seller's figures (GET /seller/dashboard). Money is cents.
type Dashboard struct {
	Listings ListingCounts
	Sales    SalesFigures
	Payouts  PayoutFigures
	Disputes DisputeCounts
	// Actions lists the seller's orders waiting for them, oldest first.
	Actions []ActionItem
}

// ListingCounts counts the seller's listings by status.
type ListingCounts struct {
	Active, Held, Reserved, Sold, Generating int
}

// SalesFigures are the seller's sales that went ahead (not cancelled,
// expired, refunded in full, or still waiting for payment or approval).
type SalesFigures struct {
	Count        int
	CountRecent  int   // paid within the last 30 days
	GrossSales   int64 // item prices plus the shipping buyers paid
	GrossRecent  int64
	Commission   int64
	Refunded     int64 // refunds taken from the seller's side
	NetEarnings  int64 // what the seller is or will be paid for them
	AveragePrice int64 // of the items sold
}

// PayoutFigures say where the seller's money stands.
type PayoutFigures struct {
	Upcoming      int64 // sold, not delivered yet
	Pending       int64 // delivered, in the hold period or waiting for a payout account
	PendingCount  int
	Frozen        int64 // held by a dispute
	FrozenCount   int
	Released      int64 // transferred, net of reversals
	ReleasedCount int
	NextReleaseAt *time.Time
}

// DisputeCounts counts the seller's disputes not resolved yet.
type DisputeCounts struct {
	Open             int // all not resolved
	AwaitingResponse int // the seller has not answered yet
}

// ActionItem is an order waiting for the seller.
type ActionItem struct {
	OrderID      string
	ListingTitle string
	Action       string // ship, mark_pickup_ready, answer_refund_request, respond_to_dispute
	Since        time.Time
	RefID        string // the refund request or dispute, for those actions
}

// dashboardWindow is what "recent" means on the dashboard.
const dashboardWindow = 30 * 24 * time.Hour

// Dashboard returns the signed-in seller's figures.
func (s *Service) Dashboard(ctx context.Context, actor market.Actor) (*Dashboard, error) {
	if actor.UserID == "" {
		return nil, market.Errorf(market.CodeForbidden, "the dashboard belongs to a signed-in seller")
	}
	return s.store.Read().SellerDashboard(ctx, actor.UserID, s.clock.Now().Add(-dashboardWindow))
}
