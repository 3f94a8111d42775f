package agentv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/listings"
	"marketplace/internal/shipping"
	"marketplace/internal/testkit"
)

// shipListing creates an active listing (2 lb, 12 x 10 x 6 inches) of a
// seller shipping from 60601, with the fields given.
func shipListing(t *testing.T, s *testkit.Server, seller *testkit.User, fields map[string]any) string {
	t.Helper()
	extra := map[string]any{"price": 5000, "condition": "good", "weightOz": 32,
		"dimensions": map[string]any{"l": 12, "w": 10, "h": 6}}
	for k, v := range fields {
		extra[k] = v
	}
	d := s.CreateListing(seller.Auth(), "Brass desk lamp with a green glass shade, works well", extra).
		Want(t, http.StatusCreated, "").Data()
	if d["status"] != "active" {
		t.Fatalf("listing status %v", d["status"])
	}
	return d["id"].(string)
}

func shipSeller(t *testing.T, s *testkit.Server) *testkit.User {
	t.Helper()
	u := s.VerifiedOwner("Shipper")
	s.Do("PUT", "/api/v1/auth/me/address", map[string]any{"name": "S", "line1": "1 Main St", "city": "Chicago",
		"state": "IL", "zip": "60601", "country": "US"}, u.Auth()).Want(t, http.StatusOK, "")
	return u
}

func TestShippingEstimate(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := shipSeller(t, s)
		id := shipListing(t, s, seller, map[string]any{"shippingType": "calculated"})
		buyer := s.VerifiedOwner("Buyer")
		path := "/v1/listings/" + id + "/shipping-estimate"

		// Any scope may ask, and so may the human.
		var first map[string]any
		for _, auth := range []testkit.Header{s.NewKey(buyer, "buy_only").Auth(), s.NewKey(buyer, "sell_only").Auth(), buyer.Auth()} {
			r := s.Do("POST", path, map[string]any{"zip": "94103"}, auth).Want(t, http.StatusOK, "")
			wantMeta(t, r)
			d := r.Data()
			if d["type"] != "dynamic" || d["listing_id"] != id || d["buyer_zip"] != "94103" || d["local_pickup_available"] != false {
				t.Fatalf("quote %v", d)
			}
			if as := testkit.Obj(t, d, "auto_ship"); as["enabled"] != true || as["method"] != "platform_label" {
				t.Fatalf("auto_ship %v", as)
			}
			rates := d["rates"].([]any)
			if len(rates) != 7 {
				t.Fatalf("rates %v", rates)
			}
			for i, x := range rates {
				rt := x.(map[string]any)
				cents := testkit.Num(t, rt, "amount_cents")
				if rt["amount"] != shipping.FormatCents(cents) || testkit.Num(t, rt, "estimated_days") < 1 || rt["expires_at"] == nil {
					t.Fatalf("rate %v", rt)
				}
				if i == 0 && testkit.Num(t, d, "cheapest_cents") != cents {
					t.Fatalf("cheapest_cents %v, first rate %v", d["cheapest_cents"], rt)
				}
				// The token is what a purchase passes as carrier_rate_id.
				got, err := s.App.Shipping.VerifyRateAs("carrierRateId", rt["rate_id"].(string), id, "94103", s.Clock.Now())
				if err != nil || got.Amount != cents {
					t.Fatalf("rate %v redeems as %+v %v", rt, got, err)
				}
				if _, err := s.App.Shipping.VerifyRateAs("carrierRateId", rt["rate_id"].(string), id, "10001", s.Clock.Now()); err == nil {
					t.Fatal("a rate quoted for 94103 redeemed for 10001")
				}
			}
			if first == nil {
				first = d
			} else if testkit.Num(t, d, "cheapest_cents") != testkit.Num(t, first, "cheapest_cents") {
				t.Fatalf("prices differ between callers: %v / %v", d, first)
			}
		}
		// buyer_zip is accepted, ZIP+4 too.
		d := s.Do("POST", path, map[string]any{"buyer_zip": "94103-2210"}, buyer.Auth()).Want(t, http.StatusOK, "").Data()
		if d["buyer_zip"] != "94103" || testkit.Num(t, d, "cheapest_cents") != testkit.Num(t, first, "cheapest_cents") {
			t.Fatalf("buyer_zip %v", d)
		}
	})
}

func TestShippingEstimateTypes(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := shipSeller(t, s)
		agent := s.NewKey(s.VerifiedOwner("Buyer"), "buy_only")
		quote := func(fields map[string]any) map[string]any {
			t.Helper()
			id := shipListing(t, s, seller, fields)
			return s.Do("POST", "/v1/listings/"+id+"/shipping-estimate", map[string]any{"zip": "10001"}, agent.Auth()).
				Want(t, http.StatusOK, "").Data()
		}
		flat := quote(map[string]any{"shippingType": "flat_rate", "shippingCost": 899})
		if rs := flat["rates"].([]any); flat["type"] != "flat_rate" || len(rs) != 1 || rs[0].(map[string]any)["amount"] != "8.99" ||
			testkit.Num(t, flat, "cheapest_cents") != 899 {
			t.Fatalf("flat %v", flat)
		}
		free := quote(map[string]any{"shippingType": "free"})
		if rs := free["rates"].([]any); free["type"] != "free" || len(rs) != 1 || rs[0].(map[string]any)["amount"] != "0.00" {
			t.Fatalf("free %v", free)
		}
		pickup := quote(map[string]any{"shippingType": "local_pickup"})
		if pickup["type"] != "local_pickup" || len(pickup["rates"].([]any)) != 0 || pickup["local_pickup_available"] != true ||
			testkit.Obj(t, pickup, "auto_ship")["enabled"] != false {
			t.Fatalf("pickup %v", pickup)
		}
		both := quote(map[string]any{"shippingType": "both", "shippingCost": 500})
		if both["type"] != "flat_rate" || both["local_pickup_available"] != true || testkit.Num(t, both, "cheapest_cents") != 500 {
			t.Fatalf("both %v", both)
		}
	})
}

func TestShippingEstimateErrors(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := shipSeller(t, s)
		id := shipListing(t, s, seller, map[string]any{"shippingType": "calculated"})
		agent := s.NewKey(s.VerifiedOwner("Buyer"), "buy_sell")
		path := "/v1/listings/" + id + "/shipping-estimate"

		s.Do("POST", path, map[string]any{"zip": "10001"}).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("POST", path, map[string]any{"zip": "10001"}, testkit.AgentKey("mk_test_nope")).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")

		testkit.WantFields(t, s.Do("POST", path, map[string]any{}, agent.Auth()), "zip")
		for _, zip := range []any{"", "1234", "ABCDE", "94103-", "00000", 94103, nil} {
			r := s.Do("POST", path, map[string]any{"zip": zip}, agent.Auth())
			testkit.WantFields(t, r, "zip")
		}
		testkit.WantFields(t, s.Do("POST", path, `{"zip":`, agent.Auth()), "body")

		unknown := "0190f1c4-7e7a-7b3e-8b1a-2f1d3c4b5a69"
		s.Do("POST", "/v1/listings/"+unknown+"/shipping-estimate", map[string]any{"zip": "10001"}, agent.Auth()).
			Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		s.Do("POST", "/v1/listings/nope/shipping-estimate", map[string]any{"zip": "10001"}, agent.Auth()).
			Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")

		setStatus := func(status listings.Status) {
			t.Helper()
			s.EditListing(id, func(l *listings.Listing) { l.Status = status })
		}
		setStatus(listings.StatusSold)
		r := s.Do("POST", path, map[string]any{"zip": "10001"}, agent.Auth()).Want(t, http.StatusConflict, "LISTING_NOT_AVAILABLE")
		wantMeta(t, r)
		if det := testkit.Obj(t, r.JSON["error"].(map[string]any), "details"); det["status"] != "sold" {
			t.Fatalf("details %v", det)
		}
		setStatus(listings.StatusArchived)
		s.Do("POST", path, map[string]any{"zip": "10001"}, agent.Auth()).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
	})
}
