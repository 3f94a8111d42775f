package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"marketplace/internal/seed"
	"marketplace/internal/store"
)

// TestBulkLoadWAL: a SQLite bulk load empties the WAL whenever it passes
// the limit, so the file stays near the limit however many listings the
// load writes; without the limit it only grows (a seed of a million
// listings once left 22 GB of WAL beside a 2 GB database).
func TestBulkLoadWAL(t *testing.T) {
	const n, limit = 6000, 2 << 20
	largest := func(t *testing.T) (int64, int64) {
		path := filepath.Join(t.TempDir(), "wal.db")
		db, err := store.OpenSQLite(path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		var most, last int64
		_, err = seed.Run(context.Background(), db, time.Now().UTC(), seed.Options{Listings: n, Seed: 7}, func(int) {
			fi, err := os.Stat(path + "-wal")
			if err != nil {
				t.Fatal(err)
			}
			last = fi.Size()
			most = max(most, last)
		})
		if err != nil {
			t.Fatal(err)
		}
		return most, last
	}
	store.SetBulkWALLimit(t, 0)
	grown, _ := largest(t)
	if grown < 4*limit {
		t.Fatalf("without a limit the WAL reached %d bytes: too small a load to tell", grown)
	}
	store.SetBulkWALLimit(t, limit)
	most, _ := largest(t)
	if most > limit {
		t.Fatalf("with a limit of %d bytes the WAL reached %d after a batch (%d without the limit)", limit, most, grown)
	}
	t.Logf("WAL after a batch: at most %d bytes with the limit, %d without", most, grown)
}
