// Package idempotency holds what the idempotency of requests (CONTRACT.md
// section 7) stores: the record of one key and the store that keeps them.
// The HTTP layer claims and replays keys; the store implements Store; the
// domain reads a record when it resumes a request cut off by a crash. It
// sits below all three so none imports another for it.
package idempotency

import (
	"context"
	"time"
)

// Record is the stored state of one key. A key still being worked on
// is leased: LeaseOwner (a process) renews LeaseUntil, in real time, while
// its request runs, and a retry may take over a claim whose lease ran out.
type Record struct {
	OwnerID    string
	Key        string
	Route      string
	Hash       string
	Done       bool
	Status     int
	Body       []byte
	ExpiresAt  time.Time
	LeaseOwner string
	LeaseUntil time.Time // zero: no lease (stale at once)
}

// Store keeps idempotency records.
type Store interface {
	// ClaimIdempotency inserts rec as started, with its lease, or, when the
	// key exists and has not expired, returns the stored record and false.
	// An expired record is replaced.
	ClaimIdempotency(ctx context.Context, rec *Record, now time.Time) (*Record, bool, error)
	// RenewIdempotency extends the lease of a started key the owner holds;
	// false when it no longer holds it.
	RenewIdempotency(ctx context.Context, ownerID, key, leaseOwner string, until time.Time) (bool, error)
	// TakeOverIdempotency gives a started key whose lease ended before
	// realNow to leaseOwner until until; false when the key is done, gone,
	// or leased by a live owner.
	TakeOverIdempotency(ctx context.Context, ownerID, key, leaseOwner string, until, realNow time.Time) (bool, error)
	// FinishIdempotency stores the answer of a claimed key.
	FinishIdempotency(ctx context.Context, ownerID, key string, status int, body []byte) error
	// ReleaseIdempotency forgets a claimed key whose request failed on our
	// side, so a retry runs again.
	ReleaseIdempotency(ctx context.Context, ownerID, key, leaseOwner string) error
	IdempotencyRecord(ctx context.Context, ownerID, key string) (*Record, error)
}
