package apiv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/testkit"
)

// adminAuthz checks an admin route's authorization table: no credentials
// 401, a normal user's bearer and any agent key (an admin's too) 403, the
// admin 200.
func adminAuthz(t *testing.T, s *testkit.Server, admin, user *testkit.User, paths ...string) {
	t.Helper()
	adminKey := s.NewKey(admin, "buy_sell")
	for _, path := range paths {
		s.Do("GET", path, nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("GET", path, nil, user.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("GET", path, nil, adminKey.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("GET", path, nil, admin.Auth()).Want(t, http.StatusOK, "")
	}
}

func buy(t *testing.T, s *testkit.Server, b *testkit.Shopper, listing string) map[string]any {
	t.Helper()
	return s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing, "maxPrice": 100000,
		"shippingAddress": testkit.Address()}, b.Key.Auth()).Want(t, http.StatusCreated, "").Data()
}

func ids(r *testkit.Response) []string {
	var out []string
	for _, it := range r.List() {
		out = append(out, it.(map[string]any)["id"].(string))
	}
	return out
}

func TestAdminOrdersList(t *testing.T) {
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()
		seller1 := s.VerifiedOwner("ao-seller-one")
		seller2 := s.VerifiedOwner("ao-seller-two")
		b1 := s.NewShopper("ao-buyer-one", "pm_card_visa")
		b2 := s.NewShopper("ao-buyer-two", "pm_card_visa")
		l1 := s.ActiveListing(seller1, "brass table lamp with linen shade", 2000)
		l2 := s.ActiveListing(seller1, "cast iron skillet ten inch seasoned", 3000)
		l3 := s.ActiveListing(seller2, "walnut cutting board end grain", 4000)
		o1 := buy(t, s, b1, l1)["id"].(string)
		s.Clock.Advance(1)
		o2 := buy(t, s, b2, l2)["id"].(string)
		s.Clock.Advance(1)
		o3 := buy(t, s, b1, l3)["id"].(string)
		s.Do("POST", "/api/v1/admin/orders/"+o2+"/force-cancel", map[string]any{"reason": "test"}, admin.Auth()).Want(t, http.StatusOK, "")

		adminAuthz(t, s, admin, s.Register("ao-plain-user"), "/api/v1/admin/orders", "/api/v1/admin/orders/"+o1)

		want := func(query string, expect ...string) *testkit.Response {
			t.Helper()
			r := s.Do("GET", "/api/v1/admin/orders"+query, nil, admin.Auth()).Want(t, http.StatusOK, "")
			got := ids(r)
			if len(got) != len(expect) {
				t.Fatalf("%s: got %v, want %v", query, got, expect)
			}
			for i := range got {
				if got[i] != expect[i] {
					t.Fatalf("%s: got %v, want %v", query, got, expect)
				}
			}
			return r
		}
		all := want("", o3, o2, o1)
		if m := all.JSON["meta"].(map[string]any); m["total"] != float64(3) || m["limit"] != float64(20) || m["offset"] != float64(0) {
			t.Fatalf("meta = %v", m)
		}
		first := all.List()[0].(map[string]any)
		if _, ok := first["commission"]; !ok || first["role"] != nil {
			t.Fatalf("admin order shows no commission, or a role: %v", first)
		}
		page := want("?limit=1&offset=1", o2)
		if m := page.JSON["meta"].(map[string]any); m["total"] != float64(3) || m["limit"] != float64(1) || m["offset"] != float64(1) {
			t.Fatalf("meta = %v", m)
		}
		want("?buyerId="+b1.ID, o3, o1)
		want("?sellerId="+seller1.ID, o2, o1)
		want("?buyerId="+b1.ID+"&sellerId="+seller2.ID, o3)
		want("?search="+o2, o2)
		want("?search="+l3, o3)
		want("?search=SKILLET", o2)
		want("?search=table%20lamp&buyerId="+b1.ID, o1)
		want("?search=table%20lamp&buyerId=" + b2.ID)
		want("?search=la")
		want("?search=100%25")
		status := s.Do("GET", "/api/v1/admin/orders/"+o2, nil, admin.Auth()).Want(t, http.StatusOK, "").Data()["order"].(map[string]any)["status"].(string)
		want("?status="+status, o2)
		want("?status=paid&sellerId="+seller1.ID, o1)
		for _, q := range []string{"?status=nope", "?buyerId=x", "?sellerId=x", "?limit=0", "?limit=101", "?offset=-1"} {
			s.Do("GET", "/api/v1/admin/orders"+q, nil, admin.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		}
		want("?limit=100", o3, o2, o1)
	})
}
