package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"marketplace/internal/audit"
	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/agentv1"
	"marketplace/internal/market"
)

// Each tool call that may change something is an agent action with an audit
// entry of its own, as a mutating HTTP request is (the POST /mcp request
// that carries it is audited by the router too, but says nothing of the
// tool). Read-only tools (annotation readOnlyHint) leave none, as GETs
// leave none.

// areaEntities is the entity a tool of each area acts on, for the entry;
// byAnswer: the tool answers that entity, so the answer's id is its id.
var areaEntities = map[string]struct {
	typ      string
	byAnswer bool
}{
	"purchases": {"order", true}, "orders": {"order", true}, "shipping": {"order", true},
	"disputes": {"dispute", true}, "listings": {"listing", true}, "offers": {"offer", true},
	"webhooks": {"webhook", true}, "messages": {"thread", false}, "agent_onboarding": {"onboarding", true},
	"acp": {"checkout_session", true},
}

// callInfo is what the HTTP request carrying a tool call tells its audit
// entry.
type callInfo struct{ ip string }

type callInfoKey struct{}

// audit writes the entry of one call of t by p (nil when the caller was not
// found) that answered out or err.
func (s *Server) audit(ctx context.Context, t *agentv1.Tool, p *httpapi.Principal, args json.RawMessage, out any, err error) {
	if s.Audit == nil || t.ReadOnly {
		return
	}
	e := &audit.Entry{
		ID: market.NewID(), ActorType: "anonymous", Action: "tool " + t.Name, Result: audit.Allowed, Status: http.StatusOK,
		RequestID: httpapi.RequestID(ctx), CreatedAt: s.now(),
	}
	if p != nil {
		e.ActorType, e.ActorID = p.Actor.Type, p.Actor.ID()
	}
	if ci, _ := ctx.Value(callInfoKey{}).(callInfo); ci.ip != "" {
		e.IP = ci.ip
	}
	var details map[string]any
	if err != nil {
		me := market.ErrorOf(err)
		e.Status, e.ErrorCode = httpapi.Status(me.Code), string(me.Code)
		e.Result = audit.ResultOf(e.Status)
		details = me.Details
	}
	e.EntityType, e.EntityID = entityOf(t, args, out, details)
	// The context of a finished call may be cancelled; the entry must land.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if werr := s.Audit.AppendAudit(wctx, e); werr != nil && s.Log != nil {
		s.Log.Error("audit write failed", "request_id", e.RequestID, "tool", t.Name, "err", werr.Error())
	}
}

func (s *Server) now() time.Time {
	if s.Clock != nil {
		return s.Clock.Now()
	}
	return time.Now().UTC()
}

// entityOf is what the call acted on, where it can be told: the tool's
// area names the type; the id is the answer's (a created order, offer,
// listing), else the refusal's details (an order awaiting approval), else
// the arguments'.
func entityOf(t *agentv1.Tool, args json.RawMessage, out any, details map[string]any) (string, string) {
	ent, ok := areaEntities[t.Area]
	if !ok {
		return "", ""
	}
	field := ent.typ + "_id"
	var answer, in map[string]any
	if out != nil {
		if raw, err := json.Marshal(out); err == nil {
			_ = json.Unmarshal(raw, &answer)
		}
	}
	_ = json.Unmarshal(args, &in)
	candidates := []string{text(answer, field), text(details, field), text(in, field)}
	if ent.byAnswer {
		candidates = append([]string{text(answer, "id")}, candidates...)
	}
	for _, id := range candidates {
		if id != "" {
			return ent.typ, httpapi.SafeText(id, 200)
		}
	}
	return ent.typ, ""
}

func text(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
