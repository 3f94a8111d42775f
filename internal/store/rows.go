package store

import (
	"context"
	"database/sql"

	"marketplace/internal/market"
)

// Helpers that read rows and results, for every area.

// queryAll runs query and scans every row with scan, the same scanX
// functions that single-row lookups use; an empty result is an empty
// (non-nil) slice. scan's errors are returned as they are (scanX wraps).
func queryAll[T any](ctx context.Context, tx *Tx, scan func(scanner) (*T, error), query string, args ...any) ([]T, error) {
	rows, err := tx.query(ctx, query, args...)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *v)
	}
	return out, wrap(rows.Err())
}

// scanOne scans a one-column row, for queryAll over ids, prices and the like.
func scanOne[T any](row scanner) (*T, error) {
	var v T
	if err := row.Scan(&v); err != nil {
		return nil, wrap(err)
	}
	return &v, nil
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

var _ scanner = (*sql.Row)(nil)

// affectedOne answers NOT_FOUND for what when res changed no row.
func affectedOne(res sql.Result, what string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return wrap(err)
	}
	if n == 0 {
		return market.NotFound(what)
	}
	return nil
}

// inserted reports whether an INSERT ... ON CONFLICT DO NOTHING added its row.
func inserted(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, wrap(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, wrap(err)
	}
	return n == 1, nil
}
