package apiv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/testkit"
)

// The admin queue shows every owner's purchase approvals, and an admin's
// decision there works like the owner's.
func TestAdminQueue(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()
		seller := s.VerifiedOwner("queue-seller")
		b := s.NewShopper("queue-buyer", "pm_card_visa")
		s.Do("PUT", "/api/v1/spending-controls", map[string]any{"approvalThreshold": 1000}, b.Auth()).Want(t, http.StatusOK, "")
		first := s.ActiveListing(seller, "brass table lamp with linen shade", 2000)
		second := s.ActiveListing(seller, "cast iron skillet ten inch seasoned", 3000)
		queue := func(listing string) string {
			r := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing, "maxPrice": 5000,
				"shippingAddress": testkit.Address()}, b.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
			return r.JSON["error"].(map[string]any)["details"].(map[string]any)["approvalId"].(string)
		}
		a1, a2 := queue(first), queue(second)

		list := s.Do("GET", "/api/v1/admin/queue?type=purchase_approval&status=pending", nil, admin.Auth()).Want(t, http.StatusOK, "")
		if n := len(list.List()); n != 2 {
			t.Fatalf("queue has %d items, want 2", n)
		}
		item := list.List()[0].(map[string]any)
		if item["type"] != "purchase_approval" || item["status"] != "pending" {
			t.Fatalf("queue item = %v", item)
		}
		s.Do("GET", "/api/v1/admin/queue?type=listing", nil, admin.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		s.Do("GET", "/api/v1/admin/queue", nil, b.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("GET", "/api/v1/admin/queue", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")

		paid := s.Do("POST", "/api/v1/admin/queue/"+a1+"/approve", nil, admin.Auth()).Want(t, http.StatusOK, "")
		if paid.Data()["status"] != "paid" {
			t.Fatalf("approved order is %v, want paid", paid.Data()["status"])
		}
		rej := s.Do("POST", "/api/v1/admin/queue/"+a2+"/reject", map[string]any{"reason": "not this one"}, admin.Auth()).
			Want(t, http.StatusOK, "")
		if rej.Data()["status"] != "cancelled" {
			t.Fatalf("rejected order is %v, want cancelled", rej.Data()["status"])
		}
		s.Do("POST", "/api/v1/admin/queue/"+a2+"/approve", nil, admin.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		left := s.Do("GET", "/api/v1/admin/queue?status=pending", nil, admin.Auth()).Want(t, http.StatusOK, "")
		if n := len(left.List()); n != 0 {
			t.Fatalf("%d items still pending, want 0", n)
		}
	})
}
