package apiv1_test

import (
	"net/http"
	"testing"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

// aoAuthz checks an admin route's authorization table: no credentials
// 401, a normal user's bearer and any agent key (an admin's too) 403, the
// admin 200.
func aoAuthz(t *testing.T, s *testkit.Server, admin, user *testkit.User, paths ...string) {
	t.Helper()
	adminKey := s.NewKey(admin, "buy_sell")
	for _, path := range paths {
		s.Do("GET", path, nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("GET", path, nil, user.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("GET", path, nil, adminKey.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("GET", path, nil, admin.Auth()).Want(t, http.StatusOK, "")
	}
}

func aoBuy(t *testing.T, s *testkit.Server, b *testkit.Shopper, listing string) map[string]any {
	t.Helper()
	return s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing, "maxPrice": 100000,
		"shippingAddress": testkit.Address()}, b.Key.Auth()).Want(t, http.StatusCreated, "").Data()
}

func aoIDs(r *testkit.Response) []string {
	var out []string
	for _, it := range r.List() {
		out = append(out, it.(map[string]any)["id"].(string))
	}
	return out
}

func TestAdminOrdersList(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()
		seller1 := s.VerifiedOwner("ao-seller-one")
		seller2 := s.VerifiedOwner("ao-seller-two")
		b1 := s.NewShopper("ao-buyer-one", "pm_card_visa")
		b2 := s.NewShopper("ao-buyer-two", "pm_card_visa")
		l1 := s.ActiveListing(seller1, "brass table lamp with linen shade", 2000)
		l2 := s.ActiveListing(seller1, "cast iron skillet ten inch seasoned", 3000)
		l3 := s.ActiveListing(seller2, "walnut cutting board end grain", 4000)
		o1 := aoBuy(t, s, b1, l1)["id"].(string)
		s.Clock.Advance(1)
		o2 := aoBuy(t, s, b2, l2)["id"].(string)
		s.Clock.Advance(1)
		o3 := aoBuy(t, s, b1, l3)["id"].(string)
		s.Do("POST", "/api/v1/admin/orders/"+o2+"/force-cancel", map[string]any{"reason": "test"}, admin.Auth()).Want(t, http.StatusOK, "")

		aoAuthz(t, s, admin, s.Register("ao-plain-user"), "/api/v1/admin/orders", "/api/v1/admin/orders/"+o1)

		want := func(query string, expect ...string) *testkit.Response {
			t.Helper()
			r := s.Do("GET", "/api/v1/admin/orders"+query, nil, admin.Auth()).Want(t, http.StatusOK, "")
			got := aoIDs(r)
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

// The finance summary to the cent: five sales of 10000 + 800 shipping
// (service fee 378, commission 300, seller payout 10500, charged 11178).
func TestAdminFinanceSummary(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()
		seller := s.VerifiedOwner("fin-seller")
		buyer := s.NewShopper("fin-buyer", "pm_card_visa")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000, "dailyLimit": 500000,
			"weeklyLimit": 500000, "monthlyLimit": 500000})
		released := dashboardSale(t, s, seller, buyer, "Oak bookshelf three shelves, solid")
		cancelled := dashboardSale(t, s, seller, buyer, "Vintage film camera with 50mm lens")
		partial := dashboardSale(t, s, seller, buyer, "Wool area rug five by eight, blue")
		disputed := dashboardSale(t, s, seller, buyer, "Brass floor lamp with linen shade")
		platform := dashboardSale(t, s, seller, buyer, "Walnut cutting board, end grain")
		ship := map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"}
		for _, id := range []string{released, disputed} {
			s.Do("POST", "/api/v1/orders/"+id+"/ship", ship, seller.Auth()).Want(t, http.StatusOK, "")
			s.Do("POST", "/api/v1/orders/"+id+"/delivered", nil, buyer.Auth()).Want(t, http.StatusOK, "")
		}
		// A full refund: the seller cancels (10500 from the seller, 678 from
		// the platform).
		s.Do("POST", "/api/v1/orders/"+cancelled+"/cancel", map[string]any{"reason": "broke it"}, seller.Auth()).
			Want(t, http.StatusOK, "")
		// Partial refunds: 2000 all from the seller; 11000 of which 10500
		// from the seller and 500 from the platform.
		for id, amount := range map[string]int64{partial: 2000, platform: 11000} {
			rf := s.Do("POST", "/api/v1/purchases/"+id+"/refund", map[string]any{"reason": "arrived late", "amount": amount},
				buyer.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
			s.Do("POST", "/api/v1/purchases/"+id+"/refund/seller", map[string]any{"refundId": rf, "action": "approve"},
				seller.Auth()).Want(t, http.StatusOK, "")
		}
		s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": disputed, "reason": "not_as_described",
			"description": "The shade is torn"}, buyer.Auth()).Want(t, http.StatusCreated, "")
		s.Clock.Advance(73 * time.Hour)
		fulfilRelease(t, s)
		dashboardSale(t, s, seller, buyer, "Cast iron skillet ten inch, seasoned") // paid on 2026-06-13

		summary := func(query string) map[string]any {
			t.Helper()
			return s.Do("GET", "/api/v1/admin/finance/summary"+query, nil, admin.Auth()).Want(t, http.StatusOK, "").Data()
		}
		day := summary("?startDate=2026-06-10&endDate=2026-06-10")
		wantFigures(t, "summary", day, map[string]int64{"orders": 5, "gmv": 50000, "serviceFees": 5 * 378,
			"commissions": 5 * 300, "grossRevenue": 5 * 678, "refunds": 11178 + 2000 + 11000, "netRevenue": 5*678 - 678 - 500,
			"payoutsReleased": 10500, "payoutsPending": 8500 + 10500 + 0})
		if day["startDate"] != "2026-06-10" || day["endDate"] != "2026-06-10" {
			t.Fatalf("summary dates = %v", day)
		}
		// Charged less refunded is exactly the platform's net revenue plus
		// the sellers' payouts.
		if got := testkit.Num(t, day, "netRevenue") + testkit.Num(t, day, "payoutsReleased") + testkit.Num(t, day, "payoutsPending"); got != 5*11178-24178 {
			t.Fatalf("net revenue + payouts = %d, want %d", got, 5*11178-24178)
		}
		// The seller dashboard agrees: its net earnings are the payouts.
		d := dashboardOf(t, s, seller)
		p := testkit.Obj(t, d, "payouts")
		if testkit.Num(t, p, "released") != 10500 ||
			testkit.Num(t, p, "upcoming")+testkit.Num(t, p, "pending")+testkit.Num(t, p, "frozen") != 8500+10500+0+10500 {
			t.Fatalf("dashboard payouts %v", p)
		}
		if n := testkit.Num(t, testkit.Obj(t, d, "sales"), "netEarnings"); n != 10500+8500+10500+0+10500 {
			t.Fatalf("dashboard net earnings %d", n)
		}
		wantFigures(t, "empty", summary("?startDate=2026-06-11&endDate=2026-06-12"), map[string]int64{"orders": 0, "gmv": 0,
			"refunds": 0, "netRevenue": 0, "payoutsPending": 0})
		wantFigures(t, "both", summary("?startDate=2026-06-10&endDate=2026-06-13"), map[string]int64{"orders": 6,
			"gmv": 60000, "payoutsPending": 8500 + 10500 + 10500})
		for _, q := range []string{"", "?startDate=2026-06-10", "?startDate=2026-6-1&endDate=2026-06-10",
			"?startDate=2026-06-10&endDate=2026-06-09"} {
			s.Do("GET", "/api/v1/admin/finance/summary"+q, nil, admin.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		}
		aoAuthz(t, s, admin, s.Register("fin-plain-user"), "/api/v1/admin/finance/summary?startDate=2026-06-10&endDate=2026-06-10")
	})
}

func TestAdminMetrics(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()
		seller := s.VerifiedOwner("mx-seller")
		agentBuyer := s.NewShopper("mx-agent-buyer", "pm_card_visa")
		waiting := s.NewShopper("mx-waiting-buyer", "pm_card_visa")
		s.SetControls(waiting.User, map[string]any{"approvalThreshold": 1000})
		human := s.Register("mx-human-buyer")
		overview := func() map[string]any {
			t.Helper()
			return s.Do("GET", "/api/v1/admin/metrics/overview", nil, admin.Auth()).Want(t, http.StatusOK, "").Data()
		}
		before := overview() // 2026-06-10, a Wednesday

		agentOrder := aoBuy(t, s, agentBuyer, s.ActiveListing(seller, "brass table lamp with linen shade", 2000))["id"].(string)
		co := s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": s.ActiveListing(seller, "cast iron skillet ten inch seasoned", 3000),
			"shippingAddress": testkit.Address()}, human.Auth()).Want(t, http.StatusCreated, "").Data()
		humanOrder := co["orderId"].(string)
		s.Do("POST", s.Path(co["checkoutUrl"].(string)), map[string]any{"cardNumber": "4242424242424242"}).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": s.ActiveListing(seller, "walnut cutting board end grain", 4000),
			"maxPrice": 5000, "shippingAddress": testkit.Address()}, waiting.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
		held := s.ActiveListing(seller, "wool area rug five by eight blue", 5000)
		s.EditListing(held, func(l *listings.Listing) { l.Status = listings.StatusHeld })
		s.Register("mx-newcomer")
		s.Do("POST", "/api/v1/purchases/"+agentOrder+"/refund", map[string]any{"reason": "arrived late", "amount": 500},
			agentBuyer.Auth()).Want(t, http.StatusCreated, "")
		s.Do("POST", "/api/v1/orders/"+humanOrder+"/ship", map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"},
			seller.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/orders/"+humanOrder+"/delivered", nil, human.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": humanOrder, "reason": "not_as_described",
			"description": "Rusty"}, human.Auth()).Want(t, http.StatusCreated, "")

		after := overview()
		delta := map[string]int64{"orders": 2, "gmv": 5000, "newUsers": 1, "newListings": 4, "agentOrders": 1}
		for _, w := range []string{"today", "week", "allTime"} {
			b, a := testkit.Obj(t, before, w), testkit.Obj(t, after, w)
			for k, d := range delta {
				if got := testkit.Num(t, a, k) - testkit.Num(t, b, k); got != d {
					t.Errorf("%s.%s grew by %d, want %d", w, k, got, d)
				}
			}
		}
		b, a := testkit.Obj(t, before, "actionItems"), testkit.Obj(t, after, "actionItems")
		for _, k := range []string{"heldListings", "openDisputes", "pendingApprovals", "pendingRefunds"} {
			if got := testkit.Num(t, a, k) - testkit.Num(t, b, k); got != 1 {
				t.Errorf("actionItems.%s grew by %d, want 1", k, got)
			}
		}

		// Tomorrow (Thursday) today is empty and the week is not; next
		// Monday the week is empty too; all time keeps everything.
		s.Clock.Advance(24 * time.Hour)
		next := overview()
		wantFigures(t, "today", testkit.Obj(t, next, "today"), map[string]int64{"orders": 0, "gmv": 0, "newUsers": 0,
			"newListings": 0, "agentOrders": 0})
		wantFigures(t, "week", testkit.Obj(t, next, "week"), map[string]int64{"orders": testkit.Num(t, testkit.Obj(t, after, "week"), "orders")})
		s.Clock.Advance(4 * 24 * time.Hour)
		monday := overview()
		wantFigures(t, "week", testkit.Obj(t, monday, "week"), map[string]int64{"orders": 0, "gmv": 0, "newUsers": 0})
		wantFigures(t, "allTime", testkit.Obj(t, monday, "allTime"), map[string]int64{
			"orders": testkit.Num(t, testkit.Obj(t, after, "allTime"), "orders"), "gmv": testkit.Num(t, testkit.Obj(t, after, "allTime"), "gmv")})

		avh := func(query string) map[string]any {
			t.Helper()
			return s.Do("GET", "/api/v1/admin/metrics/agent-vs-human"+query, nil, admin.Auth()).Want(t, http.StatusOK, "").Data()
		}
		r := avh("?startDate=2026-06-10&endDate=2026-06-10")
		wantFigures(t, "agent", testkit.Obj(t, r, "agent"), map[string]int64{"orders": 1, "gmv": 2000})
		wantFigures(t, "human", testkit.Obj(t, r, "human"), map[string]int64{"orders": 1, "gmv": 3000})
		r = avh("?startDate=2026-06-11&endDate=2026-06-30")
		wantFigures(t, "agent", testkit.Obj(t, r, "agent"), map[string]int64{"orders": 0, "gmv": 0})
		wantFigures(t, "human", testkit.Obj(t, r, "human"), map[string]int64{"orders": 0, "gmv": 0})
		for _, q := range []string{"", "?startDate=2026-06-10", "?startDate=x&endDate=2026-06-10", "?startDate=2026-06-10&endDate=2026-06-01"} {
			s.Do("GET", "/api/v1/admin/metrics/agent-vs-human"+q, nil, admin.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		}
		aoAuthz(t, s, admin, s.Register("mx-plain-user"), "/api/v1/admin/metrics/overview",
			"/api/v1/admin/metrics/agent-vs-human?startDate=2026-06-10&endDate=2026-06-10")
	})
}

func TestAdminOrderDetail(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()
		seller := s.VerifiedOwner("aod-seller")
		b := s.NewShopper("aod-buyer", "pm_card_visa")
		s.SetControls(b.User, map[string]any{"perTransactionLimit": 50000, "approvalThreshold": 1000})
		r := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": s.ActiveListing(seller, "brass table lamp with linen shade", 3000),
			"maxPrice": 5000, "shippingAddress": testkit.Address()}, b.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
		approval := r.JSON["error"].(map[string]any)["details"].(map[string]any)["approvalId"].(string)
		id := s.Do("POST", "/api/v1/admin/queue/"+approval+"/approve", nil, admin.Auth()).Want(t, http.StatusOK, "").Data()["id"].(string)
		rf := s.Do("POST", "/api/v1/purchases/"+id+"/refund", map[string]any{"reason": "a dent", "amount": 500},
			b.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		s.Do("POST", "/api/v1/purchases/"+id+"/refund/seller", map[string]any{"refundId": rf, "action": "approve"},
			seller.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/orders/"+id+"/ship", map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"},
			seller.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/orders/"+id+"/delivered", nil, b.Auth()).Want(t, http.StatusOK, "")
		dsp := s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": id, "reason": "not_as_described",
			"description": "The shade is torn"}, b.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)

		d := s.Do("GET", "/api/v1/admin/orders/"+id, nil, admin.Auth()).Want(t, http.StatusOK, "").Data()
		o := testkit.Obj(t, d, "order")
		if o["id"] != id || o["status"] != "disputed" || testkit.Num(t, o, "commission") != 90 || o["role"] != nil {
			t.Fatalf("order = %v", o)
		}
		evs := d["events"].([]any)
		if len(evs) < 4 || evs[0].(map[string]any)["type"] != "approval.required" || evs[len(evs)-1].(map[string]any)["type"] != "order.disputed" {
			t.Fatalf("events = %v", evs)
		}
		sh := testkit.Obj(t, d, "shipment")
		if sh["fulfillmentType"] != "shipping" || sh["trackingNumber"] != "1Z999AA10123456784" || sh["deliveredAt"] == nil {
			t.Fatalf("shipment = %v", sh)
		}
		rfs := d["refunds"].([]any)
		if len(rfs) != 1 || rfs[0].(map[string]any)["id"] != rf || testkit.Num(t, rfs[0].(map[string]any), "sellerShare") != 500 {
			t.Fatalf("refunds = %v", rfs)
		}
		ds := d["disputes"].([]any)
		if len(ds) != 1 || ds[0].(map[string]any)["id"] != dsp || ds[0].(map[string]any)["status"] != "open" {
			t.Fatalf("disputes = %v", ds)
		}
		au := testkit.Obj(t, d, "authorization")
		if au["channel"] != "agent" || au["agentKeyId"] != b.Key.ID || au["ownerId"] != b.ID {
			t.Fatalf("authorization = %v", au)
		}
		if k := testkit.Obj(t, au, "key"); k["status"] != "active" || k["scope"] != "buy_sell" {
			t.Fatalf("authorization.key = %v", k)
		}
		if ap := testkit.Obj(t, au, "approval"); ap["id"] != approval || ap["status"] != "approved" || ap["decidedBy"] != admin.ID ||
			testkit.Num(t, ap, "amount") == 0 {
			t.Fatalf("authorization.approval = %v", ap)
		}

		// A human's checkout: no key, no approval.
		human := s.Register("aod-human")
		co := s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": s.ActiveListing(seller, "cast iron skillet ten inch seasoned", 3000),
			"shippingAddress": testkit.Address()}, human.Auth()).Want(t, http.StatusCreated, "").Data()
		s.Do("POST", s.Path(co["checkoutUrl"].(string)), map[string]any{"cardNumber": "4242424242424242"}).Want(t, http.StatusOK, "")
		hd := s.Do("GET", "/api/v1/admin/orders/"+co["orderId"].(string), nil, admin.Auth()).Want(t, http.StatusOK, "").Data()
		if au := testkit.Obj(t, hd, "authorization"); au["channel"] != "human" || au["agentKeyId"] != nil || au["key"] != nil ||
			au["approval"] != nil || au["ownerId"] != human.ID {
			t.Fatalf("human authorization = %v", au)
		}
		if rf := hd["refunds"].([]any); len(rf) != 0 {
			t.Fatalf("human refunds = %v", rf)
		}

		s.Do("GET", "/api/v1/admin/orders/"+market.NewID(), nil, admin.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("GET", "/api/v1/admin/orders/nope", nil, admin.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
	})
}
