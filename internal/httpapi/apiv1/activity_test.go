package apiv1_test

import (
	"net/http"
	"testing"
	"time"

	"marketplace/internal/testkit"
)

// activityOf is the caller's activity.
func activityOf(t *testing.T, s *testkit.Server, u *testkit.User) map[string]any {
	t.Helper()
	return s.Do("GET", "/api/v1/auth/me/activity", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
}

// hasAction reports whether u's activity lists the action of typ on the
// order or offer id (idKey "orderId" or "offerId"), and returns it.
func hasAction(t *testing.T, s *testkit.Server, u *testkit.User, typ, idKey, id string) map[string]any {
	t.Helper()
	for _, x := range activityOf(t, s, u)["pendingActions"].([]any) {
		a := x.(map[string]any)
		if a["type"] == typ && a[idKey] == id {
			return a
		}
	}
	return nil
}

// TestActivity: each pending action appears for the user who must act, and
// not for the other party, and leaves once done; unread messages and
// recent events are counted and listed.
func TestActivity(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		s.Do("GET", "/api/v1/auth/me/activity", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")

		// A paid shipping order: the seller ships.
		sc := fulfilPaid(t, s, "actship", nil)
		if a := hasAction(t, s, sc.seller, "ship", "orderId", sc.order); a == nil || a["dueAt"] != nil {
			t.Fatalf("no ship action: %v", activityOf(t, s, sc.seller))
		}
		if hasAction(t, s, sc.buyer.User, "ship", "orderId", sc.order) != nil {
			t.Fatal("the buyer is asked to ship")
		}
		// The buyer asks for a refund: the seller answers it.
		refund := s.Do("POST", "/api/v1/purchases/"+sc.order+"/refund", map[string]any{"reason": "arrived late", "amount": 2000},
			sc.buyer.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		if hasAction(t, s, sc.seller, "answer_refund_request", "orderId", sc.order) == nil {
			t.Fatal("no answer_refund_request action")
		}
		s.Do("POST", "/api/v1/purchases/"+sc.order+"/refund/seller", map[string]any{"refundId": refund, "action": "approve"},
			sc.seller.Auth()).Want(t, http.StatusOK, "")
		if hasAction(t, s, sc.seller, "answer_refund_request", "orderId", sc.order) != nil {
			t.Fatal("answer_refund_request stays after the answer")
		}
		s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"},
			sc.seller.Auth()).Want(t, http.StatusOK, "")
		if hasAction(t, s, sc.seller, "ship", "orderId", sc.order) != nil {
			t.Fatal("ship stays after shipping")
		}
		// Delivered, then disputed: the seller responds.
		s.Do("POST", "/api/v1/orders/"+sc.order+"/delivered", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "")
		dispute := s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": sc.order, "reason": "not_as_described",
			"description": "The top is cracked"}, sc.buyer.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		if hasAction(t, s, sc.seller, "respond_to_dispute", "orderId", sc.order) == nil {
			t.Fatal("no respond_to_dispute action")
		}
		s.Do("POST", "/api/v1/disputes/"+dispute+"/respond", map[string]any{"response": "It left here whole"},
			sc.seller.Auth()).Want(t, http.StatusOK, "")
		if hasAction(t, s, sc.seller, "respond_to_dispute", "orderId", sc.order) != nil {
			t.Fatal("respond_to_dispute stays after the response")
		}

		// A paid local-pickup order: the seller marks it ready.
		pk := fulfilPaid(t, s, "actpick", map[string]any{"shippingType": "local_pickup", "shippingCost": nil})
		if hasAction(t, s, pk.seller, "mark_pickup_ready", "orderId", pk.order) == nil {
			t.Fatalf("no mark_pickup_ready action: %v", activityOf(t, s, pk.seller))
		}
		s.Do("POST", "/api/v1/orders/"+pk.order+"/pickup-ready", nil, pk.seller.Auth()).Want(t, http.StatusOK, "")
		if hasAction(t, s, pk.seller, "mark_pickup_ready", "orderId", pk.order) != nil {
			t.Fatal("mark_pickup_ready stays")
		}

		// An offer awaits the seller, then (countered) the buyer; dueAt is its expiry.
		seller := s.VerifiedOwner("actofferseller")
		buyer := s.NewShopper("actofferbuyer", "pm_card_visa")
		listing := offerListing(t, s, seller, "Brass floor lamp with linen shade", 8000)
		o := s.Do("POST", "/api/v1/offers", map[string]any{"listingId": listing, "offerPrice": 6000}, buyer.Auth()).
			Want(t, http.StatusCreated, "").Data()
		offer := o["id"].(string)
		a := hasAction(t, s, seller, "respond_to_offer", "offerId", offer)
		if a == nil || a["dueAt"] == nil || a["orderId"] != nil {
			t.Fatalf("seller's respond_to_offer: %v", a)
		}
		if due, _ := time.Parse(time.RFC3339, a["dueAt"].(string)); !due.After(s.Clock.Now()) {
			t.Fatalf("dueAt %v is not ahead", a["dueAt"])
		}
		if hasAction(t, s, buyer.User, "respond_to_offer", "offerId", offer) != nil {
			t.Fatal("the buyer is asked to answer their own offer")
		}
		s.Do("POST", "/api/v1/offers/"+offer+"/counter", map[string]any{"counterPrice": 7000}, seller.Auth()).Want(t, http.StatusOK, "")
		if hasAction(t, s, seller, "respond_to_offer", "offerId", offer) != nil ||
			hasAction(t, s, buyer.User, "respond_to_offer", "offerId", offer) == nil {
			t.Fatal("after the counter the offer should await the buyer only")
		}
		s.Do("POST", "/api/v1/offers/"+offer+"/reject", nil, buyer.Auth()).Want(t, http.StatusOK, "")
		if hasAction(t, s, buyer.User, "respond_to_offer", "offerId", offer) != nil {
			t.Fatal("respond_to_offer stays after the rejection")
		}

		// An agent's purchase over the approval threshold waits for the owner.
		owner := s.NewShopper("actapprover", "pm_card_visa")
		s.SetControls(owner.User, map[string]any{"approvalThreshold": 2000})
		_, order := apprQueue(t, s, owner, purchListing(t, s, seller, 2500, nil), 3000)
		if hasAction(t, s, owner.User, "approve_purchase", "orderId", order) == nil {
			t.Fatalf("no approve_purchase action: %v", activityOf(t, s, owner.User))
		}
		approvals := s.Do("GET", "/api/v1/approvals", nil, owner.Auth()).Want(t, http.StatusOK, "").List()
		aid := approvals[0].(map[string]any)["id"].(string)
		s.Do("POST", "/api/v1/approvals/"+aid+"/reject", nil, owner.Auth()).Want(t, http.StatusOK, "")
		if hasAction(t, s, owner.User, "approve_purchase", "orderId", order) != nil {
			t.Fatal("approve_purchase stays after the rejection")
		}

		// Unread messages (the offer's rounds were posted in the thread
		// too) and recent events, newest first.
		unread := activityOf(t, s, seller)["unreadMessages"].(float64)
		s.Do("POST", "/api/v1/messages", map[string]any{"listingId": listing, "content": "Is it still for sale?"}, buyer.Auth()).
			Want(t, http.StatusCreated, "")
		act := activityOf(t, s, seller)
		if act["unreadMessages"] != unread+1 {
			t.Fatalf("unreadMessages %v", act["unreadMessages"])
		}
		recent := act["recent"].([]any)
		if len(recent) == 0 || recent[0].(map[string]any)["type"] != "message.received" {
			t.Fatalf("recent %v", recent)
		}
		for range 25 {
			feedRecord(t, s, seller.ID, "listing.updated")
		}
		if n := len(activityOf(t, s, seller)["recent"].([]any)); n != 20 {
			t.Fatalf("recent has %d events, want 20", n)
		}
	})
}
