// Package audit is the audit log: one entry per mutating request, allowed or
// refused (the router writes it), the system's own money moves and freezes,
// the change a request made (before and after, noted by the service that
// made it), and the admin's search. The areas never import it: those that
// note changes declare a ChangeLog interface of their own, which Notes
// satisfies.
package audit

import (
	"context"
	"strings"
	"time"

	"marketplace/internal/market"
)

// Result says how a request ended.
type Result string

const (
	Allowed Result = "allowed" // 2xx
	Refused Result = "refused" // 4xx: the caller was told no
	Failed  Result = "failed"  // 5xx: the service failed
)

// Entry is one mutating request.
type Entry struct {
	ID         string
	ActorType  market.ActorType // "anonymous" when no credentials were given
	ActorID    string
	Action     string // the route, e.g. "POST /api/v1/agent-keys"
	EntityType string
	EntityID   string
	Result     Result
	Status     int
	ErrorCode  string
	RequestID  string
	IP         string
	// Details says more about a refusal, e.g. the field and a safe
	// rendering of the value the input check refused.
	Details   map[string]any
	CreatedAt time.Time
}

// Filter selects audit entries; zero fields match everything.
type Filter struct {
	ActorType  string
	ActorID    string
	Action     string
	EntityType string
	EntityID   string
	Result     string
	RequestID  string
	From       time.Time // inclusive; zero: no lower bound
	Until      time.Time // exclusive; zero: no upper bound
	Limit      int
	Offset     int
}

// Store keeps the audit log.
type Store interface {
	AppendAudit(ctx context.Context, e *Entry) error
	ListAudit(ctx context.Context, f Filter) ([]Entry, int, error)
}

// ResultOf classifies an HTTP status.
func ResultOf(status int) Result {
	switch {
	case status >= 500:
		return Failed
	case status >= 400 || status == 202:
		// 202 is APPROVAL_REQUIRED: the request was held, not done.
		return Refused
	default:
		return Allowed
	}
}

// Reader opens read handles over the audit log.
type Reader interface {
	Read() Store
}

// Log answers the admin's questions about the audit log.
type Log struct{ store Reader }

// NewLog returns the audit query service.
func NewLog(store Reader) *Log { return &Log{store: store} }

// Query is an admin's audit search as given: every field optional.
// StartDate and EndDate take a UTC day (YYYY-MM-DD, inclusive) or an
// RFC 3339 instant (CONTRACT.md 14).
type Query struct {
	ActorType, ActorID, Action, EntityType, EntityID, Result string
	RequestID                                                string
	StartDate, EndDate                                       string
	Limit, Offset                                            int
}

// actorTypes are the actor types an entry may carry: the contract's four
// and "anonymous" for requests without credentials.
var actorTypes = map[string]bool{"user": true, "agent": true, "admin": true, "system": true, "anonymous": true}

var results = map[string]bool{string(Allowed): true, string(Refused): true, string(Failed): true}

// List returns the entries matching q, newest first, and their total.
func (a *Log) List(ctx context.Context, actor market.Actor, q Query) ([]Entry, int, error) {
	if !actor.Admin {
		return nil, 0, market.Errorf(market.CodeForbidden, "admins only")
	}
	f, err := q.filter()
	if err != nil {
		return nil, 0, err
	}
	return a.store.Read().ListAudit(ctx, f)
}

func (q Query) filter() (Filter, error) {
	var c market.Check
	c.Require(q.ActorType == "" || actorTypes[q.ActorType], "actorType", "must be user, agent, admin, system or anonymous")
	c.Require(q.Result == "" || results[q.Result], "result", "must be allowed, refused or failed")
	for _, v := range []struct{ field, value string }{{"actorId", q.ActorID}, {"action", q.Action}, {"entityType", q.EntityType}, {"entityId", q.EntityID}, {"requestId", q.RequestID}} {
		c.Require(len(v.value) <= 300, v.field, "must be at most 300 characters")
	}
	from, okFrom := bound(q.StartDate, false)
	c.Require(okFrom, "startDate", "must be a date (YYYY-MM-DD) or an RFC 3339 time")
	until, okUntil := bound(q.EndDate, true)
	c.Require(okUntil, "endDate", "must be a date (YYYY-MM-DD) or an RFC 3339 time")
	if okFrom && okUntil && !from.IsZero() && !until.IsZero() {
		c.Require(from.Before(until), "endDate", "must not be before startDate")
	}
	if err := c.Err(); err != nil {
		return Filter{}, err
	}
	return Filter{
		ActorType: q.ActorType, ActorID: q.ActorID, Action: q.Action, EntityType: q.EntityType,
		EntityID: q.EntityID, Result: q.Result, RequestID: q.RequestID, From: from, Until: until, Limit: q.Limit, Offset: q.Offset,
	}, nil
}

// bound parses a range bound. A day as an end bound covers the whole
// day: the bound is the next midnight, exclusive. An instant as an end bound
// is inclusive, so the exclusive bound is one microsecond later (the
// precision both engines keep).
func bound(v string, end bool) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, true
	}
	if d, err := time.Parse(time.DateOnly, v); err == nil {
		if end {
			d = d.AddDate(0, 0, 1)
		}
		return d.UTC(), true
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, false
	}
	if end {
		t = t.Truncate(time.Microsecond).Add(time.Microsecond)
	}
	return t.UTC(), true
}
