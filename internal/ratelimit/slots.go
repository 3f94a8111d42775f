package ratelimit

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Slots caps how many things a holder keeps open at once (event streams,
// held long polls). Unlike a Limiter's window, a slot is held for as long
// as its thing is open and given back when it ends.
type Slots interface {
	// Take takes one slot under each of keys, all or none. When a key is
	// full it takes nothing and returns that key; otherwise release gives
	// the slots back (calling it more than once is harmless). A key with
	// Max <= 0 has no cap.
	Take(ctx context.Context, keys []SlotKey) (release func(), full *SlotKey, err error)
}

// SlotKey is one cap: at most Max slots under Key.
type SlotKey struct {
	Key string
	Max int
}

var (
	_ Slots = (*MemorySlots)(nil)
	_ Slots = (*RedisSlots)(nil)
	_ Slots = (*SlotsFallback)(nil)
)

// MemorySlots counts the slots of this process.
type MemorySlots struct {
	mu   sync.Mutex
	open map[string]int
}

// NewMemorySlots makes an empty MemorySlots.
func NewMemorySlots() *MemorySlots { return &MemorySlots{open: map[string]int{}} }

// Take implements Slots.
func (m *MemorySlots) Take(_ context.Context, keys []SlotKey) (func(), *SlotKey, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range keys {
		if k := &keys[i]; k.Max > 0 && m.open[k.Key] >= k.Max {
			return nil, k, nil
		}
	}
	for _, k := range keys {
		m.open[k.Key]++
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			for _, k := range keys {
				if m.open[k.Key]--; m.open[k.Key] <= 0 {
					delete(m.open, k.Key)
				}
			}
		})
	}, nil, nil
}

// Open is how many slots key holds (for tests).
func (m *MemorySlots) Open(key string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.open[key]
}

// SlotLease is how long a slot taken in Redis lives without being renewed:
// a replica renews its slots every third of it, so the slots of a replica
// that died free themselves within this time.
const SlotLease = 30 * time.Second

// RedisSlots shares the slots between replicas. Each key is a sorted set
// of holders scored by when their lease ends; one Lua script drops the
// ended ones, checks every cap and takes the slots, so two replicas cannot
// both take the last one. The process renews the leases it holds with one
// pipeline per renewal period, whatever their number.
type RedisSlots struct {
	client *redis.Client
	prefix string
	now    func() time.Time
	lease  time.Duration
	id     string
	seq    atomic.Uint64

	mu       sync.Mutex
	held     map[string][]string // member -> the keys it holds a slot of
	renewing bool
}

// NewRedisSlots stores key k under prefix+k. now is real time (time.Now
// when nil): leases end on the wall clock shared by the replicas.
func NewRedisSlots(client *redis.Client, prefix string, now func() time.Time) *RedisSlots {
	if now == nil {
		now = time.Now
	}
	var b [6]byte
	rand.Read(b[:])
	return &RedisSlots{client: client, prefix: prefix, now: now, lease: SlotLease, id: fmt.Sprintf("%x", b),
		held: map[string][]string{}}
}

// takeSlots is Take, run atomically by Redis.
//
// KEYS the keys' sorted sets
// ARGV[1] now (ms)   ARGV[2] the lease's end (ms)   ARGV[3] the holder
// ARGV[4] TTL of the sets (ms)   ARGV[4+i] the cap of KEYS[i] (<= 0: none)
//
// Returns 0 when every slot was taken, or i when KEYS[i] is full.
var takeSlots = redis.NewScript(`
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[1])
  local max = tonumber(ARGV[4 + i])
  if max > 0 and redis.call('ZCARD', key) >= max then
    return i
  end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, ARGV[2], ARGV[3])
  redis.call('PEXPIRE', key, ARGV[4])
end
return 0
`)

// Take implements Slots. On a Redis error it returns the error.
func (r *RedisSlots) Take(ctx context.Context, keys []SlotKey) (func(), *SlotKey, error) {
	if len(keys) == 0 {
		return func() {}, nil, nil
	}
	now := r.now().UnixMilli()
	member := r.id + ":" + strconv.FormatUint(r.seq.Add(1), 36)
	names := make([]string, len(keys))
	args := []any{now, now + r.lease.Milliseconds(), member, 2 * r.lease.Milliseconds()}
	for i, k := range keys {
		names[i] = r.prefix + k.Key
		args = append(args, k.Max)
	}
	n, err := takeSlots.Run(ctx, r.client, names, args...).Int()
	if err != nil {
		return nil, nil, fmt.Errorf("ratelimit: redis slots: %w", err)
	}
	if n > 0 {
		if n > len(keys) {
			return nil, nil, fmt.Errorf("ratelimit: redis slots: unexpected script reply %d", n)
		}
		return nil, &keys[n-1], nil
	}
	r.hold(member, names)
	var once sync.Once
	return func() { once.Do(func() { r.release(member, names) }) }, nil, nil
}

// hold remembers a lease to renew, starting the renewal when it is the
// first one.
func (r *RedisSlots) hold(member string, names []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held[member] = names
	if !r.renewing {
		r.renewing = true
		go r.renew()
	}
}

// release gives a lease's slots back. It runs when a request ends, so it
// does not use the request's context; a failure leaves the lease to end.
func (r *RedisSlots) release(member string, names []string) {
	r.mu.Lock()
	delete(r.held, member)
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	pipe := r.client.Pipeline()
	for _, k := range names {
		pipe.ZRem(ctx, k, member)
	}
	_, _ = pipe.Exec(ctx)
}

// renew moves the end of every held lease on, every third of a lease,
// until none is held.
func (r *RedisSlots) renew() {
	t := time.NewTicker(r.lease / 3)
	defer t.Stop()
	for range t.C {
		r.mu.Lock()
		if len(r.held) == 0 {
			r.renewing = false
			r.mu.Unlock()
			return
		}
		held := maps.Clone(r.held)
		r.mu.Unlock()
		end := float64(r.now().UnixMilli() + r.lease.Milliseconds())
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		pipe := r.client.Pipeline()
		for m, names := range held {
			for _, k := range names {
				// XX: a lease already given back is not revived.
				pipe.ZAddXX(ctx, k, redis.Z{Score: end, Member: m})
				pipe.PExpire(ctx, k, 2*r.lease)
			}
		}
		_, _ = pipe.Exec(ctx) // a failed renewal is retried at the next tick, well within the lease
		cancel()
	}
}

// Held is how many leases this process holds (for tests).
func (r *RedisSlots) Held() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.held)
}

// SlotsFallback takes slots from a shared Slots (Redis) and, while it
// fails, from a local one: when Redis is down the caps hold per replica.
// After a failure the shared one is left alone for a cooldown.
type SlotsFallback struct {
	shared, local Slots
	cooldown      time.Duration
	log           *slog.Logger

	mu        sync.Mutex
	downUntil time.Time
	down      bool
}

// NewSlotsFallback makes a SlotsFallback.
func NewSlotsFallback(shared, local Slots, cooldown time.Duration, log *slog.Logger) *SlotsFallback {
	return &SlotsFallback{shared: shared, local: local, cooldown: cooldown, log: log}
}

// Take implements Slots.
func (f *SlotsFallback) Take(ctx context.Context, keys []SlotKey) (func(), *SlotKey, error) {
	f.mu.Lock()
	skip := f.down && time.Now().Before(f.downUntil)
	f.mu.Unlock()
	if !skip {
		release, full, err := f.shared.Take(ctx, keys)
		if err == nil {
			f.mu.Lock()
			if f.down {
				f.down = false
				f.log.Info("slot caps shared again")
			}
			f.mu.Unlock()
			return release, full, nil
		}
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, nil, err
		}
		f.mu.Lock()
		if !f.down {
			f.log.Warn("slot caps held per replica: the shared store failed", "err", err)
		}
		f.down, f.downUntil = true, time.Now().Add(f.cooldown)
		f.mu.Unlock()
	}
	return f.local.Take(ctx, keys)
}
