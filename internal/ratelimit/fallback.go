package ratelimit

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Fallback asks a shared limiter (Redis) and, while it fails, a local one
// (Memory): when Redis is down, limits hold per replica instead of every
// login failing. After a failure the shared limiter is left alone for a
// cooldown, so requests do not each wait for a dead server; the outage and
// the recovery are logged once each.
type Fallback struct {
	shared, local Limiter
	cooldown      time.Duration
	log           *slog.Logger
	now           func() time.Time

	mu        sync.Mutex
	down      bool
	downUntil time.Time
}

var _ Limiter = (*Fallback)(nil)

// NewFallback makes a Fallback that retries shared cooldown after it failed.
func NewFallback(shared, local Limiter, cooldown time.Duration, log *slog.Logger) *Fallback {
	return &Fallback{shared: shared, local: local, cooldown: cooldown, log: log, now: time.Now}
}

// Allow implements Limiter.
func (f *Fallback) Allow(ctx context.Context, key string, l Limit) (Decision, error) {
	if f.skipShared() {
		return f.local.Allow(ctx, key, l)
	}
	d, err := f.shared.Allow(ctx, key, l)
	if err == nil || errors.Is(err, ErrInvalidLimit) {
		f.recovered()
		return d, err
	}
	f.failed(err)
	return f.local.Allow(ctx, key, l)
}

// Reset implements Limiter: the key is forgotten in both, since either may
// have counted it.
func (f *Fallback) Reset(ctx context.Context, key string) error {
	lerr := f.local.Reset(ctx, key)
	if f.skipShared() {
		return lerr
	}
	if err := f.shared.Reset(ctx, key); err != nil {
		f.failed(err)
	}
	return lerr
}

func (f *Fallback) skipShared() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.down && f.now().Before(f.downUntil)
}

func (f *Fallback) failed(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.down {
		f.log.Warn("shared rate limiter unreachable; limiting in this process until it answers", "err", err.Error())
	}
	f.down, f.downUntil = true, f.now().Add(f.cooldown)
}

func (f *Fallback) recovered() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		f.log.Info("shared rate limiter answers again")
		f.down = false
	}
}
