// Package testkit runs the real service on httptest for API tests, on every
// store engine, and checks every exchange against the published OpenAPI
// documents: a response that does not match them fails the test, and so
// does a request the documents reject that the server accepts.
package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/httpapi/openapi"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/payments"
	"marketplace/internal/ratelimit"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// Server is a running service for one test.
type Server struct {
	T     testing.TB
	URL   string
	App   *app.App
	Clock *market.FixedClock // the service clock, which the sandbox moves
	// RealTime is the clock of login throttles, which the sandbox never
	// moves; tests move it to let a lockout pass.
	RealTime *market.FixedClock
	// Unchecked turns off OpenAPI checking for the next requests (for tests of
	// transport-level garbage that no document can describe).
	Unchecked bool
}

var (
	validatorOnce sync.Once
	validator     *openapi.Validator
	validatorErr  error
)

// Options adjust a test server.
type Options struct {
	Mode       config.Mode
	AdminEmail string
	Password   string
	WithJobs   bool // start the River client (off by default: most tests need no workers)
	// Generator and GenerationBudget replace the AI step and how long
	// create waits for it.
	Generator        listings.Generator
	GenerationBudget time.Duration
	// Gateway replaces the payment processor's money side; BeforeSettle
	// runs before each settle step (fault and crash tests).
	Gateway      payments.Gateway
	BeforeSettle func(ctx context.Context, orderID string) error
	BeforeCharge func(ctx context.Context, orderID, listingID string) // app.Options.BeforeCharge
	// SMTPURL is MARKETPLACE_SMTP_URL: mails go out through that server
	// (with WithJobs, which runs the sending job).
	SMTPURL string
	// RateLimits turns the per-route rate limits on: they are off in test
	// servers unless a test is about them, so other suites never meet a
	// 429 (login throttles stay on). Limiter, when set, makes the limiter
	// (a Redis one, a wrapper) on the server's real-time clock; and
	// RateLimitScale is MARKETPLACE_RATE_LIMIT_SCALE (nil: 1).
	RateLimits     bool
	Limiter        func(now func() time.Time) ratelimit.Limiter
	RateLimitScale *float64
	// DiscordBotSecret is MARKETPLACE_DISCORD_BOT_SECRET ("": the chat
	// bot's code route is switched off).
	DiscordBotSecret string
	// Google sign-in: MARKETPLACE_GOOGLE_ISSUER, _CLIENT_ID and
	// _CLIENT_SECRET (a test provider: testkit/oidcprovider).
	GoogleIssuer, GoogleClientID, GoogleClientSecret string
	// PublicURL replaces the server's own address as MARKETPLACE_PUBLIC_URL
	// (replicas that must agree on it).
	PublicURL string
}

func init() { accounts.UseTestPasswordCost() }

// Start runs the service on db.
func Start(t testing.TB, db *store.DB, opts Options) *Server {
	t.Helper()
	validatorOnce.Do(func() { validator, validatorErr = openapi.NewValidator() })
	if validatorErr != nil {
		t.Fatalf("openapi documents: %v", validatorErr)
	}
	if opts.Mode == "" {
		opts.Mode = config.Sandbox
	}
	clock := market.NewFixedClock(time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC))
	realTime := market.NewFixedClock(time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC))
	ts := httptest.NewUnstartedServer(nil)
	cfg := config.Config{
		Addr: ts.Listener.Addr().String(), DataDir: t.TempDir(), Mode: opts.Mode,
		PublicURL: "http://" + ts.Listener.Addr().String(), JWTSecret: "test-secret-0123456789abcdef0123456789",
		AdminEmail: opts.AdminEmail, AdminPassword: opts.Password, LogLevel: "error", SMTPURL: opts.SMTPURL,
		RateLimitScale: opts.RateLimitScale, DiscordBotSecret: opts.DiscordBotSecret,
		GoogleIssuer: opts.GoogleIssuer, GoogleClientID: opts.GoogleClientID, GoogleClientSecret: opts.GoogleClientSecret,
	}
	if opts.PublicURL != "" {
		cfg.PublicURL = opts.PublicURL
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	if os.Getenv("MARKETPLACE_TEST_LOG") != "" {
		log = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	ctx := context.Background()
	if err := jobsMigrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	var limiter ratelimit.Limiter
	if opts.Limiter != nil {
		limiter = opts.Limiter(realTime.Now)
	}
	a, err := app.New(ctx, cfg, db, app.Options{Logger: log, Clock: clock, RealTime: realTime, Generator: opts.Generator,
		GenerationBudget: opts.GenerationBudget, Gateway: opts.Gateway, BeforeSettle: opts.BeforeSettle, BeforeCharge: opts.BeforeCharge,
		Limiter: limiter, NoRouteLimits: !opts.RateLimits})
	if err != nil {
		t.Fatal(err)
	}
	if opts.WithJobs {
		if err := a.Queue.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			_ = a.Queue.Stop(stopCtx)
		})
	}
	ts.Config.Handler = a.Handler()
	ts.Start()
	t.Cleanup(ts.Close)
	return &Server{T: t, URL: ts.URL, App: a, Clock: clock, RealTime: realTime}
}

// Run starts a server on every engine and runs fn for each, as subtests.
func Run(t *testing.T, opts Options, fn func(t *testing.T, s *Server)) {
	storetest.RunWith(t, withJobs, func(t *testing.T, db *store.DB) {
		fn(t, Start(t, db, opts))
	})
}

// Header is one request header.
type Header struct{ Name, Value string }

// Bearer is an Authorization header for token.
func Bearer(token string) Header { return Header{"Authorization", "Bearer " + token} }

// AgentKey is an X-Agent-Key header.
func AgentKey(secret string) Header { return Header{"X-Agent-Key", secret} }

// Response is a finished exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// Data is the envelope's data as an object ({} when it is not one).
func (r *Response) Data() map[string]any {
	m, _ := r.JSON["data"].(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

// List is the envelope's data as an array.
func (r *Response) List() []any {
	l, _ := r.JSON["data"].([]any)
	return l
}

// Code is the error code, or "".
func (r *Response) Code() string {
	e, _ := r.JSON["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// Fields lists the field names of a VALIDATION_ERROR.
func (r *Response) Fields() []string {
	e, _ := r.JSON["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	fs, _ := d["fields"].([]any)
	var out []string
	for _, f := range fs {
		m, _ := f.(map[string]any)
		name, _ := m["field"].(string)
		out = append(out, name)
	}
	return out
}

// Do sends a request. body is marshalled as JSON unless it is a string or
// []byte (sent as is). The exchange is checked against the documents.
func (s *Server) Do(method, path string, body any, headers ...Header) *Response {
	s.T.Helper()
	return s.do(http.DefaultClient, method, path, body, headers...)
}

// noRedirects answers a redirect with the redirect itself.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// DoNoRedirect is Do that returns a redirect (its Location header) instead
// of following it.
func (s *Server) DoNoRedirect(method, path string, body any, headers ...Header) *Response {
	s.T.Helper()
	return s.do(noRedirects, method, path, body, headers...)
}

func (s *Server) do(client *http.Client, method, path string, body any, headers ...Header) *Response {
	s.T.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		raw = b
	case string:
		raw = []byte(b)
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			s.T.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, s.URL+path, bytes.NewReader(raw))
	if err != nil {
		s.T.Fatal(err)
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		req.Header.Set(h.Name, h.Value)
	}
	resp, err := client.Do(req)
	if err != nil {
		s.T.Fatal(err)
	}
	defer resp.Body.Close()
	out := &Response{Status: resp.StatusCode, Header: resp.Header}
	if out.Body, err = io.ReadAll(resp.Body); err != nil {
		s.T.Fatal(err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(out.Body, &out.JSON); err != nil {
			s.T.Fatalf("%s %s: response is not JSON: %v\n%s", method, path, err, out.Body)
		}
	}
	if !s.Unchecked {
		s.check(req, raw, out)
	}
	return out
}

// check fails the test when the exchange contradicts the documents: the
// response must always match; a request the documents reject must be refused.
func (s *Server) check(req *http.Request, raw []byte, out *Response) {
	s.T.Helper()
	reqErr, respErr := validator.Check(req, raw, out.Status, out.Header, out.Body)
	var undocumented openapi.ErrUndocumented
	if errors.As(respErr, &undocumented) {
		if out.Status == http.StatusNotFound || out.Status == http.StatusMethodNotAllowed {
			return // an unmatched route: nothing to document
		}
		s.T.Errorf("%v (answered %d)", respErr, out.Status)
		return
	}
	if respErr != nil {
		s.T.Errorf("%s %s: response %d does not match the OpenAPI document: %v\n%s", req.Method, req.URL.Path, out.Status, respErr, truncate(out.Body))
	}
	if reqErr != nil && out.Status < 400 {
		s.T.Errorf("%s %s: the document rejects this request (%v) but the server answered %d", req.Method, req.URL.Path, reqErr, out.Status)
	}
}

func truncate(b []byte) []byte {
	if len(b) > 2000 {
		return b[:2000]
	}
	return b
}

// Want fails unless the response has status and, when code is not "", that
// error code.
func (r *Response) Want(t testing.TB, status int, code string) *Response {
	t.Helper()
	if r.Status != status || r.Code() != code {
		t.Fatalf("got %d %q, want %d %q\n%s", r.Status, r.Code(), status, code, truncate(r.Body))
	}
	return r
}

// WantFields fails unless r is 400 VALIDATION_ERROR naming exactly fields
// (in any order), each with a message.
func WantFields(t testing.TB, r *Response, fields ...string) {
	t.Helper()
	r.Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
	got := r.Fields()
	slices.Sort(got)
	want := slices.Clone(fields)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("details.fields = %v, want %v\n%s", got, want, truncate(r.Body))
	}
	e, _ := r.JSON["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	fs, _ := d["fields"].([]any)
	for _, f := range fs {
		if msg, _ := f.(map[string]any)["message"].(string); msg == "" {
			t.Errorf("field %v has no message", f)
		}
	}
}

// RunDB is Run for tests of several servers on one store (replicas): fn
// gets start, which starts one more server on the engine's store.
func RunDB(t *testing.T, fn func(t *testing.T, start func(Options) *Server)) {
	storetest.RunWith(t, withJobs, func(t *testing.T, db *store.DB) {
		fn(t, func(opts Options) *Server { return Start(t, db, opts) })
	})
}
