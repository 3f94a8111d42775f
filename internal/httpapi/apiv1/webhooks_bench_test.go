package apiv1_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/testkit"
)

// TestWebhookThroughput measures webhook delivery on each engine and
// prints the figures docs/performance.md quotes: deliveries per second to a local
// receiver (a backlog of events recorded with the queue stopped, then the
// queue started), and the delay from an event's commit to its arrival at
// the receiver when the queue is idle (p50, p99). It runs only with
// MARKETPLACE_WEBHOOK_BENCH=1 (it takes a while):
//
//	MARKETPLACE_WEBHOOK_BENCH=1 go test ./internal/httpapi/apiv1 -run TestWebhookThroughput -v
func TestWebhookThroughput(t *testing.T) {
	t.Parallel()
	if os.Getenv("MARKETPLACE_WEBHOOK_BENCH") == "" {
		t.Skip("set MARKETPLACE_WEBHOOK_BENCH=1 to measure webhook delivery")
	}
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("MARKETPLACE_WEBHOOK_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		u := s.Register("benchhooks")
		var mu sync.Mutex
		arrived := map[string]time.Time{}
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get("webhook-id")
			mu.Lock()
			if _, ok := arrived[id]; !ok {
				arrived[id] = time.Now()
			}
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(rc.Close)
		s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": rc.URL}, u.Auth()).Want(t, http.StatusOK, "")

		record := func(count int) []string {
			var ids []string
			err := s.App.DB.InTx(ctx, func(tx *store.Tx) error {
				for i := 0; i < count; i++ {
					e := &events.Event{ID: market.NewID(), Type: "message.received", ActorType: market.ActorSystem,
						EntityType: "thread", EntityID: "bench", CreatedAt: s.Clock.Now(), Recipients: []string{u.ID},
						Data: map[string]any{"threadId": "bench", "messageId": strconv.Itoa(i), "content": "benchmark message"}}
					if err := tx.AppendEvent(ctx, e); err != nil {
						return err
					}
					ids = append(ids, e.ID)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return ids
		}
		count := func() int {
			mu.Lock()
			defer mu.Unlock()
			return len(arrived)
		}

		// Throughput: a backlog of n deliveries, then the queue.
		for done := 0; done < n; done += 200 {
			record(min(200, n-done))
		}
		start := time.Now()
		if err := s.App.Queue.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			c, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			_ = s.App.Queue.Stop(c)
		})
		for count() < n {
			if time.Since(start) > 2*time.Minute {
				t.Fatalf("%d of %d delivered in 2 minutes", count(), n)
			}
			time.Sleep(5 * time.Millisecond)
		}
		elapsed := time.Since(start)
		rate := float64(n) / elapsed.Seconds()

		// Latency at idle: one event at a time, commit -> arrival.
		time.Sleep(time.Second)
		var delays []time.Duration
		for i := 0; i < 100; i++ {
			ids := record(1)
			committed := time.Now()
			for {
				mu.Lock()
				at, ok := arrived[ids[0]]
				mu.Unlock()
				if ok {
					delays = append(delays, at.Sub(committed))
					break
				}
				if time.Since(committed) > 10*time.Second {
					t.Fatalf("event %d not delivered in 10 s", i)
				}
				time.Sleep(time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond)
		}
		slices.Sort(delays)
		p := func(q float64) time.Duration { return delays[int(q*float64(len(delays)-1))].Round(time.Millisecond) }
		msg := fmt.Sprintf("%s: %d deliveries in %v = %.0f/s; commit->delivery at idle p50 %v, p99 %v, max %v",
			s.App.DB.Dialect(), n, elapsed.Round(time.Millisecond), rate, p(0.5), p(0.99), delays[len(delays)-1].Round(time.Millisecond))
		t.Log(msg)
		fmt.Println(msg)
	})
}
