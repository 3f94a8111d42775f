package store

import "testing"

// SetTitleWalk sets how many of the newest orders a common title search
// looks through (titleWalk) until t ends.
func SetTitleWalk(t testing.TB, n int64) {
	old := titleWalk.Swap(n)
	t.Cleanup(func() { titleWalk.Store(old) })
}

// GroupPending is how many grouped functions wait for their batch.
func GroupPending(db *DB) int {
	db.group.mu.Lock()
	defer db.group.mu.Unlock()
	return len(db.group.pending)
}
