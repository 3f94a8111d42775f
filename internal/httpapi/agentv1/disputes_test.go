package agentv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/config"
	"marketplace/internal/httpapi/agentv1"
	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

// dispErrDetails is an error answer's details.
func dispErrDetails(r *testkit.Response) map[string]any {
	e, _ := r.JSON["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

// TestDisputeVariantB opens disputes through POST /v1/orders/{id}/dispute.
func TestDisputeVariantB(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("bdspseller")
		buyer := s.NewShopper("bdspbuyer", "pm_card_visa")
		_, order := sbPaid(t, s, seller, buyer, 2000)
		sbShip(t, s, seller, order)
		path := "/v1/orders/" + order + "/dispute"
		photos := s.UploadPhotos(buyer.Key.Auth(), 1)
		body := map[string]any{"reason": "not_as_described", "description": "Listed as walnut; it is painted pine.",
			"evidence_photos": photos}

		s.Do("POST", path, body, s.NewKey(buyer.User, "sell_only").Auth()).Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
		s.Do("POST", path, body).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("POST", path, body, testkit.AgentKey("mk_test_garbage")).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		revoked := s.NewKey(buyer.User, "buy_sell")
		s.Do("DELETE", "/api/v1/agent-keys/"+revoked.ID, nil, buyer.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", path, body, revoked.Auth()).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		frozen := s.NewKey(buyer.User, "buy_sell")
		s.Do("POST", "/api/v1/admin/users/"+buyer.ID+"/agent-keys/"+frozen.ID+"/freeze", nil, s.Admin().Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", path, body, frozen.Auth()).Want(t, http.StatusForbidden, "AGENT_FROZEN")
		s.Do("POST", path, body, s.NewKey(seller, "buy_sell").Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("POST", path, body, seller.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		testkit.WantFields(t, s.Do("POST", path, map[string]any{"description": "x"}, buyer.Key.Auth()), "reason")
		testkit.WantFields(t, s.Do("POST", path, map[string]any{"reason": "other", "description": "x",
			"evidence_photos": s.UploadPhotos(seller.Auth(), 1)}, buyer.Key.Auth()), "evidence_photos[0]")
		s.Do("POST", "/v1/orders/"+market.NewID()+"/dispute", body, buyer.Key.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		if st := sbOrder(t, s, order, buyer.Key.Auth())["status"]; st != "shipped" {
			t.Fatalf("refused disputes left the order %v", st)
		}

		r := s.Do("POST", path, body, buyer.Key.Auth()).Want(t, http.StatusCreated, "")
		wantMeta(t, r)
		d := r.Data()
		if d["order_id"] != order || d["buyer_id"] != buyer.ID || d["seller_id"] != seller.ID || d["status"] != "open" ||
			d["reason"] != "not_as_described" || d["seller_response"] != nil || d["resolution_amount"] != nil ||
			d["created_at"] == nil || len(d["evidence_photos"].([]any)) != 1 || d["evidence_photos"].([]any)[0] != photos[0] {
			t.Fatalf("Variant B dispute = %v", d)
		}
		if _, camel := d["orderId"]; camel {
			t.Fatalf("Variant B dispute carries camelCase: %v", d)
		}
		if st := sbOrder(t, s, order, buyer.Key.Auth())["status"]; st != "disputed" {
			t.Fatalf("order is %v after the dispute, want disputed", st)
		}
		again := s.Do("POST", path, body, buyer.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		if det := dispErrDetails(again); det["dispute_id"] != d["id"] || det["status"] != "disputed" {
			t.Fatalf("second dispute details = %v", det)
		}
		// The same dispute, read on Variant A.
		a := s.Do("GET", "/api/v1/disputes/"+d["id"].(string), nil, seller.Auth()).Want(t, http.StatusOK, "").Data()
		if a["orderId"] != order || a["description"] != body["description"] {
			t.Fatalf("Variant A view = %v", a)
		}
	})
}

// TestSandboxSimulateDispute: the sandbox opens a dispute for the buyer, and
// the frozen payout waits out the hold until an admin resolves it.
func TestSandboxSimulateDispute(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("sbdspseller")
		buyer := s.NewShopper("sbdspbuyer", "pm_card_visa")
		admin := s.Admin()
		_, order := sbPaid(t, s, seller, buyer, 2000)
		sbShip(t, s, seller, order)
		s.Do("POST", "/v1/sandbox/simulate/delivery/"+order, nil, buyer.Key.Auth()).Want(t, http.StatusOK, "")
		path := "/v1/sandbox/simulate/dispute/" + order

		s.Do("POST", path, nil, s.NewShopper("sbdspstranger", "pm_card_visa").Key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("POST", path, nil, admin.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("POST", "/v1/sandbox/simulate/dispute/"+market.NewID(), nil, seller.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("POST", path, nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")

		r := s.Do("POST", path, nil, seller.Auth()).Want(t, http.StatusCreated, "")
		wantMeta(t, r)
		d := r.Data()
		if d["reason"] != "not_received" || d["description"] != agentv1.SimulatedDisputeText || d["buyer_id"] != buyer.ID ||
			d["status"] != "open" {
			t.Fatalf("simulated dispute = %v", d)
		}
		o := sbOrder(t, s, order, seller.Auth())
		if o["status"] != "disputed" || o["payout_status"] != "frozen" {
			t.Fatalf("order after the simulated dispute: %v %v", o["status"], o["payout_status"])
		}
		again := s.Do("POST", path, nil, buyer.Key.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		if det := dispErrDetails(again); det["dispute_id"] != d["id"] {
			t.Fatalf("second simulation details = %v", det)
		}

		ledger := s.Ledger()
		sbAdvance(t, s, buyer.Key.Auth(), 100)
		if o := sbOrder(t, s, order, seller.Auth()); o["status"] != "disputed" || o["payout_status"] != "frozen" {
			t.Fatalf("after the hold: %v %v", o["status"], o["payout_status"])
		}
		if got := s.Ledger(); got.PaidOut != ledger.PaidOut {
			t.Fatalf("a frozen payout was paid: %+v -> %+v", ledger, got)
		}
		s.Do("POST", "/api/v1/admin/disputes/"+d["id"].(string)+"/resolve", map[string]any{"resolution": "release_seller"},
			admin.Auth()).Want(t, http.StatusOK, "")
		payout := testkit.Num(t, sbOrder(t, s, order, seller.Auth()), "seller_payout")
		if o := sbOrder(t, s, order, seller.Auth()); o["status"] != "completed" || o["payout_status"] != "released" {
			t.Fatalf("after the release: %v %v", o["status"], o["payout_status"])
		}
		if got := s.Ledger(); got.PaidOut-ledger.PaidOut != payout {
			t.Fatalf("paid out %d, want %d", got.PaidOut-ledger.PaidOut, payout)
		}
	})
}

// TestSandboxSimulateDisputeLive: in live mode the simulation does not
// exist, while the real dispute route does.
func TestSandboxSimulateDisputeLive(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{Mode: config.Live}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("sbdsplive")
		id := market.NewID()
		s.Do("POST", "/v1/sandbox/simulate/dispute/"+id, nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("POST", "/v1/orders/"+id+"/dispute", map[string]any{"reason": "other", "description": "x"}, u.Auth()).
			Want(t, http.StatusNotFound, "NOT_FOUND")
	})
}
