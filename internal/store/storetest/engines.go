// Package storetest opens fresh, migrated stores for tests on every engine:
// SQLite always, PostgreSQL too when MARKETPLACE_TEST_DATABASE_URL is set.
// Each store is private to its test (a temp file, or a schema of its own on
// the shared server) and is removed afterwards.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"marketplace/internal/store"
)

// PostgresEnv names the PostgreSQL server for tests.
const PostgresEnv = "MARKETPLACE_TEST_DATABASE_URL"

// Engine opens a fresh store of one kind.
type Engine struct {
	Name string
	Open func(t testing.TB) *store.DB
}

// Engines lists the engines to test on.
func Engines() []Engine {
	out := []Engine{{Name: "sqlite", Open: OpenSQLite}}
	if os.Getenv(PostgresEnv) != "" {
		out = append(out, Engine{Name: "postgres", Open: OpenPostgres})
	}
	return out
}

// Run runs fn once per engine as subtests named for the engine.
func Run(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	for _, e := range Engines() {
		t.Run(e.Name, func(t *testing.T) { fn(t, e.Open(t)) })
	}
}

// OpenSQLite opens a migrated SQLite store in a temp dir.
func OpenSQLite(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.OpenSQLite(filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// OpenPostgres creates a schema of its own on the test server, opens a
// migrated store in it, and drops the schema when the test ends.
func OpenPostgres(t testing.TB) *store.DB {
	t.Helper()
	dsn, schema := PostgresSchema(t)
	db, err := store.OpenPostgres(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate %s: %v", schema, err)
	}
	return db
}

// PostgresSchema creates an empty schema on the test server and returns a
// DSN whose search_path is that schema. The schema is dropped at cleanup.
func PostgresSchema(t testing.TB) (dsn, schema string) {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skip(PostgresEnv + " is not set")
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema = "t_" + hex.EncodeToString(b)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		admin.Close()
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec("DROP SCHEMA " + schema + " CASCADE")
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), schema
}
