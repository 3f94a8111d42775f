// Package sandbox holds what the sandbox's own operations share between the
// HTTP surface and the store: resetting one user's data, and the clock its
// time-advance moves (clock.go).
package sandbox

import (
	"context"
	"time"
)

// Store is the storage the sandbox's reset needs.
type Store interface {
	// SandboxReset clears userID's own data in one transaction and counts
	// what it cleared (store.(*Tx).SandboxReset says exactly what).
	SandboxReset(ctx context.Context, userID string, now time.Time) (Cleared, error)
}

// Cleared counts what a reset changed.
type Cleared struct {
	ListingsDeleted  int64 // listings no order names
	ListingsArchived int64 // still on sale, but another user ordered them once
	ListingsKept     int64 // reserved or sold for another user, or retired already
	OrdersDeleted    int64 // as buyer: settled, or never went ahead
	OrdersKept       int64 // as buyer: still moving money
	Watches          int64
	Threads          int64 // message threads, as buyer or seller
	Offers           int64 // made by the user, or on the user's listings
	SpendingRecords  int64
	IdempotencyKeys  int64
}
