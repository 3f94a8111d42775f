package ratelimit

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is the Limiter shared by replicas. Each key is a sorted set of
// admitted actions scored by time in microseconds (a float64 score holds
// current Unix microseconds exactly; nanoseconds it would not), updated by
// one Lua script so concurrent replicas cannot both take the last slot.
type Redis struct {
	client *redis.Client
	prefix string
	now    func() time.Time
	// id and seq make sorted-set members unique across processes, so two
	// actions in the same microsecond are both counted.
	id  string
	seq atomic.Uint64
}

// NewRedis returns a limiter that stores key k under prefix+k, so
// deployments (and parallel test runs) sharing a server stay apart. Time
// comes from now (time.Now when nil) and is sent to the script rather than
// read with Redis TIME, so the service's movable clock rules here too.
func NewRedis(client *redis.Client, prefix string, now func() time.Time) *Redis {
	if now == nil {
		now = time.Now
	}
	var b [6]byte
	rand.Read(b[:])
	return &Redis{client: client, prefix: prefix, now: now, id: fmt.Sprintf("%x", b)}
}

// slidingLog is the whole decision, run atomically by Redis.
//
// KEYS[1] the key's sorted set
// ARGV[1] now, microseconds       ARGV[2] now - window (entries <= this expired)
// ARGV[3] window, microseconds    ARGV[4] max
// ARGV[5] unique member prefix    ARGV[6] TTL in milliseconds
// ARGV[7] slots wanted (>= 1)     ARGV[8] score of every slot but the first
//
// Up to ARGV[7] slots are taken, but never more than an eighth of those
// still free (and at least one while any is): near the limit every action
// goes through the script, so the last slots are not held by one replica.
// The first slot is used now and scored now; the others are used later
// (Leased) and scored at ARGV[8], the end of their lease, so each counts
// at least as long as it would have from the moment it is used.
//
// Returns {slots taken, entries counted, when the oldest entry expires (µs)}.
// The TTL is only garbage collection and runs on Redis's own clock; the
// service clock only ever moves forward and at least at real speed, so the
// key never expires while its entries still count.
var slidingLog = redis.NewScript(`
local key = KEYS[1]
local window = tonumber(ARGV[3])
local max = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[2])
local n = redis.call('ZCARD', key)
if n > max then
  redis.call('ZREMRANGEBYRANK', key, 0, n - max - 1)
  n = max
end
local taken = 0
if n < max then
  taken = math.min(tonumber(ARGV[7]), math.max(1, math.floor((max - n) / 8)))
  local args = {ARGV[1], ARGV[5]}
  for i = 2, taken do
    args[#args + 1] = ARGV[8]
    args[#args + 1] = ARGV[5] .. '.' .. i
  end
  redis.call('ZADD', key, unpack(args))
  redis.call('PEXPIRE', key, ARGV[6])
  n = n + taken
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {taken, n, tonumber(oldest[2]) + window}
`)

// Allow implements Limiter. On a Redis error it returns the error and
// leaves failing open or closed to the caller.
func (r *Redis) Allow(ctx context.Context, key string, l Limit) (Decision, error) {
	_, _, d, err := r.take(ctx, key, l, 1, 0)
	return d, err
}

// take asks for up to want slots of key's window, the first used now and
// the rest within lease; it returns how many it got and the entries now
// counted. The Decision is the first slot's, as if the others were used.
func (r *Redis) take(ctx context.Context, key string, l Limit, want int, lease time.Duration) (int, int, Decision, error) {
	if err := l.validate(); err != nil {
		return 0, 0, Decision{}, err
	}
	now := r.now()
	t := now.UnixMicro()
	w := (int64(l.Window) + int64(time.Microsecond) - 1) / int64(time.Microsecond) // round up: at least 1µs
	later := t + (int64(lease)+int64(time.Microsecond)-1)/int64(time.Microsecond)
	ttl := (later - t + w + 999) / 1000
	member := r.id + ":" + strconv.FormatUint(r.seq.Add(1), 36)

	res, err := slidingLog.Run(ctx, r.client, []string{r.prefix + key},
		t, t-w, w, l.Max, member, ttl, max(want, 1), later).Int64Slice()
	if err != nil {
		return 0, 0, Decision{}, fmt.Errorf("ratelimit: redis: %w", err)
	}
	if len(res) != 3 {
		return 0, 0, Decision{}, fmt.Errorf("ratelimit: redis: unexpected script reply %v", res)
	}
	reset := time.UnixMicro(res[2]).In(now.Location())
	return int(res[0]), int(res[1]), decide(now, res[0] > 0, l, int(res[1]), reset), nil
}

// Reset implements Limiter.
func (r *Redis) Reset(ctx context.Context, key string) error {
	if err := r.client.Del(ctx, r.prefix+key).Err(); err != nil {
		return fmt.Errorf("ratelimit: redis: %w", err)
	}
	return nil
}
