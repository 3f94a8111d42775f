package agentv1_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"marketplace/internal/config"
	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

const sbTracking = "1Z999AA10123456784" // a UPS number with a good check digit

// sbAdvance moves the sandbox clock by hours through the API and returns the
// answer's data, after checking the clock moved by exactly that much.
func sbAdvance(t *testing.T, s *testkit.Server, auth testkit.Header, hours int) map[string]any {
	t.Helper()
	before := s.Clock.Now()
	r := s.Do("POST", "/v1/sandbox/time-advance/"+testkit.Cents(int64(hours)), nil, auth).Want(t, http.StatusOK, "")
	wantMeta(t, r)
	d := r.Data()
	now, err := time.Parse(time.RFC3339Nano, d["now"].(string))
	want := before.Add(time.Duration(hours) * time.Hour)
	if err != nil || !now.Equal(want) || !s.Clock.Now().Equal(want) || testkit.Num(t, d, "advanced_hours") != int64(hours) {
		t.Fatalf("advance %d h from %v = %v (clock %v), want now %v", hours, before, d, s.Clock.Now(), want)
	}
	return d
}

// sbOrder reads an order through Variant B as auth.
func sbOrder(t *testing.T, s *testkit.Server, id string, auth testkit.Header) map[string]any {
	t.Helper()
	return s.Do("GET", "/v1/orders/"+id, nil, auth).Want(t, http.StatusOK, "").Data()
}

// sbPaid makes a paid agent order of a new listing of seller at price.
func sbPaid(t *testing.T, s *testkit.Server, seller *testkit.User, buyer *testkit.Shopper, price int64, h ...testkit.Header) (listing, order string) {
	t.Helper()
	listing = bpListing(t, s, seller, price, nil)
	return listing, bpBuy(t, s, buyer.Key, bpBody(listing, price), h...).Data()["id"].(string)
}

func sbShip(t *testing.T, s *testkit.Server, seller *testkit.User, order string) {
	t.Helper()
	s.Do("POST", "/v1/orders/"+order+"/ship", map[string]any{"carrier": "ups", "tracking_number": sbTracking}, seller.Auth()).
		Want(t, http.StatusOK, "")
}

// TestSandboxTimeAdvance moves the service clock and sees every rule that
// reads it follow at once.
func TestSandboxTimeAdvance(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("sbclockseller")
		buyer := s.NewShopper("sbclockbuyer", "pm_card_visa")

		t.Run("bad hours", func(t *testing.T) {
			before := s.Clock.Now()
			for _, h := range []string{"0", "721", "9999999999", "-1", "1.5", "abc", "%2B5", "1e2"} {
				r := s.Do("POST", "/v1/sandbox/time-advance/"+h, nil, buyer.Key.Auth())
				testkit.WantFields(t, r, "hours")
				wantMeta(t, r)
			}
			if !s.Clock.Now().Equal(before) {
				t.Fatalf("a refused advance moved the clock from %v to %v", before, s.Clock.Now())
			}
			s.Do("POST", "/v1/sandbox/time-advance/1", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do("POST", "/v1/sandbox/time-advance/1", nil, testkit.AgentKey("mk_test_garbage")).
				Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		})

		t.Run("the hold ends and the seller is paid", func(t *testing.T) {
			_, order := sbPaid(t, s, seller, buyer, 2000)
			sbShip(t, s, seller, order)
			s.Do("POST", "/v1/sandbox/simulate/delivery/"+order, nil, buyer.Key.Auth()).Want(t, http.StatusOK, "")
			payout := testkit.Num(t, sbOrder(t, s, order, seller.Auth()), "seller_payout")
			ledger := s.Ledger()

			if d := sbAdvance(t, s, seller.Auth(), 71); testkit.Num(t, d, "orders_changed") != 0 || testkit.Num(t, d, "orders_failed") != 0 {
				t.Fatalf("71 hours into a 72-hour hold: %v", d)
			}
			if o := sbOrder(t, s, order, seller.Auth()); o["status"] != "delivered" || o["payout_status"] != "pending" {
				t.Fatalf("paid out early: %v", o)
			}
			d := sbAdvance(t, s, buyer.Key.Auth(), 2) // 73 hours after delivery
			if testkit.Num(t, d, "orders_changed") != 1 || testkit.Num(t, d, "orders_failed") != 0 {
				t.Fatalf("advance past the hold = %v, want one order changed", d)
			}
			o := sbOrder(t, s, order, seller.Auth())
			if o["status"] != "completed" || o["payout_status"] != "released" || o["completed_at"] == nil {
				t.Fatalf("after the hold: %v", o)
			}
			if got := s.Ledger(); got.PaidOut-ledger.PaidOut != payout || got.Charged != ledger.Charged || got.Refunded != ledger.Refunded {
				t.Fatalf("processor moved %+v -> %+v, want a transfer of %d", ledger, got, payout)
			}
			// Nothing is left to do: advancing again changes nothing.
			if d := sbAdvance(t, s, seller.Auth(), 1); testkit.Num(t, d, "orders_changed") != 0 {
				t.Fatalf("a second advance changed %v", d)
			}
		})

		t.Run("a human checkout runs out", func(t *testing.T) {
			human := s.Register("sbclockhuman")
			listing := bpListing(t, s, seller, 1500, nil)
			c := s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": listing, "shippingAddress": testkit.Address()},
				human.Auth()).Want(t, http.StatusCreated, "").Data()
			order := c["orderId"].(string)
			if st := bpListingStatus(t, s, listing, human.Auth()); st != "reserved" {
				t.Fatalf("listing is %s during checkout", st)
			}
			d := sbAdvance(t, s, human.Auth(), 1)
			if testkit.Num(t, d, "orders_changed") != 1 {
				t.Fatalf("advance past the reservation = %v, want one order changed", d)
			}
			if st := sbOrder(t, s, order, human.Auth())["status"]; st != "expired" {
				t.Fatalf("checkout is %v an hour later, want expired", st)
			}
			if st := bpListingStatus(t, s, listing, human.Auth()); st != "active" {
				t.Fatalf("listing is %s after the checkout expired, want active", st)
			}
		})

		t.Run("the most one call may move", func(t *testing.T) {
			sbAdvance(t, s, buyer.Key.Auth(), 720)
		})
	})
}

// TestSandboxSimulateDelivery is the carrier's delivery scan: who may ask,
// and from which state.
func TestSandboxSimulateDelivery(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("sbdelseller")
		buyer := s.NewShopper("sbdelbuyer", "pm_card_visa")
		stranger := s.NewShopper("sbdelstranger", "pm_card_visa")
		path := func(id string) string { return "/v1/sandbox/simulate/delivery/" + id }

		_, order := sbPaid(t, s, seller, buyer, 2000)
		s.Do("POST", path(order), nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("POST", path(order), nil, stranger.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("POST", path(order), nil, stranger.Key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		r := s.Do("POST", path(order), nil, buyer.Key.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		if st := bpDetails(t, r)["status"]; st != "paid" {
			t.Fatalf("details.status = %v, want paid", st)
		}
		s.Do("POST", path(market.NewID()), nil, buyer.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("POST", path("not-an-id"), nil, buyer.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")

		sbShip(t, s, seller, order)
		s.Do("POST", path(order), nil, stranger.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		r = s.Do("POST", path(order), nil, seller.Auth()).Want(t, http.StatusOK, "")
		wantMeta(t, r)
		o := r.Data()
		if o["status"] != "delivered" || o["delivered_at"] == nil || o["role"] != "seller" || o["payout_status"] != "pending" || o["payout_due_at"] == nil {
			t.Fatalf("after the seller's simulation: %v", o)
		}
		// Delivered already: answered as it is.
		again := s.Do("POST", path(order), nil, buyer.Auth()).Want(t, http.StatusOK, "").Data()
		if again["status"] != "delivered" || again["delivered_at"] != o["delivered_at"] || again["role"] != "buyer" {
			t.Fatalf("simulating twice: %v", again)
		}
		var types []string
		for _, e := range s.Do("GET", "/api/v1/orders/"+order+"/events", nil, buyer.Auth()).Want(t, http.StatusOK, "").List() {
			types = append(types, e.(map[string]any)["type"].(string))
		}
		if want := []string{"order.created", "payment.succeeded", "order.shipped", "order.delivered"}; !slices.Equal(types, want) {
			t.Fatalf("timeline = %v, want %v", types, want)
		}

		// The buyer's agent simulates another; a completed order is past it.
		_, second := sbPaid(t, s, seller, buyer, 1000)
		sbShip(t, s, seller, second)
		if st := s.Do("POST", path(second), nil, buyer.Key.Auth()).Want(t, http.StatusOK, "").Data()["status"]; st != "delivered" {
			t.Fatalf("buyer's agent simulation: %v", st)
		}
		sbAdvance(t, s, buyer.Auth(), 73)
		r = s.Do("POST", path(second), nil, buyer.Key.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		if st := bpDetails(t, r)["status"]; st != "completed" {
			t.Fatalf("details.status = %v, want completed", st)
		}
	})
}

// TestSandboxReset clears what is the caller's own and keeps what other
// people's orders still need.
func TestSandboxReset(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		me := s.NewShopper("sbresetme", "pm_card_visa")
		other := s.NewShopper("sbresetother", "pm_card_visa")
		seller := s.VerifiedOwner("sbresetseller")
		watcher := s.Register("sbresetwatcher")

		// My listings: one nobody ordered (watched by someone), one sold
		// to another user, one another user bought and I cancelled.
		unordered := bpListing(t, s, me.User, 1200, nil)
		s.Do("POST", "/api/v1/listings/"+unordered+"/watch", nil, watcher.Auth()).Want(t, http.StatusOK, "")
		sold, soldOrder := sbPaid(t, s, me.User, other, 1300)
		cancelled, cancelledOrder := sbPaid(t, s, me.User, other, 1400)
		s.Do("POST", "/api/v1/orders/"+cancelledOrder+"/cancel", map[string]any{"reason": "out of stock"}, me.Auth()).
			Want(t, http.StatusOK, "")
		if st := bpListingStatus(t, s, cancelled, me.Auth()); st != "active" {
			t.Fatalf("cancelled sale left the listing %s", st)
		}

		// My purchases: one paid (in progress, kept) with an idempotency
		// key, one the seller cancelled and refunded (settled, deleted).
		idem := testkit.Header{Name: "Idempotency-Key", Value: "sb-reset-1"}
		_, inProgress := sbPaid(t, s, seller, me, 1500, idem)
		_, refunded := sbPaid(t, s, seller, me, 1600)
		s.Do("POST", "/api/v1/orders/"+refunded+"/cancel", nil, seller.Auth()).Want(t, http.StatusOK, "")
		reused := bpListing(t, s, seller, 1700, nil)
		s.Do("POST", bpPath, bpBody(reused, 1700), me.Key.Auth(), idem).Want(t, http.StatusConflict, "DUPLICATE_REQUEST")

		// My watch of someone else's listing.
		watched := bpListing(t, s, seller, 1800, nil)
		s.Do("POST", "/api/v1/listings/"+watched+"/watch", nil, me.Auth()).Want(t, http.StatusOK, "")

		spent := func() int64 {
			return testkit.Num(t, s.Do("GET", "/v1/account/spending", nil, me.Key.Auth()).Want(t, http.StatusOK, "").Data(), "spent_today")
		}
		if spent() == 0 {
			t.Fatal("no spending before the reset")
		}
		cards := func() int {
			d := s.Do("GET", "/v1/account/payment-methods", nil, me.Auth()).Want(t, http.StatusOK, "").Data()
			list, _ := d["payment_methods"].([]any)
			return len(list)
		}
		cardsBefore := cards()
		charges := s.Ledger()

		r := s.Do("POST", "/v1/sandbox/reset", nil, me.Key.Auth()).Want(t, http.StatusOK, "")
		wantMeta(t, r)
		want := map[string]int64{"listings_deleted": 1, "listings_archived": 1, "listings_kept": 1, "orders_deleted": 1,
			"orders_kept": 1, "watches_deleted": 1, "spending_records_deleted": 2, "idempotency_keys_deleted": 1}
		d := r.Data()
		for k, v := range want {
			if testkit.Num(t, d, k) != v {
				t.Fatalf("reset = %v, want %v", d, want)
			}
		}

		// Cleared.
		s.Do("GET", "/v1/listings/"+unordered, nil, me.Auth()).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		if st := bpListingStatus(t, s, cancelled, me.Auth()); st != "archived" {
			t.Fatalf("a listing another user ordered is %s, want archived", st)
		}
		s.Do("GET", "/v1/orders/"+refunded, nil, me.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("GET", "/v1/orders/"+refunded, nil, seller.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		if n := spent(); n != 0 {
			t.Fatalf("spent today = %d after the reset", n)
		}
		w := s.Do("GET", "/api/v1/listings/"+watched+"/watching", nil, me.Auth()).Want(t, http.StatusOK, "").Data()
		if w["watching"] != false || testkit.Num(t, w, "watchersCount") != 0 {
			t.Fatalf("watch after the reset: %v", w)
		}
		// The idempotency key is free again.
		bpBuy(t, s, me.Key, bpBody(reused, 1700), idem)

		// Kept: the account, its key and card, the order still in
		// progress, and what other users' orders need.
		s.Do("GET", "/v1/account", nil, me.Key.Auth()).Want(t, http.StatusOK, "")
		if n := cards(); n != cardsBefore || n == 0 {
			t.Fatalf("payment methods %d -> %d", cardsBefore, n)
		}
		if st := sbOrder(t, s, inProgress, me.Auth())["status"]; st != "paid" {
			t.Fatalf("in-progress order is %v", st)
		}
		if st := bpListingStatus(t, s, sold, me.Auth()); st != "sold" {
			t.Fatalf("sold listing is %s", st)
		}
		if st := sbOrder(t, s, soldOrder, other.Auth())["status"]; st != "paid" {
			t.Fatalf("the other buyer's order is %v", st)
		}
		if st := sbOrder(t, s, cancelledOrder, other.Auth())["status"]; st != "cancelled" {
			t.Fatalf("the other buyer's cancelled order is %v", st)
		}
		if got := s.Ledger(); got.Refunded != charges.Refunded || got.PaidOut != charges.PaidOut {
			t.Fatalf("the reset moved money: %+v -> %+v", charges, got)
		}

		// Again, as the owner: what was left is counted as kept.
		d = s.Do("POST", "/v1/sandbox/reset", map[string]any{}, me.Auth()).Want(t, http.StatusOK, "").Data()
		want = map[string]int64{"listings_deleted": 0, "listings_archived": 0, "listings_kept": 2, "orders_deleted": 0,
			"orders_kept": 2, "watches_deleted": 0, "spending_records_deleted": 1, "idempotency_keys_deleted": 1}
		for k, v := range want {
			if testkit.Num(t, d, k) != v {
				t.Fatalf("second reset = %v, want %v", d, want)
			}
		}

		// Someone else's reset leaves mine alone.
		before := s.Do("GET", "/v1/orders", nil, me.Auth()).Want(t, http.StatusOK, "").Data()["total"]
		s.Do("POST", "/v1/sandbox/reset", nil, watcher.Auth()).Want(t, http.StatusOK, "")
		if after := s.Do("GET", "/v1/orders", nil, me.Auth()).Want(t, http.StatusOK, "").Data()["total"]; after != before {
			t.Fatalf("another user's reset changed my orders: %v -> %v", before, after)
		}
		s.Do("POST", "/v1/sandbox/reset", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
	})
}

// TestSandboxLive: in live mode the sandbox paths do not exist.
func TestSandboxLive(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{Mode: config.Live}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("sblive")
		before := s.Clock.Now()
		for _, path := range []string{"/v1/sandbox/time-advance/24", "/v1/sandbox/reset", "/v1/sandbox/simulate/delivery/" + market.NewID()} {
			wantMeta(t, s.Do("POST", path, nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND"))
			s.Do("POST", path, nil).Want(t, http.StatusNotFound, "NOT_FOUND")
		}
		if !s.Clock.Now().Equal(before) {
			t.Fatal("live mode moved the clock")
		}
	})
}
