package store

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"marketplace/internal/listings"
)

// SetFeedBegan has f run in each feed read's snapshot transaction as it
// begins, before the read's bound is taken, until t ends.
func SetFeedBegan(t testing.TB, db *DB, f func(ctx context.Context, tx *sql.Tx)) {
	db.feedBegan = f
	t.Cleanup(func() { db.feedBegan = nil })
}

// SetTitleWalk sets how many of the newest orders a common title search
// looks through (titleWalk) until t ends.
func SetTitleWalk(t testing.TB, n int64) {
	old := titleWalk.Swap(n)
	t.Cleanup(func() { titleWalk.Store(old) })
}

// SetCatalogueSize pins db's estimate of the catalogue's size (the
// threshold of a price walk grows with it) until t ends.
func SetCatalogueSize(t testing.TB, db *DB, n int64) {
	c := &db.search.catalogue
	c.mu.Lock()
	c.size, c.at = n, time.Now().Add(time.Hour)
	c.mu.Unlock()
	t.Cleanup(func() {
		c.mu.Lock()
		c.size, c.at = 0, time.Time{}
		c.mu.Unlock()
	})
}

// PriceWalks says whether a price-sorted page of q's text search walks
// the price index (its match set is broad) rather than reading every
// match.
func PriceWalks(t testing.TB, db *DB, q listings.SearchQuery) bool {
	t.Helper()
	tx := db.Read()
	m, err := tx.match(q, listings.ParseText(q.Text), listings.StatusActive, 0)
	if err != nil {
		t.Fatal(err)
	}
	least := priceBroadMin
	if db.dialect == Postgres {
		least = pgBroadMin
	}
	broad, err := tx.broadMatch(context.Background(), m, least)
	if err != nil {
		t.Fatal(err)
	}
	return broad
}

// SetWalkMin sets the shortest bounded walk of a broad PostgreSQL text
// search (walkMin) until t ends.
func SetWalkMin(t testing.TB, n int64) {
	old := walkMin.Swap(n)
	t.Cleanup(func() { walkMin.Store(old) })
}

// ResetSearchCache empties db's search cache, so the next search runs its
// plan.
func ResetSearchCache(db *DB) {
	db.search.mu.Lock()
	db.search.entries = nil
	db.search.mu.Unlock()
}

// GroupPending is how many grouped functions wait for their batch.
func GroupPending(db *DB) int {
	db.group.mu.Lock()
	defer db.group.mu.Unlock()
	return len(db.group.pending)
}

// SetBulkWALLimit sets the WAL size past which a SQLite bulk load
// truncates the WAL (bulkWALLimit) until t ends.
func SetBulkWALLimit(t testing.TB, n int64) {
	old := bulkWALLimit.Swap(n)
	t.Cleanup(func() { bulkWALLimit.Store(old) })
}
