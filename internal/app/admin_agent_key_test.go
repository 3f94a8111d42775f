package app_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"marketplace/internal/testkit"
)

// idFreeParams are path parameters that name no resource of anyone's: an
// admin's key has nothing of someone else's to reach through them.
var idFreeParams = map[string]string{
	"{hours}":    "a number of hours",
	"{username}": "a public profile, the same for every caller",
	"{token}":    "a link's secret token is the credential, no key is read",
}

// TestAdminAgentKey is the authorization table of every route that takes an
// id, asked with an agent key of an administrator who is no party to the
// resource: the key acts as its owner, never with admin rights (those
// belong to the admin's bearer token), so it gets exactly what a stranger's
// key gets, and changes nothing of anyone else's. A route with an id missing
// from the table fails the test.
func TestAdminAgentKey(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()
		s.Verify(admin)
		adminKey := s.NewKey(admin, "buy_sell")
		stranger := s.VerifiedOwner("Strange")
		strangerKey := s.NewKey(stranger, "buy_sell")

		// Someone else's world: a seller, a buyer's paid order (with a
		// refund request and a dispute), a queued approval, a listing,
		// the buyer's address, card and key.
		seller := s.VerifiedOwner("Selma")
		buyer := s.NewShopper("Bruno", "pm_card_visa")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000})
		bought := s.ActiveListing(seller, "walnut cutting board end grain large", 2000)
		order := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": bought, "maxPrice": 2000,
			"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		disputed := s.ActiveListing(seller, "brass desk lamp with a green glass shade", 2500)
		dorder := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": disputed, "maxPrice": 2500,
			"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		dispute := s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": dorder, "reason": "not_as_described",
			"description": "The shade is cracked."}, buyer.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		s.Do("POST", "/api/v1/purchases/"+order+"/refund", map[string]any{"reason": "a dent", "amount": 300},
			buyer.Auth()).Want(t, http.StatusCreated, "")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000, "approvalThreshold": 1000})
		queued := s.ActiveListing(seller, "teak side table with one drawer", 3000)
		r := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": queued, "maxPrice": 3000,
			"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
		approval := r.JSON["error"].(map[string]any)["details"].(map[string]any)["approvalId"].(string)
		listing := s.ActiveListing(seller, "pyrex mixing bowls set of three", 1500)
		offer := s.Do("POST", "/api/v1/agent/offers", map[string]any{"listingId": listing, "offerPrice": 1000},
			buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		address := s.Do("POST", "/api/v1/addresses", testkit.Address(), buyer.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		card := s.SaveCard(buyer.User, "pm_card_visa")
		key := s.NewKey(buyer.User, "buy_only")
		photo := strings.TrimPrefix(s.UploadPhotos(buyer.Auth(), 1)[0], s.URL+"/api/v1/photos/")
		slot := s.Do("POST", "/api/v1/auth/me/avatar-upload-url", map[string]any{"contentType": "image/jpeg"},
			buyer.Auth()).Want(t, http.StatusOK, "").Data()
		s.Do("PUT", s.Path(slot["uploadUrl"].(string)), testkit.JPEG(300, 300), testkit.Header{Name: "Content-Type", Value: "image/jpeg"}).Want(t, http.StatusOK, "")
		avatar := strings.TrimPrefix(slot["avatarUrl"].(string), s.URL+"/api/v1/avatars/")
		thread := s.Do("POST", "/api/v1/messages", map[string]any{"listingId": listing, "content": "Still available?"},
			buyer.Auth()).Want(t, http.StatusCreated, "").Data()["threadId"].(string)
		s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": "http://127.0.0.1:9/hook"}, buyer.Auth()).Want(t, http.StatusOK, "")
		hookDelivery := s.Do("POST", "/api/v1/auth/me/webhook/test", nil, buyer.Auth()).Want(t, http.StatusOK, "").Data()["deliveryId"].(string)
		hook := s.Do("POST", "/v1/agent/webhooks", map[string]any{"url": "http://127.0.0.1:9/a", "events": []string{"*"}},
			buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)

		platform := s.Do("POST", "/api/v1/admin/acp-platforms", map[string]any{"name": "Key Agents", "webhookUrl": "http://127.0.0.1:9/acp"},
			admin.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		ship := map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"}
		const a, b = "/api/v1", "/v1"
		type row struct {
			method, pattern, path string
			body                  any
			open                  bool // anyone may do it, the stranger too
		}
		rows := []row{
			{"POST", a + "/auth/me/webhook/deliveries/{id}/retry", a + "/auth/me/webhook/deliveries/" + hookDelivery + "/retry", nil, false},
			{"DELETE", b + "/agent/webhooks/{id}", b + "/agent/webhooks/" + hook, nil, false},
			{"GET", b + "/agent/webhooks/{id}/deliveries", b + "/agent/webhooks/" + hook + "/deliveries", nil, false},
			{"POST", b + "/agent/webhooks/{id}/deliveries/{deliveryId}/retry", b + "/agent/webhooks/" + hook + "/deliveries/" + hookDelivery + "/retry", nil, false},
			{"DELETE", a + "/addresses/{id}", a + "/addresses/" + address, nil, false},
			{"PATCH", a + "/addresses/{id}/default", a + "/addresses/" + address + "/default", nil, false},
			{"GET", a + "/admin/audit/actor/{actorType}/{actorId}", a + "/admin/audit/actor/user/" + buyer.ID, nil, false},
			{"GET", a + "/admin/audit/entity/{entityType}/{entityId}", a + "/admin/audit/entity/order/" + order, nil, false},
			{"PATCH", a + "/admin/categories/{id}", a + "/admin/categories/electronics", map[string]any{"active": false}, false},
			{"DELETE", a + "/admin/acp-platforms/{id}", a + "/admin/acp-platforms/" + platform, nil, false},
			{"GET", a + "/admin/acp-platforms/{id}/deliveries", a + "/admin/acp-platforms/" + platform + "/deliveries", nil, false},
			{"PATCH", a + "/admin/config/{key}", a + "/admin/config/fees.buyer_rate_bps", map[string]any{"value": 1}, false},
			{"PATCH", a + "/admin/feature-flags/{key}", a + "/admin/feature-flags/offers", map[string]any{"enabled": false}, false},
			{"GET", a + "/admin/disputes/{id}", a + "/admin/disputes/" + dispute, nil, false},
			{"POST", a + "/admin/disputes/{id}/resolve", a + "/admin/disputes/" + dispute + "/resolve", map[string]any{"resolution": "refund_buyer"}, false},
			{"GET", a + "/admin/orders/{id}", a + "/admin/orders/" + order, nil, false},
			{"POST", a + "/admin/orders/{id}/force-cancel", a + "/admin/orders/" + order + "/force-cancel", nil, false},
			{"POST", a + "/admin/orders/{id}/force-complete", a + "/admin/orders/" + order + "/force-complete", nil, false},
			{"PATCH", a + "/admin/orders/{id}/hold", a + "/admin/orders/" + order + "/hold", map[string]any{"holdHours": 1}, false},
			{"GET", a + "/admin/listings/{id}", a + "/admin/listings/" + listing, nil, false},
			{"PATCH", a + "/admin/listings/{id}", a + "/admin/listings/" + listing, map[string]any{"price": 1400}, false},
			{"POST", a + "/admin/listings/{id}/approve", a + "/admin/listings/" + listing + "/approve", nil, false},
			{"POST", a + "/admin/listings/{id}/reject", a + "/admin/listings/" + listing + "/reject", map[string]any{"reason": "x"}, false},
			{"POST", a + "/admin/listings/{id}/delist", a + "/admin/listings/" + listing + "/delist", map[string]any{"reason": "x"}, false},
			{"GET", a + "/admin/moderation/rejections/user/{userId}", a + "/admin/moderation/rejections/user/" + seller.ID, nil, false},
			{"POST", a + "/admin/moderation/rejections/{id}/override", a + "/admin/moderation/rejections/" + listing + "/override", nil, false},
			{"POST", a + "/admin/queue/{id}/approve", a + "/admin/queue/" + approval + "/approve", nil, false},
			{"POST", a + "/admin/queue/{id}/reject", a + "/admin/queue/" + approval + "/reject", nil, false},
			{"GET", a + "/admin/users/{id}", a + "/admin/users/" + buyer.ID, nil, false},
			{"PATCH", a + "/admin/users/{id}", a + "/admin/users/" + buyer.ID, map[string]any{"status": "suspended"}, false},
			{"POST", a + "/admin/users/{id}/suspend", a + "/admin/users/" + buyer.ID + "/suspend", map[string]any{"reason": "x"}, false},
			{"POST", a + "/admin/users/{id}/ban", a + "/admin/users/" + buyer.ID + "/ban", map[string]any{"reason": "x"}, false},
			{"POST", a + "/admin/users/{id}/reinstate", a + "/admin/users/" + buyer.ID + "/reinstate", map[string]any{"reason": "x"}, false},
			{"GET", a + "/admin/users/{id}/agent-keys", a + "/admin/users/" + buyer.ID + "/agent-keys", nil, false},
			{"PATCH", a + "/admin/users/{id}/spending-controls", a + "/admin/users/" + buyer.ID + "/spending-controls", map[string]any{"dailyLimit": 1}, false},
			{"POST", a + "/admin/users/{userId}/agent-keys/{keyId}/freeze", a + "/admin/users/" + buyer.ID + "/agent-keys/" + key.ID + "/freeze", nil, false},
			{"POST", a + "/admin/users/{userId}/agent-keys/{keyId}/revoke", a + "/admin/users/" + buyer.ID + "/agent-keys/" + key.ID + "/revoke", nil, false},
			{"DELETE", a + "/agent-keys/{id}", a + "/agent-keys/" + key.ID, nil, false},
			{"PATCH", a + "/agent-keys/{id}/unfreeze", a + "/agent-keys/" + key.ID + "/unfreeze", nil, false},
			{"PATCH", a + "/agent-keys/{id}/freeze", a + "/agent-keys/" + key.ID + "/freeze", nil, false},
			{"DELETE", a + "/agent/listings/{id}", a + "/agent/listings/" + listing, nil, false},
			{"PATCH", a + "/agent/listings/{id}", a + "/agent/listings/" + listing, map[string]any{"price": 999}, false},
			{"GET", a + "/agent/listings/{id}/detail", a + "/agent/listings/" + listing + "/detail", nil, true},
			{"POST", a + "/agent/listings/{id}/watch", a + "/agent/listings/" + listing + "/watch", nil, true},
			{"GET", a + "/agent/listings/{id}/watching", a + "/agent/listings/" + listing + "/watching", nil, true},
			{"DELETE", a + "/agent/listings/{id}/watch", a + "/agent/listings/" + listing + "/watch", nil, true},
			{"GET", a + "/agent/orders/{id}", a + "/agent/orders/" + order, nil, false},
			{"POST", a + "/agent/orders/{id}/cancel", a + "/agent/orders/" + order + "/cancel", map[string]any{"reason": "no"}, false},
			{"POST", a + "/agent/orders/{id}/confirm-pickup", a + "/agent/orders/" + order + "/confirm-pickup", nil, false},
			{"POST", a + "/agent/orders/{id}/delivered", a + "/agent/orders/" + order + "/delivered", nil, false},
			{"GET", a + "/agent/orders/{id}/events", a + "/agent/orders/" + order + "/events", nil, false},
			{"POST", a + "/agent/orders/{id}/ship", a + "/agent/orders/" + order + "/ship", ship, false},
			{"GET", a + "/agent/orders/{id}/shipping", a + "/agent/orders/" + order + "/shipping", nil, false},
			{"POST", a + "/approvals/{id}/approve", a + "/approvals/" + approval + "/approve", nil, false},
			{"POST", a + "/approvals/{id}/reject", a + "/approvals/" + approval + "/reject", nil, false},
			{"GET", a + "/disputes/{id}", a + "/disputes/" + dispute, nil, false},
			{"POST", a + "/disputes/{id}/respond", a + "/disputes/" + dispute + "/respond", map[string]any{"response": "It left intact."}, false},
			{"DELETE", a + "/listings/{id}", a + "/listings/" + listing, nil, false},
			{"GET", a + "/listings/{id}", a + "/listings/" + listing, nil, true},
			{"PATCH", a + "/listings/{id}", a + "/listings/" + listing, map[string]any{"price": 999}, false},
			{"POST", a + "/listings/{id}/delete", a + "/listings/" + listing + "/delete", nil, false},
			{"POST", a + "/listings/{id}/shipping-estimate", a + "/listings/" + listing + "/shipping-estimate", map[string]any{"zip": "97201"}, true},
			{"POST", a + "/listings/{id}/watch", a + "/listings/" + listing + "/watch", nil, false},
			{"GET", a + "/listings/{id}/watching", a + "/listings/" + listing + "/watching", nil, false},
			{"DELETE", a + "/listings/{id}/watch", a + "/listings/" + listing + "/watch", nil, false},
			{"GET", a + "/messages/threads/{threadId}", a + "/messages/threads/" + thread, nil, false},
			{"POST", a + "/messages/threads/{threadId}/reply", a + "/messages/threads/" + thread + "/reply", map[string]any{"content": "x"}, false},
			{"GET", a + "/agent/messages/threads/{threadId}", a + "/agent/messages/threads/" + thread, nil, false},
			{"POST", a + "/agent/messages/threads/{threadId}/reply", a + "/agent/messages/threads/" + thread + "/reply", map[string]any{"content": "x"}, false},
			{"GET", b + "/messages/{listing_id}", b + "/messages/" + listing, nil, false},
			{"GET", a + "/onboarding/status/{id}", a + "/onboarding/status/" + order, nil, false},
			{"GET", a + "/orders/{id}", a + "/orders/" + order, nil, false},
			{"POST", a + "/orders/{id}/cancel", a + "/orders/" + order + "/cancel", map[string]any{"reason": "no"}, false},
			{"POST", a + "/orders/{id}/confirm-pickup", a + "/orders/" + order + "/confirm-pickup", nil, false},
			{"POST", a + "/orders/{id}/delivered", a + "/orders/" + order + "/delivered", nil, false},
			{"GET", a + "/orders/{id}/events", a + "/orders/" + order + "/events", nil, false},
			{"POST", a + "/orders/{id}/pickup-ready", a + "/orders/" + order + "/pickup-ready", nil, false},
			{"POST", a + "/orders/{id}/ship", a + "/orders/" + order + "/ship", ship, false},
			{"GET", a + "/orders/{id}/shipping", a + "/orders/" + order + "/shipping", nil, false},
			{"GET", a + "/orders/{id}/shipping/label", a + "/orders/" + order + "/shipping/label", nil, false},
			{"POST", a + "/orders/{id}/shipping/label", a + "/orders/" + order + "/shipping/label", nil, false},
			{"POST", a + "/orders/{id}/shipping/manual", a + "/orders/" + order + "/shipping/manual", ship, false},
			{"POST", a + "/orders/{id}/shipping/rates", a + "/orders/" + order + "/shipping/rates", map[string]any{}, false},
			{"GET", a + "/offers/{id}", a + "/offers/" + offer, nil, false},
			{"POST", a + "/offers/{id}/counter", a + "/offers/" + offer + "/counter", map[string]any{"counterPrice": 1200}, false},
			{"POST", a + "/offers/{id}/accept", a + "/offers/" + offer + "/accept", nil, false},
			{"POST", a + "/offers/{id}/reject", a + "/offers/" + offer + "/reject", nil, false},
			{"POST", a + "/offers/{id}/withdraw", a + "/offers/" + offer + "/withdraw", nil, false},
			{"GET", a + "/agent/offers/{id}", a + "/agent/offers/" + offer, nil, false},
			{"POST", a + "/agent/offers/{id}/counter", a + "/agent/offers/" + offer + "/counter", map[string]any{"counterPrice": 1200}, false},
			{"POST", a + "/agent/offers/{id}/accept", a + "/agent/offers/" + offer + "/accept", nil, false},
			{"POST", a + "/agent/offers/{id}/reject", a + "/agent/offers/" + offer + "/reject", nil, false},
			{"POST", a + "/agent/offers/{id}/withdraw", a + "/agent/offers/" + offer + "/withdraw", nil, false},
			{"GET", a + "/agent/offers/listing/{listingId}", a + "/agent/offers/listing/" + listing, nil, false},
			{"DELETE", a + "/payment-methods/{id}", a + "/payment-methods/" + card, nil, false},
			{"PATCH", a + "/payment-methods/{id}/default", a + "/payment-methods/" + card + "/default", nil, false},
			{"PUT", a + "/photos/uploads/{id}", a + "/photos/uploads/" + photo, testkit.JPEG(64, 48), false},
			{"GET", a + "/photos/{id}", a + "/photos/" + photo, nil, true},
			{"PUT", a + "/avatars/uploads/{id}", a + "/avatars/uploads/" + avatar, testkit.JPEG(64, 48), false},
			{"GET", a + "/avatars/{id}", a + "/avatars/" + avatar, nil, true},
			{"GET", a + "/photos/{id}/thumbnail", a + "/photos/" + photo + "/thumbnail", nil, true},
			{"GET", a + "/purchases/{id}", a + "/purchases/" + order, nil, false},
			{"GET", a + "/purchases/{id}/events", a + "/purchases/" + order + "/events", nil, false},
			{"POST", a + "/purchases/{id}/refund", a + "/purchases/" + order + "/refund", map[string]any{"reason": "x", "amount": 100}, false},
			{"POST", a + "/purchases/{id}/refund/seller", a + "/purchases/" + order + "/refund/seller", map[string]any{"action": "approve"}, false},
			{"GET", a + "/purchases/{id}/refunds", a + "/purchases/" + order + "/refunds", nil, false},
			{"GET", "/checkout/{orderId}", "/checkout/" + order, nil, false},
			{"POST", "/checkout/{orderId}", "/checkout/" + order, map[string]any{"cardNumber": "4242424242424242"}, false},
			{"DELETE", b + "/auth/keys/{id}", b + "/auth/keys/" + key.ID, nil, false},
			{"DELETE", b + "/listings/{id}", b + "/listings/" + listing, nil, false},
			{"GET", b + "/listings/{id}", b + "/listings/" + listing, nil, true},
			{"PATCH", b + "/listings/{id}", b + "/listings/" + listing, map[string]any{"price": 999}, false},
			{"POST", b + "/listings/{id}/shipping-estimate", b + "/listings/" + listing + "/shipping-estimate", map[string]any{"zip": "97201"}, true},
			{"GET", b + "/orders/{id}", b + "/orders/" + order, nil, false},
			{"POST", b + "/orders/{id}/dispute", b + "/orders/" + order + "/dispute", map[string]any{"reason": "not_as_described", "description": "x"}, false},
			{"POST", b + "/orders/{id}/ship", b + "/orders/" + order + "/ship", map[string]any{"carrier": "ups", "tracking_number": "1Z999AA10123456784"}, false},
			{"GET", b + "/offers/{id}", b + "/offers/" + offer, nil, false},
			{"POST", b + "/offers/{id}/respond", b + "/offers/" + offer + "/respond", map[string]any{"action": "accept"}, false},
			{"POST", b + "/sandbox/simulate/delivery/{order_id}", b + "/sandbox/simulate/delivery/" + order, nil, false},
			{"POST", b + "/sandbox/simulate/dispute/{order_id}", b + "/sandbox/simulate/dispute/" + order, nil, false},
			{"GET", b + "/search/similar/{id}", b + "/search/similar/" + listing, nil, true},
		}

		// Every route with an id is in the table.
		listed := map[string]bool{}
		for _, rw := range rows {
			listed[rw.method+" "+rw.pattern] = true
		}
		param := regexp.MustCompile(`\{[^}]+\}`)
		for _, rt := range s.App.Router.Routes() {
			params := param.FindAllString(rt.Pattern, -1)
			if len(params) == 0 || len(params) == 1 && idFreeParams[params[0]] != "" {
				continue
			}
			if slices.Contains(rt.Areas, "console") {
				continue // pages take no agent key at all (console.TestSecurity)
			}
			if slices.Contains(rt.Areas, "acp") {
				continue // a stranger's key reaches no session of another's (acp.TestACPAuthorization)
			}
			if !listed[rt.Method+" "+rt.Pattern] {
				t.Errorf("%s %s takes an id but is not in the admin agent key table", rt.Method, rt.Pattern)
			}
		}

		for _, rw := range rows {
			got := s.Do(rw.method, rw.path, rw.body, adminKey.Auth())
			want := s.Do(rw.method, rw.path, rw.body, strangerKey.Auth())
			if got.Status != want.Status || got.Code() != want.Code() {
				t.Errorf("%s %s: the admin's key got %d %s, a stranger's %d %s", rw.method, rw.pattern, got.Status, got.Code(),
					want.Status, want.Code())
			}
			if !rw.open && got.Status < 300 {
				t.Errorf("%s %s: the admin's key was let through (%d)\n%.300s", rw.method, rw.pattern, got.Status, got.Body)
			}
		}

		// Nothing of anyone else's changed.
		for id, status := range map[string]string{order: "paid", dorder: "disputed"} {
			if st := s.Do("GET", "/api/v1/orders/"+id, nil, buyer.Auth()).Want(t, http.StatusOK, "").Data()["status"]; st != status {
				t.Errorf("order %s is %v, want %s", id, st, status)
			}
		}
		if o := s.Do("GET", "/api/v1/offers/"+offer, nil, buyer.Auth()).Want(t, http.StatusOK, "").Data(); o["status"] != "pending" || testkit.Num(t, o, "round") != 1 {
			t.Errorf("offer is %v round %v, want pending round 1", o["status"], o["round"])
		}
		if d := s.Do("GET", "/api/v1/disputes/"+dispute, nil, buyer.Auth()).Want(t, http.StatusOK, "").Data(); d["status"] != "open" {
			t.Errorf("dispute is %v, want open", d["status"])
		}
		if l := s.Do("GET", "/api/v1/listings/"+listing, nil).Want(t, http.StatusOK, "").Data(); l["status"] != "active" || testkit.Num(t, l, "price") != 1500 {
			t.Errorf("listing: %v %v", l["status"], l["price"])
		}
		if n := len(s.Do("GET", "/api/v1/approvals?status=pending", nil, buyer.Auth()).Want(t, http.StatusOK, "").List()); n != 1 {
			t.Errorf("%d pending approvals, want 1", n)
		}
		if n := len(s.Do("GET", "/api/v1/addresses", nil, buyer.Auth()).Want(t, http.StatusOK, "").List()); n != 1 {
			t.Errorf("%d addresses, want 1", n)
		}
		// The buyer's offer and its question, nothing the admin's key sent.
		if ms := s.Do("GET", "/api/v1/messages/threads/"+thread, nil, seller.Auth()).Want(t, http.StatusOK, "").List(); len(ms) != 2 {
			t.Errorf("%d messages in the buyer's thread, want 2", len(ms))
		}
		s.Do("GET", "/api/v1/auth/me", nil, key.Auth()).Want(t, http.StatusOK, "") // the buyer's key still works
	})
}
