package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

const (
	// numShards spreads keys over independent locks so that concurrent
	// requests for different agents rarely wait on each other.
	numShards = 64
	// sweepInterval bounds how long an idle key's history outlives its
	// window when the shard sees little traffic.
	sweepInterval = time.Minute
	// minSweepLen keeps small shards from being swept on every insert; a
	// shard is also swept whenever it doubles in size, so a flood of new
	// keys costs O(1) amortised per key and memory stays proportional to
	// the keys that are still inside their window.
	minSweepLen = 1024
)

// Memory is the in-process Limiter, used when no Redis is configured. It is
// safe for concurrent use. Idle keys are dropped lazily by the calls that
// land on the same shard, so there is no goroutine to stop.
type Memory struct {
	now    func() time.Time
	seed   maphash.Seed
	shards [numShards]shard
}

type shard struct {
	mu        sync.Mutex
	logs      map[string]*actionLog
	lastSweep int64    // clock reading (UnixNano) of the last sweep
	sweepAt   int      // sweep when len(logs) reaches this
	_         [96]byte // pad to 128 bytes: neighbouring locks never share a cache line
}

// actionLog is one key's admitted actions, oldest first, in a ring buffer
// that grows on demand up to the key's Max: only the newest Max entries can
// ever matter, so that is all it keeps.
type actionLog struct {
	ts      []int64 // UnixNano times
	head, n int
	expires int64 // when every entry has left the window; evictable then
}

// NewMemory returns an in-process limiter reading time from now
// (time.Now when nil).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	m := &Memory{now: now, seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].logs = make(map[string]*actionLog)
		m.shards[i].sweepAt = minSweepLen
	}
	return m
}

// Allow implements Limiter. It never fails except for an invalid Limit.
func (m *Memory) Allow(_ context.Context, key string, l Limit) (Decision, error) {
	if err := l.validate(); err != nil {
		return Decision{}, err
	}
	now := m.now()
	t, w := now.UnixNano(), int64(l.Window)

	s := m.shard(key)
	s.mu.Lock()
	if t-s.lastSweep >= int64(sweepInterval) || t < s.lastSweep || len(s.logs) >= s.sweepAt {
		s.sweep(t)
	}
	e := s.logs[key]
	if e == nil {
		e = &actionLog{}
		s.logs[key] = e
	}
	allowed := e.admit(t, w, l.Max)
	count, oldest := e.n, e.ts[e.head]
	s.mu.Unlock()

	return decide(now, allowed, l, count, time.Unix(0, oldest+w).In(now.Location())), nil
}

// Reset implements Limiter.
func (m *Memory) Reset(_ context.Context, key string) error {
	s := m.shard(key)
	s.mu.Lock()
	delete(s.logs, key)
	s.mu.Unlock()
	return nil
}

func (m *Memory) shard(key string) *shard {
	return &m.shards[maphash.String(m.seed, key)%numShards]
}

// sweep drops every log whose entries have all left their window: such a
// log answers exactly like a missing one, so removing it loses nothing.
func (s *shard) sweep(t int64) {
	for k, e := range s.logs {
		if e.expires <= t {
			delete(s.logs, k)
		}
	}
	s.lastSweep = t
	s.sweepAt = max(2*len(s.logs), minSweepLen)
}

// admit drops entries that left the window ending at t and records t if
// fewer than limit remain. Afterwards the log is never empty, because a
// refusal implies limit (>= 1) entries.
func (e *actionLog) admit(t, w int64, limit int) bool {
	for e.n > 0 && e.ts[e.head]+w <= t {
		e.pop()
	}
	// After the limit was lowered, only the newest limit entries decide
	// when a slot frees; the Redis script trims the same way.
	for e.n > limit {
		e.pop()
	}
	allowed := e.n < limit
	if allowed {
		at := t
		// A caller that read the clock before a competitor took the lock
		// (or a clock moved backwards) must not unsort the ring.
		if e.n > 0 {
			at = max(at, e.ts[e.tail()])
		}
		e.push(at, limit)
	}
	e.expires = e.ts[e.tail()] + w
	return allowed
}

func (e *actionLog) tail() int {
	i := e.head + e.n - 1
	if i >= len(e.ts) {
		i -= len(e.ts)
	}
	return i
}

func (e *actionLog) pop() {
	e.head++
	if e.head == len(e.ts) {
		e.head = 0
	}
	e.n--
}

func (e *actionLog) push(t int64, limit int) {
	if e.n == len(e.ts) {
		// Grow geometrically, never past limit: a key allowed 1000 actions
		// a minute that makes three costs three slots, not a thousand.
		ts := make([]int64, min(max(2*len(e.ts), 4), limit))
		k := copy(ts, e.ts[e.head:])
		copy(ts[k:], e.ts[:e.head])
		e.ts, e.head = ts, 0
	}
	i := e.head + e.n
	if i >= len(e.ts) {
		i -= len(e.ts)
	}
	e.ts[i] = t
	e.n++
}
