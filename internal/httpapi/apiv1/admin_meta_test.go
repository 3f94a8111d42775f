package apiv1_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/testkit"
)

// A filtered admin list counts its matches up to offset+market.CountBound
// and says when its total is that bound; an exact total says nothing, and
// an unfiltered total (kept by triggers) is always exact.
func TestAdminTotalCapped(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()
		// market.CountBound+1 audit entries of one action, written in one
		// statement (through the API they would take a minute).
		n := market.CountBound + 1
		var rows []string
		for i := range n {
			rows = append(rows, fmt.Sprintf("('%s', 'user', '%s', 'POST /bound', 'user', '%s', 'refused', 403, 'FORBIDDEN', 'req_%d', '10.0.0.1', '', '2026-06-10 11:00:00.000000+00:00')",
				market.NewID(), admin.ID, admin.ID, i))
		}
		if _, err := s.App.DB.WritePool().ExecContext(t.Context(), `INSERT INTO audit_log (id, actor_type, actor_id, action,
			entity_type, entity_id, result, status, error_code, request_id, ip, details, created_at) VALUES `+strings.Join(rows, ", ")); err != nil {
			t.Fatal(err)
		}
		meta := func(path string) map[string]any {
			t.Helper()
			return s.Do("GET", path, nil, admin.Auth()).Want(t, http.StatusOK, "").JSON["meta"].(map[string]any)
		}
		m := meta("/api/v1/admin/audit?action=POST+%2Fbound")
		if m["total"] != float64(n) || m["totalCapped"] != true {
			t.Errorf("over the bound: meta %v, want total %d and totalCapped", m, n)
		}
		// From offset 1 the count reaches every match: exact.
		m = meta("/api/v1/admin/audit?action=POST+%2Fbound&offset=1")
		if _, ok := m["totalCapped"]; ok || m["total"] != float64(n) {
			t.Errorf("under the bound: meta %v, want total %d and no totalCapped", m, n)
		}
		m = meta("/api/v1/admin/audit?action=POST+%2Fbound&result=allowed")
		if _, ok := m["totalCapped"]; ok || m["total"] != float64(0) {
			t.Errorf("no match: meta %v", m)
		}
		m = meta("/api/v1/admin/audit")
		if _, ok := m["totalCapped"]; ok || m["total"].(float64) <= float64(n) {
			t.Errorf("unfiltered: meta %v, want an exact total over %d", m, n)
		}

		// An order search by title counts to offset+orders.TitleCountBound.
		seller, buyer := s.Register("capped-seller"), s.Register("capped-buyer")
		listing := s.ListingWith(t, seller, "a walnut lamp", 1000, nil)
		n = orders.TitleCountBound + 1
		rows = rows[:0]
		for i := range n {
			rows = append(rows, fmt.Sprintf("('%s', '%s', '%s', '%s', 'human', 'cancelled', 'Capped walnut lamp %d', 1000, 0, 99, 1099, 0, 'shipping', '2026-06-10 11:00:00.000000+00:00', '2026-06-10 11:00:00.000000+00:00')",
				market.NewID(), listing, buyer.ID, seller.ID, i))
		}
		if _, err := s.App.DB.WritePool().ExecContext(t.Context(), `INSERT INTO orders (id, listing_id, buyer_id, seller_id, channel, status,
			listing_title, item_price, shipping_cost, service_fee, total_charged, commission, fulfillment_type, created_at, updated_at)
			VALUES `+strings.Join(rows, ", ")); err != nil {
			t.Fatal(err)
		}
		m = meta("/api/v1/admin/orders?search=capped+walnut")
		if m["total"] != float64(n) || m["totalCapped"] != true {
			t.Errorf("title search over its bound: meta %v, want total %d and totalCapped", m, n)
		}
		m = meta("/api/v1/admin/orders?search=capped+walnut&offset=1")
		if _, ok := m["totalCapped"]; ok || m["total"] != float64(n) {
			t.Errorf("title search under its bound: meta %v, want total %d and no totalCapped", m, n)
		}
		m = meta("/api/v1/admin/orders?buyerId=" + buyer.ID)
		if _, ok := m["totalCapped"]; ok || m["total"] != float64(n) {
			t.Errorf("buyer filter: meta %v, want the exact total %d", m, n)
		}
	})
}
