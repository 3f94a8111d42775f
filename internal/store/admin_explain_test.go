package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// TestAdminListPlans checks every filter and search path of the admin
// order list (store/admin_orders.go) and the admin searches of users and
// listings (admin_users.go, admin_listings.go, migration 00027) against
// the plans: each names its index and none scans the table, for the page
// and for its total. PostgreSQL runs with enable_seqscan off, so the small
// tables of a test still show whether an index can serve the query. The
// audit log's filters are in audit_explain_test.go; the plain
// filters of users and listings in admin_users_test.go and
// storetest/admin_listings_test.go.
func TestAdminListPlans(t *testing.T) {
	const (
		id   = "0191e6a4-1f6c-7b1e-9a51-3c7a2d1e4f50"
		page = ` ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 40`
	)
	type tc struct {
		name, where string
		pg, sqlite  []string // index names the plan must show
	}
	orderTitle := map[bool]string{
		true:  `lower(listing_title) LIKE '%table lamp%' ESCAPE '\'`,
		false: `id IN (SELECT order_id FROM orders_title_fts WHERE orders_title_fts MATCH '"table lamp"')`,
	}
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		pg := db.Dialect() == store.Postgres
		conn, err := db.WritePool().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// Rows and statistics, so the planners weigh the indexes as on live
		// tables (a rare title word, a common status), without the foreign
		// keys' rows behind them.
		fill := []string{"PRAGMA foreign_keys = OFF", sqliteFill("users", 20000, `'u' || i, 'user' || i || '@example.com', 'user' || i,
			'User Number ' || i, CASE WHEN i % 50 = 0 THEN 'suspended' ELSE 'active' END, $AT, $AT`),
			sqliteFill("listings", 20000, `'l' || i, 'u' || (i % 1000), CASE WHEN i % 50 = 0 THEN 'held' ELSE 'active' END, 'flat_rate',
			CASE WHEN i % 100 = 0 THEN 'Walnut table lamp ' ELSE 'Oak chair ' END || i, 'Brand' || (i % 300), $AT, $AT`),
			sqliteFill("orders", 20000, `'o' || i, 'l' || i, 'u' || (i % 1000), 'u' || (i % 997), 'human',
			CASE WHEN i % 3 = 0 THEN 'paid' ELSE 'completed' END, CASE WHEN i % 100 = 0 THEN 'Walnut table lamp ' ELSE 'Oak chair ' END || i,
			100, 0, 0, 100, 0, 'ship', $AT, $AT`),
			"PRAGMA foreign_keys = ON", "ANALYZE"}
		if pg {
			fill = []string{"SET session_replication_role = replica", pgFill("users", 30000, `'u' || i, 'user' || i || '@example.com', 'user' || i,
				'User Number ' || i, CASE WHEN i % 50 = 0 THEN 'suspended' ELSE 'active' END, $AT, $AT`),
				pgFill("listings", 30000, `'l' || i, 'u' || (i % 1000), CASE WHEN i % 50 = 0 THEN 'held' ELSE 'active' END, 'flat_rate',
				CASE WHEN i % 100 = 0 THEN 'Walnut table lamp ' ELSE 'Oak chair ' END || i, 'Brand' || (i % 300), $AT, $AT`),
				pgFill("orders", 30000, `'o' || i, 'l' || i, 'u' || (i % 1000), 'u' || (i % 997), 'human',
				CASE WHEN i % 3 = 0 THEN 'paid' ELSE 'completed' END, CASE WHEN i % 100 = 0 THEN 'Walnut table lamp ' ELSE 'Oak chair ' END || i,
				100, 0, 0, 100, 0, 'ship', $AT, $AT`),
				"RESET session_replication_role", "ANALYZE", "SET enable_seqscan = off"}
			defer conn.ExecContext(ctx, "RESET enable_seqscan") //nolint:errcheck
		}
		for _, q := range fill {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		tables := map[string][]tc{
			"orders": {
				{"newest", "", []string{"orders_created"}, []string{"orders_created"}},
				// The equality with other filters; a status alone on PostgreSQL
				// is checked above (ordersByStatus).
				{"status", "status = 'paid'", []string{"orders_"}, []string{"orders_status_created"}},
				{"buyerId", "buyer_id = 'u1'", []string{"orders_buyer"}, []string{"orders_buyer"}},
				{"sellerId", "seller_id = 'u1'", []string{"orders_seller"}, []string{"orders_seller"}},
				{"search id", "(id = '" + id + "' OR listing_id = '" + id + "')",
					[]string{"orders_pkey", "orders_listing"}, []string{"sqlite_autoindex_orders_1", "orders_listing"}},
				{"search title", "(" + orderTitle[pg] + ")", []string{"orders_title_trgm"}, []string{"orders_title_fts"}},
				{"search and status", "status = 'paid' AND (" + orderTitle[pg] + ")", []string{"orders_"}, []string{"orders_"}},
				// A common term on PostgreSQL (ordersByTitle): the page walks
				// the orders newest first; SQLite's is below.
				{"search common term", pick(pg, `(lower(listing_title) || '') LIKE '%chair%' ESCAPE '\'`, orderTitle[pg]),
					[]string{"orders_created"}, []string{"orders_title_fts"}},
			},
			"users": {
				{"search", pick(pg,
					`(email LIKE '%number 1234%' ESCAPE '\' OR username LIKE '%number 1234%' ESCAPE '\' OR lower(display_name) LIKE '%number 1234%' ESCAPE '\')`,
					`id IN (SELECT user_id FROM users_search_fts WHERE users_search_fts MATCH '"number 1234"')`),
					[]string{"users_email_trgm", "users_username_trgm", "users_display_name_trgm"}, []string{"users_search_fts"}},
				{"search and status", "status = 'active' AND " + pick(pg,
					`(email LIKE '%number 1234%' ESCAPE '\' OR username LIKE '%number 1234%' ESCAPE '\' OR lower(display_name) LIKE '%number 1234%' ESCAPE '\')`,
					`id IN (SELECT user_id FROM users_search_fts WHERE users_search_fts MATCH '"number 1234"')`),
					[]string{"users_"}, []string{"users_search_fts"}},
			},
			"listings": {
				{"search", pick(pg,
					`(id = '`+id+`' OR lower(title) LIKE '%lamp%' ESCAPE '\' OR lower(brand) LIKE '%lamp%' ESCAPE '\')`,
					`(id = '`+id+`' OR id IN (SELECT d.listing_id FROM search_docs d WHERE d.docid IN
						(SELECT rowid FROM search_fts WHERE search_fts MATCH '{title brand} : ("lamp")')))`),
					[]string{"listings_pkey", "listings_title_trgm", "listings_brand_trgm"}, []string{"search_fts", "SEARCH d USING INTEGER PRIMARY KEY"}},
				{"search and status", "status = 'held' AND " + pick(pg,
					`(lower(title) LIKE '%lamp%' ESCAPE '\' OR lower(brand) LIKE '%lamp%' ESCAPE '\')`,
					`(id IN (SELECT d.listing_id FROM search_docs d WHERE d.docid IN
						(SELECT rowid FROM search_fts WHERE search_fts MATCH '{title brand} : ("lamp")')))`),
					[]string{"listings_"}, []string{"search_fts"}},
			},
		}
		if !pg {
			// The bounded count of a title search on SQLite starts from the
			// trigram index and looks each order up.
			for _, and := range []string{"", " AND status = 'paid'"} {
				plan := storetest.Explain(ctx, t, conn, db.Dialect(), `SELECT COUNT(*) FROM (SELECT 1 FROM orders_title_fts
					JOIN orders ON orders.id = orders_title_fts.order_id WHERE orders_title_fts MATCH '"chair"'`+and+` LIMIT 1001) bounded`)
				if !strings.Contains(plan, "SCAN orders_title_fts VIRTUAL TABLE") || !strings.Contains(plan, "sqlite_autoindex_orders_1") {
					t.Errorf("title count%s:\n%s", and, plan)
				}
			}
			// A common title word: the page walks the filter's index newest
			// first (named: the planner would rather sort).
			for from, index := range map[string]string{"orders INDEXED BY orders_created WHERE": "orders_created",
				"orders INDEXED BY orders_status_created WHERE status = 'paid' AND": "orders_status_created"} {
				plan := storetest.Explain(ctx, t, conn, db.Dialect(), `SELECT id FROM `+from+` lower(listing_title) LIKE '%chair%' ESCAPE '\'`+page)
				if !strings.Contains(plan, "USING INDEX "+index) || strings.Contains(plan, "TEMP B-TREE FOR ORDER BY") {
					t.Errorf("title page %s:\n%s", from, plan)
				}
			}
		}
		if pg {
			// A status alone (ordersByStatus): the range leaves status a sort
			// key, so the page walks orders_status_created, never
			// orders_created, and the count reads a status index alone.
			plan := storetest.Explain(ctx, t, conn, db.Dialect(), `SELECT id FROM orders WHERE status >= 'paid' AND status <= 'paid'
				ORDER BY status DESC, created_at DESC, id DESC LIMIT 20 OFFSET 40`)
			if !strings.Contains(plan, "using orders_status_created") || strings.Contains(plan, "orders_created") ||
				!strings.Contains(plan, "Presorted Key: status, created_at") {
				t.Errorf("status page:\n%s", plan)
			}
			plan = storetest.Explain(ctx, t, conn, db.Dialect(), `SELECT COUNT(*) FROM (SELECT 1 FROM orders
				WHERE status >= 'paid' AND status <= 'paid' ORDER BY status LIMIT 1001) bounded`)
			if !strings.Contains(plan, "Index Only Scan") || strings.Contains(plan, "orders_created") {
				t.Errorf("status count:\n%s", plan)
			}
		}
		for table, cases := range tables {
			for _, c := range cases {
				where := ""
				if c.where != "" {
					where = " WHERE " + c.where
				}
				want := c.sqlite
				if pg {
					want = c.pg
				}
				for _, q := range []string{"SELECT id FROM " + table + where + page, "SELECT COUNT(*) FROM " + table + where} {
					if (c.where == "" || c.name == "search common term") && strings.HasPrefix(q, "SELECT COUNT") {
						continue // the unfiltered total: store/admin_count.go; a title's count: the trigram index
					}
					plan := storetest.Explain(ctx, t, conn, db.Dialect(), q)
					for _, idx := range want {
						if !strings.Contains(plan, idx) {
							t.Errorf("%s %s: no %s in the plan of\n%s\n%s", table, c.name, idx, q, plan)
						}
					}
					if scans(plan, table) {
						t.Errorf("%s %s: a table scan in the plan of\n%s\n%s", table, c.name, q, plan)
					}
				}
			}
		}
	})
}

var fillColumns = map[string]string{
	"users":    "id, email, username, display_name, status, created_at, updated_at",
	"listings": "id, seller_id, status, shipping_type, title, brand, created_at, updated_at",
	"orders": `id, listing_id, buyer_id, seller_id, channel, status, listing_title, item_price, shipping_cost, service_fee,
		total_charged, commission, fulfillment_type, created_at, updated_at`,
	"audit_log": "id, actor_type, actor_id, action, entity_type, entity_id, result, status, created_at",
}

// sqliteFill inserts n rows of values (a row of i, whose $AT are
// timestamps) into table.
func sqliteFill(table string, n int, values string) string {
	at := `strftime('%Y-%m-%d %H:%M:%S.000000+00:00', '2026-01-01', '+' || i || ' minutes')`
	return fmt.Sprintf(`INSERT INTO %s (%s) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) SELECT `,
		table, fillColumns[table], n) + strings.ReplaceAll(values, "$AT", at) + ` FROM n`
}

func pgFill(table string, n int, values string) string {
	at := `timestamptz '2026-01-01' + i * interval '1 minute'`
	return fmt.Sprintf(`INSERT INTO %s (%s) SELECT `, table, fillColumns[table]) + strings.ReplaceAll(values, "$AT", at) +
		fmt.Sprintf(` FROM generate_series(1, %d) i`, n)
}

func pick(pg bool, ifPG, ifSQLite string) string {
	if pg {
		return ifPG
	}
	return ifSQLite
}

// scans reports whether plan reads the whole of table: a PostgreSQL Seq
// Scan, or a SQLite SCAN of the table itself (a SCAN ... USING INDEX walks
// an index in order, which a page stops early; the tests above name the
// index it must be).
func scans(plan, table string) bool {
	for _, line := range strings.Split(plan, "\n") {
		if strings.Contains(line, "Seq Scan") {
			return true
		}
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "SCAN "+table); i >= 0 {
			rest := strings.TrimSpace(line[i+len("SCAN "+table):])
			if rest == "" || strings.HasPrefix(rest, "AS ") {
				return true
			}
		}
	}
	return false
}
