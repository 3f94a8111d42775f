package apiv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/testkit"
)

// orphanClaim makes the stored answer of key look like the claim of a
// process that died after doing its work and before storing the answer:
// started, with a lease that ran out.
func orphanClaim(t *testing.T, s *testkit.Server, key string) {
	t.Helper()
	res, err := s.App.DB.WritePool().ExecContext(t.Context(), `UPDATE idempotency_keys
		SET state = 'started', status = 0, body = '', lease_owner = 'dead', lease_until = NULL WHERE idem_key = '`+key+`'`)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%d claims named %s", n, key)
	}
}

func countRows(t *testing.T, s *testkit.Server, query string) int64 {
	t.Helper()
	var n int64
	if err := s.App.DB.WritePool().QueryRowContext(t.Context(), query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A retry that takes over a dead claim finds the work the first run did
// under the key and answers with it: the same checkout, the same approved
// and paid order, the same refund request, the same refund, and nothing
// charged or refunded twice. (Purchases are killed for real in
// internal/app/crashtest.)
func TestIdempotencyRecovery(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		idem := func(k string) testkit.Header { return testkit.Header{Name: "Idempotency-Key", Value: k} }

		t.Run("human checkout", func(t *testing.T) {
			seller := s.VerifiedOwner("Cass")
			buyer := s.Register("Huma")
			listing := s.ActiveListing(seller, "teak side table with one drawer", 6000)
			body := map[string]any{"listingId": listing, "shippingAddress": testkit.Address()}
			first := s.Do("POST", "/api/v1/purchases", body, buyer.Auth(), idem("rc-checkout")).Want(t, http.StatusCreated, "")
			orphanClaim(t, s, "rc-checkout")
			again := s.Do("POST", "/api/v1/purchases", body, buyer.Auth(), idem("rc-checkout")).Want(t, http.StatusCreated, "")
			if again.Header.Get("Idempotent-Replayed") == "true" {
				t.Fatal("the retry was replayed from a claim that had no answer")
			}
			for _, k := range []string{"orderId", "checkoutUrl", "clientSecret", "status"} {
				if again.Data()[k] != first.Data()[k] {
					t.Fatalf("%s: %v, first %v", k, again.Data()[k], first.Data()[k])
				}
			}
			if n := countRows(t, s, `SELECT COUNT(*) FROM orders WHERE listing_id = '`+listing+`'`); n != 1 {
				t.Fatalf("%d orders for the listing, want 1", n)
			}
		})

		t.Run("approval", func(t *testing.T) {
			seller := s.VerifiedOwner("Sela")
			sh := s.NewShopper("Appo", "pm_card_visa")
			s.SetControls(sh.User, map[string]any{"approvalThreshold": 1000})
			listing := s.ActiveListing(seller, "mid century floor lamp with linen shade", 3000)
			aid, oid := apprQueue(t, s, sh, listing, 4000)
			first := s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, sh.Auth(), idem("rc-approve")).Want(t, http.StatusOK, "")
			charges := s.Charges()
			orphanClaim(t, s, "rc-approve")
			again := s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, sh.Auth(), idem("rc-approve")).Want(t, http.StatusOK, "")
			if again.Data()["id"] != oid || again.Data()["status"] != "paid" || first.Data()["status"] != "paid" {
				t.Fatalf("retry answered %v %v, first %v", again.Data()["id"], again.Data()["status"], first.Data()["status"])
			}
			if s.Charges() != charges {
				t.Fatal("the retry charged again")
			}
			// Without a key, approving twice is still refused.
			s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, sh.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		})

		t.Run("refunds", func(t *testing.T) {
			sc := fulfilPaid(t, s, "Refu", nil)
			req := map[string]any{"reason": "a scratch on the top", "amount": 1000}
			first := s.Do("POST", refundPath(sc.order, "/refund"), req, sc.buyer.Auth(), idem("rc-request")).Want(t, http.StatusCreated, "")
			orphanClaim(t, s, "rc-request")
			again := s.Do("POST", refundPath(sc.order, "/refund"), req, sc.buyer.Auth(), idem("rc-request")).Want(t, http.StatusCreated, "")
			if again.Data()["id"] != first.Data()["id"] {
				t.Fatalf("the retry made request %v, first %v", again.Data()["id"], first.Data()["id"])
			}
			s.Do("POST", refundPath(sc.order, "/refund/seller"), map[string]any{"action": "decline"}, sc.seller.Auth()).
				Want(t, http.StatusOK, "")

			before := s.Ledger()
			own := map[string]any{"amount": 700, "reason": "sorry for the wait"}
			r1 := s.Do("POST", refundPath(sc.order, "/refund/seller"), own, sc.seller.Auth(), idem("rc-own")).Want(t, http.StatusOK, "")
			orphanClaim(t, s, "rc-own")
			r2 := s.Do("POST", refundPath(sc.order, "/refund/seller"), own, sc.seller.Auth(), idem("rc-own")).Want(t, http.StatusOK, "")
			id1 := testkit.Obj(t, r1.Data(), "refund")["id"]
			if id2 := testkit.Obj(t, r2.Data(), "refund")["id"]; id2 != id1 {
				t.Fatalf("the retry made refund %v, first %v", id2, id1)
			}
			if got := s.Ledger().Refunded - before.Refunded; got != 700 {
				t.Fatalf("refunded %d after the retry, want 700 once", got)
			}
			if n := countRows(t, s, `SELECT COUNT(*) FROM refunds WHERE order_id = '`+sc.order+`' AND amount = 700`); n != 1 {
				t.Fatalf("%d refunds of 700, want 1", n)
			}
		})
	})
}
