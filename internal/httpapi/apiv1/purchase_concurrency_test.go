package apiv1_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"marketplace/internal/store"
	"marketplace/internal/testkit"
)

// buyHelperAnswer is one purchase answer, gathered off the test goroutine
// (which alone may stop the test) and judged on it.
type buyHelperAnswer struct {
	Status   int
	Replayed bool
	JSON     map[string]any
	Body     []byte
	Err      error
}

func (a *buyHelperAnswer) code() string {
	e, _ := a.JSON["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func (a *buyHelperAnswer) details() map[string]any {
	e, _ := a.JSON["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

func (a *buyHelperAnswer) data() map[string]any {
	d, _ := a.JSON["data"].(map[string]any)
	return d
}

// buyHelperClient keeps a connection per concurrent caller, so a race
// between requests is not a race between TCP handshakes.
var buyHelperClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// buyHelperPost sends POST /api/v1/agent/purchase with key. It is safe to
// call from many goroutines at once: it never touches t.
func buyHelperPost(s *testkit.Server, key *testkit.Key, body map[string]any) buyHelperAnswer {
	raw, err := json.Marshal(body)
	if err != nil {
		return buyHelperAnswer{Err: err}
	}
	req, err := http.NewRequest("POST", s.URL+"/api/v1/agent/purchase", bytes.NewReader(raw))
	if err != nil {
		return buyHelperAnswer{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Agent-Key", key.Secret)
	resp, err := buyHelperClient.Do(req)
	if err != nil {
		return buyHelperAnswer{Err: err}
	}
	defer resp.Body.Close()
	out := buyHelperAnswer{Status: resp.StatusCode, Replayed: resp.Header.Get("Idempotent-Replayed") == "true"}
	if out.Body, err = io.ReadAll(resp.Body); err != nil {
		out.Err = err
		return out
	}
	if err := json.Unmarshal(out.Body, &out.JSON); err != nil {
		out.Err = fmt.Errorf("answer %d is not JSON: %v: %s", resp.StatusCode, err, out.Body)
	}
	return out
}

// buyHelperRace sends all calls at once (testkit.Race) and returns their
// answers in call order.
func buyHelperRace(n int, call func(i int) buyHelperAnswer) []buyHelperAnswer {
	return testkit.Race(n, call)
}

// buyHelperBody is a purchase of listing at up to maxPrice, shipped.
func buyHelperBody(listing string, maxPrice int64) map[string]any {
	return map[string]any{"listingId": listing, "maxPrice": maxPrice, "shippingAddress": testkit.Address()}
}

// buyHelperSQL rebinds a query written with ? placeholders for the
// server's engine.
func buyHelperSQL(s *testkit.Server, query string) string {
	if s.App.DB.Dialect() != store.Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// buyHelperInt runs a one-number query on the store.
func buyHelperInt(t testing.TB, s *testkit.Server, query string, args ...any) int64 {
	t.Helper()
	var v int64
	if err := s.App.DB.WritePool().QueryRowContext(t.Context(), buyHelperSQL(s, query), args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return v
}

// buyHelperListingStatus reads a listing's status from the store.
func buyHelperListingStatus(t testing.TB, s *testkit.Server, id string) string {
	t.Helper()
	st := map[int64]string{0: "active", 1: "reserved", 2: "sold"}
	n := buyHelperInt(t, s, `SELECT CASE status WHEN 'active' THEN 0 WHEN 'reserved' THEN 1 WHEN 'sold' THEN 2 ELSE 3 END
		FROM listings WHERE id = ?`, id)
	if v, ok := st[n]; ok {
		return v
	}
	return "other"
}

// buyHelperSpentToday is the owner's spent.today from GET /spending-controls.
func buyHelperSpentToday(t testing.TB, s *testkit.Server, owner *testkit.User) int64 {
	t.Helper()
	_, spent, _ := spendHelperStatus(t, s, owner.Auth())
	return keysHelperNum(t, spent, "today")
}

func TestPurchaseRaceForOneListing(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("raceseller")
		listing := s.ActiveListing(seller, "cast iron skillet twelve inch, seasoned", 4000)
		const buyers = 20
		shoppers := make([]*testkit.Shopper, buyers)
		for i := range shoppers {
			shoppers[i] = s.NewShopper("racer", "pm_card_visa")
		}

		answers := buyHelperRace(buyers, func(i int) buyHelperAnswer {
			return buyHelperPost(s, shoppers[i].Key, buyHelperBody(listing, 4000))
		})

		var winner *buyHelperAnswer
		var winnerShopper *testkit.Shopper
		sold := 0
		for i := range answers {
			a := &answers[i]
			switch {
			case a.Err != nil:
				t.Fatalf("buyer %d: %v", i, a.Err)
			case a.Status == http.StatusCreated:
				if winner != nil {
					t.Fatalf("two purchases succeeded:\n%s\n%s", winner.Body, a.Body)
				}
				winner, winnerShopper = a, shoppers[i]
			case a.Status == http.StatusConflict && a.code() == "LISTING_SOLD":
				sold++
			default:
				t.Fatalf("buyer %d: got %d %q, want 201 or 409 LISTING_SOLD\n%s", i, a.Status, a.code(), a.Body)
			}
		}
		if winner == nil || sold != buyers-1 {
			t.Fatalf("%d LISTING_SOLD and winner %v, want 1 winner and %d LISTING_SOLD", sold, winner != nil, buyers-1)
		}
		if st := winner.data()["status"]; st != "paid" {
			t.Fatalf("winning order is %v, want paid", st)
		}
		orderID, _ := winner.data()["id"].(string)

		if n := buyHelperInt(t, s, `SELECT COUNT(*) FROM orders WHERE listing_id = ?`, listing); n != 1 {
			t.Fatalf("%d orders for the listing, want 1", n)
		}
		if n := buyHelperInt(t, s, `SELECT COUNT(*) FROM sandbox_payments`); n != 1 {
			t.Fatalf("%d sandbox payments, want 1", n)
		}
		if n := buyHelperInt(t, s, `SELECT COUNT(*) FROM sandbox_payments WHERE status = 'succeeded' AND idempotency_key = ?`, orderID); n != 1 {
			t.Fatalf("%d succeeded payments for the order, want 1", n)
		}
		if st := buyHelperListingStatus(t, s, listing); st != "sold" {
			t.Fatalf("listing is %s, want sold", st)
		}
		// The losers' spending reservations were never kept.
		if n := buyHelperInt(t, s, `SELECT COUNT(*) FROM agent_spending`); n != 1 {
			t.Fatalf("%d spending rows, want 1 (the winner's)", n)
		}
		if got := buyHelperSpentToday(t, s, winnerShopper.User); got != 4000+140 {
			t.Fatalf("winner spent.today = %d, want 4140", got)
		}
	})
}

func TestPurchaseConcurrentDailyCap(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("capseller")
		const n = 10
		listings := make([]string, n)
		for i := range listings {
			listings[i] = s.ActiveListing(seller, fmt.Sprintf("ceramic mug number %d, hand thrown stoneware", i+1), 1000)
		}
		owner := s.NewShopper("capowner", "pm_card_visa")
		keys := []*testkit.Key{owner.Key, s.NewKey(owner.User, "buy_only"), s.NewKey(owner.User, "buy_sell")}
		s.Do("PUT", "/api/v1/spending-controls", map[string]any{"perTransactionLimit": 10000, "dailyLimit": 5000},
			owner.Auth()).Want(t, http.StatusOK, "")

		answers := buyHelperRace(n, func(i int) buyHelperAnswer {
			return buyHelperPost(s, keys[i%len(keys)], buyHelperBody(listings[i], 1000))
		})

		var paid, charged int64
		for i := range answers {
			a := &answers[i]
			switch {
			case a.Err != nil:
				t.Fatalf("purchase %d: %v", i, a.Err)
			case a.Status == http.StatusCreated:
				paid++
				fees, _ := a.data()["fees"].(map[string]any)
				total, _ := fees["totalCharged"].(float64)
				if total != 1099 {
					t.Fatalf("totalCharged = %v, want 1099", fees["totalCharged"])
				}
				charged += int64(total)
			case a.Status == http.StatusForbidden && a.code() == "SPENDING_LIMIT_EXCEEDED":
				if lt := a.details()["limit_type"]; lt != "daily" {
					t.Fatalf("purchase %d: limit_type %v, want daily\n%s", i, lt, a.Body)
				}
			default:
				t.Fatalf("purchase %d: got %d %q\n%s", i, a.Status, a.code(), a.Body)
			}
		}
		// 4 x 1099 fits in 5000, a fifth does not; every charge succeeds, so
		// exactly 4 go through.
		if paid != 4 || charged > 5000 {
			t.Fatalf("%d purchases paid, %d cents charged; want 4 within the daily cap of 5000", paid, charged)
		}
		if got := buyHelperSpentToday(t, s, owner.User); got != charged {
			t.Fatalf("spent.today = %d, want the %d charged", got, charged)
		}
		if got := buyHelperInt(t, s, `SELECT COALESCE(SUM(amount), 0) FROM sandbox_payments WHERE status = 'succeeded'`); got != charged {
			t.Fatalf("the processor holds %d cents of payments, want %d", got, charged)
		}
		if got := buyHelperInt(t, s, `SELECT COUNT(*) FROM orders`); got != paid {
			t.Fatalf("%d orders, want %d", got, paid)
		}
	})
}

func TestPurchaseConcurrentSameIdempotencyKey(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("idemseller")
		listing := s.ActiveListing(seller, "brass desk lamp with green glass shade", 3000)
		b := s.NewShopper("idembuyer", "pm_card_visa")
		body := buyHelperBody(listing, 3000)
		body["idempotencyKey"] = "retry-storm-1"

		const n = 10
		answers := buyHelperRace(n, func(int) buyHelperAnswer { return buyHelperPost(s, b.Key, body) })

		orderID, fresh := "", 0
		for i := range answers {
			a := &answers[i]
			if a.Err != nil {
				t.Fatalf("call %d: %v", i, a.Err)
			}
			if a.Status != http.StatusCreated {
				t.Fatalf("call %d: got %d %q, want 201 (the first answer, replayed)\n%s", i, a.Status, a.code(), a.Body)
			}
			id, _ := a.data()["id"].(string)
			if orderID == "" {
				orderID = id
			}
			if id == "" || id != orderID {
				t.Fatalf("call %d answered order %q, another %q", i, id, orderID)
			}
			if !a.Replayed {
				fresh++
			}
		}
		if fresh != 1 {
			t.Fatalf("%d answers without Idempotent-Replayed, want 1 (the request that ran)", fresh)
		}
		if got := buyHelperInt(t, s, `SELECT COUNT(*) FROM orders WHERE listing_id = ?`, listing); got != 1 {
			t.Fatalf("%d orders, want 1", got)
		}
		if got := buyHelperInt(t, s, `SELECT COUNT(*) FROM sandbox_payments`); got != 1 {
			t.Fatalf("%d charges, want 1", got)
		}
		if got := buyHelperSpentToday(t, s, b.User); got != 3000+105 {
			t.Fatalf("spent.today = %d, want one purchase (3105)", got)
		}
	})
}
