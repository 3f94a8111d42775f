package apiv1_test

import (
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

// apprQueue makes a purchase that the owner's approval threshold queues, and
// returns the approval and order ids. The queued purchase holds nothing:
// the listing stays active and nothing is spent or charged.
func apprQueue(t testing.TB, s *testkit.Server, sh *testkit.Shopper, listing string, maxPrice int64) (approvalID, orderID string) {
	t.Helper()
	before := purchSnap(t, s, sh)
	r := s.Do("POST", purchPath, purchBody(listing, maxPrice), sh.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
	if r.JSON["success"] != false || r.JSON["data"] != nil {
		t.Fatalf("APPROVAL_REQUIRED answer = %s", r.Body)
	}
	d := purchDetails(t, r)
	approvalID, _ = d["approvalId"].(string)
	orderID, _ = d["orderId"].(string)
	if !market.ValidID(approvalID) || !market.ValidID(orderID) {
		t.Fatalf("details = %v", d)
	}
	after := purchSnap(t, s, sh)
	if want := (purchState{before.Orders + 1, before.SpentToday, before.Charges}); after != want {
		t.Fatalf("after queueing %+v, want %+v (one order, nothing spent or charged)", after, want)
	}
	if st := purchListingStatus(t, s, listing); st != "active" {
		t.Fatalf("a queued purchase left the listing %s", st)
	}
	return approvalID, orderID
}

// apprFind returns the approval id among owner's approvals (filtered by
// query), or nil.
func apprFind(t testing.TB, s *testkit.Server, h testkit.Header, query, id string) map[string]any {
	t.Helper()
	for _, a := range s.Do("GET", "/api/v1/approvals"+query, nil, h).Want(t, http.StatusOK, "").List() {
		if m := a.(map[string]any); m["id"] == id {
			return m
		}
	}
	return nil
}

// TestApprovals: purchases above the owner's approvalThreshold wait for the
// owner, who approves (every check runs again, then the charge) or rejects.
func TestApprovals(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("apprseller")
		stranger := s.NewShopper("apprstranger", "pm_card_visa")
		threshold := func(sh *testkit.Shopper) {
			s.SetControls(sh.User, map[string]any{"approvalThreshold": 2000})
		}

		t.Run("approve", func(t *testing.T) {
			sh := s.NewShopper("approver", "pm_card_visa")
			threshold(sh)
			// At or under the threshold there is nothing to approve.
			purchBuy(t, s, sh.Key, purchBody(purchListing(t, s, seller, 1900, nil), 2000))
			spent := purchSnap(t, s, sh).SpentToday

			id := purchListing(t, s, seller, 2500, nil)
			aid, oid := apprQueue(t, s, sh, id, 3000)

			// The buyer's agent sees the order waiting.
			o := s.Do("GET", "/api/v1/agent/orders/"+oid, nil, sh.Key.Auth()).Want(t, http.StatusOK, "").Data()
			if o["status"] != "pending_approval" || o["paidAt"] != nil {
				t.Fatalf("queued order = %v", o)
			}
			purchFees(t, testkit.Obj(t, o, "fees"), 2500, 0, 99, 2599)
			list := s.Do("GET", "/api/v1/agent/orders?status=pending_approval", nil, sh.Key.Auth()).Want(t, http.StatusOK, "")
			if len(list.List()) != 1 {
				t.Fatalf("pending_approval orders = %s", list.Body)
			}

			// The owner sees it; no one else does.
			a := apprFind(t, s, sh.Auth(), "", aid)
			if a == nil || a["status"] != "pending" || a["orderId"] != oid || testkit.Num(t, a, "amount") != 2599 ||
				a["keyId"] != sh.Key.ID || a["type"] != "purchase_approval" {
				t.Fatalf("approval = %v", a)
			}
			if apprFind(t, s, sh.Auth(), "?status=pending", aid) == nil || apprFind(t, s, sh.Auth(), "?status=approved", aid) != nil {
				t.Fatal("the status filter does not hold")
			}
			if apprFind(t, s, stranger.Auth(), "", aid) != nil {
				t.Fatal("another user sees the approval")
			}
			s.Do("GET", "/api/v1/approvals?status=maybe", nil, sh.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
			s.Do("GET", "/api/v1/approvals", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do("GET", "/api/v1/approvals", nil, sh.Key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")

			// Neither the agent nor a stranger decides.
			before := purchSnap(t, s, sh)
			s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, sh.Key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", "/api/v1/approvals/"+aid+"/reject", nil, sh.Key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, stranger.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("POST", "/api/v1/approvals/"+aid+"/reject", nil, stranger.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("POST", "/api/v1/approvals/"+market.NewID()+"/approve", nil, sh.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("POST", "/api/v1/approvals/not-an-id/approve", nil, sh.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			purchUnchanged(t, s, before, purchSnap(t, s, sh), id)

			paid := s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, sh.Auth()).Want(t, http.StatusOK, "").Data()
			if paid["status"] != "paid" || paid["id"] != oid {
				t.Fatalf("approved order = %v", paid)
			}
			purchFees(t, testkit.Obj(t, paid, "fees"), 2500, 0, 99, 2599)
			after := purchSnap(t, s, sh)
			if want := (purchState{before.Orders, spent + 2599, before.Charges + 1}); after != want {
				t.Fatalf("after approval %+v, want %+v", after, want)
			}
			if st := purchListingStatus(t, s, id); st != "sold" {
				t.Fatalf("listing is %s after approval", st)
			}
			if a := apprFind(t, s, sh.Auth(), "?status=approved", aid); a == nil || a["decidedAt"] == nil {
				t.Fatalf("decided approval = %v", a)
			}
			got := purchEventTypes(t, s, "/api/v1/orders/"+oid+"/events", sh.Auth())
			want := []string{"approval.required", "purchase_approval.approved", "order.created", "payment.succeeded"}
			if len(got) != len(want) {
				t.Fatalf("events = %v, want %v", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("events = %v, want %v", got, want)
				}
			}
			// A decision is final.
			s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, sh.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			s.Do("POST", "/api/v1/approvals/"+aid+"/reject", nil, sh.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			if c := s.Charges(); c != after.Charges {
				t.Fatalf("approving twice charged again: %d charges, want %d", c, after.Charges)
			}
		})

		t.Run("reject", func(t *testing.T) {
			sh := s.NewShopper("rejecter", "pm_card_visa")
			threshold(sh)
			id := purchListing(t, s, seller, 2500, nil)
			aid, oid := apprQueue(t, s, sh, id, 3000)
			before := purchSnap(t, s, sh)
			s.Do("POST", "/api/v1/approvals/"+aid+"/reject", map[string]any{"reason": strings.Repeat("x", 501)}, sh.Auth()).
				Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
			// The limit counts characters: 500 of three bytes each pass.
			dear := strings.Repeat("€", 490) + " too dear"
			o := s.Do("POST", "/api/v1/approvals/"+aid+"/reject", map[string]any{"reason": " " + dear}, sh.Auth()).Want(t, http.StatusOK, "").Data()
			if o["status"] != "cancelled" || o["cancelledAt"] == nil || o["paidAt"] != nil {
				t.Fatalf("rejected order = %v", o)
			}
			purchUnchanged(t, s, before, purchSnap(t, s, sh), id)
			if a := apprFind(t, s, sh.Auth(), "?status=rejected", aid); a == nil || a["reason"] != dear {
				t.Fatalf("rejected approval = %v", a)
			}
			if st := s.Do("GET", "/api/v1/agent/orders/"+oid, nil, sh.Key.Auth()).Want(t, http.StatusOK, "").Data()["status"]; st != "cancelled" {
				t.Fatalf("the agent sees the order %v", st)
			}
			s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, sh.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			purchUnchanged(t, s, before, purchSnap(t, s, sh), id)
			// The listing is still for sale.
			purchBuy(t, s, stranger.Key, purchBody(id, 3000))
		})

		t.Run("approval re-runs the checks", func(t *testing.T) {
			sh := s.NewShopper("rechecker", "pm_card_visa")
			threshold(sh)

			// Sold meanwhile.
			gone := purchListing(t, s, seller, 2500, nil)
			aid, oid := apprQueue(t, s, sh, gone, 3000)
			purchBuy(t, s, stranger.Key, purchBody(gone, 3000))
			before := purchSnap(t, s, sh)
			s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, sh.Auth()).Want(t, http.StatusConflict, "LISTING_SOLD")
			purchUnchanged(t, s, before, purchSnap(t, s, sh), "")
			if st := s.Do("GET", "/api/v1/orders/"+oid, nil, sh.Auth()).Want(t, http.StatusOK, "").Data()["status"]; st != "pending_approval" {
				t.Fatalf("order is %v after a refused approval", st)
			}

			// Repriced meanwhile.
			repriced := purchListing(t, s, seller, 2500, nil)
			aid, _ = apprQueue(t, s, sh, repriced, 3000)
			s.Do("PATCH", "/api/v1/listings/"+repriced, map[string]any{"price": 2600}, seller.Auth()).Want(t, http.StatusOK, "")
			before = purchSnap(t, s, sh)
			s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, sh.Auth()).Want(t, http.StatusConflict, "PRICE_CHANGED")
			purchUnchanged(t, s, before, purchSnap(t, s, sh), repriced)

			// Spending moved meanwhile: the caps still apply.
			a1l, a2l := purchListing(t, s, seller, 2500, nil), purchListing(t, s, seller, 2500, nil)
			a1, _ := apprQueue(t, s, sh, a1l, 3000)
			a2, _ := apprQueue(t, s, sh, a2l, 3000)
			s.SetControls(sh.User, map[string]any{"dailyLimit": 5000})
			s.Do("POST", "/api/v1/approvals/"+a1+"/approve", nil, sh.Auth()).Want(t, http.StatusOK, "")
			before = purchSnap(t, s, sh)
			r := s.Do("POST", "/api/v1/approvals/"+a2+"/approve", nil, sh.Auth()).Want(t, http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
			purchSpendLimit(t, r, 2599, 5000, "daily", 5000-2599)
			purchUnchanged(t, s, before, purchSnap(t, s, sh), a2l)
		})

		t.Run("declined on approval", func(t *testing.T) {
			sh := s.NewShopper("apprdeclined", "pm_card_chargeDeclined")
			threshold(sh)
			id := purchListing(t, s, seller, 2500, nil)
			aid, oid := apprQueue(t, s, sh, id, 3000)
			before := purchSnap(t, s, sh)
			s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, sh.Auth()).Want(t, http.StatusPaymentRequired, "PAYMENT_FAILED")
			purchUnchanged(t, s, before, purchSnap(t, s, sh), id)
			// The owner saw this order queued: it stays, cancelled with the failure.
			if st := s.Do("GET", "/api/v1/orders/"+oid, nil, sh.Auth()).Want(t, http.StatusOK, "").Data()["status"]; st != "cancelled" {
				t.Fatalf("order is %v after a declined approval, want cancelled", st)
			}
		})

		t.Run("the named card is the one charged", func(t *testing.T) {
			sh := s.NewShopper("apprnamedcard", "pm_card_visa")
			declined := s.SaveCard(sh.User, "pm_card_chargeDeclined")
			threshold(sh)
			id := purchListing(t, s, seller, 2500, nil)
			// Another owner's card is refused before anyone is asked.
			other := s.SaveCard(stranger.User, "pm_card_visa")
			s.Do("POST", purchPath, purchBody(id, 3000, "paymentMethodId", other), sh.Key.Auth()).
				Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
			r := s.Do("POST", purchPath, purchBody(id, 3000, "paymentMethodId", declined), sh.Key.Auth()).
				Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
			aid := purchDetails(t, r)["approvalId"].(string)
			s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, sh.Auth()).Want(t, http.StatusPaymentRequired, "PAYMENT_FAILED")
		})

		t.Run("a key frozen since cannot buy", func(t *testing.T) {
			sh := s.NewShopper("apprfrozen", "pm_card_visa")
			threshold(sh)
			id := purchListing(t, s, seller, 2500, nil)
			aid, oid := apprQueue(t, s, sh, id, 3000)
			admin := s.Admin()
			s.Do("POST", "/api/v1/admin/users/"+sh.ID+"/agent-keys/"+sh.Key.ID+"/freeze", nil, admin.Auth()).Want(t, http.StatusOK, "")
			s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, sh.Auth()).Want(t, http.StatusForbidden, "AGENT_FROZEN")
			if st := s.Do("GET", "/api/v1/orders/"+oid, nil, sh.Auth()).Want(t, http.StatusOK, "").Data()["status"]; st != "pending_approval" {
				t.Fatalf("order is %v, want pending_approval", st)
			}
			if st := purchListingStatus(t, s, id); st != "active" {
				t.Fatalf("listing is %s, want active", st)
			}
		})

		t.Run("the seller sees no queued order", func(t *testing.T) {
			sh := s.NewShopper("apprhidden", "pm_card_visa")
			threshold(sh)
			id := purchListing(t, s, seller, 2500, nil)
			_, oid := apprQueue(t, s, sh, id, 3000)
			s.Do("GET", "/api/v1/orders/"+oid, nil, seller.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			for _, o := range s.Do("GET", "/api/v1/purchases/seller?limit=100", nil, seller.Auth()).Want(t, http.StatusOK, "").List() {
				if o.(map[string]any)["id"] == oid {
					t.Fatalf("the seller's sales list a queued order")
				}
			}
		})
	})
}
