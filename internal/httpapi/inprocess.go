package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"

	"marketplace/internal/market"
)

// ServeAs runs h, the handler of route ("METHOD /pattern") on rt, for the
// principal p that another request has authenticated: a binding's MCP tool
// runs its REST route this way, so both answer alike (ACP's checkout tools).
// r is the request the route would get, its path values set. Here r gets
// the route's scope check, the request details the layers read, and
// refusals in rt's surface. The edge (authentication, input checks, rate
// limits, access log, audit entry) is the one of the request that
// carries the call. The answer is the status and body h wrote.
func (rt *Router) ServeAs(p *Principal, r *http.Request, route string, h HandlerFunc) (int, []byte) {
	ri := &requestInfo{route: route, surface: rt.surface}
	if p != nil {
		ri.actor = p.Actor
	}
	ctx := context.WithValue(context.WithValue(r.Context(), keyEntity, ri), keyPrincipal, p)
	r = r.WithContext(ctx)
	w := httptest.NewRecorder()
	err := func() error {
		if p == nil {
			return market.Errorf(market.CodeUnauthorized, "authentication required")
		}
		if err := p.Allow(rt.scope); err != nil {
			return err
		}
		return h(w, r)
	}()
	if err != nil {
		if e := writeError(w, r, err); e.Code == market.CodeInternal {
			rt.log.Error("internal error", "request_id", RequestID(ctx), "route", route, "err", err.Error())
		}
	}
	return w.Code, w.Body.Bytes()
}
