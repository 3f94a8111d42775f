package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/jobs"
	"marketplace/internal/market"
	"marketplace/internal/seed"
	"marketplace/internal/settings"
	"marketplace/internal/store/storetest"
)

// BenchmarkRateLimits measures GET /v1/listings/{id} with an agent key
// through the whole handler stack on SQLite: without limits (scale 0),
// with the in-process limiter, and with Redis (MARKETPLACE_TEST_REDIS_URL).
// The key's read limit is raised so that nothing is refused: what is
// measured is the cost of counting (config read, limiter, headers).
//
//	go test ./internal/app/ -run '^$' -bench BenchmarkRateLimits -benchtime 3s -count 3
func BenchmarkRateLimits(b *testing.B) {
	cases := []struct {
		name  string
		scale float64
		redis bool
	}{{"off", 0, false}, {"memory", 1, false}, {"redis", 1, true}}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			url := ""
			if c.redis {
				if url = os.Getenv("MARKETPLACE_TEST_REDIS_URL"); url == "" {
					b.Skip("MARKETPLACE_TEST_REDIS_URL is empty")
				}
			}
			h, path, key := rlBenchServer(b, c.scale, url)
			b.ReportAllocs()
			// Concurrent clients, as a server sees them: a request waiting
			// on Redis leaves the CPU to the others.
			b.SetParallelism(4)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req := httptest.NewRequest("GET", path, nil)
					req.Header.Set("X-Agent-Key", key)
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Errorf("status %d: %s", rec.Code, rec.Body)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
		})
	}
}

// rlBenchServer is the app with limits at scale (and Redis at url), a
// seeded listing and an agent key whose read limit nothing reaches.
func rlBenchServer(b *testing.B, scale float64, url string) (http.Handler, string, string) {
	b.Helper()
	db := storetest.OpenSQLite(b)
	ctx := context.Background()
	if err := jobs.Migrate(ctx, db); err != nil {
		b.Fatal(err)
	}
	if _, err := seed.Run(ctx, db, time.Now(), seed.Options{Listings: 50, Seed: 1}, nil); err != nil {
		b.Fatal(err)
	}
	cfg := config.Config{Addr: "127.0.0.1:0", DataDir: b.TempDir(), Mode: config.Sandbox, PublicURL: "http://x",
		JWTSecret: "bench-secret-0123456789abcdef0123456789", RateLimitScale: &scale, RedisURL: url}
	a, err := app.New(ctx, cfg, db, app.Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = a.Close() })
	if _, err := a.Settings.Set(ctx, market.System, settings.V1PerMinute("default", "read").Name(), json.RawMessage("1000000")); err != nil {
		b.Fatal(err)
	}
	var id string
	if err := db.WritePool().QueryRowContext(ctx, `SELECT id FROM listings WHERE status = 'active' LIMIT 1`).Scan(&id); err != nil {
		b.Fatal(err)
	}
	h := a.Handler()
	_, token := benchRegister(b, h, "rlbench")
	key := benchCall(b, h, "POST", "/api/v1/agent-keys", `{"label":"b","scope":"buy_sell","acceptedAgentTerms":true}`,
		"Authorization", "Bearer "+token)["key"].(string)
	return h, "/v1/listings/" + id, key
}
