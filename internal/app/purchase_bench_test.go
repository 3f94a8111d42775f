//go:build unix

package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"marketplace/internal/seed"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
	"marketplace/internal/testkit"
)

// purchaseWorkers is how many agents buy at once.
const purchaseWorkers = 16

// BenchmarkPurchase measures agent purchases (POST /api/v1/agent/purchase,
// each of a different listing, with an idempotency key, charged by the
// sandbox processor) through the real HTTP server, with purchaseWorkers
// clients at once, on every engine. It reports purchases/s, the p50 and
// p99 latency of one purchase, and the process's CPU time per purchase.
//
//	go test -run '^$' -bench Purchase -benchtime=2000x ./internal/app/
//
// The listings are inserted straight into the store (as `marketplace seed`
// does) and the shoppers are made over HTTP before the timer starts; only
// the purchases are timed. MARKETPLACE_BENCH_CPUPROFILE=file writes a CPU
// profile of the timed part alone (go test -cpuprofile would mostly show the
// password hashing of the setup).
func BenchmarkPurchase(b *testing.B) {
	// The binary collects garbage at GOGC 400 unless told otherwise
	// (cmd/marketplace); measure the server as it runs.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	for _, e := range storetest.Engines() {
		b.Run(e.Name, func(b *testing.B) { benchPurchases(b, e.Open(b)) })
	}
}

func benchPurchases(b *testing.B, db *store.DB) {
	s := testkit.Start(b, db, testkit.Options{})
	ctx := context.Background()

	// About 20 purchases per shopper: no owner's lock is contended for long,
	// and no key comes near a per-key request rate.
	shoppers := make([]*testkit.Shopper, min(max(b.N/20, 1), 200))
	for i := range shoppers {
		shoppers[i] = s.NewShopper("bench", "pm_card_visa")
		s.Do("PUT", "/api/v1/spending-controls", map[string]any{"perTransactionLimit": 1_000_000_000,
			"dailyLimit": 1_000_000_000, "weeklyLimit": 1_000_000_000, "monthlyLimit": 1_000_000_000},
			shoppers[i].Auth()).Want(b, http.StatusOK, "")
	}
	if _, err := seed.Run(ctx, db, s.Clock.Now(), seed.Options{Listings: b.N, Seed: 7}, nil); err != nil {
		b.Fatal(err)
	}
	bodies := purchaseBodies(b, db)
	if len(bodies) != b.N {
		b.Fatalf("%d listings on sale, want %d", len(bodies), b.N)
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: purchaseWorkers}}
	latencies := make([]time.Duration, b.N)
	var next atomic.Int64
	var failed atomic.Pointer[string]
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= b.N || failed.Load() != nil {
				return
			}
			t0 := time.Now()
			status, body, err := purchaseOnce(client, s.URL, shoppers[i%len(shoppers)].Key.Secret, bodies[i])
			latencies[i] = time.Since(t0)
			if err != nil || status != http.StatusCreated {
				msg := fmt.Sprintf("purchase %d: %d %v %s", i, status, err, body)
				failed.CompareAndSwap(nil, &msg)
			}
		}
	}

	stopProfile := func() {}
	if path := os.Getenv("MARKETPLACE_BENCH_CPUPROFILE"); path != "" {
		stopProfile = purchaseProfile(b, path)
	}
	b.ResetTimer()
	cpu0 := processCPU()
	start := time.Now()
	var wg sync.WaitGroup
	for range purchaseWorkers {
		wg.Go(work)
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := processCPU() - cpu0
	b.StopTimer()
	stopProfile()

	if msg := failed.Load(); msg != nil {
		b.Fatal(*msg)
	}
	var paid int
	if err := db.WritePool().QueryRowContext(ctx, "SELECT COUNT(*) FROM orders WHERE status = 'paid'").Scan(&paid); err != nil {
		b.Fatal(err)
	}
	if paid != b.N {
		b.Fatalf("%d paid orders after %d purchases", paid, b.N)
	}
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[min(len(latencies)-1, int(p*float64(len(latencies))))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "purchases/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	// CPU time of this process (server, SQLite, and the clients) per
	// purchase: steadier than latency on a shared machine.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// purchaseProfile starts a CPU profile into path plus the benchmark's name
// (one file per engine) and returns what stops it.
func purchaseProfile(b *testing.B, path string) func() {
	f, err := os.Create(path + "." + strings.ReplaceAll(b.Name(), "/", "_"))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// purchaseBodies makes one purchase body per listing on sale, at its price.
func purchaseBodies(b *testing.B, db *store.DB) [][]byte {
	rows, err := db.WritePool().QueryContext(context.Background(), "SELECT id, price FROM listings WHERE status = 'active'")
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var id string
		var price int64
		if err := rows.Scan(&id, &price); err != nil {
			b.Fatal(err)
		}
		body, err := json.Marshal(map[string]any{"listingId": id, "maxPrice": price, "shippingAddress": testkit.Address(),
			"idempotencyKey": "bench-" + id})
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, body)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return out
}

// purchaseOnce sends one purchase and reads the whole answer.
func purchaseOnce(c *http.Client, base, key string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest("POST", base+"/api/v1/agent/purchase", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Agent-Key", key)
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}
