// Package admin holds the operator's tools; for now the audit log, which
// records every mutating request, allowed or refused.
package admin

import (
	"context"
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
