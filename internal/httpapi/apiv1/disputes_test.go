package apiv1_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

// Platform revenue of a fulfilScene order: the buyer's fee and the seller's
// commission.
const dspRevenue = fulfilCharged - fulfilPayout

var dspShip = map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"}

// dspOpen has the scene's buyer dispute its order and returns the dispute.
func dspOpen(t *testing.T, s *testkit.Server, sc fulfilScene, reason string, photos []string) map[string]any {
	t.Helper()
	body := map[string]any{"orderId": sc.order, "reason": reason, "description": "The table arrived with a split top."}
	if photos != nil {
		body["evidencePhotos"] = photos
	}
	d := s.Do("POST", "/api/v1/disputes", body, sc.buyer.Auth()).Want(t, http.StatusCreated, "").Data()
	if d["status"] != "open" || d["orderId"] != sc.order || d["buyerId"] != sc.buyer.ID || d["sellerId"] != sc.seller.ID ||
		d["reason"] != reason || d["sellerResponse"] != nil || d["resolution"] != nil || d["resolvedAt"] != nil {
		t.Fatalf("opened dispute = %v", d)
	}
	return d
}

// dspDelivered is a paid scene shipped and confirmed delivered.
func dspDelivered(t *testing.T, s *testkit.Server, name string) fulfilScene {
	t.Helper()
	sc := fulfilPaid(t, s, name, nil)
	s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", dspShip, sc.seller.Auth()).Want(t, http.StatusOK, "")
	s.Do("POST", "/api/v1/orders/"+sc.order+"/delivered", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "")
	return sc
}

// dspOpenCount is the seller dashboard's count of unresolved disputes.
func dspOpenCount(t *testing.T, s *testkit.Server, seller *testkit.User) int {
	t.Helper()
	n, err := s.App.DB.Read().OpenDisputes(t.Context(), seller.ID)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// dspFlush pays out every hold still running from earlier subtests, so the
// ledger figures that follow are this subtest's alone.
func dspFlush(t *testing.T, s *testkit.Server) testkit.Money {
	t.Helper()
	s.Clock.Advance(100 * time.Hour)
	fulfilRelease(t, s)
	return s.Ledger()
}

// dspResolve resolves a dispute as admin and returns the detail view.
func dspResolve(t *testing.T, s *testkit.Server, admin *testkit.User, id string, body map[string]any) map[string]any {
	t.Helper()
	d := s.Do("POST", "/api/v1/admin/disputes/"+id+"/resolve", body, admin.Auth()).Want(t, http.StatusOK, "").Data()
	if d["status"] != "resolved" || d["resolution"] != body["resolution"] || d["resolvedBy"] != admin.ID || d["resolvedAt"] == nil {
		t.Fatalf("resolved dispute = %v", d)
	}
	return d
}

// dspTimeline lists the types of an order's events.
func dspTimeline(t *testing.T, s *testkit.Server, sc fulfilScene) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range s.Do("GET", "/api/v1/orders/"+sc.order+"/events", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").List() {
		out = append(out, e.(map[string]any))
	}
	return out
}

func dspEvent(t *testing.T, events []map[string]any, typ string) map[string]any {
	t.Helper()
	for _, e := range events {
		if e["type"] == typ {
			return testkit.Obj(t, e, "data")
		}
	}
	t.Fatalf("no %s event in %v", typ, events)
	return nil
}

// TestDisputes opens, answers and resolves disputes, with the money checked
// on the processor's own records at each step.
func TestDisputes(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()

		t.Run("open from shipped, respond, release to the seller", func(t *testing.T) {
			sc := fulfilPaid(t, s, "dspship", nil)
			s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", dspShip, sc.seller.Auth()).Want(t, http.StatusOK, "")
			photos := s.UploadPhotos(sc.buyer.Auth(), 2)
			d := dspOpen(t, s, sc, "damaged", photos)
			if !slices.Equal(dspStrings(d["evidencePhotos"]), photos) {
				t.Fatalf("evidencePhotos = %v, want %v", d["evidencePhotos"], photos)
			}
			id := d["id"].(string)
			o := fulfilStatus(t, s, sc)
			if o["status"] != "disputed" || o["payoutStatus"] != nil {
				t.Fatalf("order after the dispute: %v %v", o["status"], o["payoutStatus"])
			}
			if e := dspEvent(t, dspTimeline(t, s, sc), "order.disputed"); e["disputeId"] != id || e["reason"] != "damaged" {
				t.Fatalf("order.disputed data = %v", e)
			}
			// The order is held: no other step moves it.
			s.Do("POST", "/api/v1/orders/"+sc.order+"/delivered", nil, sc.buyer.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			s.Do("POST", "/api/v1/orders/"+sc.order+"/cancel", nil, sc.seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			// One open dispute per order.
			again := s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": sc.order, "reason": "other", "description": "again"},
				sc.buyer.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			if det := again.JSON["error"].(map[string]any)["details"].(map[string]any); det["disputeId"] != id || det["status"] != "disputed" {
				t.Fatalf("second dispute details = %v", det)
			}

			// The seller answers, once.
			respond := "/api/v1/disputes/" + id + "/respond"
			sellerPhotos := s.UploadPhotos(sc.seller.Auth(), 1)
			answer := map[string]any{"response": "It left here intact; see the packing photo.", "evidencePhotos": sellerPhotos}
			s.Do("POST", respond, answer, sc.buyer.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", respond, answer, admin.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			testkit.WantFields(t, s.Do("POST", respond, map[string]any{"response": " "}, sc.seller.Auth()), "response")
			testkit.WantFields(t, s.Do("POST", respond, map[string]any{"response": "mine", "evidencePhotos": photos[:1]},
				sc.seller.Auth()), "evidencePhotos[0]")
			r := s.Do("POST", respond, answer, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
			if r["status"] != "seller_responded" || r["sellerResponse"] != answer["response"] || r["respondedAt"] == nil ||
				!slices.Equal(dspStrings(r["sellerEvidencePhotos"]), sellerPhotos) {
				t.Fatalf("responded dispute = %v", r)
			}
			if r2 := s.Do("POST", respond, answer, sc.seller.Auth()).Want(t, http.StatusOK, "").Data(); r2["respondedAt"] != r["respondedAt"] {
				t.Fatalf("a repeated answer changed the dispute: %v", r2)
			}
			s.Do("POST", respond, map[string]any{"response": "something else"}, sc.seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			if e := dspEvent(t, dspTimeline(t, s, sc), "dispute.responded"); e["disputeId"] != id {
				t.Fatalf("dispute.responded data = %v", e)
			}

			ledger := s.Ledger()
			res := dspResolve(t, s, admin, id, map[string]any{"resolution": "release_seller", "note": "photos show it intact"})
			if testkit.Num(t, res, "resolutionAmount") != 0 || res["resolutionNote"] != "photos show it intact" ||
				testkit.Obj(t, res, "order")["status"] != "shipped" {
				t.Fatalf("released dispute = %v", res)
			}
			// Nothing moves twice, whatever the second body says.
			again2 := s.Do("POST", "/api/v1/admin/disputes/"+id+"/resolve", map[string]any{"resolution": "refund_buyer"}, admin.Auth()).
				Want(t, http.StatusOK, "").Data()
			if again2["resolution"] != "release_seller" || again2["resolvedAt"] != res["resolvedAt"] {
				t.Fatalf("a second resolve changed the dispute: %v", again2)
			}
			fulfilLedger(t, s, ledger, testkit.Money{})
			if n := dspOpenCount(t, s, sc.seller); n != 0 {
				t.Fatalf("seller has %d open disputes after the resolution, want 0", n)
			}
			s.Do("POST", respond, map[string]any{"response": "late"}, sc.seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			// The order goes on from where it stopped.
			s.Do("POST", "/api/v1/orders/"+sc.order+"/delivered", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "")
			if o := fulfilStatus(t, s, sc); o["status"] != "delivered" || o["payoutStatus"] != "pending" {
				t.Fatalf("after delivery: %v %v", o["status"], o["payoutStatus"])
			}
			if e := dspEvent(t, dspTimeline(t, s, sc), "dispute.resolved"); e["disputeId"] != id || e["resolution"] != "release_seller" ||
				e["amount"].(float64) != 0 {
				t.Fatalf("dispute.resolved data = %v", e)
			}
		})

		t.Run("a dispute freezes the payout past the hold", func(t *testing.T) {
			start := dspFlush(t, s)
			sc := dspDelivered(t, s, "dspfreeze")
			d := dspOpen(t, s, sc, "not_as_described", nil)
			if o := fulfilStatus(t, s, sc); o["status"] != "disputed" || o["payoutStatus"] != "frozen" {
				t.Fatalf("order after the dispute: %v %v", o["status"], o["payoutStatus"])
			}
			s.Do("POST", "/v1/sandbox/time-advance/100", nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "")
			fulfilRelease(t, s)
			if o := fulfilStatus(t, s, sc); o["status"] != "disputed" || o["payoutStatus"] != "frozen" {
				t.Fatalf("a frozen payout moved past the hold: %v %v", o["status"], o["payoutStatus"])
			}
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged})

			res := dspResolve(t, s, admin, d["id"].(string), map[string]any{"resolution": "release_seller"})
			o, p := testkit.Obj(t, res, "order"), testkit.Obj(t, res, "payout")
			if o["status"] != "completed" || p["status"] != "released" || testkit.Num(t, p, "amount") != fulfilPayout {
				t.Fatalf("after release: order %v, payout %v", o["status"], p)
			}
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged, PaidOut: fulfilPayout})
			types := map[string]bool{}
			for _, e := range res["events"].([]any) {
				types[e.(map[string]any)["type"].(string)] = true
			}
			for _, want := range []string{"order.disputed", "dispute.resolved", "payment.released", "order.completed"} {
				if !types[want] {
					t.Fatalf("timeline lacks %s: %v", want, types)
				}
			}
		})

		t.Run("refund the buyer", func(t *testing.T) {
			start := dspFlush(t, s)
			sc := dspDelivered(t, s, "dsprefund")
			d := dspOpen(t, s, sc, "counterfeit", nil)
			res := dspResolve(t, s, admin, d["id"].(string), map[string]any{"resolution": "refund_buyer"})
			if testkit.Num(t, res, "resolutionAmount") != fulfilCharged {
				t.Fatalf("resolutionAmount = %v, want %d", res["resolutionAmount"], fulfilCharged)
			}
			o := fulfilStatus(t, s, sc)
			if o["status"] != "refunded" || o["payoutStatus"] != "void" || testkit.Num(t, o, "amountRefunded") != fulfilCharged {
				t.Fatalf("refunded order = %v", o)
			}
			s.Clock.Advance(100 * time.Hour)
			fulfilRelease(t, s)
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: fulfilCharged})
			// The buyer may not dispute a refunded order.
			s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": sc.order, "reason": "other", "description": "x"},
				sc.buyer.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			// A sandbox reset deletes the settled order, and its dispute with it.
			s.Do("POST", "/v1/sandbox/reset", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "")
			s.Do("GET", "/api/v1/disputes/"+d["id"].(string), nil, admin.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		})

		t.Run("refund a paid order the seller never shipped", func(t *testing.T) {
			sc := fulfilPaid(t, s, "dsppaid", nil)
			d := dspOpen(t, s, sc, "not_received", nil)
			dspResolve(t, s, admin, d["id"].(string), map[string]any{"resolution": "refund_buyer"})
			if st := s.Do("GET", "/api/v1/listings/"+sc.listing, nil).Want(t, http.StatusOK, "").Data()["status"]; st != "active" {
				t.Fatalf("listing %v after the refund, want active", st)
			}
		})

		t.Run("refund after the seller was paid takes the payout back", func(t *testing.T) {
			start := dspFlush(t, s)
			sc := dspDelivered(t, s, "dsplate")
			s.Clock.Advance(73 * time.Hour)
			fulfilRelease(t, s)
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged, PaidOut: fulfilPayout})
			d := dspOpen(t, s, sc, "counterfeit", nil)
			if o := fulfilStatus(t, s, sc); o["status"] != "disputed" || o["payoutStatus"] != "released" {
				t.Fatalf("completed order after the dispute: %v %v", o["status"], o["payoutStatus"])
			}
			dspResolve(t, s, admin, d["id"].(string), map[string]any{"resolution": "refund_buyer"})
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: fulfilCharged})
		})

		t.Run("partial refund", func(t *testing.T) {
			start := dspFlush(t, s)
			sc := dspDelivered(t, s, "dsppart")
			d := dspOpen(t, s, sc, "damaged", nil)
			resolve := "/api/v1/admin/disputes/" + d["id"].(string) + "/resolve"
			testkit.WantFields(t, s.Do("POST", resolve, map[string]any{"resolution": "partial_refund"}, admin.Auth()), "amount")
			testkit.WantFields(t, s.Do("POST", resolve, map[string]any{"resolution": "partial_refund", "amount": fulfilCharged},
				admin.Auth()), "amount")
			testkit.WantFields(t, s.Do("POST", resolve, map[string]any{"resolution": "release_seller", "amount": 100}, admin.Auth()), "amount")
			testkit.WantFields(t, s.Do("POST", resolve, map[string]any{"resolution": "split"}, admin.Auth()), "resolution")
			testkit.WantFields(t, s.Do("POST", resolve, map[string]any{}, admin.Auth()), "resolution")
			testkit.WantFields(t, s.Do("POST", resolve, map[string]any{"resolution": "release_seller", "note": strings.Repeat("n", 1001)},
				admin.Auth()), "note")
			s.Do("POST", resolve, map[string]any{"resolution": "refund_buyer"}, sc.seller.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", resolve, map[string]any{"resolution": "refund_buyer"}, sc.buyer.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged})

			const part = 3000
			res := dspResolve(t, s, admin, d["id"].(string), map[string]any{"resolution": "partial_refund", "amount": part})
			if testkit.Num(t, res, "resolutionAmount") != part || testkit.Obj(t, res, "payout")["status"] != "pending" ||
				testkit.Num(t, testkit.Obj(t, res, "payout"), "amount") != fulfilPayout-part {
				t.Fatalf("partially refunded dispute = %v", res)
			}
			o := fulfilStatus(t, s, sc)
			if o["status"] != "delivered" || o["payoutStatus"] != "pending" || testkit.Num(t, o, "amountRefunded") != part {
				t.Fatalf("order after the partial refund: %v", o)
			}
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: part})
			s.Clock.Advance(73 * time.Hour)
			fulfilRelease(t, s)
			if o := fulfilStatus(t, s, sc); o["status"] != "completed" || o["payoutStatus"] != "released" {
				t.Fatalf("after the hold: %v %v", o["status"], o["payoutStatus"])
			}
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: part, PaidOut: fulfilPayout - part})
			// The money is conserved: what was charged is refunded, paid out
			// or the platform's fees.
			got := s.Ledger()
			if c, r, p := got.Charged-start.Charged, got.Refunded-start.Refunded, got.PaidOut-start.PaidOut; c != r+p+dspRevenue {
				t.Fatalf("charged %d != refunded %d + paid out %d + revenue %d", c, r, p, dspRevenue)
			}
		})

		t.Run("bad requests", func(t *testing.T) {
			sc := fulfilPaid(t, s, "dspbad", nil)
			good := func() map[string]any {
				return map[string]any{"orderId": sc.order, "reason": "damaged", "description": "Broken leg."}
			}
			open := func(body map[string]any, fields ...string) {
				t.Helper()
				testkit.WantFields(t, s.Do("POST", "/api/v1/disputes", body, sc.buyer.Auth()), fields...)
			}
			open(testkit.Body(good(), "reason", "changed_my_mind"), "reason")
			open(testkit.Body(good(), "description", testkit.Drop), "description")
			open(testkit.Body(good(), "description", ""), "description")
			open(testkit.Body(good(), "description", strings.Repeat("é", 2001)), "description")
			open(testkit.Body(good(), "description", "nul\u0000byte"), "description")
			open(testkit.Body(good(), "orderId", testkit.Drop, "reason", testkit.Drop), "orderId", "reason")
			open(testkit.Body(good(), "evidencePhotos", []string{"https://example.com/a.jpg"}), "evidencePhotos[0]")
			sellerPhoto := s.UploadPhotos(sc.seller.Auth(), 1)
			open(testkit.Body(good(), "evidencePhotos", sellerPhoto), "evidencePhotos[0]")
			mine := s.UploadPhotos(sc.buyer.Auth(), 9)
			open(testkit.Body(good(), "evidencePhotos", mine), "evidencePhotos")
			open(testkit.Body(good(), "evidencePhotos", []string{mine[0], mine[0]}), "evidencePhotos[1]")
			open(testkit.Body(good(), "reason", 5), "reason")
			// A slot issued but never filled is not a photo yet.
			r := s.Do("POST", "/api/v1/listings/photos/upload-urls", map[string]any{"count": 1}, sc.buyer.Auth()).Want(t, http.StatusOK, "")
			empty := r.Data()["uploads"].([]any)[0].(map[string]any)["photoUrl"].(string)
			open(testkit.Body(good(), "evidencePhotos", []string{empty}), "evidencePhotos[0]")

			s.Do("POST", "/api/v1/disputes", testkit.Body(good(), "orderId", market.NewID()), sc.buyer.Auth()).
				Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("POST", "/api/v1/disputes", testkit.Body(good(), "orderId", "nope"), sc.buyer.Auth()).
				Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("POST", "/api/v1/disputes", good(), sc.seller.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", "/api/v1/disputes", good(), s.Register("dspstranger").Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			// Wrong status: a cancelled order cannot be disputed.
			s.Do("POST", "/api/v1/orders/"+sc.order+"/cancel", nil, sc.seller.Auth()).Want(t, http.StatusOK, "")
			c := s.Do("POST", "/api/v1/disputes", good(), sc.buyer.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			if det := c.JSON["error"].(map[string]any)["details"].(map[string]any); det["status"] != "cancelled" {
				t.Fatalf("wrong-status details = %v", det)
			}
			if n := len(s.Do("GET", "/api/v1/disputes/my", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").List()); n != 0 {
				t.Fatalf("refused requests left %d disputes", n)
			}
		})

		t.Run("reads", func(t *testing.T) {
			sc := fulfilPaid(t, s, "dspread", nil)
			photos := s.UploadPhotos(sc.buyer.Auth(), 1)
			d := dspOpen(t, s, sc, "other", photos)
			id := d["id"].(string)
			for _, u := range []*testkit.User{sc.buyer.User, sc.seller, admin} {
				got := s.Do("GET", "/api/v1/disputes/"+id, nil, u.Auth()).Want(t, http.StatusOK, "").Data()
				if got["id"] != id || got["description"] != d["description"] || !slices.Equal(dspStrings(got["evidencePhotos"]), photos) {
					t.Fatalf("dispute read by %s = %v", u.Email, got)
				}
			}
			// An evidence photo is served like any other.
			s.Do("GET", s.Path(photos[0]), nil).Want(t, http.StatusOK, "")
			s.Do("GET", "/api/v1/disputes/"+id, nil, s.Register("dspnosy").Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			if n := dspOpenCount(t, s, sc.seller); n != 1 {
				t.Fatalf("seller has %d open disputes, want 1", n)
			}
			s.Do("GET", "/api/v1/disputes/"+market.NewID(), nil, sc.buyer.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("GET", "/api/v1/disputes/bad-id", nil, sc.buyer.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")

			list := func(path string, u *testkit.User) []string {
				t.Helper()
				r := s.Do("GET", path, nil, u.Auth()).Want(t, http.StatusOK, "")
				var ids []string
				for _, x := range r.List() {
					ids = append(ids, x.(map[string]any)["id"].(string))
				}
				if testkit.Num(t, r.JSON["meta"].(map[string]any), "total") < int64(len(ids)) {
					t.Fatalf("%s: total below the page", path)
				}
				return ids
			}
			for _, c := range []struct {
				path string
				u    *testkit.User
				want bool
			}{
				{"/api/v1/disputes/my", sc.buyer.User, true},
				{"/api/v1/disputes/my?role=buyer", sc.buyer.User, true},
				{"/api/v1/disputes/my?role=seller", sc.buyer.User, false},
				{"/api/v1/disputes/my?role=seller&status=open", sc.seller, true},
				{"/api/v1/disputes/my?status=resolved", sc.seller, false},
				{"/api/v1/disputes/my", admin, false},
				{"/api/v1/admin/disputes?status=open&limit=100", admin, true},
				{"/api/v1/admin/disputes?status=seller_responded", admin, false},
			} {
				if got := slices.Contains(list(c.path, c.u), id); got != c.want {
					t.Errorf("%s as %s lists the dispute: %v, want %v", c.path, c.u.Email, got, c.want)
				}
			}
			for _, q := range []string{"role=admin", "status=closed", "limit=0", "offset=-1"} {
				s.Do("GET", "/api/v1/disputes/my?"+q, nil, sc.buyer.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
			}
			s.Do("GET", "/api/v1/admin/disputes?status=closed", nil, admin.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")

			det := s.Do("GET", "/api/v1/admin/disputes/"+id, nil, admin.Auth()).Want(t, http.StatusOK, "").Data()
			if det["id"] != id || testkit.Obj(t, det, "order")["id"] != sc.order || testkit.Obj(t, det, "order")["status"] != "disputed" ||
				len(det["events"].([]any)) == 0 {
				t.Fatalf("admin detail = %v", det)
			}
			s.Do("GET", "/api/v1/admin/disputes/"+market.NewID(), nil, admin.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("POST", "/api/v1/admin/disputes/"+market.NewID()+"/resolve", map[string]any{"resolution": "release_seller"},
				admin.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		})
	})
}

// TestDisputeAuthorization runs every dispute route against the credentials
// that must be refused and the wrong user; the dispute is unchanged after.
func TestDisputeAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := fulfilPaid(t, s, "dspauthz", nil)
		d := dspOpen(t, s, sc, "damaged", nil)
		id := d["id"].(string)
		stranger := s.NewShopper("dspauthzstranger", "pm_card_visa")
		respond := map[string]any{"response": "not mine"}
		routes := []struct {
			method, path string
			admin        bool
			body         any
			wrongUser    bool // another user gets 403 FORBIDDEN
		}{
			{"POST", "/api/v1/disputes", false, map[string]any{"orderId": sc.order, "reason": "other", "description": "x"}, true},
			{"GET", "/api/v1/disputes/my", false, nil, false},
			{"GET", "/api/v1/disputes/" + id, false, nil, true},
			{"POST", "/api/v1/disputes/" + id + "/respond", false, respond, true},
			{"GET", "/api/v1/admin/disputes", true, nil, true},
			{"GET", "/api/v1/admin/disputes/" + id, true, nil, true},
			{"POST", "/api/v1/admin/disputes/" + id + "/resolve", true, map[string]any{"resolution": "refund_buyer"}, true},
		}
		creds := []struct {
			name   string
			h      []testkit.Header
			status int
			code   string
		}{
			{"no credentials", nil, 401, "UNAUTHORIZED"},
			{"garbage bearer", []testkit.Header{testkit.Bearer("garbage")}, 401, "UNAUTHORIZED"},
			{"agent key on a bearer route", []testkit.Header{sc.buyer.Key.Auth()}, 403, "FORBIDDEN"},
		}
		for _, c := range creds {
			t.Run(c.name, func(t *testing.T) {
				for _, rt := range routes {
					checkAuth(t, s.Do(rt.method, rt.path, rt.body, c.h...), rt.method+" "+rt.path, c.status, c.code)
				}
			})
		}
		t.Run("wrong user", func(t *testing.T) {
			for _, rt := range routes {
				if rt.wrongUser {
					checkAuth(t, s.Do(rt.method, rt.path, rt.body, stranger.Auth()), rt.method+" "+rt.path, 403, "FORBIDDEN")
				}
			}
			// A user on the admin routes, even the dispute's own parties.
			for _, rt := range routes {
				if rt.admin {
					checkAuth(t, s.Do(rt.method, rt.path, rt.body, sc.buyer.Auth()), rt.method+" "+rt.path, 403, "FORBIDDEN")
					checkAuth(t, s.Do(rt.method, rt.path, rt.body, sc.seller.Auth()), rt.method+" "+rt.path, 403, "FORBIDDEN")
				}
			}
		})
		got := s.Do("GET", "/api/v1/disputes/"+id, nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").Data()
		if got["status"] != "open" || got["updatedAt"] != d["updatedAt"] {
			t.Fatalf("the refused calls changed the dispute: %v", got)
		}
		if st := fulfilStatus(t, s, sc)["status"]; st != "disputed" {
			t.Fatalf("order is %v, want disputed", st)
		}
	})
}

func dspStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
