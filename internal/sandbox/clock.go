package sandbox

import (
	"context"
	"time"

	"marketplace/internal/market"
)

// OffsetStore keeps how far the sandbox's clock runs ahead of real time, so
// the offset survives a restart (orders stamped in advanced time would
// otherwise wait for real time to catch up) and every replica shares it.
type OffsetStore interface {
	SandboxClockOffset(ctx context.Context) (time.Duration, error)
	// AdvanceSandboxClock adds d to the stored offset and returns the new
	// offset; concurrent advances all count.
	AdvanceSandboxClock(ctx context.Context, d time.Duration) (time.Duration, error)
}

// Advancer is a service clock that can be moved forward.
type Advancer interface {
	market.Clock
	Advance(time.Duration)
}

// Clock is the service clock of a sandbox instance: every time-based rule
// reads it, and time-advance moves it, through the store.
type Clock struct {
	base  Advancer
	store OffsetStore
}

// NewClock makes the sandbox clock over base, the clock the services read.
func NewClock(base Advancer, store OffsetStore) *Clock {
	return &Clock{base: base, store: store}
}

// Now is the service time.
func (c *Clock) Now() time.Time { return c.base.Now() }

// Advance moves the clock forward by d for good: the stored offset first,
// then this process's clock to it (which also takes in what other replicas
// advanced meanwhile).
func (c *Clock) Advance(ctx context.Context, d time.Duration) error {
	offset, err := c.store.AdvanceSandboxClock(ctx, d)
	if err != nil {
		return err
	}
	c.follow(offset, d)
	return nil
}

// Load sets the clock to the stored offset: at start-up, and now and then
// so that a replica sees the others' advances.
func (c *Clock) Load(ctx context.Context) error {
	offset, err := c.store.SandboxClockOffset(ctx)
	if err != nil {
		return err
	}
	c.follow(offset, 0)
	return nil
}

// follow moves the base clock to offset: exactly when it is an offset of
// real time, else (a test's fixed clock) by the step just taken.
func (c *Clock) follow(offset, step time.Duration) {
	if oc, ok := c.base.(*market.OffsetClock); ok {
		oc.Set(offset)
		return
	}
	if step > 0 {
		c.base.Advance(step)
	}
}
