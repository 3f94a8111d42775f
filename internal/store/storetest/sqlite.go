package storetest

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"marketplace/internal/store"
)

// openSQLite copies the engine's template into the test's temp dir.
func openSQLite(t testing.TB, prep *Prep) *store.DB {
	t.Helper()
	tmpl, err := templateFor("sqlite", prep, makeSQLiteTemplate)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "test.db")
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(tmpl+suffix, path+suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	db, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// makeSQLiteTemplate migrates a database file in a directory of the process
// (removed by the next test process that finds this one gone).
func makeSQLiteTemplate(migrate func(*store.DB) error) (string, error) {
	dir, err := processDir()
	if err != nil {
		return "", err
	}
	// Each template a file of its own: a process makes one per Prep, and
	// may make two at once.
	f, err := os.CreateTemp(dir, "template-*.db")
	if err != nil {
		return "", err
	}
	path := f.Name()
	if err := f.Close(); err != nil {
		return "", err
	}
	db, err := store.OpenSQLite(path)
	if err != nil {
		return "", err
	}
	if err := migrate(db); err != nil {
		db.Close()
		return "", err
	}
	// Closing the last connection checkpoints the WAL into the file.
	return path, db.Close()
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
