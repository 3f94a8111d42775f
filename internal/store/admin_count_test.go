package store_test

import (
	"context"
	"strings"
	"testing"

	"marketplace/internal/admin/users"
	"marketplace/internal/audit"
	"marketplace/internal/orders"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// admin_counts (migration 00027) follows inserts, deletes and cascaded
// deletes exactly on both engines, and a filtered total counts up to
// offset+CountBound matches, then reports one more.
func TestAdminCounts(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		pg := db.Dialect() == store.Postgres
		w := db.WritePool()
		exec := func(q string) {
			t.Helper()
			if _, err := w.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		check := func(when string) {
			t.Helper()
			for _, table := range []string{"users", "listings", "orders", "audit_log"} {
				var kept, counted int
				if err := w.QueryRowContext(ctx, `SELECT COALESCE(SUM(n), 0) FROM admin_counts WHERE name = '`+table+`'`).Scan(&kept); err != nil {
					t.Fatal(err)
				}
				if err := w.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table).Scan(&counted); err != nil {
					t.Fatal(err)
				}
				if kept != counted {
					t.Errorf("%s: admin_counts says %d %s, there are %d", when, kept, table, counted)
				}
			}
		}
		check("empty")
		fill := func(table string, n int, values string) string {
			if pg {
				return pgFill(table, n, values)
			}
			return sqliteFill(table, n, values)
		}
		exec(fill("users", 30, `'u' || i, 'user' || i || '@example.com', 'user' || i, 'User ' || i, 'active', $AT, $AT`))
		exec(fill("listings", 60, `'l' || i, 'u' || (1 + i % 3), 'active', 'flat_rate', 'Lamp ' || i, 'Brand', $AT, $AT`))
		exec(fill("orders", 60, `'o' || i, 'l' || i, 'u' || (10 + i % 5), 'u' || (1 + i % 3), 'human', 'cancelled', 'Lamp ' || i,
			100, 0, 0, 100, 0, 'ship', $AT, $AT`))
		check("filled")
		exec(`DELETE FROM orders WHERE id IN ('o1', 'o2')`)
		exec(`DELETE FROM users WHERE id = 'u1'`) // cascades to its listings and their orders
		exec(`DELETE FROM users WHERE id = 'u10'`)
		check("after deletes")

		// The user search's trigram index follows a rename.
		exec(`UPDATE users SET display_name = 'Renamed Person' WHERE id = 'u5'`)
		for search, want := range map[string]int{"renamed pers": 1, "user 5": 0, "user 6": 1, "user6@": 1, "user2": 11} {
			list, total, err := db.Read().ListUsers(ctx, users.UserFilter{Search: search, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			if total != want || len(list) != want {
				t.Errorf("search %q: %d users, total %d, want %d", search, len(list), total, want)
			}
		}

		// An order search by a common title word counts up to
		// orders.TitleCountBound and pages newest first by walking the
		// newest orders (ordersByTitle); a rarer one counts exactly and is
		// gathered off the title index. With the short walk shortened to 5
		// or 50 orders, a common term's page is gathered (up to
		// market.CountBound matches) or walked to its end.
		exec(fill("orders", store.CountBound+200, `'p' || i, 'l' || (1 + 3 * (i % 15)), 'u' || (11 + i % 4), 'u' || (2 + i % 2), 'human',
			CASE WHEN i % 2 = 0 THEN 'expired' ELSE 'refunded' END, CASE WHEN i % 9 = 0 THEN 'Walnut lamp ' ELSE 'Oak chair ' END || i,
			100, 0, 0, 100, 0, 'ship', $AT, $AT`))
		check("more orders")
		bound := orders.TitleCountBound
		for _, c := range []struct {
			f     orders.AdminOrderFilter
			walk  int64 // titleWalk, when not the default
			total int
			first string
		}{
			{orders.AdminOrderFilter{Search: "CHAIR"}, 0, bound + 1, "p1200"},
			{orders.AdminOrderFilter{Search: "chair", Status: "expired"}, 0, bound + 1, "p1200"},
			{orders.AdminOrderFilter{Search: "chair", Status: "refunded", Offset: 20}, 0, bound + 21, "p1153"},
			{orders.AdminOrderFilter{Search: "walnut lamp"}, 0, bound + 1, "p1197"},
			{orders.AdminOrderFilter{Search: "walnut lamp"}, 50, bound + 1, "p1197"},
			{orders.AdminOrderFilter{Search: "CHAIR"}, 5, bound + 1, "p1200"},
			{orders.AdminOrderFilter{Search: "chair", Offset: 40}, 50, bound + 41, "p1155"},
			{orders.AdminOrderFilter{Search: "walnut lamp", BuyerID: "u11"}, 50, 33, "p1188"},
			{orders.AdminOrderFilter{Search: "walnut lamp", Offset: 100}, 50, 133, "p297"},
			{orders.AdminOrderFilter{Search: "chair", Status: "refunded", Offset: 20}, 50, bound + 21, "p1153"},
			{orders.AdminOrderFilter{Search: "chair 105"}, 0, 10, "p1059"},
			// A status alone (on PostgreSQL ordersByStatus's range): the
			// same rows and order.
			{orders.AdminOrderFilter{Status: "expired"}, 0, 600, "p1200"},
			{orders.AdminOrderFilter{Status: "refunded", Offset: 20}, 0, 600, "p1159"},
		} {
			c.f.Limit = 20
			if c.walk > 0 {
				store.SetTitleWalk(t, c.walk)
			}
			list, total, err := db.Read().AdminOrders(ctx, c.f)
			store.SetTitleWalk(t, 4_000)
			if err != nil {
				t.Fatal(err)
			}
			if total != c.total || len(list) == 0 || list[0].ID != c.first {
				t.Errorf("%+v (walk %d): total %d, want %d; first %v, want %s", c.f, c.walk, total, c.total, list, c.first)
				continue
			}
			want := min(20, c.total-c.f.Offset)
			if len(list) != want {
				t.Errorf("%+v (walk %d): %d orders, want %d", c.f, c.walk, len(list), want)
			}
			for i, o := range list {
				if (c.f.Search != "" && !strings.Contains(strings.ToLower(o.ListingTitle), strings.ToLower(strings.Fields(c.f.Search)[0]))) ||
					(c.f.Status != "" && o.Status != c.f.Status) || (c.f.BuyerID != "" && o.BuyerID != c.f.BuyerID) ||
					(i > 0 && o.CreatedAt.After(list[i-1].CreatedAt)) {
					t.Errorf("%+v: %d: %s %q %s", c.f, i, o.ID, o.ListingTitle, o.Status)
				}
			}
		}

		exec(fill("audit_log", store.CountBound+50, `'a' || i, 'user', 'u2', 'POST /x', 'order', 'o' || (i % 7), 'allowed', 200, $AT`))
		check("audit")
		for _, c := range []struct {
			f    audit.Filter
			want int
		}{
			{audit.Filter{}, store.CountBound + 50},
			{audit.Filter{Offset: 100}, store.CountBound + 50},
			{audit.Filter{ActorType: "user"}, store.CountBound + 1},
			{audit.Filter{ActorType: "user", Offset: 40}, store.CountBound + 41},
			{audit.Filter{ActorType: "user", Offset: 100}, store.CountBound + 50},
			{audit.Filter{EntityID: "o3"}, (store.CountBound+50-3)/7 + 1},
		} {
			c.f.Limit = 20
			list, total, err := db.Read().ListAudit(ctx, c.f)
			if err != nil {
				t.Fatal(err)
			}
			if total != c.want || len(list) != 20 {
				t.Errorf("%+v: total %d (%d entries), want %d", c.f, total, len(list), c.want)
			}
		}
	})
}
