package ratelimit

import "time"

// SetLease shortens r's leases (tests of renewal and expiry).
func (r *RedisSlots) SetLease(d time.Duration) { r.lease = d }
