package apiv1_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

// readIDs lists the ids of an order list (a Variant A data array or a
// Variant B orders array).
func readIDs(list []any) []string {
	var out []string
	for _, o := range list {
		out = append(out, o.(map[string]any)["id"].(string))
	}
	return out
}

// readPage fails unless a Variant A list answer carries ids and meta
// {total, limit, offset}.
func readPage(t testing.TB, r *testkit.Response, ids []string, total, limit, offset int64) {
	t.Helper()
	m := testkit.Obj(t, r.JSON, "meta")
	if got := readIDs(r.List()); !slices.Equal(got, ids) && !(len(got) == 0 && len(ids) == 0) {
		t.Fatalf("ids = %v, want %v", got, ids)
	}
	if testkit.Num(t, m, "total") != total || testkit.Num(t, m, "limit") != limit || testkit.Num(t, m, "offset") != offset {
		t.Fatalf("meta = %v, want total %d, limit %d, offset %d", m, total, limit, offset)
	}
}

// TestOrderReads: an order is its buyer's and its seller's to read, on every
// route that shows it; nobody else's.
func TestOrderReads(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("readseller")
		sellerKey := s.NewKey(seller, "buy_sell")
		buyer := s.NewShopper("readbuyer", "pm_card_visa")
		third := s.NewShopper("readthird", "pm_card_visa")
		admin := s.Admin()

		// Three orders a minute apart: two paid, then one cancelled (a
		// rejected approval).
		o1 := purchBuy(t, s, buyer.Key, purchBody(purchListing(t, s, seller, 1000, nil), 1000))["id"].(string)
		s.Clock.Advance(time.Minute)
		o2 := purchBuy(t, s, buyer.Key, purchBody(purchListing(t, s, seller, 1500, purchFlat(500)), 1500))["id"].(string)
		s.Clock.Advance(time.Minute)
		s.SetControls(buyer.User, map[string]any{"approvalThreshold": 2000})
		aid, o3 := apprQueue(t, s, buyer, purchListing(t, s, seller, 2500, nil), 3000)
		s.Do("POST", "/api/v1/approvals/"+aid+"/reject", nil, buyer.Auth()).Want(t, http.StatusOK, "")
		unknown := market.NewID()

		t.Run("one order, Variant A", func(t *testing.T) {
			for _, c := range []struct {
				path   string
				buyer  testkit.Header
				seller testkit.Header
				third  testkit.Header
				none   string
			}{
				{"/api/v1/orders/", buyer.Auth(), seller.Auth(), third.Auth(), "UNAUTHORIZED"},
				{"/api/v1/purchases/", buyer.Auth(), seller.Auth(), third.Auth(), "UNAUTHORIZED"},
				{"/api/v1/agent/orders/", buyer.Key.Auth(), sellerKey.Auth(), third.Key.Auth(), "INVALID_AGENT_KEY"},
			} {
				t.Run(c.path, func(t *testing.T) {
					b := s.Do("GET", c.path+o2, nil, c.buyer).Want(t, http.StatusOK, "").Data()
					if b["id"] != o2 || b["role"] != "buyer" || b["status"] != "paid" || b["paymentMethodId"] == nil {
						t.Fatalf("the buyer's order = %v", b)
					}
					if _, has := b["commission"]; has {
						t.Fatalf("the buyer sees the commission: %v", b)
					}
					purchFees(t, testkit.Obj(t, b, "fees"), 1500, 500, 99, 2099)
					sv := s.Do("GET", c.path+o2, nil, c.seller).Want(t, http.StatusOK, "").Data()
					if sv["role"] != "seller" || testkit.Num(t, sv, "commission") != 45 || testkit.Num(t, sv, "sellerPayout") != 1500-45+500 {
						t.Fatalf("the seller's order = %v", sv)
					}
					if _, has := sv["paymentMethodId"]; has {
						t.Fatalf("the seller sees the buyer's payment method: %v", sv)
					}
					s.Do("GET", c.path+o2, nil, c.third).Want(t, http.StatusForbidden, "FORBIDDEN")
					s.Do("GET", c.path+unknown, nil, c.buyer).Want(t, http.StatusNotFound, "NOT_FOUND")
					s.Do("GET", c.path+"not-an-order", nil, c.buyer).Want(t, http.StatusNotFound, "NOT_FOUND")
					s.Do("GET", c.path+o2, nil).Want(t, http.StatusUnauthorized, c.none)

					for _, h := range []testkit.Header{c.buyer, c.seller} {
						r := s.Do("GET", c.path+o2+"/events", nil, h).Want(t, http.StatusOK, "")
						es := r.List()
						if len(es) != 2 {
							t.Fatalf("events = %s", r.Body)
						}
						created, paid := es[0].(map[string]any), es[1].(map[string]any)
						if created["type"] != "order.created" || created["actorType"] != "agent" || created["actorId"] != buyer.Key.ID ||
							testkit.Num(t, testkit.Obj(t, created, "data"), "totalCharged") != 2099 || created["id"] == nil || created["createdAt"] == nil {
							t.Fatalf("order.created = %v", created)
						}
						if paid["type"] != "payment.succeeded" || paid["actorType"] != "system" || paid["actorId"] != nil {
							t.Fatalf("payment.succeeded = %v", paid)
						}
					}
					s.Do("GET", c.path+o2+"/events", nil, c.third).Want(t, http.StatusForbidden, "FORBIDDEN")
					s.Do("GET", c.path+unknown+"/events", nil, c.buyer).Want(t, http.StatusNotFound, "NOT_FOUND")
					s.Do("GET", c.path+o2+"/events", nil).Want(t, http.StatusUnauthorized, c.none)
				})
			}
			// An admin reads any order; an agent key is not a bearer token.
			if r := s.Do("GET", "/api/v1/orders/"+o1, nil, admin.Auth()).Want(t, http.StatusOK, ""); r.Data()["id"] != o1 {
				t.Fatalf("admin read = %s", r.Body)
			}
			s.Do("GET", "/api/v1/orders/"+o1, nil, buyer.Key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("GET", "/api/v1/agent/orders/"+o1, nil, buyer.Auth()).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		})

		t.Run("lists, Variant A", func(t *testing.T) {
			all := []string{o3, o2, o1} // newest first
			get := func(path string, h testkit.Header) *testkit.Response {
				t.Helper()
				return s.Do("GET", path, nil, h).Want(t, http.StatusOK, "")
			}
			readPage(t, get("/api/v1/purchases/buyer", buyer.Auth()), all, 3, 20, 0)
			readPage(t, get("/api/v1/purchases/buyer?status=paid", buyer.Auth()), []string{o2, o1}, 2, 20, 0)
			readPage(t, get("/api/v1/purchases/buyer?limit=1&offset=1", buyer.Auth()), []string{o2}, 3, 1, 1)
			readPage(t, get("/api/v1/purchases/buyer?offset=10", buyer.Auth()), nil, 3, 20, 10)
			readPage(t, get("/api/v1/purchases/buyer", seller.Auth()), nil, 0, 20, 0)
			readPage(t, get("/api/v1/purchases/seller?status=paid", seller.Auth()), []string{o2, o1}, 2, 20, 0)
			readPage(t, get("/api/v1/purchases/seller", buyer.Auth()), nil, 0, 20, 0)
			readPage(t, get("/api/v1/purchases/seller", third.Auth()), nil, 0, 20, 0)

			readPage(t, get("/api/v1/agent/orders", buyer.Key.Auth()), all, 3, 20, 0)
			readPage(t, get("/api/v1/agent/orders?role=buyer&status=cancelled", buyer.Key.Auth()), []string{o3}, 1, 20, 0)
			readPage(t, get("/api/v1/agent/orders?role=seller", buyer.Key.Auth()), nil, 0, 20, 0)
			readPage(t, get("/api/v1/agent/orders?role=seller&status=paid&limit=1", sellerKey.Auth()), []string{o2}, 2, 1, 0)
			readPage(t, get("/api/v1/agent/orders?role=buyer", sellerKey.Auth()), nil, 0, 20, 0)
			readPage(t, get("/api/v1/agent/orders", third.Key.Auth()), nil, 0, 20, 0)

			for _, c := range []struct {
				path  string
				h     testkit.Header
				field string
			}{
				{"/api/v1/agent/orders?role=admin", buyer.Key.Auth(), "role"},
				{"/api/v1/agent/orders?status=lost", buyer.Key.Auth(), "status"},
				{"/api/v1/agent/orders?limit=0", buyer.Key.Auth(), "limit"},
				{"/api/v1/agent/orders?limit=1000", buyer.Key.Auth(), "limit"},
				{"/api/v1/agent/orders?offset=-1", buyer.Key.Auth(), "offset"},
				{"/api/v1/agent/orders?limit=x", buyer.Key.Auth(), "limit"},
				{"/api/v1/purchases/buyer?status=lost", buyer.Auth(), "status"},
				{"/api/v1/purchases/seller?limit=0", seller.Auth(), "limit"},
			} {
				testkit.WantFields(t, s.Do("GET", c.path, nil, c.h), c.field)
			}
			s.Do("GET", "/api/v1/purchases/buyer", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do("GET", "/api/v1/purchases/seller", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do("GET", "/api/v1/agent/orders", nil).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		})

		t.Run("Variant B", func(t *testing.T) {
			list := func(query string, h testkit.Header) (ids []string, total int64) {
				t.Helper()
				d := s.Do("GET", "/v1/orders"+query, nil, h).Want(t, http.StatusOK, "").Data()
				os, ok := d["orders"].([]any)
				if !ok {
					t.Fatalf("data = %v, want {orders, total}", d)
				}
				return readIDs(os), testkit.Num(t, d, "total")
			}
			if ids, total := list("", buyer.Key.Auth()); !slices.Equal(ids, []string{o3, o2, o1}) || total != 3 {
				t.Fatalf("buyer's orders %v, total %d", ids, total)
			}
			if ids, total := list("?role=seller&status=paid", sellerKey.Auth()); !slices.Equal(ids, []string{o2, o1}) || total != 2 {
				t.Fatalf("seller's paid orders %v, total %d", ids, total)
			}
			if ids, total := list("?limit=1&offset=2", buyer.Auth()); !slices.Equal(ids, []string{o1}) || total != 3 {
				t.Fatalf("page %v, total %d", ids, total)
			}
			if ids, total := list("", third.Key.Auth()); len(ids) != 0 || total != 0 {
				t.Fatalf("a stranger's orders %v, total %d", ids, total)
			}
			testkit.WantFields(t, s.Do("GET", "/v1/orders?role=admin", nil, buyer.Key.Auth()), "role")
			testkit.WantFields(t, s.Do("GET", "/v1/orders?status=lost", nil, buyer.Key.Auth()), "status")
			s.Do("GET", "/v1/orders", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")

			b := s.Do("GET", "/v1/orders/"+o2, nil, buyer.Key.Auth()).Want(t, http.StatusOK, "").Data()
			f := testkit.Obj(t, b, "fees")
			if b["order_id"] != o2 || b["status"] != "paid" || testkit.Num(t, f, "total_charged") != 2099 || testkit.Num(t, f, "service_fee") != 99 {
				t.Fatalf("the buyer's order = %v", b)
			}
			if _, has := b["seller_payout"]; has {
				t.Fatalf("the buyer sees the payout: %v", b)
			}
			sv := s.Do("GET", "/v1/orders/"+o2, nil, sellerKey.Auth()).Want(t, http.StatusOK, "").Data()
			if testkit.Num(t, sv, "commission") != 45 || testkit.Num(t, sv, "seller_payout") != 1955 {
				t.Fatalf("the seller's order = %v", sv)
			}
			s.Do("GET", "/v1/orders/"+o2, nil, seller.Auth()).Want(t, http.StatusOK, "")
			s.Do("GET", "/v1/orders/"+o2, nil, third.Key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("GET", "/v1/orders/"+o2, nil, third.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("GET", "/v1/orders/"+unknown, nil, buyer.Key.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("GET", "/v1/orders/"+o2, nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do("GET", "/v1/orders/"+o2, nil, testkit.AgentKey("mk_test_nope")).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		})
	})
}
