package store

import (
	"context"

	"marketplace/internal/market"
)

// CountBound is how far an admin list counts the rows of a filter beyond
// its offset. Counting every match of a broad filter at a million rows
// costs 50 to 100 ms and more (PostgreSQL counts 333,000 rows in 55 ms, a
// date range of 570,000 in over 100; SQLite's trigram index gathers the
// 10,000 orders titled "lamp" in over a second), longer than the page
// itself, so the count stops: meta.total is exact up to
// offset+CountBound matches, and a filter that matches more reports
// offset+CountBound+1, read "more than offset+CountBound" (the next pages
// still list every match). An unfiltered list's total is always exact: it
// comes from admin_counts, which triggers keep (migration 00027).
const CountBound = market.CountBound

// adminTotal is the total of an admin list of table (one of admin_counts'
// names) filtered by cond (" WHERE ..." or ""), as CountBound describes.
func (tx *Tx) adminTotal(ctx context.Context, table, cond string, args []any, offset int) (int, error) {
	var n int
	if cond == "" {
		err := tx.queryRow(ctx, `SELECT COALESCE(SUM(n), 0) FROM admin_counts WHERE name = ?`, table).Scan(&n)
		return n, wrap(err)
	}
	err := tx.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM `+table+cond+` LIMIT ?) bounded`,
		append(append([]any{}, args...), max(offset, 0)+CountBound+1)...).Scan(&n)
	return n, wrap(err)
}
