package storetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"marketplace/internal/store"
)

// The SQLite database and its WAL and shared-memory files are readable by
// their owner only, whatever the umask, and an older world-readable file is
// tightened when it is opened again.
func TestSQLiteFileModes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "marketplace.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil { // as an older release left it
		t.Fatal(err)
	}
	db, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if mode := fi.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %o, want 600", filepath.Base(p), mode)
		}
	}
}
