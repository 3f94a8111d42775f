package apiv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/listings"
	"marketplace/internal/shipping"
	"marketplace/internal/testkit"
)

const shipLampBrief = "Brass desk lamp with a green glass shade, works well, light patina"

// shipListing creates an active listing of seller's with the fields given
// (2 lb in a 12 x 10 x 6 inch box) and returns its id.
func shipListing(t *testing.T, s *testkit.Server, seller *testkit.User, fields map[string]any) string {
	t.Helper()
	extra := map[string]any{"price": 5000, "condition": "good", "weightOz": 32,
		"dimensions": map[string]any{"l": 12, "w": 10, "h": 6}}
	for k, v := range fields {
		extra[k] = v
	}
	d := s.CreateListing(seller.Auth(), shipLampBrief, extra).Want(t, http.StatusCreated, "").Data()
	if d["status"] != "active" {
		t.Fatalf("listing status %v", d["status"])
	}
	return d["id"].(string)
}

// shipSeller is a verified seller shipping from zip.
func shipSeller(t *testing.T, s *testkit.Server, zip string) *testkit.User {
	t.Helper()
	u := s.VerifiedOwner("Shipper")
	s.Do("PUT", "/api/v1/auth/me/address", map[string]any{"name": "S", "line1": "1 Main St", "city": "Town",
		"state": "NY", "zip": zip, "country": "US"}, u.Auth()).Want(t, http.StatusOK, "")
	return u
}

func shipSetStatus(t *testing.T, s *testkit.Server, id string, status listings.Status) {
	t.Helper()
	s.EditListing(id, func(l *listings.Listing) { l.Status = status })
}

// shipCheckQuote checks the quote's shape (the spec's snake_case keys) and
// that every rate's token redeems for its amount, and returns the rates.
func shipCheckQuote(t *testing.T, s *testkit.Server, d map[string]any, listingID, zip string) []map[string]any {
	t.Helper()
	if d["listing_id"] != listingID || d["buyer_zip"] != zip {
		t.Fatalf("quote for %v %v, want %s %s", d["listing_id"], d["buyer_zip"], listingID, zip)
	}
	for _, camel := range []string{"cheapestCents", "localPickupAvailable", "listingId", "autoShip"} {
		if _, ok := d[camel]; ok {
			t.Fatalf("quote carries camelCase %s: %v", camel, d)
		}
	}
	var out []map[string]any
	min := int64(-1)
	for _, x := range d["rates"].([]any) {
		r := x.(map[string]any)
		cents := int64(r["amount_cents"].(float64))
		if r["amount"] != shipping.FormatCents(cents) {
			t.Fatalf("amount %v for %d cents", r["amount"], cents)
		}
		if min < 0 || cents < min {
			min = cents
		}
		rate, err := s.App.Shipping.VerifyRate(r["rate_id"].(string), listingID, zip, s.Clock.Now())
		if err != nil || rate.Amount != cents || rate.Carrier != r["carrier"] || rate.Service != r["service"] ||
			rate.EstimatedDays != int(r["estimated_days"].(float64)) {
			t.Fatalf("rate %v redeems as %+v, %v", r, rate, err)
		}
		out = append(out, r)
	}
	if min < 0 {
		min = 0
	}
	if int64(d["cheapest_cents"].(float64)) != min {
		t.Fatalf("cheapest_cents %v, cheapest rate %d", d["cheapest_cents"], min)
	}
	return out
}

func TestShippingQuoteCalculated(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := shipSeller(t, s, "10001")
		id := shipListing(t, s, seller, map[string]any{"shippingType": "calculated"})

		// Anyone may ask, without credentials.
		d := s.Do("POST", "/api/v1/shipping/rates", map[string]any{"listingId": id, "buyerZip": "90012-4801"}).
			Want(t, http.StatusOK, "").Data()
		rates := shipCheckQuote(t, s, d, id, "90012")
		if d["type"] != "dynamic" || d["local_pickup_available"] != false || len(rates) != 7 {
			t.Fatalf("quote %v", d)
		}
		if as := d["auto_ship"].(map[string]any); as["enabled"] != true || as["method"] != "platform_label" {
			t.Fatalf("auto_ship %v", as)
		}
		carriers := map[string]bool{}
		for _, r := range rates {
			carriers[r["carrier"].(string)] = true
		}
		if !carriers["usps"] || !carriers["ups"] || !carriers["fedex"] {
			t.Fatalf("carriers %v", carriers)
		}

		// The per-listing route answers the same prices, for every spelling
		// of the ZIP code field.
		for _, body := range []map[string]any{{"buyerZip": "90012"}, {"zip": "90012"}, {"buyer_zip": "90012"}} {
			e := s.Do("POST", "/api/v1/listings/"+id+"/shipping-estimate", body).Want(t, http.StatusOK, "").Data()
			got := shipCheckQuote(t, s, e, id, "90012")
			for i := range got {
				if got[i]["amount"] != rates[i]["amount"] || got[i]["service"] != rates[i]["service"] {
					t.Fatalf("estimate %v differs from rates %v", got[i], rates[i])
				}
			}
		}
		alias := s.Do("POST", "/api/v1/shipping/rates", map[string]any{"listing_id": id, "buyer_zip": "90012"}).
			Want(t, http.StatusOK, "").Data()
		shipCheckQuote(t, s, alias, id, "90012")

		// A seller across town ships for less than one across the country.
		near := shipListing(t, s, shipSeller(t, s, "90210"), map[string]any{"shippingType": "calculated"})
		dn := s.Do("POST", "/api/v1/shipping/rates", map[string]any{"listingId": near, "buyerZip": "90012"}).
			Want(t, http.StatusOK, "").Data()
		if dn["cheapest_cents"].(float64) >= d["cheapest_cents"].(float64) {
			t.Fatalf("near %v, far %v", dn["cheapest_cents"], d["cheapest_cents"])
		}

		// Credentials are not needed, and sending them changes nothing.
		withAuth := s.Do("POST", "/api/v1/shipping/rates", map[string]any{"listingId": id, "buyerZip": "90012"},
			s.Register("Buyer").Auth()).Want(t, http.StatusOK, "").Data()
		if withAuth["cheapest_cents"] != d["cheapest_cents"] {
			t.Fatalf("with credentials %v", withAuth)
		}
	})
}

func TestShippingQuoteByType(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := shipSeller(t, s, "60601")
		quote := func(id string) map[string]any {
			t.Helper()
			d := s.Do("POST", "/api/v1/shipping/rates", map[string]any{"listingId": id, "buyerZip": "10001"}).
				Want(t, http.StatusOK, "").Data()
			shipCheckQuote(t, s, d, id, "10001")
			return d
		}
		one := func(d map[string]any) map[string]any {
			t.Helper()
			rs := d["rates"].([]any)
			if len(rs) != 1 {
				t.Fatalf("rates %v, want one", rs)
			}
			return rs[0].(map[string]any)
		}

		flat := quote(shipListing(t, s, seller, map[string]any{"shippingType": "flat_rate", "shippingCost": 899}))
		if r := one(flat); flat["type"] != "flat_rate" || flat["cheapest_cents"] != 899.0 || r["amount"] != "8.99" ||
			r["carrier"] != "seller" || r["service"] != "flat_rate" || flat["local_pickup_available"] != false {
			t.Fatalf("flat rate %v", flat)
		}
		both := quote(shipListing(t, s, seller, map[string]any{"shippingType": "both", "shippingCost": 1250}))
		if r := one(both); both["type"] != "flat_rate" || r["amount"] != "12.50" || both["local_pickup_available"] != true {
			t.Fatalf("both %v", both)
		}
		free := quote(shipListing(t, s, seller, map[string]any{"shippingType": "free"}))
		if r := one(free); free["type"] != "free" || free["cheapest_cents"] != 0.0 || r["amount"] != "0.00" || r["service"] != "free" {
			t.Fatalf("free %v", free)
		}
		pickup := quote(shipListing(t, s, seller, map[string]any{"shippingType": "local_pickup"}))
		as := pickup["auto_ship"].(map[string]any)
		if pickup["type"] != "local_pickup" || len(pickup["rates"].([]any)) != 0 || pickup["cheapest_cents"] != 0.0 ||
			pickup["local_pickup_available"] != true || as["enabled"] != false || as["method"] != nil {
			t.Fatalf("local pickup %v", pickup)
		}
	})
}

func TestShippingQuoteErrors(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := shipSeller(t, s, "60601")
		id := shipListing(t, s, seller, map[string]any{"shippingType": "calculated"})
		rates := "/api/v1/shipping/rates"
		estimate := "/api/v1/listings/" + id + "/shipping-estimate"

		testkit.WantFields(t, s.Do("POST", rates, map[string]any{}), "listingId", "buyerZip")
		testkit.WantFields(t, s.Do("POST", rates, map[string]any{"buyerZip": "10001"}), "listingId")
		testkit.WantFields(t, s.Do("POST", rates, map[string]any{"listingId": "lamp-1", "buyerZip": "10001"}), "listingId")
		testkit.WantFields(t, s.Do("POST", rates, map[string]any{"listingId": id}), "buyerZip")
		for _, zip := range []any{"1234", "123456", "ABCDE", "10001-12", "00000", 10001} {
			testkit.WantFields(t, s.Do("POST", rates, map[string]any{"listingId": id, "buyerZip": zip}), "buyerZip")
			testkit.WantFields(t, s.Do("POST", estimate, map[string]any{"buyerZip": zip}), "buyerZip")
		}
		testkit.WantFields(t, s.Do("POST", estimate, map[string]any{}), "buyerZip")
		testkit.WantFields(t, s.Do("POST", estimate, map[string]any{"listingId": id}), "buyerZip")
		testkit.WantFields(t, s.Do("POST", rates, `{"listingId": `), "body")
		testkit.WantFields(t, s.Do("POST", estimate, `[]`), "body")
		testkit.WantFields(t, s.Do("POST", estimate, ``), "body")

		unknown := "0190f1c4-7e7a-7b3e-8b1a-2f1d3c4b5a69"
		s.Do("POST", rates, map[string]any{"listingId": unknown, "buyerZip": "10001"}).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		s.Do("POST", "/api/v1/listings/"+unknown+"/shipping-estimate", map[string]any{"buyerZip": "10001"}).
			Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		s.Do("POST", "/api/v1/listings/not-an-id/shipping-estimate", map[string]any{"buyerZip": "10001"}).
			Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")

		for status, want := range map[listings.Status]int{listings.StatusSold: http.StatusConflict,
			listings.StatusReserved: http.StatusConflict, listings.StatusArchived: http.StatusNotFound,
			listings.StatusRemoved: http.StatusNotFound} {
			l := shipListing(t, s, seller, map[string]any{"shippingType": "calculated"})
			shipSetStatus(t, s, l, status)
			code := "LISTING_NOT_AVAILABLE"
			if want == http.StatusNotFound {
				code = "LISTING_NOT_FOUND"
			}
			r := s.Do("POST", rates, map[string]any{"listingId": l, "buyerZip": "10001"}).Want(t, want, code)
			if want == http.StatusConflict {
				if det := r.JSON["error"].(map[string]any)["details"].(map[string]any); det["status"] != string(status) {
					t.Fatalf("%s: details %v", status, det)
				}
			}
			s.Do("POST", "/api/v1/listings/"+l+"/shipping-estimate", map[string]any{"zip": "10001"}).Want(t, want, code)
		}
	})
}
