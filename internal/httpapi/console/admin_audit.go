package console

import (
	"encoding/json"
	"net/http"

	"marketplace/internal/audit"
	"marketplace/internal/httpapi"
)

// The audit log as GET /admin/audit searches it: every filter, together,
// newest first.

type adminAuditData struct {
	Entries []auditRow
	Query   audit.Query
	Actors  []option
	Results []option
	Page    pager
}

// auditRow is an entry with its details as JSON, as the API shows them.
type auditRow struct {
	audit.Entry
	Details string
}

func (c *Console) adminAuditPage(v *visit) error {
	limit, offset, err := httpapi.Page(v.r)
	if err != nil {
		return err
	}
	q := v.r.URL.Query()
	aq := audit.Query{ActorType: q.Get("actorType"), ActorID: q.Get("actorId"), Action: q.Get("action"),
		EntityType: q.Get("entityType"), EntityID: q.Get("entityId"), Result: q.Get("result"), RequestID: q.Get("requestId"),
		StartDate: q.Get("startDate"), EndDate: q.Get("endDate"), Limit: limit, Offset: offset}
	es, total, err := c.Admin.Audit.List(v.r.Context(), v.caller().Actor, aq)
	if err != nil {
		return err
	}
	d := adminAuditData{Query: aq, Page: adminPage(v.r, len(es), total, limit, offset, true),
		Actors:  choices(aq.ActorType, "user", "agent", "admin", "system", "anonymous"),
		Results: choices(aq.Result, string(audit.Allowed), string(audit.Refused), string(audit.Failed))}
	for _, e := range es {
		d.Entries = append(d.Entries, auditRow{Entry: e, Details: auditDetails(&e)})
	}
	return c.render(v, http.StatusOK, "admin_audit", d)
}

// auditDetails are an entry's details as GET /admin/audit answers them:
// the status and error code, then what the entry keeps.
func auditDetails(e *audit.Entry) string {
	details := map[string]any{}
	if e.Status != 0 {
		details["status"] = e.Status
	}
	if e.ErrorCode != "" {
		details["errorCode"] = e.ErrorCode
	}
	for k, v := range e.Details {
		details[k] = v
	}
	b, err := json.Marshal(details)
	if err != nil {
		return ""
	}
	return string(b)
}
