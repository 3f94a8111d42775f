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
// ARGV[5] unique member           ARGV[6] TTL in milliseconds
//
// Returns {allowed 0|1, entries counted, when the oldest entry expires (µs)}.
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
local allowed = 0
if n < max then
  redis.call('ZADD', key, ARGV[1], ARGV[5])
  redis.call('PEXPIRE', key, ARGV[6])
  n = n + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {allowed, n, tonumber(oldest[2]) + window}
`)

// Allow implements Limiter. On a Redis error it returns the error and
// leaves failing open or closed to the caller.
func (r *Redis) Allow(ctx context.Context, key string, l Limit) (Decision, error) {
	if err := l.validate(); err != nil {
		return Decision{}, err
	}
	now := r.now()
	t := now.UnixMicro()
	w := (int64(l.Window) + int64(time.Microsecond) - 1) / int64(time.Microsecond) // round up: at least 1µs
	ttl := (w + 999) / 1000
	member := r.id + ":" + strconv.FormatUint(r.seq.Add(1), 36)

	res, err := slidingLog.Run(ctx, r.client, []string{r.prefix + key},
		t, t-w, w, l.Max, member, ttl).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit: redis: %w", err)
	}
	if len(res) != 3 {
		return Decision{}, fmt.Errorf("ratelimit: redis: unexpected script reply %v", res)
	}
	reset := time.UnixMicro(res[2]).In(now.Location())
	return decide(now, res[0] == 1, l, int(res[1]), reset), nil
}

// Reset implements Limiter.
func (r *Redis) Reset(ctx context.Context, key string) error {
	if err := r.client.Del(ctx, r.prefix+key).Err(); err != nil {
		return fmt.Errorf("ratelimit: redis: %w", err)
	}
	return nil
}
