package apiv1_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/internal/testkit"
)

// fdDispute reads a dispute as the scene's buyer.
func fdDispute(t *testing.T, s *testkit.Server, sc fulfilScene, id string) map[string]any {
	t.Helper()
	return s.Do("GET", "/api/v1/disputes/"+id, nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").Data()
}

// fdClosed checks a dispute an admin's force action closed.
func fdClosed(t *testing.T, d map[string]any, admin *testkit.User, resolution string, amount int64, note string) {
	t.Helper()
	if d["status"] != "resolved" || d["resolution"] != resolution || d["resolutionNote"] != note ||
		d["resolvedBy"] != admin.ID || d["resolvedAt"] == nil {
		t.Fatalf("dispute after the force action = %v", d)
	}
	if got := testkit.Num(t, d, "resolutionAmount"); got != amount {
		t.Fatalf("resolutionAmount %d, want %d", got, amount)
	}
}

// fdTypes lists the types of an order's timeline.
func fdTypes(events []map[string]any) []string {
	var out []string
	for _, e := range events {
		out = append(out, e["type"].(string))
	}
	return out
}

// fdAfter reports whether a comes before b in the timeline (both present).
func fdAfter(types []string, a, b string) bool {
	ia, ib := -1, -1
	for i, ty := range types {
		if ty == a && ia < 0 {
			ia = i
		}
		if ty == b {
			ib = i
		}
	}
	return ia >= 0 && ib > ia
}

// An admin's force-cancel or force-complete of a disputed order resolves its
// dispute in the same move, so it never stays open with nobody able to
// resolve it; the money is checked on the processor's own records.
func TestForceActionsCloseDisputes(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()

		t.Run("force-cancel refunds the buyer and resolves the dispute for them", func(t *testing.T) {
			sc := fulfilPaid(t, s, "fdcancel", nil)
			s.Do("POST", "/api/v1/orders/"+sc.order+"/ship", dspShip, sc.seller.Auth()).Want(t, http.StatusOK, "")
			d := dspOpen(t, s, sc, "not_received", nil)
			s.Do("POST", "/api/v1/disputes/"+d["id"].(string)+"/respond", map[string]any{"response": "It was shipped."},
				sc.seller.Auth()).Want(t, http.StatusOK, "")
			o := s.Do("POST", "/api/v1/admin/orders/"+sc.order+"/force-cancel", map[string]any{"reason": "lost parcel"},
				admin.Auth()).Want(t, http.StatusOK, "").Data()
			if o["status"] != "cancelled" || testkit.Num(t, o, "amountRefunded") != fulfilCharged {
				t.Fatalf("after force-cancel: %v", o)
			}
			fdClosed(t, fdDispute(t, s, sc, d["id"].(string)), admin, "refund_buyer", fulfilCharged, "closed by admin force-cancel")
			if m, _ := s.OrderLedger(sc.order); m != (testkit.Money{Charged: fulfilCharged, Refunded: fulfilCharged}) {
				t.Fatalf("processor moved %+v, want the charge refunded in full", m)
			}
			if n := dspOpenCount(t, s, sc.seller); n != 0 {
				t.Fatalf("%d disputes still open", n)
			}
			events := dspTimeline(t, s, sc)
			data := dspEvent(t, events, "dispute.resolved")
			if data["disputeId"] != d["id"] || data["resolution"] != "refund_buyer" || testkit.Num(t, data, "amount") != fulfilCharged {
				t.Fatalf("dispute.resolved = %v", data)
			}
			if types := fdTypes(events); !fdAfter(types, "order.disputed", "dispute.resolved") ||
				!fdAfter(types, "dispute.resolved", "order.cancelled") {
				t.Fatalf("timeline %v", types)
			}
			// Resolving it now answers it as closed; nothing moves twice.
			dspResolve(t, s, admin, d["id"].(string), map[string]any{"resolution": "refund_buyer"})
			s.Do("POST", "/api/v1/admin/disputes/"+d["id"].(string)+"/resolve", map[string]any{"resolution": "release_seller"},
				admin.Auth()).Want(t, http.StatusOK, "")
			if m, _ := s.OrderLedger(sc.order); m != (testkit.Money{Charged: fulfilCharged, Refunded: fulfilCharged}) {
				t.Fatalf("processor moved %+v after resolving again", m)
			}
			// A new dispute may not be opened on the cancelled order.
			s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": sc.order, "reason": "other", "description": "Again."},
				sc.buyer.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		})

		t.Run("force-complete of a delivered order releases the frozen payout", func(t *testing.T) {
			sc := dspDelivered(t, s, "fddelivered")
			d := dspOpen(t, s, sc, "damaged", nil)
			if o := fulfilStatus(t, s, sc); o["payoutStatus"] != "frozen" {
				t.Fatalf("payout %v while disputed, want frozen", o["payoutStatus"])
			}
			delivered := fulfilStatus(t, s, sc)["deliveredAt"]
			o := s.Do("POST", "/api/v1/admin/orders/"+sc.order+"/force-complete", nil, admin.Auth()).Want(t, http.StatusOK, "").Data()
			if o["status"] != "completed" {
				t.Fatalf("after force-complete: %v", o)
			}
			fdClosed(t, fdDispute(t, s, sc, d["id"].(string)), admin, "release_seller", 0, "closed by admin force-complete")
			o = fulfilStatus(t, s, sc)
			if o["payoutStatus"] != "released" || testkit.Num(t, o, "payoutAmount") != fulfilPayout || o["deliveredAt"] != delivered {
				t.Fatalf("seller's view after force-complete: %v", o)
			}
			if m, _ := s.OrderLedger(sc.order); m != (testkit.Money{Charged: fulfilCharged, PaidOut: fulfilPayout}) {
				t.Fatalf("processor moved %+v, want the payout released", m)
			}
			if n := dspOpenCount(t, s, sc.seller); n != 0 {
				t.Fatalf("%d disputes still open", n)
			}
			events := dspTimeline(t, s, sc)
			if data := dspEvent(t, events, "dispute.resolved"); data["resolution"] != "release_seller" || testkit.Num(t, data, "amount") != 0 {
				t.Fatalf("dispute.resolved = %v", data)
			}
			if types := fdTypes(events); !fdAfter(types, "dispute.resolved", "payment.released") ||
				!fdAfter(types, "payment.released", "order.completed") {
				t.Fatalf("timeline %v", types)
			}
			// Again: answered as it is, paid once.
			s.Do("POST", "/api/v1/admin/orders/"+sc.order+"/force-complete", nil, admin.Auth()).Want(t, http.StatusOK, "")
			if m, _ := s.OrderLedger(sc.order); m.PaidOut != fulfilPayout {
				t.Fatalf("paid out %d after a second force-complete", m.PaidOut)
			}
		})

		t.Run("force-complete of an order disputed before shipping delivers it", func(t *testing.T) {
			sc := fulfilPaid(t, s, "fdpaid", nil)
			d := dspOpen(t, s, sc, "other", nil)
			o := s.Do("POST", "/api/v1/admin/orders/"+sc.order+"/force-complete", nil, admin.Auth()).Want(t, http.StatusOK, "").Data()
			if o["status"] != "completed" || o["deliveredAt"] == nil {
				t.Fatalf("after force-complete: %v", o)
			}
			fdClosed(t, fdDispute(t, s, sc, d["id"].(string)), admin, "release_seller", 0, "closed by admin force-complete")
			if m, _ := s.OrderLedger(sc.order); m != (testkit.Money{Charged: fulfilCharged, PaidOut: fulfilPayout}) {
				t.Fatalf("processor moved %+v, want the payout released", m)
			}
			types := fdTypes(dspTimeline(t, s, sc))
			if !fdAfter(types, "dispute.resolved", "order.delivered") || !fdAfter(types, "order.delivered", "order.completed") {
				t.Fatalf("timeline %v", types)
			}
		})

		t.Run("force-complete of an order disputed after its payout", func(t *testing.T) {
			sc := dspDelivered(t, s, "fdpaidout")
			s.Clock.Advance(73 * time.Hour)
			fulfilRelease(t, s)
			if st := fulfilStatus(t, s, sc)["status"]; st != "completed" {
				t.Fatalf("status %v after the hold", st)
			}
			d := dspOpen(t, s, sc, "not_as_described", nil)
			o := s.Do("POST", "/api/v1/admin/orders/"+sc.order+"/force-complete", nil, admin.Auth()).Want(t, http.StatusOK, "").Data()
			if o["status"] != "completed" {
				t.Fatalf("after force-complete: %v", o)
			}
			fdClosed(t, fdDispute(t, s, sc, d["id"].(string)), admin, "release_seller", 0, "closed by admin force-complete")
			if m, _ := s.OrderLedger(sc.order); m != (testkit.Money{Charged: fulfilCharged, PaidOut: fulfilPayout}) {
				t.Fatalf("processor moved %+v, want one payout", m)
			}
			// The seller was paid already: cancelling is refused and leaves the
			// dispute open for the admin to resolve.
			sc2 := dspDelivered(t, s, "fdpaidout2")
			s.Clock.Advance(73 * time.Hour)
			fulfilRelease(t, s)
			d2 := dspOpen(t, s, sc2, "damaged", nil)
			s.Do("POST", "/api/v1/admin/orders/"+sc2.order+"/force-cancel", nil, admin.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			if st := fdDispute(t, s, sc2, d2["id"].(string))["status"]; st != "open" {
				t.Fatalf("dispute %v after a refused force-cancel", st)
			}
		})

		// A resolve and a force action on one order at once: the order is
		// locked before the dispute on both paths, so neither deadlocks (a
		// 500 on PostgreSQL) and exactly one of them settles the money.
		t.Run("resolve and force-cancel at once", func(t *testing.T) {
			for i := range 4 {
				sc := fulfilPaid(t, s, "fdrace"+string(rune('a'+i)), nil)
				d := dspOpen(t, s, sc, "damaged", nil)
				var wg sync.WaitGroup
				var resolve, cancel int
				wg.Go(func() {
					resolve = fdPost(s, admin, "/api/v1/admin/disputes/"+d["id"].(string)+"/resolve",
						`{"resolution":"refund_buyer"}`)
				})
				wg.Go(func() { cancel = fdPost(s, admin, "/api/v1/admin/orders/"+sc.order+"/force-cancel", `{}`) })
				wg.Wait()
				if resolve != http.StatusOK || cancel != http.StatusOK && cancel != http.StatusConflict {
					t.Fatalf("resolve %d, force-cancel %d", resolve, cancel)
				}
				if st := fdDispute(t, s, sc, d["id"].(string))["status"]; st != "resolved" {
					t.Fatalf("dispute %v", st)
				}
				if m, _ := s.OrderLedger(sc.order); m != (testkit.Money{Charged: fulfilCharged, Refunded: fulfilCharged}) {
					t.Fatalf("processor moved %+v, want one full refund", m)
				}
			}
		})
	})
}

// fdPost sends an admin POST off the test goroutine and answers the status
// (0 when the request failed).
func fdPost(s *testkit.Server, admin *testkit.User, path, body string) int {
	req, err := http.NewRequest("POST", s.URL+path, strings.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+admin.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var v json.RawMessage
	_ = json.NewDecoder(resp.Body).Decode(&v)
	return resp.StatusCode
}
