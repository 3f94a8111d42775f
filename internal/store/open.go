package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"marketplace/internal/store/postgres"
	sqlitemig "marketplace/internal/store/sqlite"
)

// Opening a store is each engine's own (open_sqlite.go, open_postgres.go);
// here are what both share: migrations, and reading a unique violation.

// Migrate applies the embedded migrations of the DB's dialect.
func (db *DB) Migrate(ctx context.Context) error {
	dialect, fsys := goose.DialectSQLite3, sqlitemig.Migrations
	if db.dialect == Postgres {
		dialect, fsys = goose.DialectPostgres, postgres.Migrations
	}
	sub, err := fs.Sub(fsys, "migrations")
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(dialect, db.write, sub)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// uniqueViolation returns the constraint text of a unique violation ("" if
// err is something else): the column list on SQLite, the index name on
// PostgreSQL. Callers look for a column name in it.
func uniqueViolation(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return pgErr.ConstraintName
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) && (sqErr.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || sqErr.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY) {
		return sqErr.Error()
	}
	return ""
}

// isUnique reports whether err is a unique violation mentioning column.
func isUnique(err error, column string) bool {
	c := uniqueViolation(err)
	return c != "" && strings.Contains(c, column)
}
