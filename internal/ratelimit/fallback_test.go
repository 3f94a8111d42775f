package ratelimit

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// broken is a shared limiter whose server is down until healed.
type broken struct {
	healed bool
	calls  int
	inner  Limiter
}

func (b *broken) Allow(ctx context.Context, key string, l Limit) (Decision, error) {
	b.calls++
	if !b.healed {
		return Decision{}, errors.New("dial tcp 127.0.0.1:1: connection refused")
	}
	return b.inner.Allow(ctx, key, l)
}

func (b *broken) Reset(ctx context.Context, key string) error {
	if !b.healed {
		return errors.New("connection refused")
	}
	return b.inner.Reset(ctx, key)
}

// While the shared limiter is down, limits hold in this process, the shared
// one is not asked again until the cooldown ends, and the outage and the
// recovery are each logged once.
func TestFallback(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	shared := &broken{inner: NewMemory(clock)}
	var logs bytes.Buffer
	f := NewFallback(shared, NewMemory(clock), 10*time.Second, slog.New(slog.NewJSONHandler(&logs, nil)))
	f.now = clock
	l := Limit{Max: 2, Window: time.Minute}

	for i, want := range []bool{true, true, false} {
		d, err := f.Allow(ctx, "login:a", l)
		if err != nil || d.Allowed != want {
			t.Fatalf("attempt %d: %+v, %v; want allowed %v", i+1, d, err, want)
		}
	}
	if shared.calls != 1 {
		t.Fatalf("the dead limiter was asked %d times within the cooldown, want 1", shared.calls)
	}
	if n := strings.Count(logs.String(), "unreachable"); n != 1 {
		t.Fatalf("%d outage lines, want 1:\n%s", n, logs.String())
	}

	now = now.Add(11 * time.Second)
	shared.healed = true
	if d, err := f.Allow(ctx, "login:b", l); err != nil || !d.Allowed {
		t.Fatalf("after the cooldown: %+v, %v", d, err)
	}
	if shared.calls != 2 || !strings.Contains(logs.String(), "answers again") {
		t.Fatalf("calls %d; log:\n%s", shared.calls, logs.String())
	}
	if _, err := f.Allow(ctx, "x", Limit{}); !errors.Is(err, ErrInvalidLimit) {
		t.Fatalf("an invalid limit: %v", err)
	}
}
