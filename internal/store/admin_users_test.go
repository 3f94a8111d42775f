package store_test

import (
	"strings"
	"testing"

	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// TestAdminUsersPlans checks that the admin's user list (ListUsers) is
// served by the indexes of migration 00022 (30,000 users on PostgreSQL,
// 20,000 on SQLite): each filter by its own index, newest first without a
// sort, and the search by trigram indexes: on PostgreSQL a BitmapOr of
// the three columns' GIN indexes, on SQLite users_search_fts (migration
// 00027), never a scan of the table.
func TestAdminUsersPlans(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		pg := db.Dialect() == store.Postgres
		w := db.WritePool()
		fill := `INSERT INTO users (id, email, username, display_name, status, trust_tier, role, created_at, updated_at)
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
			SELECT 'u' || i, 'user' || i || '@example.com', 'user' || i, 'User Number ' || i,
				CASE WHEN i % 50 = 0 THEN 'suspended' WHEN i % 97 = 0 THEN 'banned' ELSE 'active' END,
				CASE WHEN i % 40 = 0 THEN 'trusted' ELSE 'new' END,
				CASE WHEN i % 1000 = 0 THEN 'admin' ELSE 'user' END,
				datetime('2026-01-01', '+' || i || ' minutes'), datetime('2026-01-01') FROM n`
		if pg {
			fill = `INSERT INTO users (id, email, username, display_name, status, trust_tier, role, created_at, updated_at)
				SELECT 'u' || i, 'user' || i || '@example.com', 'user' || i, 'User Number ' || i,
					CASE WHEN i % 50 = 0 THEN 'suspended' WHEN i % 97 = 0 THEN 'banned' ELSE 'active' END,
					CASE WHEN i % 40 = 0 THEN 'trusted' ELSE 'new' END,
					CASE WHEN i % 1000 = 0 THEN 'admin' ELSE 'user' END,
					timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' FROM generate_series(1, 30000) i`
		}
		if _, err := w.ExecContext(ctx, fill); err != nil {
			t.Fatal(err)
		}
		// No VACUUM: the trigram indexes have no pending list (fastupdate
		// off), so they serve the search straight after the inserts.
		if _, err := w.ExecContext(ctx, "ANALYZE"); err != nil {
			t.Fatal(err)
		}
		page := " ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 0"
		search := `(email LIKE '%number 1234%' ESCAPE '\' OR username LIKE '%number 1234%' ESCAPE '\' OR lower(display_name) LIKE '%number 1234%' ESCAPE '\')`
		cases := []struct {
			name, where, pg, sqlite string
		}{
			{"newest first", "", "users_created", "users_created"},
			{"status", " WHERE status = 'suspended'", "users_status_created", "users_status_created"},
			{"trustTier", " WHERE trust_tier = 'trusted'", "users_tier_created", "users_tier_created"},
			{"role", " WHERE role = 'admin'", "users_role_created", "users_role_created"},
			{"search", " WHERE " + search, "users_display_name_trgm", "users_search_fts"},
		}
		if !pg {
			// users_search_fts, a trigram index (migration 00027).
			cases[len(cases)-1].where = ` WHERE id IN (SELECT user_id FROM users_search_fts WHERE users_search_fts MATCH '"number 1234"')`
		}
		for _, c := range cases {
			want := c.sqlite
			if pg {
				want = c.pg
			}
			for _, q := range []string{"SELECT id FROM users" + c.where + page, "SELECT COUNT(*) FROM users" + c.where} {
				if c.where == "" && strings.HasPrefix(q, "SELECT COUNT") {
					continue // the total of an unfiltered list counts every user
				}
				plan := storetest.Explain(ctx, t, w, db.Dialect(), q)
				if !strings.Contains(plan, want) || (pg && strings.Contains(plan, "Seq Scan")) || scans(plan, "users") {
					t.Errorf("%s: %s\nplan:\n%s", c.name, q, plan)
				}
			}
		}
	})
}
