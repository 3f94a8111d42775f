package storetest

import (
	"context"
	"strings"
	"testing"

	"marketplace/internal/store"
)

// The admin listing list and the moderation rejections are served by
// indexes on both engines (migration 00023): the plan of each query shape
// of store/admin_listings.go names its index, never scans the table and
// never sorts.
// PostgreSQL runs with enable_seqscan off, so an empty table still shows
// whether an index can serve the query.
func TestAdminListingsIndexes(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		const order = ` ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 0`
		cases := []struct{ query, index string }{
			{`SELECT id FROM listings` + order, "listings_created"},
			{`SELECT id FROM listings WHERE status = 'held'` + order, "listings_status_created"},
			{`SELECT id FROM listings WHERE seller_id = 's1'` + order, "listings_seller_created"},
			{`SELECT id FROM listings WHERE status = 'active' AND seller_id = 's1'` + order, "listings_seller_status"},
			{`SELECT COUNT(*) FROM listings WHERE status = 'held'`, "listings_status_"},
			{`SELECT id FROM moderation_rejections` + order, "moderation_rejections_created"},
			{`SELECT id FROM moderation_rejections WHERE user_id = 'u1'` + order, "moderation_rejections_user_created"},
		}
		ctx := context.Background()
		conn, err := db.WritePool().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if db.Dialect() == store.Postgres {
			if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
				t.Fatal(err)
			}
			defer conn.ExecContext(ctx, "RESET enable_seqscan") //nolint:errcheck
		}
		for _, c := range cases {
			text := Explain(ctx, t, conn, db.Dialect(), c.query)
			if !strings.Contains(text, c.index) || strings.Contains(text, "Seq Scan") || strings.Contains(text, "Sort") ||
				strings.Contains(text, "TEMP B-TREE") ||
				strings.Contains(text, "SCAN listings\n") || strings.HasSuffix(text, "SCAN listings") {
				t.Errorf("%s:\nplan does not use %s:\n%s", c.query, c.index, text)
			}
		}
	})
}
