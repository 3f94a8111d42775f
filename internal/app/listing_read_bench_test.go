package app_test

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/jobs"
	"marketplace/internal/seed"
	"marketplace/internal/store/storetest"
)

// BenchmarkListingRead measures the anonymous GET /api/v1/listings/{id} of
// scripts/bench's row 1 through the whole handler stack on SQLite, as the
// bench starts the service: limits at scale 1000 in process, the JSON access
// log on (written to io.Discard), random ids of a seeded store.
//
//	go test ./internal/app/ -run '^$' -bench BenchmarkListingRead -benchtime 3s -count 3 -cpuprofile cpu.out
func BenchmarkListingRead(b *testing.B) {
	h, ids := listingBench(b)
	benchGets(b, h, func(rng *rand.Rand) string { return "/api/v1/listings/" + ids[rng.IntN(len(ids))] }, "")
}

// BenchmarkListingViews measures the other hot reads of listings the same
// way: a search page of 20 on each surface (a word of about every
// eighteenth title, so the page is full), anonymous on Variant A, with an
// agent key on Variant B (which needs a caller; an agent's views carry
// content trust), and Variant B's read of one listing.
//
//	go test ./internal/app/ -run '^$' -bench BenchmarkListingViews -benchmem -count 6
func BenchmarkListingViews(b *testing.B) {
	h, ids := listingBench(b)
	reg := benchCall(b, h, "POST", "/api/v1/auth/register", `{"email":"b@example.com","password":"0123456789","displayName":"B","acceptedTerms":true}`)
	key := benchCall(b, h, "POST", "/api/v1/agent-keys", `{"label":"b","scope":"buy_sell","acceptedAgentTerms":true}`,
		"Authorization", "Bearer "+reg["accessToken"].(string))["key"].(string)
	for _, c := range []struct {
		name, key string
		path      func(*rand.Rand) string
	}{
		{"SearchA", "", func(rng *rand.Rand) string { return "/api/v1/listings?q=" + benchWords[rng.IntN(len(benchWords))] }},
		{"SearchB", key, func(rng *rand.Rand) string { return "/v1/search?q=" + benchWords[rng.IntN(len(benchWords))] }},
		{"ReadB", key, func(rng *rand.Rand) string { return "/v1/listings/" + ids[rng.IntN(len(ids))] }},
	} {
		b.Run(c.name, func(b *testing.B) { benchGets(b, h, c.path, c.key) })
	}
}

// benchWords are words of the seeded titles (internal/seed's adjectives).
var benchWords = []string{"vintage", "classic", "compact", "handmade", "modern", "sturdy", "portable", "retro"}

// listingBench is the service of scripts/bench on a seeded store, and the
// ids of its active listings.
func listingBench(b *testing.B) (http.Handler, []string) {
	db := storetest.OpenSQLite(b)
	ctx := context.Background()
	if err := jobs.Migrate(ctx, db); err != nil {
		b.Fatal(err)
	}
	if _, err := seed.Run(ctx, db, time.Now(), seed.Options{Listings: 500, Seed: 1}, nil); err != nil {
		b.Fatal(err)
	}
	scale := 1000.0
	cfg := config.Config{Addr: "127.0.0.1:0", DataDir: b.TempDir(), Mode: config.Sandbox, PublicURL: "http://x",
		JWTSecret: "bench-secret-0123456789abcdef0123456789", RateLimitScale: &scale}
	a, err := app.New(ctx, cfg, db, app.Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = a.Close() })
	rows, err := db.WritePool().QueryContext(ctx, `SELECT id FROM listings WHERE status = 'active'`)
	if err != nil {
		b.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if len(ids) == 0 {
		b.Fatal("no active listing seeded")
	}
	return a.Handler(), ids
}

// benchGets sends GETs of path, with the agent key when one is given, from
// 4 goroutines per CPU; each must answer 200.
func benchGets(b *testing.B, h http.Handler, path func(*rand.Rand) string, key string) {
	b.ReportAllocs()
	b.SetParallelism(4)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		rng := rand.New(rand.NewPCG(rand.Uint64(), 1))
		for pb.Next() {
			req := httptest.NewRequest("GET", path(rng), nil)
			if key != "" {
				req.Header.Set("X-Agent-Key", key)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Errorf("status %d: %s", rec.Code, rec.Body)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}
