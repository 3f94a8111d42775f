package apiv1_test

import (
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/testkit"
)

// TestOrdersDocumented walks every purchase, order, approval and checkout
// route of both surfaces with OpenAPI checking on, so each request and
// answer is held against the published documents.
func TestOrdersDocumented(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("docs-seller")
		b := s.NewShopper("docs-buyer", "pm_card_visa")
		human := s.Register("docs-human")
		stranger := s.Register("docs-stranger")
		addr := testkit.Address()

		// Agent purchase: estimate, buy, replay, a reused key, a refused cap.
		first := s.ActiveListing(seller, "vintage pyrex mixing bowl set of three", 2500)
		est := s.Do("POST", "/api/v1/agent/purchase/fee-estimate", map[string]any{"listingId": first, "buyerZip": "97201"},
			b.Key.Auth()).Want(t, http.StatusOK, "")
		if got := est.Data()["totalCharged"]; got != float64(2599) {
			t.Fatalf("estimate totalCharged = %v, want 2599", got)
		}
		body := map[string]any{"listingId": first, "maxPrice": 3000, "shippingAddress": addr, "idempotencyKey": "docs-1"}
		bought := s.Do("POST", "/api/v1/agent/purchase", body, b.Key.Auth()).Want(t, http.StatusCreated, "")
		agentOrder := bought.Data()["id"].(string)
		if bought.Data()["status"] != "paid" {
			t.Fatalf("agent order is %v, want paid", bought.Data()["status"])
		}
		replay := s.Do("POST", "/api/v1/agent/purchase", body, b.Key.Auth()).Want(t, http.StatusCreated, "")
		if replay.Header.Get("Idempotent-Replayed") != "true" || replay.Data()["id"] != agentOrder {
			t.Fatalf("replay: header %q, id %v", replay.Header.Get("Idempotent-Replayed"), replay.Data()["id"])
		}
		body["maxPrice"] = 2900
		s.Do("POST", "/api/v1/agent/purchase", body, b.Key.Auth()).Want(t, http.StatusConflict, "DUPLICATE_REQUEST")

		pricey := s.ActiveListing(seller, "mid century walnut sideboard with sliding doors", 20000)
		over := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": pricey, "maxPrice": 20000,
			"shippingAddress": addr}, b.Key.Auth()).Want(t, http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
		if d := over.JSON["error"].(map[string]any)["details"].(map[string]any); d["limit_type"] != "per_transaction" {
			t.Fatalf("spending details = %v", d)
		}

		s.Do("GET", "/api/v1/agent/purchase/spending-summary", nil, b.Key.Auth()).Want(t, http.StatusOK, "")
		if l := s.Do("GET", "/api/v1/agent/orders?role=buyer&status=paid&limit=10", nil, b.Key.Auth()).
			Want(t, http.StatusOK, "").List(); len(l) != 1 {
			t.Fatalf("agent orders: %d, want 1", len(l))
		}
		s.Do("GET", "/api/v1/agent/orders/"+agentOrder, nil, b.Key.Auth()).Want(t, http.StatusOK, "")
		if ev := s.Do("GET", "/api/v1/agent/orders/"+agentOrder+"/events", nil, b.Key.Auth()).
			Want(t, http.StatusOK, "").List(); len(ev) == 0 {
			t.Fatal("the agent order has no events")
		}

		// Human purchase on the hosted checkout, paid with JSON, then confirmed.
		second := s.ActiveListing(seller, "cast iron dutch oven five quart enamel", 1500)
		co := s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": second, "shippingAddress": addr, "idempotencyKey": "docs-h1"},
			human.Auth()).Want(t, http.StatusCreated, "")
		humanOrder := co.Data()["orderId"].(string)
		page := s.Path(co.Data()["checkoutUrl"].(string))
		if st := s.Do("GET", page, nil).Want(t, http.StatusOK, "").Data()["status"]; st != "pending_payment" {
			t.Fatalf("checkout is %v, want pending_payment", st)
		}
		html := s.Do("GET", page, nil, testkit.Header{Name: "Accept", Value: "text/html"}).Want(t, http.StatusOK, "")
		if !strings.HasPrefix(html.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("checkout page content type %q", html.Header.Get("Content-Type"))
		}
		s.Do("POST", page, map[string]any{"cardNumber": "4000000000000002"}).Want(t, http.StatusPaymentRequired, "PAYMENT_FAILED")
		if st := s.Do("POST", page, map[string]any{"cardNumber": "4242 4242 4242 4242"}).Want(t, http.StatusOK, "").
			Data()["status"]; st != "paid" {
			t.Fatalf("paid checkout is %v", st)
		}
		s.Do("POST", "/api/v1/purchases/confirm", map[string]any{"orderId": humanOrder}, human.Auth()).Want(t, http.StatusOK, "")

		// A browser pays a second checkout with the form.
		third := s.ActiveListing(seller, "handmade ceramic pour over coffee dripper", 1800)
		co2 := s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": third, "shippingAddress": addr},
			human.Auth()).Want(t, http.StatusCreated, "")
		page2 := s.Path(co2.Data()["checkoutUrl"].(string))
		s.Do("POST", page2, "cardNumber=4242424242424242", testkit.Header{Name: "Content-Type", Value: "application/x-www-form-urlencoded"},
			testkit.Header{Name: "Accept", Value: "text/html"}).Want(t, http.StatusOK, "")
		if d := s.Do("GET", page2, nil).Want(t, http.StatusOK, "").Data(); d["status"] != "paid" || d["expiresAt"] != nil {
			t.Fatalf("form-paid checkout = %v", d)
		}

		// Reads of the human order by each party.
		if r := s.Do("GET", "/api/v1/orders/"+humanOrder, nil, human.Auth()).Want(t, http.StatusOK, ""); r.Data()["role"] != "buyer" {
			t.Fatalf("buyer's role = %v", r.Data()["role"])
		}
		if r := s.Do("GET", "/api/v1/orders/"+humanOrder, nil, seller.Auth()).Want(t, http.StatusOK, ""); r.Data()["sellerPayout"] == nil {
			t.Fatalf("the seller sees no payout: %v", r.Data())
		}
		s.Do("GET", "/api/v1/orders/"+humanOrder, nil, stranger.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("GET", "/api/v1/orders/01a2001b-0000-7000-8000-000000000000", nil, human.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("GET", "/api/v1/orders/"+humanOrder+"/events", nil, human.Auth()).Want(t, http.StatusOK, "")
		s.Do("GET", "/api/v1/purchases/"+humanOrder, nil, human.Auth()).Want(t, http.StatusOK, "")
		s.Do("GET", "/api/v1/purchases/"+humanOrder+"/events", nil, seller.Auth()).Want(t, http.StatusOK, "")
		if l := s.Do("GET", "/api/v1/purchases/buyer?status=paid", nil, human.Auth()).Want(t, http.StatusOK, "").List(); len(l) != 2 {
			t.Fatalf("human purchases: %d, want 2", len(l))
		}
		if l := s.Do("GET", "/api/v1/purchases/seller?limit=50&offset=0", nil, seller.Auth()).Want(t, http.StatusOK, "").List(); len(l) != 3 {
			t.Fatalf("sales: %d, want 3", len(l))
		}
		s.Do("POST", "/api/v1/orders/"+humanOrder+"/shipping/rates", nil, seller.Auth()).Want(t, http.StatusOK, "")

		// Approvals: one approved, one rejected.
		s.Do("PUT", "/api/v1/spending-controls", map[string]any{"approvalThreshold": 1000}, b.Auth()).Want(t, http.StatusOK, "")
		queue := func(listing string) string {
			r := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing, "maxPrice": 5000,
				"shippingAddress": addr}, b.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
			return r.JSON["error"].(map[string]any)["details"].(map[string]any)["approvalId"].(string)
		}
		a1 := queue(s.ActiveListing(seller, "brass table lamp with linen shade", 2000))
		a2 := queue(s.ActiveListing(seller, "wool throw blanket in forest green", 2200))
		if l := s.Do("GET", "/api/v1/approvals?status=pending", nil, b.Auth()).Want(t, http.StatusOK, "").List(); len(l) != 2 {
			t.Fatalf("pending approvals: %d, want 2", len(l))
		}
		if st := s.Do("POST", "/api/v1/approvals/"+a1+"/approve", nil, b.Auth()).Want(t, http.StatusOK, "").Data()["status"]; st != "paid" {
			t.Fatalf("approved order is %v", st)
		}
		if st := s.Do("POST", "/api/v1/approvals/"+a2+"/reject", map[string]any{"reason": "too dear"}, b.Auth()).
			Want(t, http.StatusOK, "").Data()["status"]; st != "cancelled" {
			t.Fatalf("rejected order is %v", st)
		}

		// Variant B: a queued purchase, then a paid one, and its reads.
		queuedB := s.Do("POST", "/v1/purchase", map[string]any{"listing_id": s.ActiveListing(seller, "set of four linen napkins", 1900),
			"max_price": 5000, "shipping_address": addr}, b.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
		if d := queuedB.JSON["error"].(map[string]any)["details"].(map[string]any); d["approval_id"] == nil || d["order_id"] == nil {
			t.Fatalf("Variant B approval details = %v", d)
		}
		s.Do("PUT", "/api/v1/spending-controls", map[string]any{"approvalThreshold": nil}, b.Auth()).Want(t, http.StatusOK, "")
		boughtB := s.Do("POST", "/v1/purchase", map[string]any{"listing_id": s.ActiveListing(seller, "oak cutting board with juice groove", 1200),
			"max_price": 1500, "shipping_method": "carrier", "selected_shipping_cost": 0, "shipping_address": addr},
			b.Key.Auth(), testkit.Header{Name: "Idempotency-Key", Value: "docs-b1"}).Want(t, http.StatusCreated, "")
		orderB := boughtB.Data()["order_id"].(string)
		if f := boughtB.Data()["fees"].(map[string]any); f["total_charged"] != float64(1299) {
			t.Fatalf("Variant B fees = %v", f)
		}
		list := s.Do("GET", "/v1/orders?role=buyer&limit=5", nil, b.Key.Auth()).Want(t, http.StatusOK, "")
		if n := len(list.Data()["orders"].([]any)); n != 5 {
			t.Fatalf("Variant B orders page: %d, want 5", n)
		}
		s.Do("GET", "/v1/orders/"+orderB, nil, b.Key.Auth()).Want(t, http.StatusOK, "")
		s.Do("GET", "/v1/orders/"+orderB, nil, seller.Auth()).Want(t, http.StatusOK, "")
	})
}
