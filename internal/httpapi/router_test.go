package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/audit"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// fakeAuth accepts the bearer token "human", "admin" and the agent key
// "key-ok"; "key-frozen" is frozen; anything else is refused.
type fakeAuth struct{}

func (fakeAuth) Authenticate(_ context.Context, token string) (*accounts.User, error) {
	switch token {
	case "human":
		return &accounts.User{ID: "u1", Role: accounts.RoleUser, Status: accounts.StatusActive}, nil
	case "admin":
		return &accounts.User{ID: "a1", Role: accounts.RoleAdmin, Status: accounts.StatusActive}, nil
	}
	return nil, market.Errorf(market.CodeUnauthorized, "bad token")
}

func (fakeAuth) AuthenticateKey(_ context.Context, secret string) (*agents.Key, *accounts.User, error) {
	switch secret {
	case "key-ok":
		return &agents.Key{ID: "k1", Scope: agents.ScopeBuy}, &accounts.User{ID: "u1", Status: accounts.StatusActive}, nil
	case "key-frozen":
		return nil, nil, market.Errorf(market.CodeAgentFrozen, "frozen")
	}
	return nil, nil, market.Errorf(market.CodeInvalidAgentKey, "bad key")
}

func (fakeAuth) AuthenticatePlatform(_ context.Context, secret string) (string, error) {
	if secret == "acp_ok" {
		return "acpp_1", nil
	}
	return "", market.Errorf(market.CodeUnauthorized, "bad platform credential")
}

type memAudit struct {
	mu      sync.Mutex
	entries []audit.Entry
}

func (m *memAudit) AppendAudit(_ context.Context, e *audit.Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries = append(m.entries, *e)
	return nil
}

type fixture struct {
	rt    *httpapi.Router
	audit *memAudit
	logs  *bytes.Buffer
}

type body struct {
	Name  string             `json:"name"`
	Count int64              `json:"count"`
	Tags  []string           `json:"tags"`
	Limit httpapi.Opt[int64] `json:"limitValue"`
}

func newFixture() *fixture {
	f := &fixture{audit: &memAudit{}, logs: &bytes.Buffer{}}
	log := slog.New(slog.NewJSONHandler(f.logs, nil))
	f.rt = httpapi.NewRouter(fakeAuth{}, f.audit, log, market.SystemClock{}, httpapi.NewMetrics(), httpapi.RouterOptions{})
	echo := func(w http.ResponseWriter, r *http.Request) error {
		var b body
		if err := httpapi.Decode(r, &b); err != nil {
			return err
		}
		httpapi.Entity(r, "thing", "t1")
		return httpapi.OK(w, r, http.StatusCreated, b)
	}
	who := func(w http.ResponseWriter, r *http.Request) error {
		p := httpapi.PrincipalOf(r)
		return httpapi.OK(w, r, http.StatusOK, map[string]any{"actor": p.Actor.Type, "id": p.Actor.ID()})
	}
	f.rt.Handle("POST", "/api/v1/echo", httpapi.Public, echo)
	f.rt.Mount(&httpapi.Surface{Prefix: "/v1", Casing: httpapi.Snake}).Handle("POST", "/v1/echo", httpapi.Public, echo)
	f.rt.Scope(agents.OpSell).Handle("GET", "/api/v1/bearer", httpapi.Bearer, who)
	f.rt.Scope(agents.OpSell).Handle("GET", "/api/v1/agent", httpapi.Agent, who)
	f.rt.Scope(agents.OpSell).Handle("GET", "/api/v1/either", httpapi.Either, who)
	f.rt.Scope(agents.OpSell).Handle("GET", "/api/v1/admin", httpapi.Admin, who)
	f.rt.Handle("GET", "/api/v1/secret/{token}", httpapi.Public, func(w http.ResponseWriter, r *http.Request) error {
		return httpapi.OK(w, r, http.StatusOK, map[string]string{"token": r.PathValue("token")})
	})
	f.rt.Handle("POST", "/api/v1/panic", httpapi.Public, func(http.ResponseWriter, *http.Request) error {
		panic("boom: secret internals")
	})
	f.rt.Handle("GET", "/api/v1/fail", httpapi.Public, func(http.ResponseWriter, *http.Request) error {
		return errors.New("database password is hunter2")
	})
	return f
}

type result struct {
	status int
	header http.Header
	json   map[string]any
}

func (f *fixture) do(t *testing.T, method, path string, payload string, headers ...string) result {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(payload))
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	f.rt.ServeHTTP(rec, req)
	res := result{status: rec.Code, header: rec.Header()}
	if err := json.Unmarshal(rec.Body.Bytes(), &res.json); err != nil {
		t.Fatalf("%s %s: body is not JSON: %v: %s", method, path, err, rec.Body.String())
	}
	return res
}

func (r result) code() string {
	e, _ := r.json["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func (r result) fields() []string {
	e, _ := r.json["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	var out []string
	for _, x := range d["fields"].([]any) {
		out = append(out, x.(map[string]any)["field"].(string))
	}
	return out
}

func TestRequestID(t *testing.T) {
	f := newFixture()
	r := f.do(t, "GET", "/api/v1/either", "", "Authorization", "Bearer human")
	id := r.header.Get("X-Request-Id")
	if !strings.HasPrefix(id, "req_") || r.json["meta"].(map[string]any)["requestId"] != id {
		t.Fatalf("generated id %q, meta %v", id, r.json["meta"])
	}
	r = f.do(t, "GET", "/api/v1/either", "", "Authorization", "Bearer human", "X-Request-Id", "client-123.abc")
	if r.header.Get("X-Request-Id") != "client-123.abc" {
		t.Fatalf("sane client id not kept: %q", r.header.Get("X-Request-Id"))
	}
	for _, bad := range []string{"has space", strings.Repeat("x", 65), "<script>"} {
		r = f.do(t, "GET", "/api/v1/either", "", "Authorization", "Bearer human", "X-Request-Id", bad)
		if got := r.header.Get("X-Request-Id"); got == bad || !strings.HasPrefix(got, "req_") {
			t.Fatalf("insane id %q kept as %q", bad, got)
		}
	}
	r = f.do(t, "POST", "/v1/echo", `{"name":"x"}`)
	m := r.json["meta"].(map[string]any)
	if m["request_id"] != r.header.Get("X-Request-Id") || m["requestId"] != nil || m["timestamp"] == nil {
		t.Fatalf("variant B meta: %v", m)
	}
}

func TestUnmatchedRoutes(t *testing.T) {
	f := newFixture()
	r := f.do(t, "GET", "/api/v1/nope", "")
	if r.status != 404 || r.code() != "NOT_FOUND" || r.json["success"] != false {
		t.Fatalf("404: %d %v", r.status, r.json)
	}
	r = f.do(t, "DELETE", "/api/v1/echo", "")
	if r.status != 405 || r.code() != "METHOD_NOT_ALLOWED" || r.header.Get("Allow") == "" {
		t.Fatalf("405: %d %v %q", r.status, r.json, r.header.Get("Allow"))
	}
}

func TestInternalErrorsAreHidden(t *testing.T) {
	f := newFixture()
	for _, c := range []struct{ method, path string }{{"POST", "/api/v1/panic"}, {"GET", "/api/v1/fail"}} {
		r := f.do(t, c.method, c.path, "")
		msg := r.json["error"].(map[string]any)["message"]
		if r.status != 500 || r.code() != "INTERNAL_ERROR" || msg != "internal error" {
			t.Fatalf("%s: %d %v", c.path, r.status, r.json)
		}
	}
	if !strings.Contains(f.logs.String(), "boom: secret internals") || !strings.Contains(f.logs.String(), "hunter2") {
		t.Fatalf("internal causes must be logged for operators:\n%s", f.logs)
	}
}

func TestDecoding(t *testing.T) {
	f := newFixture()
	cases := []struct {
		name, path, body string
		status           int
		code, field      string
	}{
		{"valid", "/api/v1/echo", `{"name":"a","count":3,"unknown":true}`, 201, "", ""},
		{"empty", "/api/v1/echo", ``, 400, "VALIDATION_ERROR", "body"},
		{"null", "/api/v1/echo", ` null `, 400, "VALIDATION_ERROR", "body"},
		{"malformed", "/api/v1/echo", `{"name":`, 400, "VALIDATION_ERROR", "body"},
		{"not an object", "/api/v1/echo", `[1,2]`, 400, "VALIDATION_ERROR", "body"},
		{"trailing data", "/api/v1/echo", `{"name":"a"} {"name":"b"}`, 400, "VALIDATION_ERROR", "body"},
		{"string for int", "/api/v1/echo", `{"count":"3"}`, 400, "VALIDATION_ERROR", "count"},
		{"float for int", "/api/v1/echo", `{"count":3.5}`, 400, "VALIDATION_ERROR", "count"},
		{"overflow", "/api/v1/echo", `{"count":1e30}`, 400, "VALIDATION_ERROR", "count"},
		{"number for string", "/api/v1/echo", `{"name":5}`, 400, "VALIDATION_ERROR", "name"},
		{"wrong element", "/api/v1/echo", `{"tags":[1]}`, 400, "VALIDATION_ERROR", "tags"},
		{"opt wrong type", "/api/v1/echo", `{"limitValue":"x"}`, 400, "VALIDATION_ERROR", "limitValue"},
		{"B names a key as sent", "/v1/echo", `{"limitValue":"x"}`, 400, "VALIDATION_ERROR", "limitValue"},
		{"oversize", "/api/v1/echo", `{"name":"` + strings.Repeat("a", httpapi.MaxBody) + `"}`, 413, "PAYLOAD_TOO_LARGE", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.do(t, "POST", c.path, c.body)
			if r.status != c.status || r.code() != c.code {
				t.Fatalf("got %d %q, want %d %q: %v", r.status, r.code(), c.status, c.code, r.json)
			}
			if c.field != "" {
				if fs := r.fields(); len(fs) != 1 || fs[0] != c.field {
					t.Fatalf("fields %v, want [%s]", fs, c.field)
				}
			}
		})
	}
}

func TestOptTellsAbsentFromNull(t *testing.T) {
	var b body
	if err := httpapi.DecodeBytes([]byte(`{"limitValue":null}`), &b); err != nil || !b.Limit.Set || !b.Limit.Null || b.Limit.Ptr() != nil {
		t.Fatalf("null: %+v %v", b.Limit, err)
	}
	b = body{}
	if err := httpapi.DecodeBytes([]byte(`{"limitValue":7}`), &b); err != nil || b.Limit.Ptr() == nil || *b.Limit.Ptr() != 7 {
		t.Fatalf("value: %+v %v", b.Limit, err)
	}
	b = body{}
	_ = httpapi.DecodeBytes([]byte(`{}`), &b)
	if b.Limit.Set {
		t.Fatal("absent field marked set")
	}
}

func TestAuthModes(t *testing.T) {
	f := newFixture()
	cases := []struct {
		path    string
		headers []string
		status  int
		code    string
	}{
		{"/api/v1/bearer", nil, 401, "UNAUTHORIZED"},
		{"/api/v1/bearer", []string{"Authorization", "Bearer nope"}, 401, "UNAUTHORIZED"},
		{"/api/v1/bearer", []string{"Authorization", "Basic abc"}, 401, "UNAUTHORIZED"},
		{"/api/v1/bearer", []string{"X-Agent-Key", "key-ok"}, 403, "FORBIDDEN"},
		{"/api/v1/bearer", []string{"X-Agent-Key", "bad"}, 401, "INVALID_AGENT_KEY"},
		{"/api/v1/bearer", []string{"Authorization", "Bearer human"}, 200, ""},
		{"/api/v1/agent", nil, 401, "INVALID_AGENT_KEY"},
		{"/api/v1/agent", []string{"Authorization", "Bearer human"}, 401, "INVALID_AGENT_KEY"},
		{"/api/v1/agent", []string{"X-Agent-Key", "key-frozen"}, 403, "AGENT_FROZEN"},
		{"/api/v1/agent", []string{"X-Agent-Key", "key-ok"}, 403, "INSUFFICIENT_SCOPE"}, // buy-only key on a sell route
		{"/api/v1/either", nil, 401, "UNAUTHORIZED"},
		{"/api/v1/either", []string{"Authorization", "Bearer human"}, 200, ""},
		{"/api/v1/admin", []string{"Authorization", "Bearer human"}, 403, "FORBIDDEN"},
		{"/api/v1/admin", []string{"Authorization", "Bearer admin"}, 200, ""},
	}
	for _, c := range cases {
		r := f.do(t, "GET", c.path, "", c.headers...)
		if r.status != c.status || r.code() != c.code {
			t.Errorf("%s %v: got %d %q, want %d %q", c.path, c.headers, r.status, r.code(), c.status, c.code)
		}
	}
}

func TestAuditEveryMutatingRequest(t *testing.T) {
	f := newFixture()
	f.do(t, "POST", "/api/v1/echo", `{"name":"a"}`, "X-Request-Id", "r-ok")
	f.do(t, "POST", "/api/v1/echo", `{"count":"x"}`, "X-Request-Id", "r-bad")
	f.do(t, "POST", "/api/v1/panic", ``, "X-Request-Id", "r-panic")
	f.do(t, "PUT", "/api/v1/nowhere", ``, "X-Request-Id", "r-404")
	f.do(t, "GET", "/api/v1/either", ``, "Authorization", "Bearer human")
	want := []struct {
		action, result, code, requestID, entity string
	}{
		{"POST /api/v1/echo", "allowed", "", "r-ok", "t1"},
		{"POST /api/v1/echo", "refused", "VALIDATION_ERROR", "r-bad", ""},
		{"POST /api/v1/panic", "failed", "INTERNAL_ERROR", "r-panic", ""},
		{"PUT /api/v1/nowhere", "refused", "NOT_FOUND", "r-404", ""},
	}
	if len(f.audit.entries) != len(want) {
		t.Fatalf("%d audit entries, want %d (reads are not audited): %+v", len(f.audit.entries), len(want), f.audit.entries)
	}
	for i, w := range want {
		e := f.audit.entries[i]
		if e.Action != w.action || string(e.Result) != w.result || e.ErrorCode != w.code || e.RequestID != w.requestID ||
			e.EntityID != w.entity || e.IP == "" || e.ActorType != "anonymous" {
			t.Errorf("entry %d: %+v, want %+v", i, e, w)
		}
	}
}

func TestMetricsAndLogs(t *testing.T) {
	f := newFixture()
	mx := httpapi.NewMetrics()
	rt := httpapi.NewRouter(fakeAuth{}, f.audit, slog.New(slog.NewJSONHandler(f.logs, nil)), market.SystemClock{}, mx, httpapi.RouterOptions{})
	rt.Handle("GET", "/api/v1/secret/{token}", httpapi.Public, func(w http.ResponseWriter, r *http.Request) error {
		return httpapi.OK(w, r, http.StatusOK, nil)
	})
	rt.HandleRaw("GET", "/metrics", mx.Handler())
	req := httptest.NewRequest("GET", "/api/v1/secret/tok-SECRET-123", nil)
	rt.ServeHTTP(httptest.NewRecorder(), req)
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	out, _ := io.ReadAll(rec.Body)
	if !strings.Contains(string(out), `marketplace_http_requests_total{method="GET",route="GET /api/v1/secret/{token}",status="200"} 1`) {
		t.Fatalf("metrics do not count the request by route:\n%s", out)
	}
	if strings.Contains(f.logs.String(), "tok-SECRET-123") {
		t.Fatal("the access log holds a secret from the path")
	}
	if !strings.Contains(f.logs.String(), `"route":"GET /api/v1/secret/{token}"`) {
		t.Fatalf("the access log lacks the route:\n%s", f.logs)
	}
}

func TestRoutesAreListed(t *testing.T) {
	f := newFixture()
	var got []string
	for _, r := range f.rt.Routes() {
		got = append(got, r.Method+" "+r.Pattern)
	}
	if len(got) != 9 || got[0] != "GET /api/v1/admin" {
		t.Fatalf("routes: %v", got)
	}
}

func TestCamelCase(t *testing.T) {
	for in, want := range map[string]string{
		"daily_limit": "dailyLimit", "spending_controls.per_transaction_limit": "spendingControls.perTransactionLimit",
		"body": "body", "accepted_agent_terms": "acceptedAgentTerms", "shipping_address.line1": "shippingAddress.line1",
		"photos[2]": "photos[2]", "alreadyCamel": "alreadyCamel", "_leading": "_leading", "trailing_": "trailing_",
	} {
		if got := httpapi.CamelCase(in); got != want {
			t.Errorf("CamelCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// A surface spells a canonical name by its casing, unless its table names
// the field otherwise, on every route or on one.
func TestSurfaceNames(t *testing.T) {
	s := &httpapi.Surface{Prefix: "/v1", Casing: httpapi.Snake, Names: map[string]string{
		"photo_urls": "photos", "POST /v1/listings description": "brief_description"}}
	a := &httpapi.Surface{Prefix: "/api/v1", Casing: httpapi.Camel}
	for _, c := range []struct {
		s           *httpapi.Surface
		route, name string
		want        string
	}{
		{s, "PATCH /v1/listings/{id}", "photo_urls", "photos"},
		{s, "POST /v1/listings", "description", "brief_description"},
		{s, "PATCH /v1/listings/{id}", "description", "description"},
		{s, "POST /v1/purchase", "max_price", "max_price"},
		{a, "POST /api/v1/listings", "photo_urls", "photoUrls"},
		{a, "POST /api/v1/listings", "description", "description"},
	} {
		if got := c.s.Name(c.route, c.name); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.route, c.name, got, c.want)
		}
	}
}
