package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/jobs"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// benchServer is the whole app on a fresh SQLite store, without the
// network: the store for seeding and the handler to measure.
func benchServer(b *testing.B) (*store.DB, http.Handler) {
	b.Helper()
	db := storetest.OpenSQLite(b)
	ctx := context.Background()
	if err := jobs.Migrate(ctx, db); err != nil {
		b.Fatal(err)
	}
	cfg := config.Config{Addr: "127.0.0.1:0", DataDir: b.TempDir(), Mode: config.Sandbox, PublicURL: "http://x",
		JWTSecret: "bench-secret-0123456789abcdef0123456789", RateLimitScale: new(float64)} // limits off; BenchmarkRateLimits measures them
	a, err := app.New(ctx, cfg, db, app.Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	return db, a.Handler()
}

// benchCall sends one request with header pairs and returns the envelope's
// data object; anything else fails the benchmark.
func benchCall(b *testing.B, h http.Handler, method, path, body string, header ...string) map[string]any {
	b.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var out struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Data == nil {
		b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
	}
	return out.Data
}

// benchRegister registers a user named name and returns its id and token.
func benchRegister(b *testing.B, h http.Handler, name string) (id, token string) {
	d := benchCall(b, h, "POST", "/api/v1/auth/register", fmt.Sprintf(
		`{"email":"%s@example.com","password":"0123456789","displayName":"%s","acceptedTerms":true}`, name, name))
	return d["user"].(map[string]any)["id"].(string), d["accessToken"].(string)
}

// benchLatency times GET path (with header pairs) once per iteration and
// reports the latency's p50 and p99 beside the usual figures.
func benchLatency(b *testing.B, h http.Handler, path string, header ...string) {
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest("GET", path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		t0 := time.Now()
		h.ServeHTTP(rec, req)
		lat = append(lat, time.Since(t0))
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		p50, p99 := lat[len(lat)*50/100], lat[min(len(lat)-1, len(lat)*99/100)]
		b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
		b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
	}
}

// BenchmarkAgentMe measures GET /api/v1/auth/me with an agent key through
// the whole handler stack (authentication, spending snapshot, envelope,
// access log, metrics) on SQLite, without the network.
func BenchmarkAgentMe(b *testing.B) {
	_, h := benchServer(b)
	call := func(method, path, body string, header ...string) map[string]any {
		return benchCall(b, h, method, path, body, header...)
	}
	reg := call("POST", "/api/v1/auth/register", `{"email":"b@example.com","password":"0123456789","displayName":"B","acceptedTerms":true}`)
	key := call("POST", "/api/v1/agent-keys", `{"label":"b","scope":"buy_sell","acceptedAgentTerms":true}`,
		"Authorization", "Bearer "+reg["accessToken"].(string))["key"].(string)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", "/api/v1/auth/me", nil)
			req.Header.Set("X-Agent-Key", key)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		}
	})
}
