package apiv1_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/payments"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
	"marketplace/internal/testkit"
)

// The fulfilScene order: item 10000, flat shipping 800, fee 378, so the
// buyer paid 11178; the seller is owed 10500 (commission 300) and the
// platform keeps 678.
const refundPlatformFees = fulfilCharged - fulfilPayout

func refundPath(order, tail string) string { return "/api/v1/purchases/" + order + tail }

// refundSpent is what the buyer's agent spending counts this month (the
// scenes move the clock by days, never out of June).
func refundSpent(t *testing.T, s *testkit.Server, sc fulfilScene) int64 {
	t.Helper()
	d := s.Do("GET", "/api/v1/spending-controls", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").Data()
	return testkit.Num(t, testkit.Obj(t, d, "spent"), "thisMonth")
}

// refundMoney checks the processor's records against the start of the
// scene: charged, refunded, paid out net of reversals, reversed; and that
// the platform kept the rest.
func refundMoney(t *testing.T, s *testkit.Server, start testkit.Money, want testkit.Money, revenue int64) {
	t.Helper()
	got := s.Ledger()
	d := testkit.Money{Charged: got.Charged - start.Charged, Refunded: got.Refunded - start.Refunded,
		PaidOut: got.PaidOut - start.PaidOut, Reversed: got.Reversed - start.Reversed}
	if d != want {
		t.Fatalf("processor moved %+v, want %+v", d, want)
	}
	if d.Revenue() != revenue {
		t.Fatalf("platform kept %d, want %d", d.Revenue(), revenue)
	}
}

func refundTimeline(t *testing.T, s *testkit.Server, sc fulfilScene) []string {
	t.Helper()
	var types []string
	for _, e := range s.Do("GET", "/api/v1/orders/"+sc.order+"/events", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").List() {
		types = append(types, e.(map[string]any)["type"].(string))
	}
	return types
}

func refundCount(types []string, typ string) int {
	n := 0
	for _, x := range types {
		if x == typ {
			n++
		}
	}
	return n
}

func refundListingStatus(t *testing.T, s *testkit.Server, sc fulfilScene) any {
	t.Helper()
	return s.Do("GET", "/api/v1/listings/"+sc.listing, nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()["status"]
}

func refundShipDeliver(t *testing.T, s *testkit.Server, sc fulfilScene) {
	t.Helper()
	s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"},
		sc.seller.Auth()).Want(t, http.StatusOK, "")
	s.Do("POST", "/api/v1/orders/"+sc.order+"/delivered", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "")
}

// TestRefunds walks the refund paths with the money checked at each step on
// the processor's own records, the order and the buyer's spending.
func TestRefunds(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		t.Run("partial, then release, then after release, then in full", func(t *testing.T) {
			start := s.Ledger()
			sc := fulfilPaid(t, s, "rfpart", nil)
			if got := refundSpent(t, s, sc); got != fulfilCharged {
				t.Fatalf("spent %d after the purchase", got)
			}

			// The buyer asks for 2000; nothing changes until the seller answers.
			req := s.Do("POST", refundPath(sc.order, "/refund"), map[string]any{"reason": "The shade arrived cracked.", "amount": 2000},
				sc.buyer.Auth()).Want(t, http.StatusCreated, "").Data()
			if req["status"] != "requested" || testkit.Num(t, req, "amount") != 2000 || req["initiatedBy"] != "buyer" ||
				req["requestedBy"] != sc.buyer.ID || req["orderId"] != sc.order || req["sellerShare"] != nil {
				t.Fatalf("request = %v", req)
			}
			rid := req["id"].(string)
			o := fulfilStatus(t, s, sc)
			if o["status"] != "paid" || testkit.Num(t, o, "amountRefunded") != 0 {
				t.Fatalf("order after the request: %v", o)
			}
			second := s.Do("POST", refundPath(sc.order, "/refund"), map[string]any{"reason": "again"}, sc.buyer.Auth()).
				Want(t, http.StatusConflict, "INVALID_STATE")
			if d := testkit.Obj(t, second.JSON["error"].(map[string]any), "details"); d["refundId"] != rid {
				t.Fatalf("second request details = %v", d)
			}
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged}, fulfilCharged)

			// The seller approves 1500 of it: the seller's share, taken from
			// the payout still to come.
			ans := s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"refundId": rid, "action": "approve",
				"amount": 1500, "message": "Sorry about the shade."}, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
			rf, ord := testkit.Obj(t, ans, "refund"), testkit.Obj(t, ans, "order")
			if rf["id"] != rid || rf["status"] != "succeeded" || testkit.Num(t, rf, "amount") != 1500 ||
				testkit.Num(t, rf, "sellerShare") != 1500 || testkit.Num(t, rf, "platformShare") != 0 ||
				rf["processorRefundId"] == nil || rf["issuedAt"] == nil || rf["decidedAt"] == nil {
				t.Fatalf("approved refund = %v", rf)
			}
			if ord["status"] != "paid" || testkit.Num(t, ord, "amountRefunded") != 1500 {
				t.Fatalf("order after the approval = %v", ord)
			}
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: 1500}, fulfilCharged-1500)
			if got := refundSpent(t, s, sc); got != fulfilCharged-1500 {
				t.Fatalf("spent %d after a 1500 refund", got)
			}
			// The same approval again pays nothing more.
			again := s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"refundId": rid, "action": "approve",
				"amount": 1500}, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
			if r := testkit.Obj(t, again, "refund"); r["id"] != rid || r["status"] != "succeeded" {
				t.Fatalf("repeated approval = %v", r)
			}
			s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"action": "approve"}, sc.seller.Auth()).
				Want(t, http.StatusOK, "")
			s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"refundId": rid, "action": "decline"}, sc.seller.Auth()).
				Want(t, http.StatusConflict, "INVALID_STATE")
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: 1500}, fulfilCharged-1500)
			// The buyer sees the refund without the seller's split.
			list := s.Do("GET", refundPath(sc.order, "/refunds"), nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").List()
			if len(list) != 1 || list[0].(map[string]any)["sellerShare"] != nil || list[0].(map[string]any)["message"] != "Sorry about the shade." {
				t.Fatalf("the buyer's refund list = %v", list)
			}

			// Delivered and held: the payout is the seller's share less the refund.
			refundShipDeliver(t, s, sc)
			s.Clock.Advance(72*time.Hour + time.Minute)
			fulfilRelease(t, s)
			if o := fulfilStatus(t, s, sc); o["status"] != "completed" || o["payoutStatus"] != "released" {
				t.Fatalf("after the hold: %v", o)
			}
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: 1500, PaidOut: fulfilPayout - 1500},
				refundPlatformFees)

			// After the release the seller's refund is taken back from the transfer.
			ans = s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"amount": 1000, "reason": "goodwill"},
				sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
			rf, ord = testkit.Obj(t, ans, "refund"), testkit.Obj(t, ans, "order")
			if rf["status"] != "succeeded" || rf["initiatedBy"] != "seller" || testkit.Num(t, rf, "sellerShare") != 1000 ||
				testkit.Num(t, rf, "reversedAmount") != 1000 || rf["reason"] != "goodwill" {
				t.Fatalf("refund after release = %v", rf)
			}
			if ord["status"] != "completed" || testkit.Num(t, ord, "amountRefunded") != 2500 {
				t.Fatalf("order after the refund = %v", ord)
			}
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: 2500, PaidOut: fulfilPayout - 2500, Reversed: 1000},
				refundPlatformFees)
			if got := refundSpent(t, s, sc); got != fulfilCharged-2500 {
				t.Fatalf("spent %d after 2500 refunded", got)
			}

			// The rest in full: all that is left of the seller's share is
			// reversed and the platform gives back its fees.
			ans = s.Do("POST", refundPath(sc.order, "/refund/seller"), nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
			rf, ord = testkit.Obj(t, ans, "refund"), testkit.Obj(t, ans, "order")
			if testkit.Num(t, rf, "amount") != fulfilCharged-2500 || testkit.Num(t, rf, "sellerShare") != fulfilPayout-2500 ||
				testkit.Num(t, rf, "platformShare") != refundPlatformFees || rf["status"] != "succeeded" {
				t.Fatalf("full refund = %v", rf)
			}
			if ord["status"] != "refunded" || testkit.Num(t, ord, "amountRefunded") != fulfilCharged || ord["payoutStatus"] != "released" {
				t.Fatalf("order refunded in full = %v", ord)
			}
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: fulfilCharged, Reversed: fulfilPayout - 1500}, 0)
			if got := refundSpent(t, s, sc); got != 0 {
				t.Fatalf("spent %d after a full refund", got)
			}
			if st := refundListingStatus(t, s, sc); st != "sold" {
				t.Fatalf("listing %v after refunding a delivered order, want sold", st)
			}
			// Nothing is left: no more requests or refunds.
			bad := s.Do("POST", refundPath(sc.order, "/refund"), map[string]any{"reason": "more"}, sc.buyer.Auth()).
				Want(t, http.StatusConflict, "INVALID_STATE")
			if d := testkit.Obj(t, bad.JSON["error"].(map[string]any), "details"); d["status"] != "refunded" {
				t.Fatalf("details = %v", d)
			}
			s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"amount": 1}, sc.seller.Auth()).
				Want(t, http.StatusConflict, "INVALID_STATE")
			// The job has nothing left to do.
			fulfilRelease(t, s)
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: fulfilCharged, Reversed: fulfilPayout - 1500}, 0)

			types := refundTimeline(t, s, sc)
			for typ, n := range map[string]int{"refund.requested": 1, "refund.approved": 1, "refund.created": 2, "refund.issued": 3,
				"transfer.reversed": 2, "payment.released": 1} {
				if got := refundCount(types, typ); got != n {
					t.Fatalf("%d %s in the timeline %v, want %d", got, typ, types, n)
				}
			}
			if list := s.Do("GET", refundPath(sc.order, "/refunds"), nil, sc.seller.Auth()).Want(t, http.StatusOK, "").List(); len(list) != 3 {
				t.Fatalf("%d refunds listed, want 3", len(list))
			}
		})

		t.Run("in full before shipment gives the listing back", func(t *testing.T) {
			start := s.Ledger()
			sc := fulfilPaid(t, s, "rffull", nil)
			req := s.Do("POST", refundPath(sc.order, "/refund"), map[string]any{"reason": "Changed my mind."}, sc.buyer.Auth()).
				Want(t, http.StatusCreated, "").Data()
			if testkit.Num(t, req, "amount") != fulfilCharged {
				t.Fatalf("a request without amount asks for %v", req["amount"])
			}
			// No refundId and no action: the open request is approved.
			ans := s.Do("POST", refundPath(sc.order, "/refund/seller"), nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
			rf, ord := testkit.Obj(t, ans, "refund"), testkit.Obj(t, ans, "order")
			if rf["id"] != req["id"] || testkit.Num(t, rf, "sellerShare") != fulfilPayout ||
				testkit.Num(t, rf, "platformShare") != refundPlatformFees || rf["status"] != "succeeded" {
				t.Fatalf("refund = %v", rf)
			}
			if ord["status"] != "refunded" || ord["payoutStatus"] != "void" || testkit.Num(t, ord, "amountRefunded") != fulfilCharged {
				t.Fatalf("order = %v", ord)
			}
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: fulfilCharged}, 0)
			if got := refundSpent(t, s, sc); got != 0 {
				t.Fatalf("spent %d after a full refund", got)
			}
			if st := refundListingStatus(t, s, sc); st != "active" {
				t.Fatalf("listing %v after refunding an unshipped order, want active", st)
			}
			// Cancelling or shipping a refunded order is refused; the job pays nothing.
			s.Do("POST", "/api/v1/orders/"+sc.order+"/cancel", nil, sc.seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			s.Clock.Advance(100 * time.Hour)
			fulfilRelease(t, s)
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: fulfilCharged}, 0)
		})

		t.Run("while the payout waits, the payout shrinks", func(t *testing.T) {
			start := s.Ledger()
			sc := fulfilPaid(t, s, "rfhold", nil)
			refundShipDeliver(t, s, sc)
			// An admin refunds 3000: the seller's pending payout drops to 7500.
			admin := s.Admin()
			ans := s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"amount": 3000}, admin.Auth()).
				Want(t, http.StatusOK, "").Data()
			if rf := testkit.Obj(t, ans, "refund"); rf["initiatedBy"] != "admin" || testkit.Num(t, rf, "reversedAmount") != 0 {
				t.Fatalf("admin refund = %v", rf)
			}
			if o := fulfilStatus(t, s, sc); o["status"] != "delivered" || o["payoutStatus"] != "pending" {
				t.Fatalf("order = %v", o)
			}
			s.Clock.Advance(73 * time.Hour)
			fulfilRelease(t, s)
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: 3000, PaidOut: fulfilPayout - 3000}, refundPlatformFees)
			if o := fulfilStatus(t, s, sc); o["status"] != "completed" {
				t.Fatalf("order = %v", o)
			}
		})

		t.Run("a seller refund retried with an idempotency key refunds once", func(t *testing.T) {
			start := s.Ledger()
			sc := fulfilPaid(t, s, "rfidem", nil)
			key := testkit.Header{Name: "Idempotency-Key", Value: "seller-refund-" + sc.order}
			first := s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"amount": 250}, sc.seller.Auth(), key).
				Want(t, http.StatusOK, "")
			again := s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"amount": 250}, sc.seller.Auth(), key).
				Want(t, http.StatusOK, "")
			if again.Header.Get("Idempotent-Replayed") != "true" ||
				testkit.Obj(t, again.Data(), "refund")["id"] != testkit.Obj(t, first.Data(), "refund")["id"] {
				t.Fatalf("replay: %s", again.Body)
			}
			s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"amount": 300}, sc.seller.Auth(), key).
				Want(t, http.StatusConflict, "DUPLICATE_REQUEST")
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: 250}, fulfilCharged-250)
		})

		t.Run("a seller refund bigger than the seller's share takes the platform's fees", func(t *testing.T) {
			start := s.Ledger()
			sc := fulfilPaid(t, s, "rfbig", nil)
			ans := s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"amount": fulfilPayout + 100}, sc.seller.Auth()).
				Want(t, http.StatusOK, "").Data()
			rf, ord := testkit.Obj(t, ans, "refund"), testkit.Obj(t, ans, "order")
			if testkit.Num(t, rf, "sellerShare") != fulfilPayout || testkit.Num(t, rf, "platformShare") != 100 || ord["status"] != "paid" {
				t.Fatalf("refund %v, order %v", rf, ord)
			}
			// Delivered: nothing is left for the seller; the order completes
			// with no transfer.
			refundShipDeliver(t, s, sc)
			s.Clock.Advance(73 * time.Hour)
			fulfilRelease(t, s)
			if o := fulfilStatus(t, s, sc); o["status"] != "completed" {
				t.Fatalf("order = %v", o)
			}
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: fulfilPayout + 100}, refundPlatformFees-100)
		})

		t.Run("decline", func(t *testing.T) {
			start := s.Ledger()
			sc := fulfilPaid(t, s, "rfdecl", nil)
			rid := s.Do("POST", refundPath(sc.order, "/refund"), map[string]any{"reason": "Not as pictured.", "amount": 500},
				sc.buyer.Auth()).Want(t, http.StatusCreated, "").Data()["id"]
			ans := s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"action": "decline", "message": "It is as pictured."},
				sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
			rf := testkit.Obj(t, ans, "refund")
			if rf["id"] != rid || rf["status"] != "declined" || rf["message"] != "It is as pictured." || rf["decidedAt"] == nil {
				t.Fatalf("declined = %v", rf)
			}
			if o := testkit.Obj(t, ans, "order"); testkit.Num(t, o, "amountRefunded") != 0 || o["status"] != "paid" {
				t.Fatalf("order = %v", o)
			}
			// Declining again answers it; approving it now is refused.
			s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"refundId": rid, "action": "decline"}, sc.seller.Auth()).
				Want(t, http.StatusOK, "")
			s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"action": "decline"}, sc.seller.Auth()).
				Want(t, http.StatusOK, "")
			s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"refundId": rid}, sc.seller.Auth()).
				Want(t, http.StatusConflict, "INVALID_STATE")
			s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"action": "approve"}, sc.seller.Auth()).
				Want(t, http.StatusConflict, "INVALID_STATE")
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged}, fulfilCharged)
			if got := refundSpent(t, s, sc); got != fulfilCharged {
				t.Fatalf("spent %d after a decline", got)
			}
			if types := refundTimeline(t, s, sc); refundCount(types, "refund.declined") != 1 || refundCount(types, "refund.issued") != 0 {
				t.Fatalf("timeline %v", types)
			}
			// A new request may follow; a cancel then declines it and refunds in full.
			rid2 := s.Do("POST", refundPath(sc.order, "/refund"), map[string]any{"reason": "Please reconsider."}, sc.buyer.Auth()).
				Want(t, http.StatusCreated, "").Data()["id"]
			s.Do("POST", "/api/v1/orders/"+sc.order+"/cancel", map[string]any{"reason": "out of stock"}, sc.seller.Auth()).
				Want(t, http.StatusOK, "")
			list := s.Do("GET", refundPath(sc.order, "/refunds"), nil, sc.seller.Auth()).Want(t, http.StatusOK, "").List()
			if len(list) != 3 {
				t.Fatalf("refunds = %v", list)
			}
			for _, x := range list {
				r := x.(map[string]any)
				if r["id"] == rid2 && r["status"] != "declined" || r["initiatedBy"] == "seller" && r["status"] != "succeeded" {
					t.Fatalf("after the cancel: %v", list)
				}
			}
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: fulfilCharged}, 0)
			bad := s.Do("POST", refundPath(sc.order, "/refund"), map[string]any{"reason": "more"}, sc.buyer.Auth()).
				Want(t, http.StatusConflict, "INVALID_STATE")
			if d := testkit.Obj(t, bad.JSON["error"].(map[string]any), "details"); d["status"] != "cancelled" {
				t.Fatalf("details = %v", d)
			}
		})

		t.Run("refused input and callers", func(t *testing.T) {
			start := s.Ledger()
			sc := fulfilPaid(t, s, "rferr", nil)
			stranger := s.Register("rferrstranger")
			admin := s.Admin()
			req := refundPath(sc.order, "/refund")
			for _, c := range []struct {
				body  any
				field string
			}{
				{map[string]any{}, "reason"},
				{map[string]any{"reason": "   "}, "reason"},
				{map[string]any{"reason": strings.Repeat("x", 501)}, "reason"},
				{map[string]any{"reason": "bad\u0000byte"}, "reason"},
				{map[string]any{"reason": "ok", "message": strings.Repeat("y", 501)}, "message"},
				{map[string]any{"reason": "ok", "amount": 0}, "amount"},
				{map[string]any{"reason": "ok", "amount": -5}, "amount"},
				{map[string]any{"reason": "ok", "amount": fulfilCharged + 1}, "amount"},
				{map[string]any{"reason": "ok", "amount": "100"}, "amount"},
				{map[string]any{"reason": "ok", "amount": 12.5}, "amount"},
				{map[string]any{"reason": 7}, "reason"},
				{"[1]", "body"},
			} {
				testkit.WantFields(t, s.Do("POST", req, c.body, sc.buyer.Auth()), c.field)
			}
			ok := map[string]any{"reason": "ok", "amount": 100}
			s.Do("POST", req, ok, sc.seller.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", req, ok, stranger.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", req, ok, admin.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", refundPath("00000000-0000-4000-8000-000000000000", "/refund"), ok, sc.buyer.Auth()).
				Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("POST", refundPath("not-an-id", "/refund"), ok, sc.buyer.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")

			answer := refundPath(sc.order, "/refund/seller")
			for _, c := range []struct {
				body  any
				field string
			}{
				{map[string]any{"action": "maybe"}, "action"},
				{map[string]any{"amount": 0}, "amount"},
				{map[string]any{"amount": -1}, "amount"},
				{map[string]any{"amount": fulfilCharged + 1}, "amount"},
				{map[string]any{"refundId": "junk"}, "refundId"},
				{map[string]any{"reason": strings.Repeat("z", 501)}, "reason"},
				{map[string]any{"amount": "all"}, "amount"},
			} {
				testkit.WantFields(t, s.Do("POST", answer, c.body, sc.seller.Auth()), c.field)
			}
			s.Do("POST", answer, map[string]any{"refundId": "00000000-0000-4000-8000-000000000000"}, sc.seller.Auth()).
				Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("POST", answer, map[string]any{"action": "decline"}, sc.seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			s.Do("POST", answer, nil, sc.buyer.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", answer, nil, stranger.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("GET", refundPath(sc.order, "/refunds"), nil, stranger.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")

			// More than requested; a refundId of another order.
			rid := s.Do("POST", req, ok, sc.buyer.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
			testkit.WantFields(t, s.Do("POST", answer, map[string]any{"amount": 101}, sc.seller.Auth()), "amount")
			other := fulfilPaid(t, s, "rferr2", nil)
			s.Do("POST", refundPath(other.order, "/refund/seller"), map[string]any{"refundId": rid}, other.seller.Auth()).
				Want(t, http.StatusNotFound, "NOT_FOUND")
			refundMoney(t, s, start, testkit.Money{Charged: 2 * fulfilCharged}, 2*fulfilCharged)
			if o := fulfilStatus(t, s, sc); testkit.Num(t, o, "amountRefunded") != 0 {
				t.Fatalf("refused calls refunded: %v", o)
			}
		})
	})
}

// refundFaultGateway is the sandbox processor with refunds and reversals
// that can be made to fail before they reach it.
type refundFaultGateway struct {
	payments.Gateway

	mu                 sync.Mutex
	refundsDown        bool
	reversalsDown      bool
	refunds, reversals int    // calls that reached the processor
	duringTransfer     func() // runs once inside the next Transfer, before the processor pays
}

func (g *refundFaultGateway) Transfer(ctx context.Context, req payments.TransferRequest) (*payments.Transfer, error) {
	g.mu.Lock()
	hook := g.duringTransfer
	g.duringTransfer = nil
	g.mu.Unlock()
	if hook != nil {
		hook()
	}
	return g.Gateway.Transfer(ctx, req)
}

var errRefundDown = market.Errorf(market.CodeUnavailable, "the payment processor did not answer; try again")

func (g *refundFaultGateway) set(refunds, reversals bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refundsDown, g.reversalsDown = refunds, reversals
}

func (g *refundFaultGateway) counts() (int, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refunds, g.reversals
}

func (g *refundFaultGateway) Refund(ctx context.Context, req payments.RefundRequest) (*payments.Refund, error) {
	g.mu.Lock()
	down := g.refundsDown
	if !down {
		g.refunds++
	}
	g.mu.Unlock()
	if down {
		return nil, errRefundDown
	}
	return g.Gateway.Refund(ctx, req)
}

func (g *refundFaultGateway) ReverseTransfer(ctx context.Context, req payments.TransferReversalRequest) (*payments.TransferReversal, error) {
	g.mu.Lock()
	down := g.reversalsDown
	if !down {
		g.reversals++
	}
	g.mu.Unlock()
	if down {
		return nil, errRefundDown
	}
	return g.Gateway.ReverseTransfer(ctx, req)
}

// TestRefundRetries has the processor fail refunds and reversals: the
// refund is booked and answered pending, the payout job finishes it, and
// nothing is refunded or reversed twice.
func TestRefundRetries(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		g := &refundFaultGateway{}
		s := testkit.Start(t, db, testkit.Options{Gateway: g})
		g.Gateway = payments.NewSandbox(s.URL, store.PaymentsSandbox(db), s.Clock)

		start := s.Ledger()
		sc := fulfilPaid(t, s, "rfretry", nil)
		g.set(true, false)
		ans := s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"amount": 1200}, sc.seller.Auth()).
			Want(t, http.StatusOK, "").Data()
		rf, ord := testkit.Obj(t, ans, "refund"), testkit.Obj(t, ans, "order")
		if rf["status"] != "pending" || rf["processorRefundId"] != nil || testkit.Num(t, ord, "amountRefunded") != 1200 {
			t.Fatalf("refund while the processor is down: %v / %v", rf, ord)
		}
		refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged}, fulfilCharged)
		if n, err := s.App.Orders.ReleasePayouts(t.Context()); err == nil || n != 0 {
			t.Fatalf("the job with the processor down: %d %v", n, err)
		}
		g.set(false, false)
		if n := fulfilRelease(t, s); n != 1 {
			t.Fatalf("the job finished %d orders, want 1", n)
		}
		fulfilRelease(t, s)
		refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: 1200}, fulfilCharged-1200)
		list := s.Do("GET", refundPath(sc.order, "/refunds"), nil, sc.seller.Auth()).Want(t, http.StatusOK, "").List()
		if r := list[0].(map[string]any); r["status"] != "succeeded" || r["processorRefundId"] == nil {
			t.Fatalf("after the retry: %v", r)
		}
		if refunds, _ := g.counts(); refunds != 1 {
			t.Fatalf("%d refund calls reached the processor, want 1", refunds)
		}

		// A cancel while the processor is down: cancelled and booked, the
		// processor's failure answered; the job refunds the rest once.
		cc := fulfilPaid(t, s, "rfretrycancel", nil)
		g.set(true, false)
		s.Do("POST", "/api/v1/orders/"+cc.order+"/cancel", nil, cc.seller.Auth()).Want(t, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
		if o := fulfilStatus(t, s, cc); o["status"] != "cancelled" || testkit.Num(t, o, "amountRefunded") != fulfilCharged {
			t.Fatalf("cancelled order = %v", o)
		}
		g.set(false, false)
		fulfilRelease(t, s)
		s.Do("POST", "/api/v1/orders/"+cc.order+"/cancel", nil, cc.seller.Auth()).Want(t, http.StatusOK, "")
		refundMoney(t, s, start, testkit.Money{Charged: 2 * fulfilCharged, Refunded: 1200 + fulfilCharged}, fulfilCharged-1200)

		// A refund after the payout whose reversal fails: the buyer is
		// refunded, the reversal waits for the job.
		refundShipDeliver(t, s, sc)
		s.Clock.Advance(73 * time.Hour)
		fulfilRelease(t, s)
		paid := int64(fulfilPayout - 1200)
		refundMoney(t, s, start, testkit.Money{Charged: 2 * fulfilCharged, Refunded: 1200 + fulfilCharged, PaidOut: paid},
			refundPlatformFees)
		g.set(false, true)
		ans = s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"amount": 800}, sc.seller.Auth()).
			Want(t, http.StatusOK, "").Data()
		if rf := testkit.Obj(t, ans, "refund"); rf["status"] != "pending" || rf["processorRefundId"] == nil ||
			testkit.Num(t, rf, "reversedAmount") != 0 {
			t.Fatalf("refund with the reversal down: %v", rf)
		}
		refundMoney(t, s, start, testkit.Money{Charged: 2 * fulfilCharged, Refunded: 2000 + fulfilCharged, PaidOut: paid},
			refundPlatformFees-800)
		g.set(false, false)
		fulfilRelease(t, s)
		fulfilRelease(t, s)
		refundMoney(t, s, start, testkit.Money{Charged: 2 * fulfilCharged, Refunded: 2000 + fulfilCharged, PaidOut: paid - 800,
			Reversed: 800}, refundPlatformFees)
		if refunds, reversals := g.counts(); refunds != 3 || reversals != 1 {
			t.Fatalf("%d refunds and %d reversals reached the processor, want 3 and 1", refunds, reversals)
		}

		// Refunds booked while the payout's transfer is under way shrink a
		// payout the transfer pays in full: what they took is reversed.
		for _, c := range []struct {
			name   string
			amount any // the refund made during the transfer; nil is in full
			status string
			net    int64 // the seller keeps
		}{
			{"partial", 2000, "completed", fulfilPayout - 2000},
			{"full", nil, "refunded", 0},
		} {
			start := s.Ledger()
			sc := fulfilPaid(t, s, "rfrace"+c.name, nil)
			refundShipDeliver(t, s, sc)
			s.Clock.Advance(73 * time.Hour)
			g.mu.Lock()
			g.duringTransfer = func() {
				s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"amount": c.amount}, sc.seller.Auth()).
					Want(t, http.StatusOK, "")
			}
			g.mu.Unlock()
			fulfilRelease(t, s)
			fulfilRelease(t, s)
			refunded := fulfilCharged - refundPlatformFees - c.net
			if c.amount == nil {
				refunded = fulfilCharged
			}
			refundMoney(t, s, start, testkit.Money{Charged: fulfilCharged, Refunded: refunded, PaidOut: c.net, Reversed: fulfilPayout - c.net},
				fulfilCharged-refunded-c.net)
			o := fulfilStatus(t, s, sc)
			if o["status"] != c.status || o["payoutStatus"] != "released" {
				t.Fatalf("%s refund during the transfer: order %v", c.name, o)
			}
		}
	})
}

// TestRefundAuthorization runs the refund routes against the credentials
// that must be refused and the wrong user; the order is unchanged after.
func TestRefundAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := fulfilPaid(t, s, "rfauthz", nil)
		stranger := s.NewShopper("rfauthzstranger", "pm_card_visa")
		routes := []struct {
			method, path string
			body         any
		}{
			{"POST", refundPath(sc.order, "/refund"), map[string]any{"reason": "cracked", "amount": 100}},
			{"POST", refundPath(sc.order, "/refund/seller"), map[string]any{"amount": 100}},
			{"GET", refundPath(sc.order, "/refunds"), nil},
		}
		for _, c := range []struct {
			name   string
			h      []testkit.Header
			status int
			code   string
		}{
			{"no credentials", nil, 401, "UNAUTHORIZED"},
			{"garbage bearer", []testkit.Header{testkit.Bearer("garbage")}, 401, "UNAUTHORIZED"},
			{"an agent key", []testkit.Header{stranger.Key.Auth()}, 403, "FORBIDDEN"},
			{"the buyer's own agent key", []testkit.Header{sc.buyer.Key.Auth()}, 403, "FORBIDDEN"},
			{"wrong user", []testkit.Header{stranger.Auth()}, 403, "FORBIDDEN"},
		} {
			t.Run(c.name, func(t *testing.T) {
				for _, rt := range routes {
					checkAuth(t, s.Do(rt.method, rt.path, rt.body, c.h...), rt.method+" "+rt.path, c.status, c.code)
				}
			})
		}
		// The buyer may not answer, the seller may not ask.
		s.Do("POST", routes[0].path, routes[0].body, sc.seller.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("POST", routes[1].path, routes[1].body, sc.buyer.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		if o := fulfilStatus(t, s, sc); o["status"] != "paid" || testkit.Num(t, o, "amountRefunded") != 0 {
			t.Fatalf("order after the refused calls: %v", o)
		}
		if l := s.Do("GET", routes[2].path, nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").List(); len(l) != 0 {
			t.Fatalf("refunds after the refused calls: %v", l)
		}
	})
}
