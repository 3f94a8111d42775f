package market

import (
	"context"
	"time"
)

// IdempotencyTTL is how long an idempotency key names one request: a retry
// within it gets the first answer; afterwards the key is free again.
const IdempotencyTTL = 24 * time.Hour

type idempotencyKey struct{}

// WithIdempotencyKey carries a request's idempotency key (CONTRACT.md
// section 7) to the services, which record it on what they create: a retry
// that takes over a claim whose process died finds that work and finishes
// it instead of doing it twice.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKey{}, key)
}

// IdempotencyKey is the key of the request in ctx, or "".
func IdempotencyKey(ctx context.Context) string {
	k, _ := ctx.Value(idempotencyKey{}).(string)
	return k
}
