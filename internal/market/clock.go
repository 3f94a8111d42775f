package market

import (
	"sync/atomic"
	"time"
)

// Clock is the only source of "now" in domain code, so the sandbox can move
// every time-based rule by advancing one clock.
type Clock interface {
	Now() time.Time
}

// SystemClock reads the machine's clock, in UTC.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now().UTC() }

// OffsetClock is the system clock shifted by an offset that only grows; the
// sandbox's time-advance moves it.
type OffsetClock struct {
	offset atomic.Int64
}

func (c *OffsetClock) Now() time.Time {
	return time.Now().UTC().Add(time.Duration(c.offset.Load()))
}

// Advance moves the clock forward by d.
func (c *OffsetClock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// Set makes the clock run d ahead of the system clock; it never moves the
// clock back (the sandbox's stored offset only grows).
func (c *OffsetClock) Set(d time.Duration) {
	for {
		cur := c.offset.Load()
		if int64(d) <= cur || c.offset.CompareAndSwap(cur, int64(d)) {
			return
		}
	}
}

// FixedClock is a clock for tests that moves only when told.
type FixedClock struct {
	now atomic.Int64
}

// NewFixedClock starts a FixedClock at t.
func NewFixedClock(t time.Time) *FixedClock {
	c := &FixedClock{}
	c.now.Store(t.UTC().UnixNano())
	return c
}

func (c *FixedClock) Now() time.Time { return time.Unix(0, c.now.Load()).UTC() }

// Advance moves the clock forward by d.
func (c *FixedClock) Advance(d time.Duration) { c.now.Add(int64(d)) }
