package agentv1_test

import (
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/accounts"
	"marketplace/internal/testkit"
)

func msgB(r *testkit.Response) []map[string]any {
	var out []map[string]any
	for _, x := range r.Data()["messages"].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

// TestMessagesB: Variant B's POST /v1/messages and GET
// /v1/messages/{listing_id}, for buyer and seller, agent and human.
func TestMessagesB(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("bmsgseller")
		listing := s.ActiveListing(seller, "Oak rocking chair with a woven seat", 12000)
		buyer := s.Register("bmsgbuyer")
		buyKey, _ := newKey(t, s, buyer, map[string]any{"label": "buyer", "scope": "buy"})
		buyerSellKey, _ := newKey(t, s, buyer, map[string]any{"label": "buyer sell", "scope": "sell"})
		sellKey, _ := newKey(t, s, seller, map[string]any{"label": "seller", "scope": "sell"})
		sellerBuyKey, _ := newKey(t, s, seller, map[string]any{"label": "seller buy", "scope": "buy"})
		other := s.Register("bmsgother")
		otherKey, _ := newKey(t, s, other, map[string]any{"label": "other", "scope": "buy_sell"})

		// No thread yet.
		s.Do("GET", "/v1/messages/"+listing, nil, buyKey.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")

		r := s.Do("POST", "/v1/messages", map[string]any{"listing_id": listing, "message": "Does it creak?",
			"structured_fields": map[string]any{"ask": "noise"}}, buyKey.Auth()).Want(t, http.StatusCreated, "")
		wantMeta(t, r)
		m := r.Data()
		th, _ := m["thread_id"].(string)
		if th == "" || m["content"] != "Does it creak?" || m["message"] != "Does it creak?" || m["sent_by_agent"] != true ||
			m["sender_id"] != buyer.ID || m["message_type"] != "text" || m["read_at"] != nil ||
			testkit.Obj(t, m, "structured_fields")["ask"] != "noise" {
			t.Fatalf("sent = %v", m)
		}
		// The human buyer writes in the same thread.
		if m2 := s.Do("POST", "/v1/messages", map[string]any{"listing_id": listing, "message": "Also: the seat?"}, buyer.Auth()).
			Want(t, http.StatusCreated, "").Data(); m2["thread_id"] != th || m2["sent_by_agent"] != false {
			t.Fatalf("second = %v", m2)
		}

		t.Run("input checks", func(t *testing.T) {
			testkit.WantFields(t, s.Do("POST", "/v1/messages", map[string]any{"listing_id": listing}, buyKey.Auth()), "message")
			testkit.WantFields(t, s.Do("POST", "/v1/messages", map[string]any{"message": "hi"}, buyKey.Auth()), "listing_id")
			testkit.WantFields(t, s.Do("POST", "/v1/messages", map[string]any{"listing_id": listing, "message": strings.Repeat("x", 5001)},
				buyKey.Auth()), "message")
			testkit.WantFields(t, s.Do("POST", "/v1/messages", map[string]any{"listing_id": listing, "message": "hi",
				"structured_fields": 3}, buyKey.Auth()), "structured_fields")
			testkit.WantFields(t, s.Do("POST", "/v1/messages", map[string]any{"listing_id": listing, "message": "hi",
				"structured_fields": map[string]any{"x": strings.Repeat("y", 17000)}}, buyKey.Auth()), "structured_fields")
			s.Do("POST", "/v1/messages", map[string]any{"listing_id": "0190c6b4-0000-7000-8000-000000000000", "message": "hi"},
				buyKey.Auth()).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
			s.Do("GET", "/v1/messages/0190c6b4-0000-7000-8000-000000000000", nil, buyKey.Auth()).
				Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		})

		t.Run("scopes", func(t *testing.T) {
			s.Do("POST", "/v1/messages", map[string]any{"listing_id": listing, "message": "hi"}, buyerSellKey.Auth()).
				Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
			s.Do("POST", "/v1/messages", map[string]any{"listing_id": listing, "message": "hi", "buyer_id": buyer.ID},
				sellerBuyKey.Auth()).Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
			// Reads take any scope.
			s.Do("GET", "/v1/messages/"+listing, nil, buyerSellKey.Auth()).Want(t, http.StatusOK, "")
		})

		t.Run("the seller", func(t *testing.T) {
			// Sellers do not open threads.
			// Sellers do not open threads (a sell-only key is refused its scope first).
			s.Do("POST", "/v1/messages", map[string]any{"listing_id": listing, "message": "hi"}, seller.Auth()).
				Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", "/v1/messages", map[string]any{"listing_id": listing, "message": "hi"}, sellKey.Auth()).
				Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
			// Without buyer_id: every thread on the listing.
			d := s.Do("GET", "/v1/messages/"+listing, nil, sellKey.Auth()).Want(t, http.StatusOK, "").Data()
			ts, _ := d["threads"].([]any)
			if d["listing_id"] != listing || len(ts) != 1 {
				t.Fatalf("seller's threads = %v", d)
			}
			t0 := ts[0].(map[string]any)
			if t0["id"] != th || t0["buyer_id"] != buyer.ID || testkit.Num(t, t0, "unread_count") != 2 ||
				testkit.Obj(t, t0, "last_message")["content"] != "Also: the seat?" {
				t.Fatalf("thread = %v", t0)
			}
			// The seller answers by naming the buyer.
			rep := s.Do("POST", "/v1/messages", map[string]any{"listing_id": listing, "message": "No creaks.", "buyer_id": buyer.ID},
				sellKey.Auth()).Want(t, http.StatusCreated, "").Data()
			if rep["thread_id"] != th || rep["sender_id"] != seller.ID || rep["sent_by_agent"] != true {
				t.Fatalf("reply = %v", rep)
			}
			s.Do("POST", "/v1/messages", map[string]any{"listing_id": listing, "message": "x", "buyer_id": other.ID},
				sellKey.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			// With buyer_id: that thread, now read by the seller.
			d = s.Do("GET", "/v1/messages/"+listing+"?buyer_id="+buyer.ID, nil, sellKey.Auth()).Want(t, http.StatusOK, "").Data()
			ms := msgB(s.Do("GET", "/v1/messages/"+listing+"?buyer_id="+buyer.ID, nil, sellKey.Auth()))
			if d["thread_id"] != th || d["listing_id"] != listing || len(ms) != 3 || ms[0]["read_at"] == nil {
				t.Fatalf("seller's view = %v / %v", d, ms)
			}
			if n := testkit.Num(t, s.Do("GET", "/api/v1/messages/unread", nil, seller.Auth()).Want(t, http.StatusOK, "").Data(),
				"unreadCount"); n != 0 {
				t.Fatalf("seller unread = %d", n)
			}
		})

		t.Run("the buyer reads", func(t *testing.T) {
			d := s.Do("GET", "/v1/messages/"+listing, nil, buyKey.Auth()).Want(t, http.StatusOK, "")
			ms := msgB(d)
			if d.Data()["thread_id"] != th || len(ms) != 3 || ms[2]["content"] != "No creaks." || ms[2]["read_at"] == nil {
				t.Fatalf("buyer's view = %v", d.Data())
			}
			if ct := testkit.Obj(t, ms[2], "content_trust"); ct["untrusted"] != true || ct["source"] != "message" {
				t.Fatalf("content_trust = %v", ct)
			}
			if ms[0]["content_trust"] != nil {
				t.Fatalf("own message carries content_trust: %v", ms[0])
			}
			// A buyer cannot name another buyer's thread, nor a stranger see it.
			s.Do("GET", "/v1/messages/"+listing+"?buyer_id="+buyer.ID, nil, otherKey.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("GET", "/v1/messages/"+listing, nil, otherKey.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("POST", "/v1/messages", map[string]any{"listing_id": listing, "message": "x", "buyer_id": buyer.ID},
				otherKey.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		})

		t.Run("authorization", func(t *testing.T) {
			admin := s.Admin()
			revoked, _ := newKey(t, s, buyer, map[string]any{"label": "revoked", "scope": "buy"})
			frozen, _ := newKey(t, s, buyer, map[string]any{"label": "frozen", "scope": "buy"})
			s.Do("DELETE", "/v1/auth/keys/"+revoked.ID, nil, buyer.Auth()).Want(t, http.StatusOK, "")
			s.Do("POST", "/api/v1/admin/users/"+buyer.ID+"/agent-keys/"+frozen.ID+"/freeze", nil, admin.Auth()).Want(t, http.StatusOK, "")
			post := map[string]any{"listing_id": listing, "message": "hi"}
			for _, rt := range []struct {
				method, path string
				body         any
			}{{"POST", "/v1/messages", post}, {"GET", "/v1/messages/" + listing, nil}} {
				s.Do(rt.method, rt.path, rt.body).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
				s.Do(rt.method, rt.path, rt.body, testkit.Bearer("garbage")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
				s.Do(rt.method, rt.path, rt.body, testkit.AgentKey("mk_test_garbage")).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
				s.Do(rt.method, rt.path, rt.body, revoked.Auth()).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
				s.Do(rt.method, rt.path, rt.body, frozen.Auth()).Want(t, http.StatusForbidden, "AGENT_FROZEN")
			}
			s.SetStatus(buyer.ID, accounts.StatusSuspended)
			s.Do("POST", "/v1/messages", post, buyKey.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
			s.Do("GET", "/v1/messages/"+listing, nil, buyer.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
			s.SetStatus(buyer.ID, accounts.StatusActive)
		})

		t.Run("sandbox reset clears the caller's threads", func(t *testing.T) {
			d := s.Do("POST", "/v1/sandbox/reset", nil, buyKey.Auth()).Want(t, http.StatusOK, "").Data()
			if testkit.Num(t, d, "threads_deleted") != 1 {
				t.Fatalf("reset = %v", d)
			}
			s.Do("GET", "/v1/messages/"+listing, nil, buyKey.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			if ts := s.Do("GET", "/api/v1/messages/threads", nil, seller.Auth()).Want(t, http.StatusOK, "").List(); len(ts) != 0 {
				t.Fatalf("seller's threads after the buyer's reset = %v", ts)
			}
		})
	})
}
