package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/audit"
	"marketplace/internal/idempotency"
	"marketplace/internal/market"
	"marketplace/internal/settings"
)

// Auth is what a route asks of its caller.
type Auth int

const (
	Public   Auth = iota // anyone; credentials that authenticate identify the caller, others are ignored
	Bearer               // a human's bearer token
	Agent                // an X-Agent-Key
	Either               // a bearer token or an agent key
	Admin                // a bearer token of an admin
	Optional             // anyone; credentials, when sent, must be good and identify the caller
	Platform             // an agent key, or an agent platform's credential (Bearer acp_...)
)

// HandlerFunc handles a request; a returned error is written as the error
// envelope (so handlers never format errors themselves).
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Route is one served operation, as the OpenAPI coverage test sees it.
type Route struct {
	Method  string
	Pattern string // full path with {params}
	Auth    Auth
	// Areas are the areas of the service the route belongs to (Router.In),
	// which the manifest names as its capabilities.
	Areas []string
	// Scope is the operation an agent key's scope must allow (Router.Scope);
	// agents.OpRead, any scope.
	Scope agents.Op
}

// Router registers routes on a ServeMux and wraps every one of them in the
// shared middleware. It remembers what it registered. A Router mounted on a
// surface (Mount) is a view of the same routing whose routes answer in that
// surface's spelling; a Router in an area (In) is one whose routes belong
// to that area.
type Router struct {
	*routing
	surface *Surface // nil: not mounted (pages, documents, operations)
	areas   []string
	scope   agents.Op
}

type routing struct {
	mux      *http.ServeMux
	routes   []Route
	surfaces []*Surface
	auth     Authenticator
	audit    AuditWriter
	log      *slog.Logger
	clock    market.Clock
	mx       *Metrics
	idem     idempotency.Store
	// instance names this process as the holder of idempotency leases.
	instance string
	// gates are the feature flags routes answer to (Gate).
	gates map[string]settings.Feature // "METHOD pattern" -> feature
	gate  func(ctx context.Context, f settings.Feature) error
	// limits are the per-route rate limits (ratelimit.go); nil: off.
	limits *RateLimits
}

// Gate puts routes behind feature flags: each route ("METHOD pattern", as
// registered) answers check's error (503 FEATURE_DISABLED) while its flag is
// off, before authentication. A route not registered is an error, so the
// table cannot drift from the routes.
func (rt *Router) Gate(check func(ctx context.Context, f settings.Feature) error, routes map[string]settings.Feature) error {
	known := map[string]bool{}
	for _, r := range rt.routes {
		known[r.Method+" "+r.Pattern] = true
	}
	for route := range routes {
		if !known[route] {
			return fmt.Errorf("feature gate: no route %q", route)
		}
	}
	rt.gate, rt.gates = check, routes
	return nil
}

// AuditWriter keeps the audit log.
type AuditWriter interface {
	AppendAudit(ctx context.Context, e *audit.Entry) error
}

// RouterOptions are the router's optional layers.
type RouterOptions struct {
	// Idempotency keeps the idempotency keys; routes registered with
	// HandleIdempotent honour them only with one.
	Idempotency idempotency.Store
	// Limits are the per-route rate limits; nil, or a scale of 0, leaves
	// them off.
	Limits *RateLimits
}

// NewRouter makes a router.
func NewRouter(auth Authenticator, audit AuditWriter, log *slog.Logger, clock market.Clock, mx *Metrics, opts RouterOptions) *Router {
	return &Router{routing: &routing{mux: http.NewServeMux(), auth: auth, audit: audit, log: log, clock: clock, mx: mx,
		instance: newRequestID()[4:], idem: opts.Idempotency, limits: opts.Limits.prepare()}}
}

// Routes lists every registered route, sorted.
func (rt *Router) Routes() []Route {
	out := append([]Route(nil), rt.routes...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pattern != out[j].Pattern {
			return out[i].Pattern < out[j].Pattern
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// In returns a view of rt whose routes belong to these areas of the
// service (and to no others): the manifest's capabilities are the areas of
// the routes served, so a route is given its area where it is registered.
func (rt *Router) In(areas ...string) *Router {
	v := *rt
	v.areas = areas
	return &v
}

// Scope returns a view of rt whose routes ask an agent caller's key to
// allow op (a buy or a sell operation), as each MCP tool declares its own.
// The check follows authentication and the rate limit and comes before the
// handler, so before the body is read and before an idempotency key is
// claimed: a refused key leaves no answer to replay (CONTRACT.md section 7,
// "key/scope/frozen/owner verified" first). Bearer callers are not agents
// and pass.
func (rt *Router) Scope(op agents.Op) *Router {
	v := *rt
	v.scope = op
	return &v
}

// Handle registers h for method and path under auth.
func (rt *Router) Handle(method, path string, auth Auth, h HandlerFunc) {
	rt.handle(method, path, auth, h, true)
}

// HandleBinary registers a route whose body is raw bytes (a photo upload),
// which the input edge leaves to the handler whatever its Content-Type.
func (rt *Router) HandleBinary(method, path string, auth Auth, h HandlerFunc) {
	rt.handle(method, path, auth, h, false)
}

func (rt *Router) handle(method, path string, auth Auth, h HandlerFunc, textBody bool) {
	rt.routes = append(rt.routes, Route{Method: method, Pattern: path, Auth: auth, Areas: rt.areas, Scope: rt.scope})
	pattern := method + " " + path
	if path == "/" || strings.HasSuffix(path, "/") {
		pattern += "{$}"
	}
	rt.mux.Handle(pattern, rt.wrap(method+" "+path, auth, h, textBody))
}

// HandleRaw registers a plain handler (metrics, documents) without auth or
// audit; it still gets request ids, logs and recovery from ServeHTTP.
func (rt *Router) HandleRaw(method, path string, h http.Handler) {
	rt.routes = append(rt.routes, Route{Method: method, Pattern: path, Areas: rt.areas})
	pattern := method + " " + path
	if strings.HasSuffix(path, "/") {
		pattern += "{$}"
	}
	rt.mux.Handle(pattern, h)
}

type ctxKey int

const (
	keyRequestID ctxKey = iota
	keyPrincipal
	keyEntity
	keyRoute
)

// RequestID is the id of the request in ctx.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(keyRequestID).(string)
	return id
}

// requestInfo is filled as a request goes through the layers, for the access
// log and audit written at the end.
type requestInfo struct {
	route      string
	actor      market.Actor
	entityType string
	entityID   string
	code       market.Code
	refused    *refusal       // input the edge refused, for the audit entry
	details    map[string]any // what the handler adds, e.g. a reason
	changes    *audit.Changes // what the services note they changed: before and after
	surface    *Surface       // how the response is spelled
}

func info(r *http.Request) *requestInfo {
	ri, _ := r.Context().Value(keyEntity).(*requestInfo)
	if ri == nil {
		return &requestInfo{}
	}
	return ri
}

// AuditDetails adds to the details of the request's audit entry, e.g. a
// reason. The values before and after a change come from the service that
// made it (audit.NoteChange).
func AuditDetails(r *http.Request, details map[string]any) {
	ri := info(r)
	if ri.details == nil {
		ri.details = map[string]any{}
	}
	for k, v := range details {
		ri.details[k] = v
	}
}

// Acting names who makes a request that proved who they are in its own
// way (the web console's session cookie) rather than with a route's
// credentials, for its access log line and audit entry.
func Acting(r *http.Request, a market.Actor) { info(r).actor = a }

// Entity names the entity a mutating request acted on, for the audit log.
func Entity(r *http.Request, entityType, id string) {
	ri := info(r)
	ri.entityType, ri.entityID = entityType, id
}

// PathEntity names the entity of the route's {id} as the one the request
// acts on (Entity), and returns the id.
func PathEntity(r *http.Request, entityType string) string {
	id := r.PathValue("id")
	Entity(r, entityType, id)
	return id
}

func (rt *Router) wrap(route string, auth Auth, h HandlerFunc, textBody bool) http.Handler {
	method, pattern, _ := strings.Cut(route, " ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := info(r)
		ri.route = route
		if rt.surface != nil {
			ri.surface = rt.surface
		}
		err := func() error {
			if f := checkInput(r, route, textBody); f != nil {
				ri.refused = f
				return f.err()
			}
			if flag := rt.gates[route]; flag != "" && rt.gate != nil {
				if err := rt.gate(r.Context(), flag); err != nil {
					return err
				}
			}
			p, err := rt.authenticate(r, auth)
			if err != nil {
				return err
			}
			if auth == Public {
				p = rt.caller(r)
			}
			if p != nil {
				ri.actor = p.Actor
				r = r.WithContext(context.WithValue(r.Context(), keyPrincipal, p))
			}
			if err := rt.limit(w, r, method, pattern, p); err != nil {
				return err
			}
			if err := p.Allow(rt.scope); err != nil {
				return err
			}
			return h(w, r)
		}()
		if err != nil {
			e := writeError(w, r, err)
			ri.code = e.Code
			if e.Code == market.CodeInternal {
				rt.log.Error("internal error", "request_id", RequestID(r.Context()), "route", route, "err", err.Error())
			}
		}
	})
}

// mutating reports whether a request must leave an audit entry.
func mutating(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

func (rt *Router) recordAudit(r *http.Request, ri *requestInfo, status int) {
	action := ri.route
	if action == "" { // unmatched: the path is all there is to say
		action = r.Method + " " + truncate(r.URL.Path, 200)
	}
	actorType := ri.actor.Type
	if actorType == "" {
		actorType = "anonymous"
	}
	// Every text is rendered safely: a refused request's path may hold a
	// NUL, which PostgreSQL cannot store, and its audit row must still land.
	e := &audit.Entry{
		ID: market.NewID(), ActorType: actorType, ActorID: ri.actor.ID(), Action: SafeText(action, 300),
		EntityType: ri.entityType, EntityID: SafeText(ri.entityID, 200), Result: audit.ResultOf(status), Status: status,
		ErrorCode: string(ri.code), RequestID: RequestID(r.Context()), IP: clientIP(r), CreatedAt: rt.clock.Now(),
	}
	if f := ri.refused; f != nil {
		e.Details = map[string]any{"field": SafeText(f.field, 200), "problem": f.problem, "value": SafeText(f.value, 200)}
	}
	if e.Result == audit.Allowed {
		// One entry per request: what the services changed, before and
		// after, and what the handler adds.
		for _, d := range []map[string]any{ri.changes.Details(), ri.details} {
			if len(d) > 0 && e.Details == nil {
				e.Details = map[string]any{}
			}
			for k, v := range d {
				e.Details[k] = v
			}
		}
	}
	// The request's context may be cancelled by now; the record must still land.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 5*time.Second)
	defer cancel()
	if err := rt.audit.AppendAudit(ctx, e); err != nil {
		rt.log.Error("audit write failed", "request_id", e.RequestID, "err", err.Error())
	}
}

// ServeHTTP is the outermost layer: request id, recovery, 404/405 in the
// envelope, metrics and the access log.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := r.Header.Get("X-Request-Id")
	if !saneRequestID(id) {
		id = newRequestID()
	}
	ri := &requestInfo{surface: rt.surfaceFor(r.URL.Path)}
	ctx := context.WithValue(context.WithValue(r.Context(), keyRequestID, id), keyEntity, ri)
	if mutating(r.Method) { // only these are audited
		ctx, ri.changes = audit.WithChanges(ctx)
	}
	r = r.WithContext(ctx)
	sw := &statusWriter{ResponseWriter: w}
	sw.Header().Set("X-Request-Id", id)
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			rt.log.Error("panic", "request_id", id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if !sw.wrote {
				writeError(sw, r, market.Internal(fmt.Errorf("panic: %v", p)))
			}
			ri.code = market.CodeInternal
		}
		rt.finish(r, sw, ri, start)
	}()
	// The mux would answer a path that is not clean ("//", "/a/../b")
	// with a redirect in HTML; no route of ours has such a path.
	if !cleanPath(r.URL.Path) {
		ri.code = writeError(sw, r, market.Errorf(market.CodeNotFound, "no route for %s %s", r.Method, SafeText(r.URL.Path, 200))).Code
		return
	}
	// Handler only finds the route; ServeHTTP also sets the path values.
	if h, pattern := rt.mux.Handler(r); pattern == "" {
		ri.code = rt.unmatched(sw, r, h)
		return
	}
	rt.mux.ServeHTTP(sw, r)
}

// unmatched answers 404 and 405 in the envelope; the mux's own handler tells
// which (and sets Allow) but writes plain text, so it writes to a scratch
// recorder.
func (rt *Router) unmatched(w http.ResponseWriter, r *http.Request, h http.Handler) market.Code {
	rec := &scratch{header: http.Header{}}
	h.ServeHTTP(rec, r)
	if rec.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", rec.header.Get("Allow"))
		return writeError(w, r, market.Errorf(market.CodeMethodNotAllowed, "method %s is not allowed here; allowed: %s", r.Method, rec.header.Get("Allow"))).Code
	}
	return writeError(w, r, market.Errorf(market.CodeNotFound, "no route for %s %s", r.Method, SafeText(r.URL.Path, 200))).Code
}

// cleanPath reports whether p is already in the form the mux routes:
// rooted, no empty, "." or ".." segments (a trailing slash is kept).
func cleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

func (rt *Router) finish(r *http.Request, sw *statusWriter, ri *requestInfo, start time.Time) {
	route := ri.route
	if route == "" {
		route = "unmatched"
	}
	elapsed := time.Since(start)
	if sw.status == 0 {
		sw.status = http.StatusOK
	}
	rt.mx.observe(r.Method, route, sw.status, elapsed)
	// Refused input is audited whatever the method: it is what a probe
	// or an attack looks like.
	if mutating(r.Method) || ri.refused != nil {
		rt.recordAudit(r, ri, sw.status)
	}
	level := slog.LevelInfo
	if sw.status >= 500 {
		level = slog.LevelError
	}
	// Paths can hold secrets (magic tokens, onboarding links): log the route
	// pattern, never the raw path of a matched route.
	attrs := []slog.Attr{
		slog.String("request_id", RequestID(r.Context())),
		slog.String("method", r.Method),
		slog.String("route", route),
		slog.Int("status", sw.status),
		slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
		slog.Int64("bytes", sw.bytes),
		slog.String("ip", clientIP(r)),
	}
	if ri.actor.Type != "" {
		attrs = append(attrs, slog.String("actor_type", string(ri.actor.Type)), slog.String("actor_id", ri.actor.ID()))
	}
	if ri.code != "" {
		attrs = append(attrs, slog.String("error_code", string(ri.code)))
	}
	rt.log.LogAttrs(r.Context(), level, "request", attrs...)
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "req_" + hex.EncodeToString(b)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// clientIP is the peer address of the connection (no proxy headers are
// trusted).
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ClientIP exposes the caller's address to handlers.
func ClientIP(r *http.Request) string { return clientIP(r) }

// FromPrivateNetwork refuses a request from outside a private network or
// this host: setting a password is allowed only from there (the
// interface specification's /auth/set-password).
func FromPrivateNetwork(r *http.Request) error {
	if ip := net.ParseIP(clientIP(r)); ip == nil || !(ip.IsLoopback() || ip.IsPrivate()) {
		return market.Errorf(market.CodeForbidden, "setting a password is only possible from a private network")
	}
	return nil
}

// statusWriter remembers the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// scratch is a throwaway ResponseWriter.
type scratch struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (s *scratch) Header() http.Header         { return s.header }
func (s *scratch) Write(b []byte) (int, error) { return s.body.Write(b) }
func (s *scratch) WriteHeader(code int)        { s.status = code }
