package ratelimit

import (
	"context"
	"strconv"
	"testing"
	"time"
	"unsafe"
)

func (m *Memory) size() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.logs)
		s.mu.Unlock()
	}
	return n
}

func TestShardPadding(t *testing.T) {
	if got := unsafe.Sizeof(shard{}); got != 128 {
		t.Errorf("sizeof(shard) = %d, want 128", got)
	}
}

// Idle keys are dropped by the periodic sweep once their window has passed.
func TestMemoryEvictsIdleKeys(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	m := NewMemory(func() time.Time { return now })
	l := Limit{Max: 5, Window: time.Second}
	for i := range 5000 {
		m.Allow(ctx, "old-"+strconv.Itoa(i), l)
	}
	if got := m.size(); got != 5000 {
		t.Fatalf("size = %d, want 5000", got)
	}
	now = now.Add(sweepInterval)
	// Touch every shard once; each touch sweeps it.
	for i := 0; ; i++ {
		m.Allow(ctx, "new-"+strconv.Itoa(i), l)
		all := true
		for j := range m.shards {
			all = all && m.shards[j].lastSweep == now.UnixNano()
		}
		if all {
			if got := m.size(); got != i+1 {
				t.Errorf("size = %d after sweeping, want only the %d new keys", got, i+1)
			}
			return
		}
	}
}

// A flood of distinct keys within one sweep interval still cannot grow the
// map past what is inside its window (plus the doubling slack).
func TestMemoryBoundedUnderKeyFlood(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	m := NewMemory(func() time.Time { return now })
	l := Limit{Max: 1, Window: time.Millisecond}
	for i := range 200_000 {
		now = now.Add(time.Microsecond) // 1000 keys live at any moment
		m.Allow(ctx, strconv.Itoa(i), l)
	}
	if got, bound := m.size(), numShards*minSweepLen; got > bound {
		t.Errorf("size = %d, want <= %d", got, bound)
	}
}

// The ring buffer grows on demand and keeps order through wrap-around.
func TestActionLogRing(t *testing.T) {
	var e actionLog
	const w = 10
	for ts := int64(0); ts < 100; ts++ {
		if !e.admit(ts, w, 7) {
			// With 7 per 10 ticks, ticks 7, 8, 9 of each 10 are refused.
			if ts%10 < 7 {
				t.Fatalf("tick %d refused", ts)
			}
			continue
		}
		if ts%10 >= 7 {
			t.Fatalf("tick %d allowed", ts)
		}
		if len(e.ts) > 7 {
			t.Fatalf("ring grew to %d, limit is 7", len(e.ts))
		}
		for i := 1; i < e.n; i++ {
			a, b := e.ts[(e.head+i-1)%len(e.ts)], e.ts[(e.head+i)%len(e.ts)]
			if a > b {
				t.Fatalf("ring out of order at tick %d: %v head %d", ts, e.ts, e.head)
			}
		}
	}
}
