package store_test

import (
	"path/filepath"
	"testing"

	"marketplace/internal/store"
)

// The memory map's size (MARKETPLACE_SQLITE_MMAP_MB) is what every
// connection of both pools runs with.
func TestSQLiteMapSize(t *testing.T) {
	for _, size := range []int64{0, 64 << 20, store.DefaultMapSize} {
		db, err := store.OpenSQLiteMapped(filepath.Join(t.TempDir(), "m.db"), size)
		if err != nil {
			t.Fatal(err)
		}
		var w, r int64
		if err := db.WritePool().QueryRowContext(t.Context(), "PRAGMA mmap_size").Scan(&w); err != nil {
			t.Fatal(err)
		}
		if err := db.ReadPool().QueryRowContext(t.Context(), "PRAGMA mmap_size").Scan(&r); err != nil {
			t.Fatal(err)
		}
		if w != size || r != size {
			t.Errorf("map size %d: write pool %d, read pool %d", size, w, r)
		}
		db.Close()
	}
}
