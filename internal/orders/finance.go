package orders

import (
	"context"
	"time"

	"marketplace/internal/market"
)

// Finance is the platform's figures for the orders paid in a range of UTC
// days (CONTRACT.md section 14), in cents.
type Finance struct {
	StartDate, EndDate string
	Orders             int
	GMV                int64 // item prices; refunds do not change it
	ServiceFees        int64 // the buyers' service fees
	Commissions        int64 // the sellers' commissions
	Refunds            int64 // all money given back to buyers (booked refunds)
	// PlatformRefunds is the platform's share of Refunds: a refund is
	// taken from the seller's payout first and the rest from the
	// platform's fees (splitRefund), so this is AmountRefunded -
	// SellerRefunded summed over the orders.
	PlatformRefunds int64
	PayoutsReleased int64 // transferred to sellers, less what refunds reversed from them
	PayoutsPending  int64 // still owed to sellers: not delivered yet, in the hold period, or frozen by a dispute
}

// GrossRevenue is service fees plus commissions.
func (f *Finance) GrossRevenue() int64 { return f.ServiceFees + f.Commissions }

// NetRevenue is the gross revenue less the platform's share of refunds.
func (f *Finance) NetRevenue() int64 { return f.GrossRevenue() - f.PlatformRefunds }

// FinanceTx is what the finance summary needs from a transaction.
type FinanceTx interface {
	// FinanceSummary sums the orders paid in [from, to).
	FinanceSummary(ctx context.Context, from, to time.Time) (*Finance, error)
}

// dayRange parses startDate and endDate (YYYY-MM-DD, UTC days, inclusive)
// into [from, to); both are required and end is not before start.
func dayRange(startDate, endDate string) (from, to time.Time, err error) {
	var c market.Check
	from, e1 := time.Parse(time.DateOnly, startDate)
	c.Require(e1 == nil, "startDate", "must be a date, YYYY-MM-DD")
	end, e2 := time.Parse(time.DateOnly, endDate)
	c.Require(e2 == nil, "endDate", "must be a date, YYYY-MM-DD")
	if e1 == nil && e2 == nil {
		c.Require(!end.Before(from), "endDate", "must not be before startDate")
	}
	if err := c.Err(); err != nil {
		return time.Time{}, time.Time{}, err
	}
	return from, end.AddDate(0, 0, 1), nil
}

// FinanceSummary is GET /admin/finance/summary.
func (s *Service) FinanceSummary(ctx context.Context, actor market.Actor, startDate, endDate string) (*Finance, error) {
	if !actor.Admin {
		return nil, market.Errorf(market.CodeForbidden, "the finance summary is for admins")
	}
	from, to, err := dayRange(startDate, endDate)
	if err != nil {
		return nil, err
	}
	f, err := s.store.Read().FinanceSummary(ctx, from, to)
	if err != nil {
		return nil, err
	}
	f.StartDate, f.EndDate = startDate, endDate
	return f, nil
}
