package apiv1_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/internal/testkit"
)

// labelShipFrom gives the seller a ship-from address in Seattle.
func labelShipFrom(t *testing.T, s *testkit.Server, u *testkit.User) {
	t.Helper()
	s.Do("PUT", "/api/v1/auth/me/address", map[string]any{"name": "Sam Seller", "line1": "400 Pine St", "city": "Seattle",
		"state": "WA", "zip": "98101", "country": "US"}, u.Auth()).Want(t, http.StatusOK, "")
}

// labelCents reads a rate's decimal amount ("12.34") as cents.
func labelCents(t *testing.T, amount any) int64 {
	t.Helper()
	s, _ := amount.(string)
	units, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(units+frac, 10, 64)
	if err != nil || len(frac) != 2 {
		t.Fatalf("amount %v is not a decimal string", amount)
	}
	return n
}

// The platform-funded label: the seller buys it, the order ships on it, the
// platform keeps the shipping the buyer paid.
func TestShippingLabel(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		t.Run("buy, print, deliver, pay out without shipping", func(t *testing.T) {
			start := s.Ledger()
			sc := fulfilPaid(t, s, "label", nil)
			labelShipFrom(t, s, sc.seller)
			path := "/api/v1/orders/" + sc.order + "/shipping/label"

			// The cheapest rate the engine quotes for this order.
			q := s.Do("POST", "/api/v1/orders/"+sc.order+"/shipping/rates", nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
			cheapest := q["rates"].([]any)[0].(map[string]any)

			stranger := s.Register("labelstranger")
			s.Do("POST", path, nil, sc.buyer.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", path, nil, stranger.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", path, nil, s.NewKey(sc.seller, "sell_only").Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("GET", path, nil, sc.seller.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			testkit.WantFields(t, s.Do("POST", path, map[string]any{"carrier": "pony"}, sc.seller.Auth()), "carrier")
			testkit.WantFields(t, s.Do("POST", path, map[string]any{"carrier": cheapest["carrier"], "service": "warp"}, sc.seller.Auth()), "service")
			testkit.WantFields(t, s.Do("POST", path, map[string]any{"carrier": strings.Repeat("u", 21)}, sc.seller.Auth()), "carrier")
			s.Unchecked = true // a wrong type: the document refuses it too
			testkit.WantFields(t, s.Do("POST", path, map[string]any{"carrier": 7}, sc.seller.Auth()), "carrier")
			s.Unchecked = false
			if st := fulfilStatus(t, s, sc)["status"]; st != "paid" {
				t.Fatalf("after refused label requests the order is %v", st)
			}

			r := s.Do("POST", path, nil, sc.seller.Auth()).Want(t, http.StatusCreated, "").Data()
			cost := int64(r["cost"].(float64))
			if r["carrier"] != cheapest["carrier"] || r["service"] != cheapest["service"] || cost != labelCents(t, cheapest["amount"]) {
				t.Fatalf("label %v %v %v, want the cheapest rate %v", r["carrier"], r["service"], r["cost"], cheapest)
			}
			tracking, _ := r["trackingNumber"].(string)
			o := r["order"].(map[string]any)
			if tracking == "" || r["orderId"] != sc.order || r["trackingUrl"] == nil || !strings.HasSuffix(r["labelUrl"].(string), path) {
				t.Fatalf("label: %v", r)
			}
			if o["status"] != "shipped" || o["trackingNumber"] != tracking || o["trackingCarrier"] != r["carrier"] || o["shippedAt"] == nil {
				t.Fatalf("order after the label: %v", o)
			}
			if o["sellerPayout"].(float64) != fulfilPayout-800 {
				t.Fatalf("sellerPayout %v, want %d (the platform keeps the shipping)", o["sellerPayout"], fulfilPayout-800)
			}

			// The PDF, to the seller only.
			pdf := s.Do("GET", path, nil, sc.seller.Auth()).Want(t, http.StatusOK, "")
			if ct := pdf.Header.Get("Content-Type"); ct != "application/pdf" {
				t.Fatalf("Content-Type %q", ct)
			}
			if !bytes.HasPrefix(pdf.Body, []byte("%PDF-")) || !bytes.Contains(pdf.Body, []byte(tracking)) {
				t.Fatalf("not the label PDF: %.60q", pdf.Body)
			}
			s.Do("GET", path, nil, sc.buyer.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("GET", path, nil, stranger.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")

			// Twice: the same label, nothing bought again.
			again := s.Do("POST", path, map[string]any{"carrier": "fedex"}, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
			if again["id"] != r["id"] || again["trackingNumber"] != tracking || again["cost"] != r["cost"] {
				t.Fatalf("second call: %v, want %v", again, r)
			}
			s.Do("POST", path, nil, sc.buyer.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			var bought, shipped int
			for _, e := range s.Do("GET", "/api/v1/orders/"+sc.order+"/events", nil, sc.seller.Auth()).Want(t, http.StatusOK, "").List() {
				ev := e.(map[string]any)
				d := ev["data"].(map[string]any)
				switch ev["type"] {
				case "label.purchased":
					bought++
					if d["cost"] != r["cost"] || d["trackingNumber"] != tracking || d["carrier"] != r["carrier"] || d["service"] != r["service"] {
						t.Fatalf("label.purchased %v", d)
					}
				case "order.shipped":
					shipped++
					if bought != 1 || d["trackingNumber"] != tracking {
						t.Fatalf("order.shipped %v before label.purchased", d)
					}
				}
			}
			if bought != 1 || shipped != 1 {
				t.Fatalf("timeline has %d label.purchased and %d order.shipped, want 1 each", bought, shipped)
			}

			// Delivered and paid out: the item less commission, no shipping.
			s.Do("POST", "/api/v1/orders/"+sc.order+"/delivered", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "")
			if p := fulfilStatus(t, s, sc)["sellerPayout"]; p.(float64) != fulfilPayout-800 {
				t.Fatalf("sellerPayout after delivery %v", p)
			}
			s.Clock.Advance(72*time.Hour + time.Minute)
			fulfilRelease(t, s)
			if st := fulfilStatus(t, s, sc)["status"]; st != "completed" {
				t.Fatalf("after the hold: %v", st)
			}
			fulfilLedger(t, s, start, testkit.Money{Charged: fulfilCharged, PaidOut: fulfilPayout - 800})
			// The label is still there for the seller.
			s.Do("GET", path, nil, sc.seller.Auth()).Want(t, http.StatusOK, "")
		})

		t.Run("concurrent buys buy one label", func(t *testing.T) {
			sc := fulfilPaid(t, s, "labelrace", nil)
			labelShipFrom(t, s, sc.seller)
			path := "/api/v1/orders/" + sc.order + "/shipping/label"
			const n = 6
			type answer struct {
				status int
				id     string
				err    error
			}
			answers := make([]answer, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					body := `{"carrier":"ups"}`
					if i%2 == 1 {
						body = `{"carrier":"fedex"}`
					}
					req, err := http.NewRequest("POST", s.URL+path, strings.NewReader(body))
					if err != nil {
						answers[i].err = err
						return
					}
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authorization", "Bearer "+sc.seller.Token)
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						answers[i].err = err
						return
					}
					defer resp.Body.Close()
					var env struct {
						Data struct {
							ID string `json:"id"`
						} `json:"data"`
					}
					answers[i].status, answers[i].err = resp.StatusCode, json.NewDecoder(resp.Body).Decode(&env)
					answers[i].id = env.Data.ID
				})
			}
			wg.Wait()
			created := 0
			for _, a := range answers {
				if a.err != nil || a.status != http.StatusCreated && a.status != http.StatusOK || a.id != answers[0].id {
					t.Fatalf("answers %+v", answers)
				}
				if a.status == http.StatusCreated {
					created++
				}
			}
			if created != 1 {
				t.Fatalf("%d calls bought a label, want 1: %+v", created, answers)
			}
			bought := 0
			for _, e := range s.Do("GET", "/api/v1/orders/"+sc.order+"/events", nil, sc.seller.Auth()).Want(t, http.StatusOK, "").List() {
				if e.(map[string]any)["type"] == "label.purchased" {
					bought++
				}
			}
			if bought != 1 {
				t.Fatalf("%d label.purchased events", bought)
			}
			// Labels printed by the calls that lost are not kept.
			stored, err := filepath.Glob(filepath.Join(s.App.Config.PhotosDir(), "labels", sc.order, "*.pdf"))
			if err != nil || len(stored) != 1 || filepath.Base(stored[0]) != answers[0].id+".pdf" {
				t.Fatalf("stored labels %v (%v), want only %s.pdf", stored, err, answers[0].id)
			}
			s.Do("GET", path, nil, sc.seller.Auth()).Want(t, http.StatusOK, "")
		})

		t.Run("an admin buys with a chosen carrier", func(t *testing.T) {
			sc := fulfilPaid(t, s, "labeladmin", nil)
			labelShipFrom(t, s, sc.seller)
			admin := s.Admin()
			r := s.Do("POST", "/api/v1/orders/"+sc.order+"/shipping/label", map[string]any{"carrier": "UPS"}, admin.Auth()).
				Want(t, http.StatusCreated, "").Data()
			if r["carrier"] != "ups" || !strings.HasPrefix(r["trackingNumber"].(string), "1Z") {
				t.Fatalf("label %v %v, want a UPS one", r["carrier"], r["trackingNumber"])
			}
			s.Do("GET", "/api/v1/orders/"+sc.order+"/shipping/label", nil, admin.Auth()).Want(t, http.StatusOK, "")
		})

		t.Run("the seller has no ship-from address", func(t *testing.T) {
			sc := fulfilPaid(t, s, "labelnofrom", nil)
			testkit.WantFields(t, s.Do("POST", "/api/v1/orders/"+sc.order+"/shipping/label", nil, sc.seller.Auth()), "shipFromAddress")
			if st := fulfilStatus(t, s, sc)["status"]; st != "paid" {
				t.Fatalf("order is %v, want paid", st)
			}
			labelShipFrom(t, s, sc.seller)
			s.Do("POST", "/api/v1/orders/"+sc.order+"/shipping/label", nil, sc.seller.Auth()).Want(t, http.StatusCreated, "")
		})

		t.Run("local pickup", func(t *testing.T) {
			sc := fulfilPaid(t, s, "labelpickup", map[string]any{"shippingType": "local_pickup", "shippingCost": nil})
			labelShipFrom(t, s, sc.seller)
			s.Do("POST", "/api/v1/orders/"+sc.order+"/shipping/label", nil, sc.seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			s.Do("GET", "/api/v1/orders/"+sc.order+"/shipping/label", nil, sc.seller.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		})

		t.Run("shipped with the seller's own tracking", func(t *testing.T) {
			sc := fulfilPaid(t, s, "labelmanual", nil)
			labelShipFrom(t, s, sc.seller)
			s.Do("POST", "/api/v1/orders/"+sc.order+"/shipping/manual", map[string]any{"carrier": "ups",
				"trackingNumber": "1Z999AA10123456784"}, sc.seller.Auth()).Want(t, http.StatusOK, "")
			r := s.Do("POST", "/api/v1/orders/"+sc.order+"/shipping/label", nil, sc.seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			if d, _ := r.JSON["error"].(map[string]any)["details"].(map[string]any); d["status"] != "shipped" {
				t.Fatalf("details %v", d)
			}
			s.Do("GET", "/api/v1/orders/"+sc.order+"/shipping/label", nil, sc.seller.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			if p := fulfilStatus(t, s, sc)["sellerPayout"]; p.(float64) != fulfilPayout {
				t.Fatalf("sellerPayout %v, want %d (the seller paid the carrier)", p, fulfilPayout)
			}
		})

		t.Run("unknown order", func(t *testing.T) {
			u := s.Register("labelnobody")
			for _, id := range []string{"00000000-0000-4000-8000-000000000000", "not-an-id"} {
				s.Do("POST", "/api/v1/orders/"+id+"/shipping/label", nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
				s.Do("GET", "/api/v1/orders/"+id+"/shipping/label", nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			}
			s.Do("GET", "/api/v1/orders/"+"00000000-0000-4000-8000-000000000000"+"/shipping/label", nil).
				Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		})
	})
}
