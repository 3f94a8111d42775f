package storetest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"marketplace/internal/store"
)

// Database names on the shared server carry the test process's pid, so a
// later process can drop what a killed one left behind.
const (
	pgTemplatePrefix = "mkt_tmpl_"
	pgTestPrefix     = "mkt_t_"
)

// openPostgres creates a database from the engine's template and opens a
// store on it; the database is dropped when the test ends.
func openPostgres(t testing.TB, prep *Prep) *store.DB {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skip(PostgresEnv + " is not set")
	}
	tmpl, err := templateFor("postgres", prep, func(migrate func(*store.DB) error) (string, error) {
		return makePostgresTemplate(base, migrate)
	})
	if err != nil {
		t.Fatal(err)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	name := pgName(pgTestPrefix)
	if err := createFrom(admin, name, tmpl); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	// Benchmarks commit as the service does; tests need not wait for the disk.
	_, bench := t.(*testing.B)
	dsn, err := withDatabase(base, name, !bench)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenPostgres(dsn)
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run last-in first-out: the store closes, then its database goes.
	t.Cleanup(func() {
		_, _ = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		admin.Close()
	})
	t.Cleanup(func() { db.Close() })
	return db
}

// makePostgresTemplate creates and migrates the template database, after
// dropping the databases of test processes that have exited.
func makePostgresTemplate(base string, migrate func(*store.DB) error) (string, error) {
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	dropOrphans(admin)
	name := pgName(pgTemplatePrefix)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		return "", fmt.Errorf("create template database: %w", err)
	}
	dsn, err := withDatabase(base, name, true)
	if err != nil {
		return "", err
	}
	db, err := store.OpenPostgres(dsn)
	if err != nil {
		return "", err
	}
	if err := migrate(db); err != nil {
		db.Close()
		return "", err
	}
	// A template must have no sessions when it is copied.
	return name, db.Close()
}

// createFrom copies template into a new database. PostgreSQL refuses while
// another session is connected to the template, which a closing pool can
// briefly still be, so it retries a few times.
func createFrom(admin *sql.DB, name, template string) error {
	var err error
	for i := 0; i < 20; i++ {
		if _, err = admin.Exec("CREATE DATABASE " + name + " TEMPLATE " + template); err == nil ||
			!strings.Contains(err.Error(), "being accessed by other users") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("create test database: %w", err)
	}
	return nil
}

// dropOrphans drops test and template databases whose process has exited.
func dropOrphans(admin *sql.DB) {
	rows, err := admin.Query(`SELECT datname FROM pg_database WHERE datname LIKE 'mkt\_%'`)
	if err != nil {
		return
	}
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			names = append(names, n)
		}
	}
	rows.Close()
	if rows.Err() != nil {
		return // best effort, like the rest: a listing cut short is left to the next run
	}
	for _, n := range names {
		for _, prefix := range []string{pgTemplatePrefix, pgTestPrefix} {
			if pid, ok := pidOf(n, prefix); ok && !alive(pid) {
				_, _ = admin.Exec("DROP DATABASE IF EXISTS " + n + " WITH (FORCE)")
			}
		}
	}
}

// pgName is a fresh database name: prefix, this process's pid, random hex.
func pgName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s%d_%s", prefix, os.Getpid(), hex.EncodeToString(b))
}

// withDatabase is base with its database replaced by name. With async, its
// sessions commit without waiting for the WAL flush: a test database is
// thrown away, and the wait was most of a test's time on PostgreSQL.
func withDatabase(base, name string, async bool) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	if async {
		q := u.Query()
		q.Set("synchronous_commit", "off")
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}
