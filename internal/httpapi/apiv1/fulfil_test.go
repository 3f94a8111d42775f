package apiv1_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"marketplace/internal/audit"
	"marketplace/internal/testkit"
)

// fulfilScene is one paid order: item 10000 with flat shipping 800, so the
// buyer paid 11178 (fee 378) and the seller is owed 10000 - 300 + 800.
type fulfilScene struct {
	seller  *testkit.User
	buyer   *testkit.Shopper
	listing string
	order   string
}

const (
	fulfilCharged = 11178
	fulfilPayout  = 10500
)

func fulfilPaid(t *testing.T, s *testkit.Server, name string, extra map[string]any) fulfilScene {
	t.Helper()
	seller := s.VerifiedOwner(name + "seller")
	fields := map[string]any{"price": 10000, "condition": "good", "shippingType": "flat_rate", "shippingCost": 800}
	for k, v := range extra {
		fields[k] = v
	}
	r := s.CreateListing(seller.Auth(), "Mid-century teak side table, small, light wear", fields).Want(t, http.StatusCreated, "")
	listing := r.Data()["id"].(string)
	buyer := s.NewShopper(name+"buyer", "pm_card_visa")
	s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000})
	body := map[string]any{"listingId": listing, "maxPrice": 10000, "shippingAddress": testkit.Address()}
	if extra["shippingType"] == "local_pickup" {
		body = map[string]any{"listingId": listing, "maxPrice": 10000, "fulfillmentType": "local_pickup"}
	}
	o := s.Do("POST", "/api/v1/agent/purchase", body, buyer.Key.Auth()).Want(t, http.StatusCreated, "")
	return fulfilScene{seller: seller, buyer: buyer, listing: listing, order: o.Data()["id"].(string)}
}

func fulfilStatus(t *testing.T, s *testkit.Server, sc fulfilScene) map[string]any {
	t.Helper()
	return s.Do("GET", "/api/v1/orders/"+sc.order, nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
}

func fulfilRelease(t *testing.T, s *testkit.Server) int {
	t.Helper()
	n, err := s.App.Orders.ReleasePayouts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func fulfilLedger(t *testing.T, s *testkit.Server, before testkit.Money, want testkit.Money) {
	t.Helper()
	got := s.Ledger()
	d := testkit.Money{Charged: got.Charged - before.Charged, Refunded: got.Refunded - before.Refunded, PaidOut: got.PaidOut - before.PaidOut}
	if d != want {
		t.Fatalf("processor moved %+v, want %+v", d, want)
	}
}

// The after-sale paths of the spec's Order table, with the money checked at
// each step on the processor's own records.
func TestFulfilment(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		ship := map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"}

		t.Run("ship, deliver, hold, release", func(t *testing.T) {
			start := s.Ledger()
			sc := fulfilPaid(t, s, "flow", nil)
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged})
			s.Do("POST", "/api/v1/orders/"+sc.order+"/delivered", nil, sc.buyer.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", ship, sc.buyer.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			for _, bad := range []map[string]any{
				{"carrier": "ups", "trackingNumber": "1Z999AA10123456785"}, // wrong check digit
				{"carrier": "pony", "trackingNumber": "1Z999AA10123456784"},
				{"carrier": "usps"},
			} {
				s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", bad, sc.seller.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
			}
			o := s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", ship, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
			if o["status"] != "shipped" || o["trackingNumber"] != "1Z999AA10123456784" {
				t.Fatalf("after ship: %v", o)
			}
			// Shipping twice answers the order again.
			s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", ship, sc.seller.Auth()).Want(t, http.StatusOK, "")
			s.Do("POST", "/api/v1/orders/"+sc.order+"/cancel", nil, sc.seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			s.Do("POST", "/api/v1/agent/orders/"+sc.order+"/delivered", nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "")
			o = fulfilStatus(t, s, sc)
			if o["status"] != "delivered" || o["payoutStatus"] != "pending" || o["sellerPayout"].(float64) != fulfilPayout {
				t.Fatalf("after delivery: %v", o)
			}
			if n := fulfilRelease(t, s); n != 0 {
				t.Fatalf("released %d inside the hold", n)
			}
			s.Clock.Advance(72*time.Hour + time.Minute)
			if n := fulfilRelease(t, s); n != 1 {
				t.Fatalf("released %d after the hold, want 1", n)
			}
			o = fulfilStatus(t, s, sc)
			if o["status"] != "completed" || o["payoutStatus"] != "released" {
				t.Fatalf("after the hold: %v", o)
			}
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged, PaidOut: fulfilPayout})
			// Platform revenue: the buyer's fee and the seller's commission.
			if rev := fulfilCharged - fulfilPayout; rev != 378+300 {
				t.Fatalf("platform revenue %d", rev)
			}
			if n := fulfilRelease(t, s); n != 0 {
				t.Fatalf("a second release paid %d more", n)
			}
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged, PaidOut: fulfilPayout})
			var types []string
			for _, e := range s.Do("GET", "/api/v1/orders/"+sc.order+"/events", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").List() {
				types = append(types, e.(map[string]any)["type"].(string))
			}
			want := []string{"order.created", "payment.succeeded", "order.shipped", "order.delivered", "payment.released", "order.completed"}
			if len(types) != len(want) {
				t.Fatalf("timeline %v, want %v", types, want)
			}
			for i := range want {
				if types[i] != want[i] {
					t.Fatalf("timeline %v, want %v", types, want)
				}
			}
			// Every attempt left an audit entry on the order, refused ones too.
			rows, _, err := s.App.DB.Read().ListAudit(t.Context(), audit.Filter{EntityType: "order", EntityID: sc.order, Limit: 200})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, a := range rows {
				seen[a.Action+" "+string(a.Result)+" "+a.ActorID]++
			}
			for _, w := range []string{
				"POST /api/v1/orders/{id}/ship refused " + sc.buyer.ID,
				"POST /api/v1/orders/{id}/ship allowed " + sc.seller.ID,
				"POST /api/v1/orders/{id}/delivered refused " + sc.buyer.ID,
				"POST /api/v1/agent/orders/{id}/delivered allowed " + sc.buyer.Key.ID,
			} {
				if seen[w] == 0 {
					t.Errorf("no audit entry %q among %v", w, seen)
				}
			}
		})

		t.Run("local pickup", func(t *testing.T) {
			sc := fulfilPaid(t, s, "pickup", map[string]any{"shippingType": "local_pickup", "shippingCost": nil})
			s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", ship, sc.seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			s.Do("POST", "/api/v1/orders/"+sc.order+"/confirm-pickup", nil, sc.buyer.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			s.Do("POST", "/api/v1/orders/"+sc.order+"/pickup-ready", nil, sc.seller.Auth()).Want(t, http.StatusOK, "")
			o := s.Do("POST", "/api/v1/agent/orders/"+sc.order+"/confirm-pickup", nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "").Data()
			if o["status"] != "delivered" {
				t.Fatalf("after pickup: %v", o["status"])
			}
			// Delivered by pickup is not "already delivered" for the shipping
			// step, nor the reverse.
			r := s.Do("POST", "/api/v1/orders/"+sc.order+"/delivered", nil, sc.buyer.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			if d := testkit.Obj(t, r.JSON["error"].(map[string]any), "details"); d["fulfillmentType"] != "local_pickup" {
				t.Fatalf("details %v", d)
			}
			shipped := fulfilPaid(t, s, "pickupother", nil)
			s.Do("POST", "/api/v1/orders/"+shipped.order+"/ship", ship, shipped.seller.Auth()).Want(t, http.StatusOK, "")
			s.Do("POST", "/api/v1/orders/"+shipped.order+"/delivered", nil, shipped.buyer.Auth()).Want(t, http.StatusOK, "")
			s.Do("POST", "/api/v1/orders/"+shipped.order+"/confirm-pickup", nil, shipped.buyer.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			s.Do("POST", "/api/v1/orders/"+shipped.order+"/pickup-ready", nil, shipped.seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		})

		t.Run("seller cancel refunds in full and gives spending back", func(t *testing.T) {
			start := s.Ledger()
			sc := fulfilPaid(t, s, "cancel", nil)
			spent := func() float64 {
				d := s.Do("GET", "/api/v1/spending-controls", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").Data()
				return d["spent"].(map[string]any)["today"].(float64)
			}
			if spent() != fulfilCharged {
				t.Fatalf("spent %v before the cancel", spent())
			}
			s.Do("POST", "/api/v1/orders/"+sc.order+"/cancel", nil, sc.buyer.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			for _, bad := range []string{strings.Repeat("é", 501), "nul\u0000byte"} {
				testkit.WantFields(t, s.Do("POST", "/api/v1/orders/"+sc.order+"/cancel", map[string]any{"reason": bad}, sc.seller.Auth()), "reason")
			}
			o := s.Do("POST", "/api/v1/orders/"+sc.order+"/cancel", map[string]any{"reason": "broke it"}, sc.seller.Auth()).
				Want(t, http.StatusOK, "").Data()
			if o["status"] != "cancelled" || o["amountRefunded"].(float64) != fulfilCharged {
				t.Fatalf("after cancel: %v", o)
			}
			s.Do("POST", "/api/v1/orders/"+sc.order+"/cancel", nil, sc.seller.Auth()).Want(t, http.StatusOK, "")
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: fulfilCharged})
			if spent() != 0 {
				t.Fatalf("spent %v after the cancel, want 0", spent())
			}
			if st := s.Do("GET", "/api/v1/listings/"+sc.listing, nil).Want(t, http.StatusOK, "").Data()["status"]; st != "active" {
				t.Fatalf("listing %v after the cancel, want active", st)
			}
		})

		t.Run("payout waits for a verified payout account", func(t *testing.T) {
			seller := s.Register("unverifiedseller")
			r := s.CreateListing(seller.Auth(), "Brass desk lamp with green glass shade", map[string]any{"price": 10000,
				"condition": "good", "shippingType": "free"}).Want(t, http.StatusCreated, "")
			buyer := s.NewShopper("unverifiedbuyer", "pm_card_visa")
			s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000})
			oid := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": r.Data()["id"], "maxPrice": 10000,
				"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
			s.Do("POST", "/api/v1/orders/"+oid+"/ship", ship, seller.Auth()).Want(t, http.StatusOK, "")
			s.Do("POST", "/api/v1/orders/"+oid+"/delivered", nil, buyer.Auth()).Want(t, http.StatusOK, "")
			s.Clock.Advance(73 * time.Hour)
			fulfilRelease(t, s)
			view := func() map[string]any {
				return s.Do("GET", "/api/v1/orders/"+oid, nil, seller.Auth()).Want(t, http.StatusOK, "").Data()
			}
			if o := view(); o["status"] != "delivered" || o["payoutStatus"] != "pending" {
				t.Fatalf("without a payout account: %v %v", o["status"], o["payoutStatus"])
			}
			s.Verify(seller)
			fulfilRelease(t, s)
			if o := view(); o["status"] != "completed" || o["payoutStatus"] != "released" || o["sellerPayout"].(float64) != 9700 {
				t.Fatalf("once verified: %v %v %v", o["status"], o["payoutStatus"], o["sellerPayout"])
			}
		})

		t.Run("unconfirmed shipments are delivered by the clock", func(t *testing.T) {
			sc := fulfilPaid(t, s, "auto", nil)
			s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", ship, sc.seller.Auth()).Want(t, http.StatusOK, "")
			s.Clock.Advance(20 * 24 * time.Hour)
			fulfilRelease(t, s)
			if st := fulfilStatus(t, s, sc)["status"]; st != "shipped" {
				t.Fatalf("delivered early: %v", st)
			}
			s.Clock.Advance(2 * 24 * time.Hour)
			fulfilRelease(t, s)
			if st := fulfilStatus(t, s, sc)["status"]; st != "delivered" {
				t.Fatalf("status %v 22 days after shipping, want delivered", st)
			}
		})

		t.Run("admin hold, force-complete and force-cancel", func(t *testing.T) {
			admin := s.Admin()
			sc := fulfilPaid(t, s, "admin", nil)
			s.Do("PATCH", "/api/v1/admin/orders/"+sc.order+"/hold", map[string]any{"holdHours": 1}, admin.Auth()).
				Want(t, http.StatusConflict, "INVALID_STATE")
			s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", ship, sc.seller.Auth()).Want(t, http.StatusOK, "")
			s.Do("POST", "/api/v1/orders/"+sc.order+"/delivered", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "")
			s.Do("PATCH", "/api/v1/admin/orders/"+sc.order+"/hold", map[string]any{"holdHours": 1}, sc.seller.Auth()).
				Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("PATCH", "/api/v1/admin/orders/"+sc.order+"/hold", map[string]any{"holdHours": 1}, admin.Auth()).Want(t, http.StatusOK, "")
			s.Clock.Advance(61 * time.Minute)
			if n := fulfilRelease(t, s); n != 1 {
				t.Fatalf("released %d after a 1-hour hold, want 1", n)
			}

			start := s.Ledger()
			fc := fulfilPaid(t, s, "force", nil)
			o := s.Do("POST", "/api/v1/admin/orders/"+fc.order+"/force-complete", nil, admin.Auth()).Want(t, http.StatusOK, "").Data()
			if o["status"] != "completed" {
				t.Fatalf("force-complete: %v", o["status"])
			}
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged, PaidOut: fulfilPayout})

			start = s.Ledger()
			cc := fulfilPaid(t, s, "forcecancel", nil)
			s.Do("POST", "/api/v1/orders/"+cc.order+"/ship", ship, cc.seller.Auth()).Want(t, http.StatusOK, "")
			s.Do("POST", "/api/v1/admin/orders/"+cc.order+"/force-cancel", nil, cc.seller.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			o = s.Do("POST", "/api/v1/admin/orders/"+cc.order+"/force-cancel", nil, admin.Auth()).Want(t, http.StatusOK, "").Data()
			if o["status"] != "cancelled" {
				t.Fatalf("force-cancel: %v", o["status"])
			}
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: fulfilCharged})
			s.Do("POST", "/api/v1/admin/orders/"+fc.order+"/force-cancel", nil, admin.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		})
	})
}

// The seller's payout fields: payoutAmount follows refunds before and after
// the payout (net of what was reversed from the transfer), while
// sellerPayout stays the gross figure; the buyer sees none of them.
func TestOrderPayoutFields(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := fulfilPaid(t, s, "payoutfields", nil)
		sellerOnly := []string{"commission", "sellerPayout", "payoutStatus", "payoutDueAt", "payoutAmount", "sellerRefunded",
			"transferReversed"}
		buyerSees := func() {
			t.Helper()
			for _, o := range []map[string]any{
				s.Do("GET", "/api/v1/orders/"+sc.order, nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").Data(),
				s.Do("GET", "/api/v1/agent/orders/"+sc.order, nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "").Data(),
			} {
				for _, k := range sellerOnly {
					if _, ok := o[k]; ok {
						t.Fatalf("the buyer sees %s: %v", k, o)
					}
				}
			}
		}
		sellerSees := func(payout, refunded, reversed int64) map[string]any {
			t.Helper()
			o := fulfilStatus(t, s, sc)
			if testkit.Num(t, o, "sellerPayout") != fulfilPayout || testkit.Num(t, o, "payoutAmount") != payout ||
				testkit.Num(t, o, "sellerRefunded") != refunded || testkit.Num(t, o, "transferReversed") != reversed {
				t.Fatalf("seller's view = %v, want payoutAmount %d, sellerRefunded %d, transferReversed %d",
					o, payout, refunded, reversed)
			}
			return o
		}
		buyerSees()
		sellerSees(fulfilPayout, 0, 0)

		// A refund before delivery shrinks what the seller will be paid.
		s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"amount": 1000, "reason": "scratch"},
			sc.seller.Auth()).Want(t, http.StatusOK, "")
		sellerSees(fulfilPayout-1000, 1000, 0)
		s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", dspShip, sc.seller.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/orders/"+sc.order+"/delivered", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "")
		if o := sellerSees(fulfilPayout-1000, 1000, 0); o["payoutStatus"] != "pending" {
			t.Fatalf("payout %v after delivery", o["payoutStatus"])
		}
		s.Clock.Advance(73 * time.Hour)
		fulfilRelease(t, s)
		if o := sellerSees(fulfilPayout-1000, 1000, 0); o["payoutStatus"] != "released" {
			t.Fatalf("payout %v after the hold", o["payoutStatus"])
		}

		// A refund after the payout is reversed from the transfer.
		s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"amount": 500, "reason": "late"},
			sc.seller.Auth()).Want(t, http.StatusOK, "")
		sellerSees(fulfilPayout-1500, 1500, 500)
		if m, _ := s.OrderLedger(sc.order); m != (testkit.Money{Charged: fulfilCharged, Refunded: 1500, PaidOut: fulfilPayout - 1500,
			Reversed: 500}) {
			t.Fatalf("processor moved %+v", m)
		}
		buyerSees()
	})
}

// Shipping checks who asks before what they send: a stranger (or the buyer)
// posting a bad tracking number or carrier to someone's order is refused as
// not the seller, on every ship route, and learns nothing of the input's
// fate; the seller's bad input is still VALIDATION_ERROR, and nothing
// changed.
func TestShipChecksCallerFirst(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := fulfilPaid(t, s, "shipauth", nil)
		stranger := s.NewShopper("shipstranger", "pm_card_visa")
		badNumber := map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456785"} // wrong check digit
		badCarrier := map[string]any{"carrier": "pony", "trackingNumber": "1Z999AA10123456784"}
		for _, bad := range []map[string]any{badNumber, badCarrier} {
			snake := map[string]any{"carrier": bad["carrier"], "tracking_number": bad["trackingNumber"]}
			for _, who := range []*testkit.Shopper{stranger, sc.buyer} {
				s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", bad, who.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
				s.Do("POST", "/api/v1/orders/"+sc.order+"/shipping/manual", bad, who.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
				s.Do("POST", "/api/v1/agent/orders/"+sc.order+"/ship", bad, who.Key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
				s.Do("POST", "/v1/orders/"+sc.order+"/ship", snake, who.Key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
				args := map[string]any{"order_id": sc.order, "carrier": bad["carrier"], "tracking_number": bad["trackingNumber"]}
				if out, refused := s.MCPTool(who.Key.Secret, "create_shipment", args); !refused || out["code"] != "FORBIDDEN" {
					t.Fatalf("create_shipment by a non-seller with %v: %v", bad, out)
				}
			}
			s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", bad, sc.seller.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		}
		// The label route too: a carrier no platform label comes from.
		long := map[string]any{"carrier": strings.Repeat("x", 21)}
		s.Do("POST", "/api/v1/orders/"+sc.order+"/shipping/label", long, stranger.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("POST", "/api/v1/orders/"+sc.order+"/shipping/label", long, sc.seller.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		if o := fulfilStatus(t, s, sc); o["status"] != "paid" || o["trackingNumber"] != nil {
			t.Fatalf("order after refused shipments: %v", o)
		}
	})
}
