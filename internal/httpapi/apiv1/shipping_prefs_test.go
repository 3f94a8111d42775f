package apiv1_test

import (
	"context"
	"net/http"
	"reflect"
	"testing"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/shipping"
	"marketplace/internal/testkit"
)

const prefsPath = "/api/v1/auth/me/shipping-prefs"

// prefsPut saves shipping preferences for u and returns them as answered.
func prefsPut(t *testing.T, s *testkit.Server, u *testkit.User, body map[string]any) map[string]any {
	t.Helper()
	return s.Do("PUT", prefsPath, body, u.Auth()).Want(t, http.StatusOK, "").Data()
}

// prefsWantDefaults fails unless p are the preferences of a seller who saved
// none.
func prefsWantDefaults(t *testing.T, p map[string]any) {
	t.Helper()
	if p["autoLabel"] != false || p["preferredCarrier"] != nil || p["preferredService"] != nil ||
		p["localPickup"] != false || p["handlingDays"] != 1.0 || p["packageDefaults"] != nil || p["updatedAt"] != nil {
		t.Fatalf("preferences %v, want the defaults", p)
	}
}

// prefsBareListing takes a listing's weight and dimensions away, as a
// listing the generator could not size has none.
func prefsBareListing(t *testing.T, s *testkit.Server, id string) {
	t.Helper()
	s.EditListing(id, func(l *listings.Listing) { l.WeightOz, l.Dimensions = 0, listings.Dimensions{} })
}

// prefsQuote is the pre-checkout quote of a listing to 90012, its rates by
// carrier and service.
func prefsQuote(t *testing.T, s *testkit.Server, id string) (map[string]any, map[string]map[string]any) {
	t.Helper()
	d := s.Do("POST", "/api/v1/shipping/rates", map[string]any{"listingId": id, "buyerZip": "90012"}).
		Want(t, http.StatusOK, "").Data()
	byKey := map[string]map[string]any{}
	for _, r := range shipCheckQuote(t, s, d, id, "90012") {
		byKey[r["carrier"].(string)+"/"+r["service"].(string)] = r
	}
	return d, byKey
}

func TestShippingPrefs(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		t.Run("defaults, save, read, change some", func(t *testing.T) {
			seller := shipSeller(t, s, "10001")
			other := s.Register("prefsother")
			prefsWantDefaults(t, s.Do("GET", prefsPath, nil, seller.Auth()).Want(t, http.StatusOK, "").Data())

			saved := prefsPut(t, s, seller, map[string]any{"autoLabel": true, "preferredCarrier": "UPS",
				"preferredService": " 2nd_Day_Air ", "localPickup": true, "handlingDays": 3,
				"packageDefaults": map[string]any{"weightOz": 40, "lengthIn": 14, "widthIn": 10.5, "heightIn": 4}})
			pk := testkit.Obj(t, saved, "packageDefaults")
			if saved["autoLabel"] != true || saved["preferredCarrier"] != "ups" || saved["preferredService"] != "2nd_day_air" ||
				saved["localPickup"] != true || saved["handlingDays"] != 3.0 || saved["updatedAt"] == nil ||
				pk["weightOz"] != 40.0 || pk["lengthIn"] != 14.0 || pk["widthIn"] != 10.5 || pk["heightIn"] != 4.0 {
				t.Fatalf("saved %v", saved)
			}
			if got := s.Do("GET", prefsPath, nil, seller.Auth()).Want(t, http.StatusOK, "").Data(); !reflect.DeepEqual(got, saved) {
				t.Fatalf("read %v, saved %v", got, saved)
			}
			prefsWantDefaults(t, s.Do("GET", prefsPath, nil, other.Auth()).Want(t, http.StatusOK, "").Data())

			// Fields left out keep their value.
			s.Clock.Advance(time.Minute)
			p := prefsPut(t, s, seller, map[string]any{"handlingDays": 0})
			if p["handlingDays"] != 0.0 || p["preferredService"] != "2nd_day_air" || p["autoLabel"] != true ||
				p["packageDefaults"] == nil || p["updatedAt"] == saved["updatedAt"] {
				t.Fatalf("after changing handlingDays: %v", p)
			}
			// Another carrier drops the service; null clears.
			p = prefsPut(t, s, seller, map[string]any{"preferredCarrier": "fedex"})
			if p["preferredCarrier"] != "fedex" || p["preferredService"] != nil {
				t.Fatalf("after changing the carrier: %v", p)
			}
			p = prefsPut(t, s, seller, map[string]any{"preferredCarrier": nil, "packageDefaults": nil, "autoLabel": false,
				"localPickup": false})
			if p["preferredCarrier"] != nil || p["packageDefaults"] != nil || p["autoLabel"] != false || p["localPickup"] != false {
				t.Fatalf("after clearing: %v", p)
			}
			// The same carrier again keeps its service.
			prefsPut(t, s, seller, map[string]any{"preferredCarrier": "usps", "preferredService": "priority"})
			if p = prefsPut(t, s, seller, map[string]any{"preferredCarrier": "usps"}); p["preferredService"] != "priority" {
				t.Fatalf("the same carrier again: %v", p)
			}
		})

		t.Run("validation", func(t *testing.T) {
			u := s.VerifiedOwner("prefsbad") // no ship-from address
			bad := func(body map[string]any, fields ...string) {
				t.Helper()
				testkit.WantFields(t, s.Do("PUT", prefsPath, body, u.Auth()), fields...)
			}
			pkg := func(kv ...any) map[string]any {
				return map[string]any{"packageDefaults": testkit.Body(map[string]any{"weightOz": 16, "lengthIn": 10,
					"widthIn": 8, "heightIn": 4}, kv...)}
			}
			bad(map[string]any{"autoLabel": true}, "autoLabel")
			bad(map[string]any{"autoLabel": nil}, "autoLabel")
			bad(map[string]any{"autoLabel": "yes"}, "autoLabel")
			bad(map[string]any{"localPickup": nil}, "localPickup")
			bad(map[string]any{"localPickup": 1}, "localPickup")
			bad(map[string]any{"handlingDays": -1}, "handlingDays")
			bad(map[string]any{"handlingDays": 11}, "handlingDays")
			bad(map[string]any{"handlingDays": 1.5}, "handlingDays")
			bad(map[string]any{"handlingDays": nil}, "handlingDays")
			bad(map[string]any{"preferredCarrier": "dhl"}, "preferredCarrier") // tracked, but not quoted
			bad(map[string]any{"preferredCarrier": "pony"}, "preferredCarrier")
			bad(map[string]any{"preferredCarrier": 7}, "preferredCarrier")
			bad(map[string]any{"preferredService": "priority"}, "preferredService")
			bad(map[string]any{"preferredCarrier": "ups", "preferredService": "priority"}, "preferredService")
			bad(map[string]any{"packageDefaults": 7}, "packageDefaults")
			bad(map[string]any{"packageDefaults": map[string]any{}}, "packageDefaults.weightOz", "packageDefaults.lengthIn",
				"packageDefaults.widthIn", "packageDefaults.heightIn")
			bad(pkg("weightOz", 0), "packageDefaults.weightOz")
			bad(pkg("weightOz", 2401), "packageDefaults.weightOz")
			bad(pkg("weightOz", 1.5), "packageDefaults.weightOz")
			bad(pkg("lengthIn", 0.5), "packageDefaults.lengthIn")
			bad(pkg("widthIn", 108.5), "packageDefaults.widthIn")
			bad(pkg("heightIn", testkit.Drop), "packageDefaults.heightIn")
			bad(pkg("heightIn", "4"), "packageDefaults.heightIn")
			bad(map[string]any{"handlingDays": 11, "preferredCarrier": "pony", "localPickup": nil}, "handlingDays",
				"preferredCarrier", "localPickup")
			s.Unchecked = true // not an object: the document refuses it too
			testkit.WantFields(t, s.Do("PUT", prefsPath, []any{1}, u.Auth()), "body")
			s.Unchecked = false
			// Nothing of the refused bodies was kept.
			prefsWantDefaults(t, s.Do("GET", prefsPath, nil, u.Auth()).Want(t, http.StatusOK, "").Data())
			// With a ship-from address automatic labels may be turned on.
			labelShipFrom(t, s, u)
			if p := prefsPut(t, s, u, map[string]any{"autoLabel": true}); p["autoLabel"] != true {
				t.Fatalf("autoLabel with a ship-from address: %v", p)
			}
		})

		t.Run("credentials", func(t *testing.T) {
			u := s.VerifiedOwner("prefsauth")
			key := s.NewKey(u, "buy_sell")
			body := map[string]any{"handlingDays": 2}
			s.Do("GET", prefsPath, nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do("PUT", prefsPath, body).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do("GET", prefsPath, nil, testkit.Bearer("not-a-token")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do("GET", prefsPath, nil, key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("PUT", prefsPath, body, key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			prefsWantDefaults(t, s.Do("GET", prefsPath, nil, u.Auth()).Want(t, http.StatusOK, "").Data())
		})
	})
}

// The rate engine quotes a seller's listings with the seller's preferences.
func TestShippingPrefsQuotes(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()

		t.Run("package defaults size a listing without its own", func(t *testing.T) {
			seller := shipSeller(t, s, "10001")
			bare := shipListing(t, s, seller, map[string]any{"shippingType": "calculated"})
			prefsBareListing(t, s, bare)
			sized := shipListing(t, s, seller, map[string]any{"shippingType": "calculated"}) // 2 lb, 12 x 10 x 6
			before, beforeRates := prefsQuote(t, s, bare)
			_, sizedBefore := prefsQuote(t, s, sized)

			prefsPut(t, s, seller, map[string]any{"handlingDays": 0,
				"packageDefaults": map[string]any{"weightOz": 160, "lengthIn": 20, "widthIn": 16, "heightIn": 12}})
			after, afterRates := prefsQuote(t, s, bare)
			if after["cheapest_cents"].(float64) <= before["cheapest_cents"].(float64) {
				t.Fatalf("cheapest %v with 10 lb defaults, %v with the built-in 1 lb", after["cheapest_cents"], before["cheapest_cents"])
			}
			// Exactly the engine's price of the seller's package.
			want, err := s.App.Shipping.QuoteParcel(ctx, "10001", "90012", shipping.Parcel{WeightOz: 160, L: 200, W: 160, H: 120})
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != len(afterRates) {
				t.Fatalf("%d rates, the engine has %d", len(afterRates), len(want))
			}
			for _, w := range want {
				r := afterRates[w.Carrier+"/"+w.Service]
				if r == nil || testkit.Num(t, r, "amount_cents") != w.Amount || testkit.Num(t, r, "estimated_days") != int64(w.EstimatedDays) {
					t.Fatalf("rate %s/%s = %v, want %+v", w.Carrier, w.Service, r, w)
				}
				if testkit.Num(t, r, "amount_cents") <= testkit.Num(t, beforeRates[w.Carrier+"/"+w.Service], "amount_cents") {
					t.Fatalf("%s/%s is no dearer with the heavier defaults", w.Carrier, w.Service)
				}
			}
			// A listing with its own weight and size is priced as before.
			_, sizedAfter := prefsQuote(t, s, sized)
			for k, r := range sizedAfter {
				if r["amount_cents"] != sizedBefore[k]["amount_cents"] {
					t.Fatalf("%s: %v before the defaults, %v after", k, sizedBefore[k]["amount_cents"], r["amount_cents"])
				}
			}
		})

		t.Run("handling days add to the estimated days", func(t *testing.T) {
			seller := shipSeller(t, s, "10001")
			id := shipListing(t, s, seller, map[string]any{"shippingType": "calculated"})
			flat := shipListing(t, s, seller, map[string]any{"shippingType": "flat_rate", "shippingCost": 700})
			transit, err := s.App.Shipping.QuoteParcel(ctx, "10001", "90012", shipping.Parcel{WeightOz: 32, L: 120, W: 100, H: 60})
			if err != nil {
				t.Fatal(err)
			}
			check := func(handling int64) {
				t.Helper()
				_, rates := prefsQuote(t, s, id)
				for _, w := range transit {
					if got := testkit.Num(t, rates[w.Carrier+"/"+w.Service], "estimated_days"); got != int64(w.EstimatedDays)+handling {
						t.Fatalf("handling %d: %s/%s estimated %d days, %d in transit", handling, w.Carrier, w.Service, got, w.EstimatedDays)
					}
				}
				// The seller's flat rate: the fastest carrier estimate of the cheapest, plus handling.
				_, fr := prefsQuote(t, s, flat)
				if got := testkit.Num(t, fr["seller/flat_rate"], "estimated_days"); got != int64(transit[0].EstimatedDays)+handling {
					t.Fatalf("handling %d: flat rate estimated %d days, %d in transit", handling, got, transit[0].EstimatedDays)
				}
			}
			check(shipping.DefaultHandlingDays) // never saved: the default
			prefsPut(t, s, seller, map[string]any{"handlingDays": 4})
			check(4)
			prefsPut(t, s, seller, map[string]any{"handlingDays": 0})
			check(0)
		})

		t.Run("the preferred carrier is marked", func(t *testing.T) {
			seller := shipSeller(t, s, "10001")
			id := shipListing(t, s, seller, map[string]any{"shippingType": "calculated"})
			marked := func(want func(carrier, service string) bool) {
				t.Helper()
				_, rates := prefsQuote(t, s, id)
				for k, r := range rates {
					if r["preferred"] != want(r["carrier"].(string), r["service"].(string)) {
						t.Fatalf("%s preferred = %v", k, r["preferred"])
					}
				}
			}
			marked(func(string, string) bool { return false })
			prefsPut(t, s, seller, map[string]any{"preferredCarrier": "fedex"})
			marked(func(c, _ string) bool { return c == "fedex" })
			prefsPut(t, s, seller, map[string]any{"preferredService": "express_saver"})
			marked(func(c, sv string) bool { return c == "fedex" && sv == "express_saver" })
			// The seller's own rate is never a carrier's.
			flat := shipListing(t, s, seller, map[string]any{"shippingType": "flat_rate", "shippingCost": 700})
			if _, fr := prefsQuote(t, s, flat); fr["seller/flat_rate"]["preferred"] != false {
				t.Fatalf("flat rate %v", fr)
			}
		})

		t.Run("local pickup offered on listings that ship", func(t *testing.T) {
			seller := shipSeller(t, s, "10001")
			free := shipListing(t, s, seller, map[string]any{"shippingType": "free"})
			pickupOnly := shipListing(t, s, seller, map[string]any{"shippingType": "local_pickup"})
			buyer := s.NewShopper("prefspickup", "pm_card_visa")
			buy := map[string]any{"listingId": free, "maxPrice": 5000, "fulfillmentType": "local_pickup"}
			if q, _ := prefsQuote(t, s, free); q["local_pickup_available"] != false {
				t.Fatalf("free listing before the preference: %v", q)
			}
			testkit.WantFields(t, s.Do("POST", "/api/v1/agent/purchase/fee-estimate", buy, buyer.Key.Auth()), "fulfillmentType")
			testkit.WantFields(t, s.Do("POST", "/api/v1/agent/purchase", buy, buyer.Key.Auth()), "fulfillmentType")

			prefsPut(t, s, seller, map[string]any{"localPickup": true})
			if q, _ := prefsQuote(t, s, free); q["local_pickup_available"] != true || q["type"] != "free" || len(q["rates"].([]any)) != 1 {
				t.Fatalf("free listing with pickup offered: %v", q)
			}
			if q, _ := prefsQuote(t, s, pickupOnly); q["local_pickup_available"] != true || q["type"] != "local_pickup" {
				t.Fatalf("pickup-only listing: %v", q)
			}
			o := s.Do("POST", "/api/v1/agent/purchase", buy, buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()
			if o["status"] != "paid" || o["fulfillmentType"] != "local_pickup" {
				t.Fatalf("pickup purchase: %v", o)
			}
			// Turned off again: the listing only ships.
			prefsPut(t, s, seller, map[string]any{"localPickup": false})
			if q, _ := prefsQuote(t, s, shipListing(t, s, seller, map[string]any{"shippingType": "free"})); q["local_pickup_available"] != false {
				t.Fatalf("after turning pickup off: %v", q)
			}
		})
	})
}

// The label step buys with the seller's preferred carrier.
func TestShippingPrefsLabel(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		// rates are a paid order's rates for its seller, in price order.
		rates := func(sc fulfilScene) []map[string]any {
			t.Helper()
			var out []map[string]any
			for _, r := range s.Do("POST", "/api/v1/orders/"+sc.order+"/shipping/rates", nil, sc.seller.Auth()).
				Want(t, http.StatusOK, "").Data()["rates"].([]any) {
				out = append(out, r.(map[string]any))
			}
			return out
		}
		label := func(sc fulfilScene, body any) map[string]any {
			t.Helper()
			return s.Do("POST", "/api/v1/orders/"+sc.order+"/shipping/label", body, sc.seller.Auth()).
				Want(t, http.StatusCreated, "").Data()
		}

		sc := fulfilPaid(t, s, "preflabel", nil)
		labelShipFrom(t, s, sc.seller)
		all := rates(sc)
		cheapest := all[0]["carrier"].(string)
		// The preferred carrier is one that is not the cheapest, so the
		// preference is what picks it.
		var preferred string
		for _, r := range all {
			if c := r["carrier"].(string); c != cheapest {
				preferred = c
				break
			}
		}
		prefsPut(t, s, sc.seller, map[string]any{"preferredCarrier": preferred})
		var want map[string]any // the cheapest of the preferred carrier's
		for _, r := range rates(sc) {
			if r["preferred"] != (r["carrier"] == preferred) {
				t.Fatalf("order rate %v: preferred is not the preference", r)
			}
			if want == nil && r["carrier"] == preferred {
				want = r
			}
		}
		l := label(sc, nil)
		if l["carrier"] != preferred || l["service"] != want["service"] || l["cost"] != float64(labelCents(t, want["amount"])) {
			t.Fatalf("label %v %v %v, want the preferred carrier's cheapest %v", l["carrier"], l["service"], l["cost"], want)
		}
		if o := l["order"].(map[string]any); o["status"] != "shipped" || o["trackingCarrier"] != preferred {
			t.Fatalf("order after the label: %v", o)
		}

		// A request naming a carrier is served as asked; one naming the
		// preferred carrier takes the preferred service.
		sc2 := fulfilPaid(t, s, "preflabel2", nil)
		labelShipFrom(t, s, sc2.seller)
		prefsPut(t, s, sc2.seller, map[string]any{"preferredCarrier": preferred})
		if l := label(sc2, map[string]any{"carrier": cheapest}); l["carrier"] != cheapest {
			t.Fatalf("label for carrier %s: %v", cheapest, l)
		}
		sc3 := fulfilPaid(t, s, "preflabel3", nil)
		labelShipFrom(t, s, sc3.seller)
		r3 := rates(sc3)
		var dearest map[string]any // the preferred carrier's dearest service
		for _, r := range r3 {
			if r["carrier"] == preferred {
				dearest = r
			}
		}
		prefsPut(t, s, sc3.seller, map[string]any{"preferredCarrier": preferred, "preferredService": dearest["service"]})
		if l := label(sc3, map[string]any{"carrier": preferred}); l["service"] != dearest["service"] {
			t.Fatalf("label %v, want the preferred service %v", l, dearest["service"])
		}
	})
}

// Automatic labels: a paid order that ships is shipped on a platform label
// without the seller.
func TestShippingPrefsAutoLabel(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{WithJobs: true}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("autolabelseller")
		labelShipFrom(t, s, seller)
		// A 2 lb parcel: USPS is the cheapest, so FedEx is there by preference.
		prefsPut(t, s, seller, map[string]any{"autoLabel": true, "preferredCarrier": "fedex"})
		listing := s.ListingWith(t, seller, "Mid-century teak side table, small, light wear", 10000,
			map[string]any{"shippingType": "flat_rate", "shippingCost": 800, "weightOz": 32,
				"dimensions": map[string]any{"l": 12, "w": 10, "h": 6}})
		cheapest, err := s.App.Shipping.QuoteParcel(t.Context(), "98101", "97201", shipping.Parcel{WeightOz: 32, L: 120, W: 100, H: 60})
		if err != nil {
			t.Fatal(err)
		}
		if cheapest[0].Carrier == "fedex" {
			t.Fatalf("the cheapest rate is %+v: the test needs another carrier", cheapest[0])
		}
		buyer := s.NewShopper("autolabelbuyer", "pm_card_visa")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000})
		o := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing, "maxPrice": 10000,
			"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()
		id := o["id"].(string)
		if o["status"] != "paid" {
			t.Fatalf("purchase answered %v", o["status"])
		}

		var got map[string]any
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			got = s.Do("GET", "/api/v1/orders/"+id, nil, seller.Auth()).Want(t, http.StatusOK, "").Data()
			if got["status"] != "paid" || time.Now().After(deadline) {
				break
			}
		}
		if got["status"] != "shipped" || got["trackingCarrier"] != "fedex" || got["trackingNumber"] == nil {
			t.Fatalf("the order of an automatic-label seller is %v (carrier %v)", got["status"], got["trackingCarrier"])
		}
		var bought map[string]any
		for _, e := range s.Do("GET", "/api/v1/orders/"+id+"/events", nil, seller.Auth()).Want(t, http.StatusOK, "").List() {
			if ev := e.(map[string]any); ev["type"] == "label.purchased" {
				bought = ev
			}
		}
		if bought == nil || bought["actorType"] != "system" || bought["data"].(map[string]any)["trackingNumber"] != got["trackingNumber"] {
			t.Fatalf("label.purchased %v", bought)
		}
		pdf := s.Do("GET", "/api/v1/orders/"+id+"/shipping/label", nil, seller.Auth()).Want(t, http.StatusOK, "")
		if ct := pdf.Header.Get("Content-Type"); ct != "application/pdf" {
			t.Fatalf("label Content-Type %q", ct)
		}
		// The seller asking again gets the same label, not a second one.
		again := s.Do("POST", "/api/v1/orders/"+id+"/shipping/label", nil, seller.Auth()).Want(t, http.StatusOK, "").Data()
		if again["trackingNumber"] != got["trackingNumber"] {
			t.Fatalf("the seller's label %v, the automatic one %v", again["trackingNumber"], got["trackingNumber"])
		}
	})
}
