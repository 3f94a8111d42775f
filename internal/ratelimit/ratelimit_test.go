package ratelimit_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"marketplace/internal/ratelimit"
)

// fakeClock moves only when told, like the sandbox clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func TestMemory(t *testing.T) {
	testConformance(t, func(t *testing.T, now func() time.Time) ratelimit.Limiter {
		return ratelimit.NewMemory(now)
	})
}

func TestRedis(t *testing.T) {
	client, prefix := testRedis(t)
	ctx := context.Background()
	n := 0
	testConformance(t, func(t *testing.T, now func() time.Time) ratelimit.Limiter {
		n++
		return ratelimit.NewRedis(client, fmt.Sprintf("%s%d:", prefix, n), now)
	})

	t.Run("key has a TTL of one window", func(t *testing.T) {
		lim := ratelimit.NewRedis(client, prefix+"ttl:", nil)
		allow(t, lim, "k", ratelimit.Limit{Max: 5, Window: 2 * time.Second})
		ttl, err := client.PTTL(ctx, prefix+"ttl:k").Result()
		if err != nil {
			t.Fatal(err)
		}
		if ttl <= 0 || ttl > 2*time.Second {
			t.Errorf("PTTL = %v, want in (0, 2s]", ttl)
		}
	})
}

// testRedis connects to MARKETPLACE_TEST_REDIS_URL and returns a key
// prefix of the test's own, deleted at its end.
func testRedis(t *testing.T) (*redis.Client, string) {
	t.Helper()
	url := os.Getenv("MARKETPLACE_TEST_REDIS_URL")
	if url == "" {
		t.Skip("MARKETPLACE_TEST_REDIS_URL is empty")
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("parse MARKETPLACE_TEST_REDIS_URL: %v", err)
	}
	client := redis.NewClient(opt)
	t.Cleanup(func() { client.Close() })
	if err := client.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("redis ping: %v", err)
	}
	// rand.Text is base32 (A-Z, 2-7), so the prefix has no glob characters.
	prefix := "ratelimit-test:" + rand.Text() + ":"
	t.Cleanup(func() { deleteKeys(t, client, prefix) })
	return client, prefix
}

func deleteKeys(t *testing.T, client *redis.Client, prefix string) {
	ctx := context.Background()
	iter := client.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Errorf("scan test keys: %v", err)
		return
	}
	if len(keys) > 0 {
		if err := client.Del(ctx, keys...).Err(); err != nil {
			t.Errorf("delete test keys: %v", err)
		}
	}
}

// testConformance runs the behaviour every Limiter must share against a
// fresh limiter per case, driven by a fake clock starting at t0.
func testConformance(t *testing.T, newLimiter func(t *testing.T, now func() time.Time) ratelimit.Limiter) {
	ctx := context.Background()
	sec := time.Second
	tests := []struct {
		name string
		run  func(t *testing.T, lim ratelimit.Limiter, clk *fakeClock)
	}{
		{"allows up to Max", func(t *testing.T, lim ratelimit.Limiter, clk *fakeClock) {
			l := ratelimit.Limit{Max: 3, Window: 10 * sec}
			for i := range 3 {
				want(t, allow(t, lim, "a", l), true, 2-i, t0.Add(10*sec), 0)
			}
		}},
		{"refuses over Max until the oldest action leaves", func(t *testing.T, lim ratelimit.Limiter, clk *fakeClock) {
			l := ratelimit.Limit{Max: 3, Window: 10 * sec}
			for i := range 3 {
				clk.Set(t0.Add(time.Duration(i) * sec))
				allow(t, lim, "a", l)
			}
			clk.Set(t0.Add(4 * sec))
			want(t, allow(t, lim, "a", l), false, 0, t0.Add(10*sec), 6*sec)
			// Refusals are not recorded, so retrying does not push Reset out.
			clk.Set(t0.Add(9*sec + 999*time.Millisecond))
			want(t, allow(t, lim, "a", l), false, 0, t0.Add(10*sec), time.Millisecond)
		}},
		{"frees slots as the window slides", func(t *testing.T, lim ratelimit.Limiter, clk *fakeClock) {
			l := ratelimit.Limit{Max: 3, Window: 10 * sec}
			for i := range 3 {
				clk.Set(t0.Add(time.Duration(i) * sec))
				allow(t, lim, "a", l)
			}
			clk.Set(t0.Add(10 * sec)) // the t0 action expires exactly now
			want(t, allow(t, lim, "a", l), true, 0, t0.Add(11*sec), 0)
			want(t, allow(t, lim, "a", l), false, 0, t0.Add(11*sec), sec)
			clk.Set(t0.Add(30 * sec)) // everything expired
			for i := range 3 {
				want(t, allow(t, lim, "a", l), true, 2-i, t0.Add(40*sec), 0)
			}
		}},
		{"millisecond windows", func(t *testing.T, lim ratelimit.Limiter, clk *fakeClock) {
			l := ratelimit.Limit{Max: 1, Window: 250 * time.Millisecond}
			allow(t, lim, "a", l)
			clk.Set(t0.Add(249 * time.Millisecond))
			want(t, allow(t, lim, "a", l), false, 0, t0.Add(250*time.Millisecond), time.Millisecond)
			clk.Set(t0.Add(250 * time.Millisecond))
			want(t, allow(t, lim, "a", l), true, 0, t0.Add(500*time.Millisecond), 0)
		}},
		{"keys are independent", func(t *testing.T, lim ratelimit.Limiter, clk *fakeClock) {
			l := ratelimit.Limit{Max: 2, Window: 10 * sec}
			allow(t, lim, "a", l)
			allow(t, lim, "a", l)
			want(t, allow(t, lim, "a", l), false, 0, t0.Add(10*sec), 10*sec)
			want(t, allow(t, lim, "b", l), true, 1, t0.Add(10*sec), 0)
		}},
		{"Reset clears one key", func(t *testing.T, lim ratelimit.Limiter, clk *fakeClock) {
			l := ratelimit.Limit{Max: 2, Window: 10 * sec}
			for range 2 {
				allow(t, lim, "a", l)
				allow(t, lim, "b", l)
			}
			clk.Set(t0.Add(sec))
			if err := lim.Reset(ctx, "a"); err != nil {
				t.Fatal(err)
			}
			want(t, allow(t, lim, "a", l), true, 1, t0.Add(11*sec), 0)
			want(t, allow(t, lim, "b", l), false, 0, t0.Add(10*sec), 9*sec)
			if err := lim.Reset(ctx, "never-seen"); err != nil {
				t.Errorf("Reset of an unknown key: %v", err)
			}
		}},
		{"a lowered Max applies to existing history", func(t *testing.T, lim ratelimit.Limiter, clk *fakeClock) {
			for i := range 5 {
				clk.Set(t0.Add(time.Duration(i) * sec))
				allow(t, lim, "a", ratelimit.Limit{Max: 5, Window: 10 * sec})
			}
			l := ratelimit.Limit{Max: 2, Window: 10 * sec}
			clk.Set(t0.Add(5 * sec)) // 5 actions counted; a slot frees when only 1 is left
			want(t, allow(t, lim, "a", l), false, 0, t0.Add(13*sec), 8*sec)
			clk.Set(t0.Add(13 * sec))
			want(t, allow(t, lim, "a", l), true, 0, t0.Add(14*sec), 0)
		}},
		{"invalid limits are errors", func(t *testing.T, lim ratelimit.Limiter, clk *fakeClock) {
			for _, l := range []ratelimit.Limit{{0, sec}, {-1, sec}, {1, 0}, {1, -sec}} {
				if _, err := lim.Allow(ctx, "a", l); !errors.Is(err, ratelimit.ErrInvalidLimit) {
					t.Errorf("Allow(%+v) error = %v, want ErrInvalidLimit", l, err)
				}
			}
		}},
		{"50 concurrent callers never exceed Max", func(t *testing.T, lim ratelimit.Limiter, clk *fakeClock) {
			const goroutines, calls, maxN = 50, 4, 10
			l := ratelimit.Limit{Max: maxN, Window: time.Minute}
			var (
				wg        sync.WaitGroup
				mu        sync.Mutex
				remaining = map[int]int{}
				errs      []error
			)
			for range goroutines {
				wg.Go(func() {
					for range calls {
						d, err := lim.Allow(ctx, "shared", l)
						mu.Lock()
						if err != nil {
							errs = append(errs, err)
						} else if d.Allowed {
							remaining[d.Remaining]++
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if len(errs) > 0 {
				t.Fatalf("%d errors, first: %v", len(errs), errs[0])
			}
			allowed := 0
			for r, n := range remaining {
				allowed += n
				if n != 1 || r < 0 || r >= maxN {
					t.Errorf("Remaining %d reported %d times", r, n)
				}
			}
			if allowed != maxN {
				t.Errorf("allowed %d of %d calls, want exactly %d", allowed, goroutines*calls, maxN)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := &fakeClock{t: t0}
			tc.run(t, newLimiter(t, clk.Now), clk)
		})
	}
}

func allow(t *testing.T, lim ratelimit.Limiter, key string, l ratelimit.Limit) ratelimit.Decision {
	t.Helper()
	d, err := lim.Allow(context.Background(), key, l)
	if err != nil {
		t.Fatalf("Allow(%q, %+v): %v", key, l, err)
	}
	if d.Limit != l.Max {
		t.Errorf("Limit = %d, want %d", d.Limit, l.Max)
	}
	return d
}

func want(t *testing.T, d ratelimit.Decision, allowed bool, remaining int, reset time.Time, retryAfter time.Duration) {
	t.Helper()
	if d.Allowed != allowed || d.Remaining != remaining || !d.Reset.Equal(reset) || d.RetryAfter != retryAfter {
		t.Errorf("got {Allowed:%v Remaining:%d Reset:+%v RetryAfter:%v}, want {Allowed:%v Remaining:%d Reset:+%v RetryAfter:%v}",
			d.Allowed, d.Remaining, d.Reset.Sub(t0), d.RetryAfter,
			allowed, remaining, reset.Sub(t0), retryAfter)
	}
}

// BenchmarkMemoryAllow measures the per-request cost with the real clock:
// many agents each well under their limit, as in normal traffic.
func BenchmarkMemoryAllow(b *testing.B) {
	keys := make([]string, 10000)
	for i := range keys {
		keys[i] = fmt.Sprintf("agent-key-%d", i)
	}
	l := ratelimit.Limit{Max: 300, Window: time.Minute}
	ctx := context.Background()

	b.Run("serial", func(b *testing.B) {
		m := ratelimit.NewMemory(nil)
		i := 0
		for b.Loop() {
			if _, err := m.Allow(ctx, keys[i%len(keys)], l); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("parallel", func(b *testing.B) {
		m := ratelimit.NewMemory(nil)
		b.RunParallel(func(pb *testing.PB) {
			i := int(time.Now().UnixNano()) // different goroutines, different keys
			for pb.Next() {
				if _, err := m.Allow(ctx, keys[uint(i)%uint(len(keys))], l); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	})
}

func TestScaled(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	l := ratelimit.Limit{Max: 3, Window: time.Minute}
	for _, c := range []struct {
		scale float64
		want  int // actions allowed in a row
	}{{1, 3}, {2, 6}, {0.5, 2}, {0.01, 1}} {
		s := ratelimit.NewScaled(ratelimit.NewMemory(clock), c.scale)
		n := 0
		for i := 0; i < 20; i++ {
			d, err := s.Allow(ctx, "k", l)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Allowed {
				break
			}
			if d.Limit != c.want {
				t.Fatalf("scale %v: Limit %d, want %d", c.scale, d.Limit, c.want)
			}
			n++
		}
		if n != c.want {
			t.Errorf("scale %v: %d allowed, want %d", c.scale, n, c.want)
		}
	}
	off := ratelimit.NewScaled(ratelimit.NewMemory(clock), 0)
	for i := 0; i < 100; i++ {
		if d, err := off.Allow(ctx, "k", l); err != nil || !d.Allowed {
			t.Fatalf("scale 0 refused call %d: %+v %v", i, d, err)
		}
	}
	if _, err := off.Allow(ctx, "k", ratelimit.Limit{}); err == nil {
		t.Error("scale 0 accepted an invalid limit")
	}
}

// BenchmarkRedisAllow is one Allow on the test Redis: the round trip a
// limited request pays when replicas share their counts.
func BenchmarkRedisAllow(b *testing.B) {
	url := os.Getenv("MARKETPLACE_TEST_REDIS_URL")
	if url == "" {
		b.Skip("MARKETPLACE_TEST_REDIS_URL is empty")
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		b.Fatal(err)
	}
	c := redis.NewClient(opt)
	defer c.Close()
	r := ratelimit.NewRedis(c, fmt.Sprintf("bench:%d:", time.Now().UnixNano()), nil)
	l := ratelimit.Limit{Max: 1 << 30, Window: time.Minute}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Allow(ctx, "k", l); err != nil {
			b.Fatal(err)
		}
	}
}
