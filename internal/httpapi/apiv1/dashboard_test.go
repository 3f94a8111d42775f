package apiv1_test

import (
	"net/http"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/testkit"
)

// dashboardSale buys one of seller's listings (item 10000, flat shipping
// 800: the seller is owed 10500) and returns the order id.
func dashboardSale(t *testing.T, s *testkit.Server, seller *testkit.User, buyer *testkit.Shopper, brief string) string {
	t.Helper()
	listing := s.CreateListing(seller.Auth(), brief, map[string]any{"price": 10000, "condition": "good",
		"shippingType": "flat_rate", "shippingCost": 800}).Want(t, http.StatusCreated, "").Data()["id"].(string)
	return s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing, "maxPrice": 10000,
		"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
}

func dashboardOf(t *testing.T, s *testkit.Server, u *testkit.User) map[string]any {
	t.Helper()
	return s.Do("GET", "/api/v1/seller/dashboard", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
}

// wantFigures compares the numeric fields of an object.
func wantFigures(t *testing.T, what string, got map[string]any, want map[string]int64) {
	t.Helper()
	for k, v := range want {
		if n, ok := got[k].(float64); !ok || int64(n) != v {
			t.Errorf("%s.%s = %v, want %d", what, k, got[k], v)
		}
	}
}

func TestSellerDashboard(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("dashseller")
		buyer := s.NewShopper("dashbuyer", "pm_card_visa")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000})

		// A new seller has nothing.
		d := dashboardOf(t, s, seller)
		wantFigures(t, "sales", testkit.Obj(t, d, "sales"), map[string]int64{"count": 0, "grossSales": 0, "netEarnings": 0})
		if items := d["actionItems"].([]any); len(items) != 0 {
			t.Fatalf("action items of a new seller: %v", items)
		}

		s.ActiveListing(seller, "Cast iron skillet ten inch, seasoned", 2500)
		toShip := dashboardSale(t, s, seller, buyer, "Oak bookshelf three shelves, solid")
		s.Clock.Advance(time.Hour)
		delivered := dashboardSale(t, s, seller, buyer, "Vintage film camera with 50mm lens")
		released := dashboardSale(t, s, seller, buyer, "Wool area rug five by eight, blue")
		ship := map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"}
		for _, id := range []string{released, delivered} {
			s.Do("POST", "/api/v1/orders/"+id+"/ship", ship, seller.Auth()).Want(t, http.StatusOK, "")
			s.Do("POST", "/api/v1/orders/"+id+"/delivered", nil, buyer.Auth()).Want(t, http.StatusOK, "")
			if id == released {
				s.Clock.Advance(73 * time.Hour)
				fulfilRelease(t, s)
			}
		}

		d = dashboardOf(t, s, seller)
		wantFigures(t, "listings", testkit.Obj(t, d, "listings"), map[string]int64{"active": 1, "sold": 3, "held": 0})
		wantFigures(t, "sales", testkit.Obj(t, d, "sales"), map[string]int64{"count": 3, "last30Days": 3,
			"grossSales": 3 * 10800, "commission": 3 * 300, "refunded": 0, "netEarnings": 3 * 10500, "averageSalePrice": 10000})
		wantFigures(t, "payouts", testkit.Obj(t, d, "payouts"), map[string]int64{"upcoming": 10500, "pending": 10500,
			"pendingCount": 1, "frozen": 0, "released": 10500, "releasedCount": 1})
		p := testkit.Obj(t, d, "payouts")
		want := s.Clock.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
		if p["nextReleaseAt"] != want {
			t.Errorf("nextReleaseAt %v, want %s", p["nextReleaseAt"], want)
		}
		items := d["actionItems"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["orderId"] != toShip || items[0].(map[string]any)["action"] != "ship" {
			t.Fatalf("action items %v, want shipping %s", items, toShip)
		}

		// A refund request and a dispute wait for the seller; the dispute
		// freezes the delivered order's payout.
		refund := s.Do("POST", "/api/v1/purchases/"+toShip+"/refund", map[string]any{"reason": "arrived late", "amount": 2000},
			buyer.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		dispute := s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": delivered, "reason": "not_as_described",
			"description": "The lens is scratched"}, buyer.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		d = dashboardOf(t, s, seller)
		wantFigures(t, "payouts", testkit.Obj(t, d, "payouts"), map[string]int64{"upcoming": 10500, "pending": 0,
			"pendingCount": 0, "frozen": 10500, "frozenCount": 1, "released": 10500})
		wantFigures(t, "disputes", testkit.Obj(t, d, "disputes"), map[string]int64{"open": 1, "awaitingResponse": 1})
		items = d["actionItems"].([]any)
		if len(items) != 3 {
			t.Fatalf("action items %v, want ship, refund, dispute", items)
		}
		for i, want := range []map[string]any{{"action": "ship", "orderId": toShip}, {"action": "answer_refund_request",
			"orderId": toShip, "refundId": refund}, {"action": "respond_to_dispute", "orderId": delivered, "disputeId": dispute}} {
			for k, v := range want {
				if items[i].(map[string]any)[k] != v {
					t.Fatalf("action item %d: %v, want %v", i, items[i], want)
				}
			}
		}

		// The seller gives the partial refund and answers the dispute.
		s.Do("POST", "/api/v1/purchases/"+toShip+"/refund/seller", map[string]any{"refundId": refund, "action": "approve"},
			seller.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/disputes/"+dispute+"/respond", map[string]any{"response": "It left here unscratched"},
			seller.Auth()).Want(t, http.StatusOK, "")
		d = dashboardOf(t, s, seller)
		wantFigures(t, "sales", testkit.Obj(t, d, "sales"), map[string]int64{"count": 3, "refunded": 2000,
			"netEarnings": 3*10500 - 2000})
		wantFigures(t, "payouts", testkit.Obj(t, d, "payouts"), map[string]int64{"upcoming": 10500 - 2000, "frozen": 10500})
		wantFigures(t, "disputes", testkit.Obj(t, d, "disputes"), map[string]int64{"open": 1, "awaitingResponse": 0})
		if items = d["actionItems"].([]any); len(items) != 1 || items[0].(map[string]any)["action"] != "ship" {
			t.Fatalf("action items after answering: %v", items)
		}

		// The buyer's own dashboard shows none of the seller's figures, and
		// agent keys are refused.
		wantFigures(t, "buyer sales", testkit.Obj(t, dashboardOf(t, s, buyer.User), "sales"), map[string]int64{"count": 0})
		s.Do("GET", "/api/v1/seller/dashboard", nil, buyer.Key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("GET", "/api/v1/seller/dashboard", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("GET", "/api/v1/seller/dashboard", nil, testkit.Bearer("not-a-token")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.SetStatus(seller.ID, accounts.StatusSuspended)
		s.Do("GET", "/api/v1/seller/dashboard", nil, seller.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
	})
}
