// Package admin holds the operator's tools; for now the audit log, which
// records every mutating request, allowed or refused.
package admin

import (
	"context"
	"strings"
	"time"

	"marketplace/internal/market"
)

// AuditResult says how a request ended.
type AuditResult string

const (
	AuditAllowed AuditResult = "allowed" // 2xx
	AuditRefused AuditResult = "refused" // 4xx: the caller was told no
	AuditFailed  AuditResult = "failed"  // 5xx: the service failed
)

// AuditEntry is one mutating request.
type AuditEntry struct {
	ID         string
	ActorType  market.ActorType // "anonymous" when no credentials were given
	ActorID    string
	Action     string // the route, e.g. "POST /api/v1/agent-keys"
	EntityType string
	EntityID   string
	Result     AuditResult
	Status     int
	ErrorCode  string
	RequestID  string
	IP         string
	// Details says more about a refusal, e.g. the field and a safe
	// rendering of the value the input check refused.
	Details   map[string]any
	CreatedAt time.Time
}

// AuditFilter selects audit entries; zero fields match everything.
type AuditFilter struct {
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

// AuditStore keeps the audit log.
type AuditStore interface {
	AppendAudit(ctx context.Context, e *AuditEntry) error
	ListAudit(ctx context.Context, f AuditFilter) ([]AuditEntry, int, error)
}

// ResultOf classifies an HTTP status.
func ResultOf(status int) AuditResult {
	switch {
	case status >= 500:
		return AuditFailed
	case status >= 400 || status == 202:
		// 202 is APPROVAL_REQUIRED: the request was held, not done.
		return AuditRefused
	default:
		return AuditAllowed
	}
}

// AuditReader opens read handles over the audit log.
type AuditReader interface {
	Read() AuditStore
}

// Audit answers the admin's questions about the audit log.
type Audit struct{ store AuditReader }

// NewAudit returns the audit query service.
func NewAudit(store AuditReader) *Audit { return &Audit{store: store} }

// AuditQuery is an admin's audit search as given: every field optional.
// StartDate and EndDate take a UTC day (YYYY-MM-DD, inclusive) or an
// RFC 3339 instant (CONTRACT.md 14).
type AuditQuery struct {
	ActorType, ActorID, Action, EntityType, EntityID, Result string
	RequestID                                                string
	StartDate, EndDate                                       string
	Limit, Offset                                            int
}

// auditActorTypes are the actor types an entry may carry: the contract's four
// and "anonymous" for requests without credentials.
var auditActorTypes = map[string]bool{"user": true, "agent": true, "admin": true, "system": true, "anonymous": true}

var auditResults = map[string]bool{string(AuditAllowed): true, string(AuditRefused): true, string(AuditFailed): true}

// List returns the entries matching q, newest first, and their total.
func (a *Audit) List(ctx context.Context, actor market.Actor, q AuditQuery) ([]AuditEntry, int, error) {
	if !actor.Admin {
		return nil, 0, market.Errorf(market.CodeForbidden, "admins only")
	}
	f, err := q.filter()
	if err != nil {
		return nil, 0, err
	}
	return a.store.Read().ListAudit(ctx, f)
}

func (q AuditQuery) filter() (AuditFilter, error) {
	var c market.Check
	c.Require(q.ActorType == "" || auditActorTypes[q.ActorType], "actorType", "must be user, agent, admin, system or anonymous")
	c.Require(q.Result == "" || auditResults[q.Result], "result", "must be allowed, refused or failed")
	for _, v := range []struct{ field, value string }{{"actorId", q.ActorID}, {"action", q.Action}, {"entityType", q.EntityType}, {"entityId", q.EntityID}, {"requestId", q.RequestID}} {
		c.Require(len(v.value) <= 300, v.field, "must be at most 300 characters")
	}
	from, okFrom := auditBound(q.StartDate, false)
	c.Require(okFrom, "startDate", "must be a date (YYYY-MM-DD) or an RFC 3339 time")
	until, okUntil := auditBound(q.EndDate, true)
	c.Require(okUntil, "endDate", "must be a date (YYYY-MM-DD) or an RFC 3339 time")
	if okFrom && okUntil && !from.IsZero() && !until.IsZero() {
		c.Require(from.Before(until), "endDate", "must not be before startDate")
	}
	if err := c.Err(); err != nil {
		return AuditFilter{}, err
	}
	return AuditFilter{
		ActorType: q.ActorType, ActorID: q.ActorID, Action: q.Action, EntityType: q.EntityType,
		EntityID: q.EntityID, Result: q.Result, RequestID: q.RequestID, From: from, Until: until, Limit: q.Limit, Offset: q.Offset,
	}, nil
}

// auditBound parses a range bound. A day as an end bound covers the whole
// day: the bound is the next midnight, exclusive. An instant as an end bound
// is inclusive, so the exclusive bound is one microsecond later (the
// precision both engines keep).
func auditBound(v string, end bool) (time.Time, bool) {
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
