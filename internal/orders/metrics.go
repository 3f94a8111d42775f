package orders

import (
	"context"
	"time"

	"marketplace/internal/market"
)

// Activity is what happened in a window: orders paid in it (and their item
// prices), accounts and listings created in it.
type Activity struct {
	Orders      int
	GMV         int64
	NewUsers    int
	NewListings int
	AgentOrders int // orders paid in the window that an agent key bought
}

// ActionItems are what waits for someone now.
type ActionItems struct {
	HeldListings     int // listings held for review
	OpenDisputes     int // disputes not resolved
	PendingApprovals int // purchase approvals waiting for the owner (or an admin)
	PendingRefunds   int // refund requests waiting for the seller, or refunds the processor has not taken yet
}

// Overview is GET /admin/metrics/overview.
type Overview struct {
	Today, Week, AllTime Activity
	Actions              ActionItems
}

// ChannelFigures is orders and GMV of one channel.
type ChannelFigures struct {
	Orders int
	GMV    int64
}

// MetricsTx is what the admin metrics need from a transaction.
type MetricsTx interface {
	// Activity counts [from, to); a zero from means since the beginning.
	Activity(ctx context.Context, from, to time.Time) (Activity, error)
	ActionItems(ctx context.Context) (ActionItems, error)
	// ByChannel sums the orders paid in [from, to) per channel.
	ByChannel(ctx context.Context, from, to time.Time) (map[Channel]ChannelFigures, error)
}

// MetricsOverview is GET /admin/metrics/overview: today and this ISO week
// (Monday 00:00 UTC on) and all time.
func (s *Service) MetricsOverview(ctx context.Context, actor market.Actor) (*Overview, error) {
	if !actor.Admin {
		return nil, market.Errorf(market.CodeForbidden, "metrics are for admins")
	}
	now := s.clock.Now().UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	monday := today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7))
	end := today.AddDate(0, 0, 1)
	rd := s.store.Read()
	var o Overview
	var err error
	if o.Today, err = rd.Activity(ctx, today, end); err != nil {
		return nil, err
	}
	if o.Week, err = rd.Activity(ctx, monday, end); err != nil {
		return nil, err
	}
	if o.AllTime, err = rd.Activity(ctx, time.Time{}, end); err != nil {
		return nil, err
	}
	if o.Actions, err = rd.ActionItems(ctx); err != nil {
		return nil, err
	}
	return &o, nil
}

// AgentVsHuman is GET /admin/metrics/agent-vs-human: orders paid in the
// UTC days from startDate to endDate, per channel.
func (s *Service) AgentVsHuman(ctx context.Context, actor market.Actor, startDate, endDate string) (agent, human ChannelFigures, err error) {
	if !actor.Admin {
		return agent, human, market.Errorf(market.CodeForbidden, "metrics are for admins")
	}
	from, to, err := dayRange(startDate, endDate)
	if err != nil {
		return agent, human, err
	}
	m, err := s.store.Read().ByChannel(ctx, from, to)
	if err != nil {
		return agent, human, err
	}
	return m[ChannelAgent], m[ChannelHuman], nil
}
