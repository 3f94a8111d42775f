package httpapi_test

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"marketplace/internal/httpapi"
)

// Refused input is audited on every method, with a safe rendering of what
// was refused, and named in the answer in the surface's casing.
func TestInputRefusalAudited(t *testing.T) {
	f := newFixture()
	r := f.do(t, "GET", "/api/v1/secret/a%00b", "")
	if r.status != http.StatusBadRequest || r.code() != "VALIDATION_ERROR" || strings.Join(r.fields(), ",") != "token" {
		t.Fatalf("got %d %s %v", r.status, r.code(), r.fields())
	}
	r = f.do(t, "POST", "/v1/echo", `{"name":"x\u0000y","limitValue":1}`, "Content-Type", "application/json")
	if r.status != http.StatusBadRequest || strings.Join(r.fields(), ",") != "name" {
		t.Fatalf("got %d %v", r.status, r.fields())
	}
	r = f.do(t, "POST", "/api/v1/echo", "{\"tags\":[\"ok\",\"\xff\"]}", "Content-Type", "application/json")
	if r.status != http.StatusBadRequest || strings.Join(r.fields(), ",") != "tags[1]" {
		t.Fatalf("got %d %v", r.status, r.fields())
	}
	if len(f.audit.entries) != 3 {
		t.Fatalf("%d audit entries, want 3", len(f.audit.entries))
	}
	get := f.audit.entries[0]
	if get.Action != "GET /api/v1/secret/{token}" || get.Status != 400 || get.Details["field"] != "token" || get.Details["value"] != `a\x00b` {
		t.Fatalf("audit of the refused GET: %+v", get)
	}
	if v := f.audit.entries[2].Details["value"]; v != `\xff` {
		t.Fatalf("audit value = %q", v)
	}
	// Clean reads are not audited.
	f.do(t, "GET", "/api/v1/secret/fine", "")
	if len(f.audit.entries) != 3 {
		t.Fatal("a clean GET was audited")
	}
}

// Paths the mux would "clean" with an HTML redirect are answered 404 in
// the envelope; an unmatched path with a NUL is audited safely.
func TestUncleanPaths(t *testing.T) {
	f := newFixture()
	for _, p := range []string{"/api/v1/secret/..", "//", "/api/v1//secret/x", "/api/v1/./either", "/v1/../api/v1/either"} {
		r := f.do(t, "GET", p, "")
		if r.status != http.StatusNotFound || r.code() != "NOT_FOUND" || r.header.Get("Location") != "" {
			t.Errorf("%s: %d %s (Location %q)", p, r.status, r.code(), r.header.Get("Location"))
		}
	}
	r := f.do(t, "POST", "/api/v1/nothing/%00", "")
	if r.status != http.StatusNotFound {
		t.Fatalf("got %d", r.status)
	}
	last := f.audit.entries[len(f.audit.entries)-1]
	if last.Action != `POST /api/v1/nothing/\x00` {
		t.Fatalf("audit action = %q", last.Action)
	}
}

// What net/http refuses before any handler (a request line over the header
// limit, control bytes in a header, no Host) still answers in the envelope.
func TestEnvelopeListener(t *testing.T) {
	f := newFixture()
	ts := httptest.NewUnstartedServer(f.rt)
	ts.Listener = httpapi.EnvelopeListener(ts.Listener, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	ts.Config.MaxHeaderBytes = 64 << 10
	ts.Start()
	defer ts.Close()

	tests := []struct {
		name, raw string
		status    int
		code      string
		metaKey   string
	}{
		{"long request line", "GET /api/v1/secret/" + strings.Repeat("a", 70<<10) + " HTTP/1.1\r\nHost: x\r\n\r\n", 431, "PAYLOAD_TOO_LARGE", "requestId"},
		{"long line on B", "GET /v1/" + strings.Repeat("a", 70<<10) + " HTTP/1.1\r\nHost: x\r\n\r\n", 431, "PAYLOAD_TOO_LARGE", "request_id"},
		{"control byte in a header", "GET /api/v1/either HTTP/1.1\r\nHost: x\r\nX-Thing: a\x01b\r\n\r\n", 400, "VALIDATION_ERROR", "requestId"},
		{"no host", "GET /api/v1/either HTTP/1.1\r\n\r\n", 400, "VALIDATION_ERROR", "requestId"},
		{"bad transfer encoding", "POST /v1/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501, "VALIDATION_ERROR", "request_id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", ts.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			go func() { _, _ = io.WriteString(c, tc.raw) }()
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var env struct {
				Success bool                           `json:"success"`
				Error   struct{ Code, Message string } `json:"error"`
				Meta    map[string]any                 `json:"meta"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
				t.Fatalf("answer is not JSON: %v", err)
			}
			if resp.StatusCode != tc.status || env.Success || env.Error.Code != tc.code || env.Meta[tc.metaKey] == nil ||
				!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || resp.Header.Get("X-Request-Id") == "" {
				t.Fatalf("got %d %+v (%s)", resp.StatusCode, env, resp.Header.Get("Content-Type"))
			}
		})
	}
	// Ordinary answers pass through untouched.
	resp, err := http.Get(ts.URL + "/api/v1/secret/fine")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a good request answered %d", resp.StatusCode)
	}
}

// A binary route's body reaches its handler whatever the Content-Type a
// client sends (curl --data-binary says it is a form).
func TestBinaryBodyPasses(t *testing.T) {
	f := newFixture()
	f.rt.HandleBinary("PUT", "/api/v1/blob/{id}", httpapi.Public, func(w http.ResponseWriter, r *http.Request) error {
		b, _ := io.ReadAll(r.Body)
		return httpapi.OK(w, r, http.StatusOK, map[string]int{"bytes": len(b)})
	})
	r := f.do(t, "PUT", "/api/v1/blob/x", "\xff\xd8\x00\x01a=\x00", "Content-Type", "application/x-www-form-urlencoded")
	if r.status != http.StatusOK {
		t.Fatalf("got %d %s", r.status, r.code())
	}
	// Its path is still checked.
	if r := f.do(t, "PUT", "/api/v1/blob/%00", "x"); r.status != http.StatusBadRequest {
		t.Fatalf("got %d", r.status)
	}
}
