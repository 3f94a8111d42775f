package ratelimit

import (
	"context"
	"math"
)

// Scaled multiplies every limit asked of a Limiter by one factor
// (MARKETPLACE_RATE_LIMIT_SCALE): load tests and demos raise it, and 0
// switches limiting off. A scaled limit is rounded up and never below 1, so
// a small factor still limits.
type Scaled struct {
	inner Limiter
	scale float64
}

var _ Limiter = (*Scaled)(nil)

// NewScaled wraps inner; scale must not be negative.
func NewScaled(inner Limiter, scale float64) *Scaled {
	return &Scaled{inner: inner, scale: scale}
}

// Off reports whether limiting is switched off (scale 0).
func (s *Scaled) Off() bool { return s.scale == 0 }

// Scale returns l as this limiter applies it.
func (s *Scaled) Scale(l Limit) Limit {
	if s.scale != 1 && l.Max > 0 {
		l.Max = int(max(math.Ceil(float64(l.Max)*s.scale), 1))
	}
	return l
}

// Allow implements Limiter. Switched off, every action is allowed and
// nothing is counted.
func (s *Scaled) Allow(ctx context.Context, key string, l Limit) (Decision, error) {
	if s.Off() {
		if err := l.validate(); err != nil {
			return Decision{}, err
		}
		return Decision{Allowed: true, Limit: l.Max, Remaining: l.Max}, nil
	}
	return s.inner.Allow(ctx, key, s.Scale(l))
}

// Reset implements Limiter.
func (s *Scaled) Reset(ctx context.Context, key string) error {
	if s.Off() {
		return nil
	}
	return s.inner.Reset(ctx, key)
}
