// Package ratelimit answers "may this key act now?" with a sliding window:
// at most Limit.Max actions in any span of Limit.Window, so a client cannot
// double its rate by bursting on both sides of a fixed-window boundary.
//
// Both backends keep an exact log of admitted actions and answer the same
// way for the same calls. Memory serves a single process; Redis shares the
// counts between replicas. Time comes from the injected clock: the service
// gives it real time, so the sandbox's clock advance never lifts a throttle
// or a lockout (CONTRACT.md section 10); tests inject a clock they move.
//
// Refused calls are not recorded: a client that keeps retrying while blocked
// is unblocked as soon as its oldest admitted action leaves the window, not
// held off for ever by its own retries.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Limit allows Max actions in any interval of length Window.
type Limit struct {
	Max    int
	Window time.Duration
}

// ErrInvalidLimit is returned for a Limit whose Max or Window is not
// positive; such a limit is a configuration bug, not a reason to block or
// to let everything through silently.
var ErrInvalidLimit = errors.New("ratelimit: invalid limit")

func (l Limit) validate() error {
	if l.Max <= 0 || l.Window <= 0 {
		return fmt.Errorf("%w: max %d, window %v", ErrInvalidLimit, l.Max, l.Window)
	}
	return nil
}

// Decision is the answer to one Allow call, with what the HTTP layer needs
// for the X-RateLimit-* and Retry-After headers.
type Decision struct {
	Allowed   bool
	Limit     int // the Max that was applied
	Remaining int // actions still allowed now, after this one
	// Reset is when the oldest counted action leaves the window, that is
	// when the next slot frees.
	Reset time.Time
	// RetryAfter is Reset minus now when refused, and 0 when allowed.
	RetryAfter time.Duration
}

// Limiter is implemented by Memory and Redis.
type Limiter interface {
	// Allow records an action for key and reports whether it fits in l.
	// A refused action is not recorded.
	Allow(ctx context.Context, key string, l Limit) (Decision, error)
	// Reset forgets key's history, e.g. a login's failures once it succeeds.
	Reset(ctx context.Context, key string) error
}

var (
	_ Limiter = (*Memory)(nil)
	_ Limiter = (*Redis)(nil)
)

// decide builds a Decision; reset is when the oldest counted action expires.
func decide(now time.Time, allowed bool, l Limit, count int, reset time.Time) Decision {
	d := Decision{
		Allowed:   allowed,
		Limit:     l.Max,
		Remaining: max(l.Max-count, 0),
		Reset:     reset,
	}
	if !allowed {
		d.RetryAfter = reset.Sub(now)
	}
	return d
}
