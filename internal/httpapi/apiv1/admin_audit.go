package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/audit"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// The audit log, for admins (CONTRACT.md 14): one entry per mutating
// request, allowed, refused or failed, per call of an MCP tool that may
// change something, and per money move the service made itself; searchable
// by every filter at once.

// RegisterAdminAudit adds the audit routes.
func (a *API) RegisterAdminAudit(rt *httpapi.Router) {
	rt = rt.In("admin")
	p := Prefix
	rt.Handle("GET", p+"/admin/audit", httpapi.Admin, a.adminAudit)
	rt.Handle("GET", p+"/admin/audit/entity/{entityType}/{entityId}", httpapi.Admin, a.adminAuditEntity)
	rt.Handle("GET", p+"/admin/audit/actor/{actorType}/{actorId}", httpapi.Admin, a.adminAuditActor)
}

// auditEntry is one audit entry on the wire.
type auditEntry struct {
	ID         string         `json:"id"`
	ActorType  string         `json:"actorType" enum:"user,agent,admin,system,anonymous" doc:"Who acted; anonymous when the request carried no valid credentials."`
	ActorID    string         `json:"actorId" doc:"The user's id, or the agent key's id; empty for anonymous requests."`
	Action     string         `json:"action" doc:"The route, e.g. 'PATCH /api/v1/admin/config/{key}'; for an MCP tool call 'tool NAME' (e.g. 'tool purchase_listing'); for a money move the service made itself (actorType system) the move: payment.capture, payment.void, checkout.expire, payout.release, refund.issue, transfer.reverse or label.purchase."`
	EntityType string         `json:"entityType" doc:"What was acted on, when known (e.g. order, listing, config); else empty."`
	EntityID   string         `json:"entityId"`
	Result     string         `json:"result" enum:"allowed,refused,failed"`
	Details    map[string]any `json:"details" doc:"The HTTP status and error code (for a tool call, those its outcome would answer over HTTP); for refused input the field and a safe rendering of the value; for a change that succeeded (every admin change among them) 'before' and 'after': the changed entity's relevant fields before and after it, the same shape both times ('before' null for a creation), with what else the change keeps (a reason, the keys a ban revoked); for a money move its figures in cents and ids, with the event that recorded it."`
	IP         string         `json:"ip"`
	RequestID  string         `json:"requestId"`
	CreatedAt  time.Time      `json:"createdAt"`
}

func toAuditEntry(e *audit.Entry) auditEntry {
	details := map[string]any{}
	if e.Status != 0 { // the service's own money moves answer no request
		details["status"] = e.Status
	}
	if e.ErrorCode != "" {
		details["errorCode"] = e.ErrorCode
	}
	for k, v := range e.Details {
		details[k] = v
	}
	return auditEntry{ID: e.ID, ActorType: string(e.ActorType), ActorID: e.ActorID, Action: e.Action,
		EntityType: e.EntityType, EntityID: e.EntityID, Result: string(e.Result), Details: details,
		IP: e.IP, RequestID: e.RequestID, CreatedAt: e.CreatedAt}
}

// auditQuery reads the filters every audit route shares.
func auditQuery(r *http.Request) (audit.Query, error) {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return audit.Query{}, err
	}
	q := r.URL.Query()
	return audit.Query{
		ActorType: q.Get("actorType"), ActorID: q.Get("actorId"), Action: q.Get("action"),
		EntityType: q.Get("entityType"), EntityID: q.Get("entityId"), Result: q.Get("result"), RequestID: q.Get("requestId"),
		StartDate: q.Get("startDate"), EndDate: q.Get("endDate"), Limit: limit, Offset: offset,
	}, nil
}

func (a *API) writeAudit(w http.ResponseWriter, r *http.Request, q audit.Query) error {
	es, total, err := a.Audit.List(r.Context(), actor(r).Actor, q)
	if err != nil {
		return err
	}
	out := make([]auditEntry, len(es))
	for i := range es {
		out[i] = toAuditEntry(&es[i])
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, adminPageMeta(total, q.Limit, q.Offset, market.CountBound, q.ActorType, q.ActorID, q.Action, q.EntityType, q.EntityID, q.Result,
		q.RequestID, q.StartDate, q.EndDate))
}

// adminAudit is GET /admin/audit with every filter.
func (a *API) adminAudit(w http.ResponseWriter, r *http.Request) error {
	q, err := auditQuery(r)
	if err != nil {
		return err
	}
	return a.writeAudit(w, r, q)
}

// adminAuditEntity is GET /admin/audit/entity/{entityType}/{entityId}: the
// history of one entity; the other filters still apply.
func (a *API) adminAuditEntity(w http.ResponseWriter, r *http.Request) error {
	q, err := auditQuery(r)
	if err != nil {
		return err
	}
	q.EntityType, q.EntityID = r.PathValue("entityType"), r.PathValue("entityId")
	return a.writeAudit(w, r, q)
}

// adminAuditActor is GET /admin/audit/actor/{actorType}/{actorId}: what one
// actor did; the other filters still apply.
func (a *API) adminAuditActor(w http.ResponseWriter, r *http.Request) error {
	q, err := auditQuery(r)
	if err != nil {
		return err
	}
	q.ActorType, q.ActorID = r.PathValue("actorType"), r.PathValue("actorId")
	return a.writeAudit(w, r, q)
}
