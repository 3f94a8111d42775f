package storetest

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"marketplace/internal/store"
)

// Querier is a pool or one connection of it.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Explain is the plan the engine would run query with (EXPLAIN QUERY PLAN
// on SQLite, EXPLAIN on PostgreSQL), one line per plan row: what the tests
// that pin an index read. Every column of a row counts, so it serves both
// engines' layouts.
func Explain(ctx context.Context, t testing.TB, q Querier, dialect store.Dialect, query string) string {
	t.Helper()
	prefix := "EXPLAIN QUERY PLAN "
	if dialect == store.Postgres {
		prefix = "EXPLAIN "
	}
	rows, err := q.QueryContext(ctx, prefix+query)
	if err != nil {
		t.Fatalf("explain %s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var line []string
		for _, v := range vals {
			switch v := v.(type) {
			case string:
				line = append(line, v)
			case []byte:
				line = append(line, string(v))
			}
		}
		plan = append(plan, strings.Join(line, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}
