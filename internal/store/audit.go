package store

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"marketplace/internal/audit"
	"marketplace/internal/market"
)

// The audit log (audit.Store): one entry per request, append-only.
var _ audit.Store = (*Tx)(nil)

// Audit is db as audit.Reader.
func Audit(db *DB) audit.Reader {
	return auditArea{area(db, func(tx *Tx) audit.Store { return tx })}
}

type auditArea struct{ Area[audit.Store] }

// AppendAudit records one request.
func (tx *Tx) AppendAudit(ctx context.Context, e *audit.Entry) error {
	details := ""
	if len(e.Details) > 0 {
		b, err := json.Marshal(e.Details)
		if err != nil {
			return market.Internal(err)
		}
		details = string(b)
	}
	_, err := tx.exec(ctx, `INSERT INTO audit_log (id, actor_type, actor_id, action, entity_type, entity_id, result, status, error_code, request_id, ip, details, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, string(e.ActorType), e.ActorID, e.Action, e.EntityType, e.EntityID, string(e.Result), e.Status, e.ErrorCode, e.RequestID, e.IP, details, e.CreatedAt)
	return wrap(err)
}

// AppendSystemAudit records a change the system made on its own
// (agents.SystemAuditTx), in the change's transaction.
func (tx *Tx) AppendSystemAudit(ctx context.Context, at time.Time, action, entityType, entityID, requestID string, details map[string]any) error {
	return tx.AppendAudit(ctx, audit.SystemEntry(at, action, entityType, entityID, requestID, details))
}

// ListAudit returns entries matching f, newest first, and the total
// (bounded as CountBound says). Indexes: migrations 00025 and 00027, see
// audit_explain_test.go.
func (tx *Tx) ListAudit(ctx context.Context, f audit.Filter) ([]audit.Entry, int, error) {
	var where []string
	var args []any
	add := func(col, v string) {
		if v != "" {
			where = append(where, col+" = ?")
			args = append(args, v)
		}
	}
	// An actor, entity or request id is a few rows: on SQLite, which keeps
	// no statistics until ANALYZE, the action and result then stay checks
	// ("+"), so the planner does not take audit_log_action_result or
	// audit_log_actor_type_result (thousands of rows) for the narrower id.
	action, result := "action", "result"
	if tx.db.dialect == SQLite && (f.ActorID != "" || f.EntityID != "" || f.RequestID != "") {
		action, result = "+action", "+result"
	}
	add("actor_type", f.ActorType)
	if f.ActorID != "" && f.ActorType == "" {
		// Every type an entry is written with (audit.actorTypes), so
		// that audit_log_actor_id (actor_type first) serves an actor id
		// alone: PostgreSQL otherwise walked every entry newest first.
		where = append(where, "actor_type IN ('user', 'agent', 'admin', 'system', 'anonymous')")
	}
	add("actor_id", f.ActorID)
	add(action, f.Action)
	add("entity_type", f.EntityType)
	add("entity_id", f.EntityID)
	add(result, f.Result)
	add("request_id", f.RequestID)
	if !f.From.IsZero() {
		where = append(where, "created_at >= ?")
		args = append(args, f.From)
	}
	if !f.Until.IsZero() {
		where = append(where, "created_at < ?")
		args = append(args, f.Until)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	total, err := tx.adminTotal(ctx, "audit_log", cond, args, f.Offset)
	if err != nil {
		return nil, 0, err
	}
	limit := f.Limit
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	out, err := queryAll(ctx, tx, scanAuditEntry, `SELECT id, actor_type, actor_id, action, entity_type, entity_id, result, status, error_code, request_id, ip, details, created_at
		FROM audit_log`+cond+` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

func scanAuditEntry(row scanner) (*audit.Entry, error) {
	var e audit.Entry
	var actorType, result, details string
	if err := row.Scan(&e.ID, &actorType, &e.ActorID, &e.Action, &e.EntityType, &e.EntityID, &result, &e.Status, &e.ErrorCode, &e.RequestID, &e.IP, &details, &e.CreatedAt); err != nil {
		return nil, wrap(err)
	}
	if details != "" {
		if err := json.Unmarshal([]byte(details), &e.Details); err != nil {
			return nil, market.Internal(err)
		}
	}
	e.ActorType, e.Result, e.CreatedAt = market.ActorType(actorType), audit.Result(result), e.CreatedAt.UTC()
	return &e, nil
}
