package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Leased is the Redis limiter for busy keys: instead of one round trip per
// action, a replica takes a few slots of a key's window at once and hands
// them out locally for a short lease. The round trip costs about as much
// as serving a cached read, so a key making thousands of requests a second
// would otherwise halve its replica's throughput.
//
// The limit still holds in total across replicas, and no tighter in any
// window than the exact log: every slot is in Redis before it is used, and
// a slot used later than its lease began is scored at the lease's end
// (slidingLog). What a lease costs is that a replica's unused slots count
// until they leave the window. Leases stay small so little is held that
// way: a key starts at one slot per call and doubles while it uses up each
// lease in time, back to one after a pause, and Redis never grants more
// than an eighth of the free slots, so the last ones go one by one.
//
// On one replica the headers stay exact: Remaining counts this replica's
// unused slots as free.
type Leased struct {
	redis *Redis

	mu      sync.Mutex
	keys    map[string]*lease
	sweepAt int
}

// lease is one key's slots held by this replica.
type lease struct {
	limit Limit
	slots int       // taken from Redis, not yet used
	until time.Time // the slots are not used after this
	count int       // entries in the window at the last grant, ours included
	reset time.Time // when the oldest of them leaves
	size  int       // slots to ask for next time
}

var _ Limiter = (*Leased)(nil)

// Lease defaults: slots are used within leaseFor of being taken, and at
// most leaseMost are taken at once.
const (
	leaseFor  = 100 * time.Millisecond
	leaseMost = 64
)

// NewLeased leases slots of r's windows.
func NewLeased(r *Redis) *Leased {
	return &Leased{redis: r, keys: make(map[string]*lease), sweepAt: minSweepLen}
}

// ForRequests is the limiter to count requests with over l: leased when l
// is Redis, l itself otherwise (the in-process log costs no round trip).
func ForRequests(l Limiter) Limiter {
	if r, ok := l.(*Redis); ok {
		return NewLeased(r)
	}
	return l
}

// Allow implements Limiter.
func (l *Leased) Allow(ctx context.Context, key string, lim Limit) (Decision, error) {
	if err := lim.validate(); err != nil {
		return Decision{}, err
	}
	now := l.redis.now()
	l.mu.Lock()
	e := l.keys[key]
	if d, ok := e.use(now, lim); ok {
		l.mu.Unlock()
		return d, nil
	}
	want := 1
	if e != nil && e.limit == lim && e.slots == 0 && now.Before(e.until.Add(leaseFor)) {
		want = e.size // the last lease was used up, and recently
	}
	l.mu.Unlock()

	taken, count, d, err := l.redis.take(ctx, key, lim, want, leaseFor)
	if err != nil {
		return Decision{}, err
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.keys) >= l.sweepAt {
		l.sweep(now)
	}
	e = l.keys[key]
	if e == nil || e.limit != lim || !now.Before(e.until) {
		e = &lease{limit: lim, size: 1}
		l.keys[key] = e
	}
	if taken == 0 {
		// Another request of this replica may have brought slots meanwhile.
		if d2, ok := e.use(now, lim); ok {
			return d2, nil
		}
		return d, nil
	}
	e.slots += taken - 1
	e.until = now.Add(leaseFor)
	e.count, e.reset = max(e.count, count), d.Reset
	e.size = taken
	if e.slots == 0 {
		e.size = min(2*taken, leaseMost) // a single slot, used at once
	}
	// This reply's own count and spare slots: exact when the replies of
	// concurrent takes arrive out of order (each count is one moment's).
	d.Remaining = max(lim.Max-count+taken-1, 0)
	return d, nil
}

// use hands out one of e's slots if it has one for lim that is still valid.
func (e *lease) use(now time.Time, lim Limit) (Decision, bool) {
	if e == nil || e.limit != lim || e.slots == 0 || !now.Before(e.until) {
		return Decision{}, false
	}
	e.slots--
	if e.slots == 0 {
		e.size = min(2*e.size, leaseMost) // used up within the lease
	}
	return decide(now, true, lim, e.count-e.slots, e.reset), true
}

// sweep forgets keys whose lease ended: their unused slots can no longer
// be used, and a key asks for one slot again after a pause anyway.
func (l *Leased) sweep(now time.Time) {
	for k, e := range l.keys {
		if !now.Before(e.until.Add(leaseFor)) {
			delete(l.keys, k)
		}
	}
	l.sweepAt = max(2*len(l.keys), minSweepLen)
}

// Reset implements Limiter: the key's history goes, and with it the slots
// this replica held.
func (l *Leased) Reset(ctx context.Context, key string) error {
	l.mu.Lock()
	delete(l.keys, key)
	l.mu.Unlock()
	return l.redis.Reset(ctx, key)
}
