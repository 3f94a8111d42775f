package apiv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/testkit"
)

// TestFulfilmentDocumented walks every after-sale route of both surfaces
// with OpenAPI checking on, so each request and answer (successes, repeats
// and the documented refusals) is held against the published documents.
func TestFulfilmentDocumented(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("fdocs-seller")
		sellerKey := s.NewKey(seller, "sell")
		buyOnly := s.NewKey(seller, "buy")
		b := s.NewShopper("fdocs-buyer", "pm_card_visa")
		stranger := s.Register("fdocs-stranger")
		admin := s.Admin()
		const upsNumber = "1Z999AA10123456784"
		ship := map[string]any{"carrier": "ups", "trackingNumber": upsNumber}

		// buy has the shopper's agent buy a listing: shipped to the test
		// address, or collected when pickup is set.
		buy := func(listing string, pickup bool) string {
			t.Helper()
			body := map[string]any{"listingId": listing, "maxPrice": 5000, "shippingAddress": testkit.Address()}
			if pickup {
				body = map[string]any{"listingId": listing, "maxPrice": 5000, "fulfillmentType": "local_pickup"}
			}
			o := s.Do("POST", "/api/v1/agent/purchase", body, b.Key.Auth()).Want(t, http.StatusCreated, "")
			return o.Data()["id"].(string)
		}
		pickupListing := func(brief string, price int64) string {
			t.Helper()
			r := s.CreateListing(seller.Auth(), brief, map[string]any{"price": price, "condition": "good", "shippingType": "local_pickup"}).
				Want(t, http.StatusCreated, "")
			return r.Data()["id"].(string)
		}
		status := func(r *testkit.Response) any { return r.Data()["status"] }
		orderPath := func(id, tail string) string { return "/api/v1/orders/" + id + tail }

		// Ship, read the shipment, confirm delivery, hold, force-complete.
		o1 := buy(s.ActiveListing(seller, "stoneware pasta bowls set of four", 1500), false)
		if l := s.Do("GET", orderPath(o1, "/shipping"), nil, b.Auth()).Want(t, http.StatusOK, "").Data(); l["trackingNumber"] != nil {
			t.Fatalf("shipment before shipping = %v", l)
		}
		testkit.WantFields(t, s.Do("POST", orderPath(o1, "/ship"), map[string]any{}, seller.Auth()), "carrier", "trackingNumber")
		s.Do("POST", orderPath(o1, "/ship"), ship, b.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("POST", orderPath(o1, "/delivered"), nil, b.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		shipped := s.Do("POST", orderPath(o1, "/ship"), ship, seller.Auth()).Want(t, http.StatusOK, "").Data()
		if shipped["status"] != "shipped" || shipped["trackingCarrier"] != "ups" || shipped["trackingNumber"] != upsNumber ||
			shipped["shippedAt"] == nil {
			t.Fatalf("shipped order = %v", shipped)
		}
		again := s.Do("POST", orderPath(o1, "/ship"), map[string]any{"carrier": "ups", "trackingNumber": "1Z 999 AA1 01 2345 6784"},
			seller.Auth()).Want(t, http.StatusOK, "").Data()
		if again["shippedAt"] != shipped["shippedAt"] {
			t.Fatalf("a repeated ship changed the order: %v", again)
		}
		cancelled := s.Do("POST", orderPath(o1, "/cancel"), nil, seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		if d := cancelled.JSON["error"].(map[string]any)["details"].(map[string]any); d["status"] != "shipped" {
			t.Fatalf("INVALID_STATE details = %v", d)
		}
		sh := s.Do("GET", orderPath(o1, "/shipping"), nil, seller.Auth()).Want(t, http.StatusOK, "").Data()
		if sh["carrier"] != "ups" || sh["trackingNumber"] != upsNumber || sh["shippingAddress"] == nil {
			t.Fatalf("shipment = %v", sh)
		}
		s.Do("GET", orderPath(o1, "/shipping"), nil, stranger.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("GET", orderPath(o1, "/shipping"), nil, b.Key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		if st := status(s.Do("POST", orderPath(o1, "/delivered"), nil, b.Auth()).Want(t, http.StatusOK, "")); st != "delivered" {
			t.Fatalf("confirmed order is %v", st)
		}
		sold := s.Do("GET", orderPath(o1, ""), nil, seller.Auth()).Want(t, http.StatusOK, "").Data()
		if sold["payoutStatus"] != "pending" || sold["payoutDueAt"] == nil || sold["deliveredAt"] == nil {
			t.Fatalf("the seller's delivered order = %v", sold)
		}
		hold := "/api/v1/admin/orders/" + o1 + "/hold"
		testkit.WantFields(t, s.Do("PATCH", hold, map[string]any{"holdHours": 1, "payoutDueAt": "2026-07-01T00:00:00Z"}, admin.Auth()),
			"payoutDueAt")
		s.Do("PATCH", hold, map[string]any{"holdHours": 24}, seller.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("PATCH", hold, map[string]any{"payoutDueAt": "2026-07-01T00:00:00Z"}, admin.Auth()).Want(t, http.StatusOK, "")
		s.Do("PATCH", hold, map[string]any{"payoutDueAt": nil, "holdHours": 240}, admin.Auth()).Want(t, http.StatusOK, "")
		if due := s.Do("GET", orderPath(o1, ""), nil, seller.Auth()).Want(t, http.StatusOK, "").Data()["payoutDueAt"]; due != "2026-06-20T12:00:00Z" {
			t.Fatalf("payoutDueAt = %v, want ten days after delivery", due)
		}
		done := s.Do("POST", "/api/v1/admin/orders/"+o1+"/force-complete", nil, admin.Auth()).Want(t, http.StatusOK, "").Data()
		if done["status"] != "completed" || done["completedAt"] == nil {
			t.Fatalf("force-completed order = %v", done)
		}
		s.Do("PATCH", hold, map[string]any{"holdHours": 0}, admin.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")

		// Manual shipping, then the buyer's agent reads and confirms.
		o2 := buy(s.ActiveListing(seller, "linen tea towels in a set of three", 1200), false)
		s.Do("POST", orderPath(o2, "/shipping/manual"), ship, seller.Auth()).Want(t, http.StatusOK, "")
		s.Do("GET", "/api/v1/agent/orders/"+o2+"/shipping", nil, b.Key.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/agent/orders/"+o2+"/delivered", nil, b.Key.Auth()).Want(t, http.StatusOK, "")

		// The seller's agent ships; an admin cancels the shipped order.
		o3 := buy(s.ActiveListing(seller, "brass candle holders pair vintage", 1300), false)
		s.Do("POST", "/api/v1/agent/orders/"+o3+"/ship", ship, buyOnly.Auth()).Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
		s.Do("POST", "/api/v1/agent/orders/"+o3+"/ship", ship, sellerKey.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/admin/orders/"+o3+"/force-cancel", nil, seller.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		fc := s.Do("POST", "/api/v1/admin/orders/"+o3+"/force-cancel", map[string]any{"reason": "lost in transit"}, admin.Auth()).
			Want(t, http.StatusOK, "").Data()
		if fc["status"] != "cancelled" || fc["amountRefunded"] != fc["fees"].(map[string]any)["totalCharged"] {
			t.Fatalf("force-cancelled order = %v", fc)
		}
		s.Do("POST", "/api/v1/admin/orders/"+o3+"/force-complete", nil, admin.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")

		// The seller cancels, by hand and through an agent.
		o4 := buy(s.ActiveListing(seller, "walnut serving board with handle", 1400), false)
		s.Do("POST", orderPath(o4, "/cancel"), map[string]any{"reason": "damaged"}, b.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		c4 := s.Do("POST", orderPath(o4, "/cancel"), map[string]any{"reason": "damaged in storage"}, seller.Auth()).Want(t, http.StatusOK, "").Data()
		if c4["status"] != "cancelled" || c4["payoutStatus"] != "void" {
			t.Fatalf("cancelled order = %v", c4)
		}
		s.Do("POST", orderPath(o4, "/cancel"), nil, seller.Auth()).Want(t, http.StatusOK, "")
		s.Do("PATCH", "/api/v1/admin/orders/"+o4+"/hold", map[string]any{"holdHours": 1}, admin.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		o5 := buy(s.ActiveListing(seller, "glass storage jars with cork lids", 1100), false)
		s.Do("POST", "/api/v1/agent/orders/"+o5+"/cancel", nil, sellerKey.Auth()).Want(t, http.StatusOK, "")

		// Local pickup: ready, then collected by hand and through the agent.
		o6 := buy(pickupListing("oak rocking chair, collect in Portland", 2000), true)
		s.Do("POST", orderPath(o6, "/ship"), ship, seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		s.Do("POST", orderPath(o6, "/pickup-ready"), nil, seller.Auth()).Want(t, http.StatusOK, "")
		if st := status(s.Do("POST", orderPath(o6, "/confirm-pickup"), nil, b.Auth()).Want(t, http.StatusOK, "")); st != "delivered" {
			t.Fatalf("collected order is %v", st)
		}
		o7 := buy(pickupListing("pine bookshelf five shelves, collect only", 1800), true)
		s.Do("POST", orderPath(o7, "/pickup-ready"), nil, seller.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/agent/orders/"+o7+"/confirm-pickup", nil, b.Key.Auth()).Want(t, http.StatusOK, "")

		// Variant B: the seller's agent ships with snake_case fields.
		o8 := buy(s.ActiveListing(seller, "enamel camping mugs set of two", 1000), false)
		bad := s.Do("POST", "/v1/orders/"+o8+"/ship", map[string]any{"carrier": "ups"}, sellerKey.Auth())
		testkit.WantFields(t, bad, "tracking_number")
		shippedB := s.Do("POST", "/v1/orders/"+o8+"/ship", map[string]any{"carrier": "ups", "tracking_number": upsNumber},
			sellerKey.Auth()).Want(t, http.StatusOK, "").Data()
		if shippedB["status"] != "shipped" || shippedB["tracking_number"] != upsNumber || shippedB["shipped_at"] == nil {
			t.Fatalf("Variant B shipped order = %v", shippedB)
		}
		s.Do("GET", "/v1/orders/"+o8, nil, b.Key.Auth()).Want(t, http.StatusOK, "")
	})
}
