// Package storetest opens fresh, migrated stores for tests on every engine:
// SQLite always, PostgreSQL too when MARKETPLACE_TEST_DATABASE_URL is set.
// Each store is private to its test (a temp file, or a database of its own
// on the shared server) and is removed afterwards.
//
// Migrating a store per test cost a second or more under the race detector,
// hundreds of times per package, so each engine migrates one template per
// test process and every test gets a copy of it: a file copy for SQLite,
// CREATE DATABASE ... TEMPLATE for PostgreSQL.
package storetest

import (
	"context"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"marketplace/internal/store"
)

// PostgresEnv names the PostgreSQL server for tests.
const PostgresEnv = "MARKETPLACE_TEST_DATABASE_URL"

// Prep is setup beyond the store's migrations that every store of a suite
// needs (the job queue's tables); it runs once, on the template.
type Prep struct {
	Name string
	Run  func(ctx context.Context, db *store.DB) error
}

// Engine opens a fresh store of one kind.
type Engine struct {
	Name string
	// Open opens a fresh migrated store.
	Open func(t testing.TB) *store.DB
	// OpenWith opens a fresh migrated store on which prep has run.
	OpenWith func(t testing.TB, prep *Prep) *store.DB
}

// Engines lists the engines to test on.
func Engines() []Engine {
	out := []Engine{{Name: "sqlite", Open: OpenSQLite, OpenWith: openSQLite}}
	if os.Getenv(PostgresEnv) != "" {
		out = append(out, Engine{Name: "postgres", Open: OpenPostgres, OpenWith: openPostgres})
	}
	return out
}

// Run runs fn once per engine as subtests named for the engine.
func Run(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	RunWith(t, nil, fn)
}

// RunWith is Run on stores prepared by prep.
func RunWith(t *testing.T, prep *Prep, fn func(t *testing.T, db *store.DB)) {
	for _, e := range Engines() {
		t.Run(e.Name, func(t *testing.T) { fn(t, e.OpenWith(t, prep)) })
	}
}

// OpenSQLite opens a migrated SQLite store in a temp dir.
func OpenSQLite(t testing.TB) *store.DB { return openSQLite(t, nil) }

// OpenPostgres opens a migrated store in a database of its own on the test
// server; the database is dropped when the test ends.
func OpenPostgres(t testing.TB) *store.DB { return openPostgres(t, nil) }
