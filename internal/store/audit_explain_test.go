package store_test

import (
	"context"
	"strings"
	"testing"

	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// Each filter path of the admin audit search (GET /admin/audit, newest
// first) is served by an index on both engines: no table scan and no sort of
// the matching rows (migrations 00025 and 00027).
func TestAuditSearchUsesIndexes(t *testing.T) {
	const head = `SELECT id FROM audit_log WHERE `
	const tail = ` ORDER BY created_at DESC, id DESC LIMIT 20`
	cases := []struct{ where, index string }{
		{"actor_type = 'user' AND actor_id = 'u1'", "audit_log_actor_id"},
		{"actor_type = 'user'", "audit_log_actor_type"},
		{"entity_type = 'order' AND entity_id = 'o1'", "audit_log_entity_id"},
		{"entity_type = 'order'", "audit_log_entity_type"},
		{"action = 'POST /api/v1/agent/purchase'", "audit_log_action"},
		{"result = 'refused'", "audit_log_result"},
		{"request_id = 'req_1'", "audit_log_request"},
		{"created_at >= '2026-01-01' AND created_at < '2026-01-02'", "audit_log_created_id"},
		{"actor_type = 'agent' AND actor_id = 'k1' AND result = 'refused' AND created_at >= '2026-01-01'", ""},
		{"entity_type = 'order' AND entity_id = 'o1' AND action = 'x' AND result = 'allowed'", ""},
		// As ListAudit writes them on SQLite: an id's index, not the
		// action's or result's.
		{"actor_type = 'agent' AND actor_id = 'k1' AND +result = 'refused' AND created_at >= '2026-01-01'", "audit_log_actor_id"},
		{"entity_type = 'order' AND entity_id = 'o1' AND +action = 'x' AND +result = 'allowed'", "audit_log_entity_id"},
		{"action = 'POST /x1' AND result = 'failed'", "audit_log_action_result"},
		{"actor_type = 'agent' AND result = 'refused' AND created_at >= '2026-01-01' AND created_at < '2026-02-01'", "audit_log_actor_type_result"},
	}
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		conn, err := db.WritePool().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if db.Dialect() == store.Postgres {
			// Rows and statistics, so the planner weighs the indexes as on
			// a live table; and no scan of the table even where it is small.
			if _, err := conn.ExecContext(ctx, `INSERT INTO audit_log (id, actor_type, actor_id, action, entity_type, entity_id, result, status, created_at)
				SELECT 'a' || g, (ARRAY['user','agent','admin','anonymous'])[1 + g % 4], 'actor' || (g % 500), 'POST /x' || (g % 40),
					(ARRAY['order','listing','user'])[1 + g % 3], 'e' || (g % 3000), (ARRAY['allowed','refused','failed'])[1 + g % 3], 200,
					TIMESTAMPTZ '2026-01-01' + g * INTERVAL '1 minute'
				FROM generate_series(1, 30000) g`); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(ctx, "ANALYZE audit_log"); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
				t.Fatal(err)
			}
			defer conn.ExecContext(ctx, "RESET enable_seqscan") //nolint:errcheck
		}
		for _, c := range cases {
			if db.Dialect() == store.Postgres && strings.Contains(c.where, "+") {
				continue // unary plus is SQLite's
			}
			p := storetest.Explain(ctx, t, conn, db.Dialect(), head+c.where+tail)
			if strings.Contains(p, "Seq Scan") || strings.Contains(p, "SCAN audit_log\n") || strings.HasSuffix(p, "SCAN audit_log") ||
				!strings.Contains(p, "audit_log_") {
				t.Errorf("%s: no index:\n%s", c.where, p)
			}
			// SQLite takes the index of the filter and reads the page off it
			// in order. PostgreSQL weighs them by its statistics: a filter
			// matching a quarter of the rows walks audit_log_created_id
			// backwards, one matching a few rows sorts those few; either
			// way no scan of the table.
			if db.Dialect() == store.SQLite && c.index != "" {
				if strings.Contains(p, "TEMP B-TREE") {
					t.Errorf("%s: the page is sorted, not read off the index:\n%s", c.where, p)
				}
				if !strings.Contains(p, c.index+" ") {
					t.Errorf("%s: want %s:\n%s", c.where, c.index, p)
				}
			}
			t.Logf("%s:\n%s", c.where, p)
		}
	})
}
