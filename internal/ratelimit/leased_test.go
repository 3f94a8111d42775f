package ratelimit_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"marketplace/internal/ratelimit"
)

// TestLeased: the leasing limiter answers like the exact log for small
// limits (every slot goes through Redis) and keeps its guarantees for
// busy keys.
func TestLeased(t *testing.T) {
	client, prefix := testRedis(t)
	n := 0
	fresh := func(now func() time.Time) (*ratelimit.Leased, string) {
		n++
		p := fmt.Sprintf("%s%d:", prefix, n)
		return ratelimit.NewLeased(ratelimit.NewRedis(client, p, now)), p
	}
	testConformance(t, func(t *testing.T, now func() time.Time) ratelimit.Limiter {
		l, _ := fresh(now)
		return l
	})

	t.Run("a busy key saves round trips and its headers stay exact", func(t *testing.T) {
		var trips atomic.Int64
		counted := redis.NewClient(client.Options())
		t.Cleanup(func() { counted.Close() })
		counted.AddHook(countHook{&trips})
		clk := &fakeClock{t: t0}
		n++
		lim := ratelimit.NewLeased(ratelimit.NewRedis(counted, fmt.Sprintf("%s%d:", prefix, n), clk.Now))
		l := ratelimit.Limit{Max: 1000, Window: time.Minute}
		for i := range 1000 {
			want(t, allow(t, lim, "k", l), true, 999-i, t0.Add(time.Minute), 0)
		}
		want(t, allow(t, lim, "k", l), false, 0, t0.Add(time.Minute), time.Minute)
		if got := trips.Load(); got > 200 {
			t.Errorf("%d round trips for 1,001 calls, want at most 200", got)
		}
		t.Logf("1,001 calls, %d round trips", trips.Load())
	})

	t.Run("two replicas admit the limit once in total", func(t *testing.T) {
		clk := &fakeClock{t: t0}
		a, p := fresh(clk.Now)
		b := ratelimit.NewLeased(ratelimit.NewRedis(client, p, clk.Now))
		l := ratelimit.Limit{Max: 500, Window: time.Minute}
		allowed, refusedA, refusedB := 0, false, false
		for i := 0; !refusedA || !refusedB; i++ {
			lim := a
			if i%3 == 2 { // unevenly, so their leases differ
				lim = b
			}
			if allow(t, lim, "k", l).Allowed {
				allowed++
			} else if lim == a {
				refusedA = true
			} else {
				refusedB = true
			}
			if i > 5000 {
				t.Fatal("no end of admissions")
			}
		}
		if allowed != l.Max {
			t.Errorf("admitted %d, want %d", allowed, l.Max)
		}
	})

	// The sliding window holds for the actions as admitted, whatever the
	// leases: no span of Window has more than Max, with two replicas and a
	// clock moving by irregular steps (a slot used late in its lease would
	// otherwise leave the window early).
	t.Run("no window ever holds more than Max", func(t *testing.T) {
		clk := &fakeClock{t: t0}
		a, p := fresh(clk.Now)
		b := ratelimit.NewLeased(ratelimit.NewRedis(client, p, clk.Now))
		l := ratelimit.Limit{Max: 80, Window: time.Second}
		rng := rand.New(rand.NewPCG(1, 2))
		var admitted []time.Time
		for range 4000 {
			clk.Set(clk.Now().Add(time.Duration(rng.IntN(8)) * time.Millisecond))
			lim := a
			if rng.IntN(2) == 0 {
				lim = b
			}
			if allow(t, lim, "k", l).Allowed {
				admitted = append(admitted, clk.Now())
			}
		}
		sort.Slice(admitted, func(i, j int) bool { return admitted[i].Before(admitted[j]) })
		for i, j := 0, 0; j < len(admitted); j++ {
			for !admitted[i].Add(l.Window).After(admitted[j]) {
				i++
			}
			if j-i+1 > l.Max {
				t.Fatalf("%d actions in the window ending at +%v, limit %d", j-i+1, admitted[j].Sub(t0), l.Max)
			}
		}
		// About 14 s of clock at 80/s: the leases must not starve the key.
		span := admitted[len(admitted)-1].Sub(t0)
		ideal := int(span/l.Window+1) * l.Max
		t.Logf("%d admitted over %v (at most %d)", len(admitted), span, ideal)
		if len(admitted) < ideal*3/4 {
			t.Errorf("admitted %d over %v, want at least 3/4 of %d", len(admitted), span, ideal)
		}
	})
}

// countHook counts commands sent to Redis.
type countHook struct{ n *atomic.Int64 }

func (h countHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}

func (h countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}
