package agentv1_test

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

// bpPath is Variant B's purchase.
const bpPath = "/v1/purchase"

// bpDrop marks a key bpBody removes.
var bpDrop = testkit.Drop

// bpAddress is testkit.Address with Variant B's keys (the same ones).
func bpAddress() map[string]any { return testkit.Address() }

// bpBody is a purchase of listing for at most maxPrice, shipped to
// bpAddress; kv pairs set (or, with bpDrop, remove) fields.
func bpBody(listing string, maxPrice int64, kv ...any) map[string]any {
	return testkit.Body(map[string]any{"listing_id": listing, "max_price": maxPrice, "shipping_address": bpAddress()}, kv...)
}

// bpListing creates an active listing by seller at price cents; extra
// replaces the defaults (free shipping, condition good).
func bpListing(t testing.TB, s *testkit.Server, seller *testkit.User, price int64, extra map[string]any) string {
	t.Helper()
	return s.ListingWith(t, seller, "Mid-century teak side table, small, light wear", price, extra)
}

func bpFlat(cost int64) map[string]any {
	return map[string]any{"shippingType": "flat_rate", "shippingCost": cost}
}

func bpDetails(t testing.TB, r *testkit.Response) map[string]any {
	t.Helper()
	return testkit.Obj(t, testkit.Obj(t, r.JSON, "error"), "details")
}

// bpFees fails unless fees (snake_case) hold exactly these figures.
func bpFees(t testing.TB, fees map[string]any, item, ship, fee, total int64) {
	t.Helper()
	got := [4]int64{testkit.Num(t, fees, "item_price"), testkit.Num(t, fees, "shipping_cost"), testkit.Num(t, fees, "service_fee"), testkit.Num(t, fees, "total_charged")}
	if want := [4]int64{item, ship, fee, total}; got != want {
		t.Fatalf("fees {item, shipping, service, total} = %v, want %v", got, want)
	}
}

// bpListingStatus is a listing's status as Variant B shows it to auth.
func bpListingStatus(t testing.TB, s *testkit.Server, id string, auth testkit.Header) string {
	t.Helper()
	st, _ := s.Do("GET", "/v1/listings/"+id, nil, auth).Want(t, http.StatusOK, "").Data()["status"].(string)
	return st
}

// bpState is what a purchase changes for an owner: their orders, their
// agents' spending today, and the processor's successful payments.
type bpState struct{ Orders, SpentToday, Charges int64 }

// bpSnap reads owner's bpState through Variant B as the owner.
func bpSnap(t testing.TB, s *testkit.Server, owner *testkit.User) bpState {
	t.Helper()
	os := s.Do("GET", "/v1/orders", nil, owner.Auth()).Want(t, http.StatusOK, "").Data()
	sp := s.Do("GET", "/v1/account/spending", nil, owner.Auth()).Want(t, http.StatusOK, "").Data()
	return bpState{Orders: testkit.Num(t, os, "total"), SpentToday: testkit.Num(t, sp, "spent_today"), Charges: s.Charges()}
}

// bpUnchanged proves a failed purchase charged nothing, and that listing
// (when given) is still active.
func bpUnchanged(t testing.TB, s *testkit.Server, owner *testkit.User, before bpState, listing string) {
	t.Helper()
	if after := bpSnap(t, s, owner); after != before {
		t.Fatalf("a failed purchase changed {orders, spent today, charges} from %+v to %+v", before, after)
	}
	if listing != "" {
		if st := bpListingStatus(t, s, listing, owner.Auth()); st != "active" {
			t.Fatalf("listing is %s after a failed purchase, want active", st)
		}
	}
}

// bpFail sends body with sh's key, wants status and code, and proves
// nothing was charged.
func bpFail(t testing.TB, s *testkit.Server, sh *testkit.Shopper, listing string, body any, status int, code string) *testkit.Response {
	t.Helper()
	before := bpSnap(t, s, sh.User)
	r := s.Do("POST", bpPath, body, sh.Key.Auth()).Want(t, status, code)
	wantMeta(t, r)
	bpUnchanged(t, s, sh.User, before, listing)
	return r
}

// bpInvalid is bpFail for a VALIDATION_ERROR naming exactly fields.
func bpInvalid(t testing.TB, s *testkit.Server, sh *testkit.Shopper, listing string, body any, fields ...string) {
	t.Helper()
	before := bpSnap(t, s, sh.User)
	testkit.WantFields(t, s.Do("POST", bpPath, body, sh.Key.Auth()), fields...)
	bpUnchanged(t, s, sh.User, before, listing)
}

func bpSpendLimit(t testing.TB, r *testkit.Response, requested, limit int64, kind string, remaining int64) {
	t.Helper()
	d := bpDetails(t, r)
	if testkit.Num(t, d, "requested_amount") != requested || testkit.Num(t, d, "limit") != limit || d["limit_type"] != kind || testkit.Num(t, d, "remaining") != remaining {
		t.Fatalf("details = %v, want requested_amount %d, limit %d, limit_type %s, remaining %d", d, requested, limit, kind, remaining)
	}
}

// bpBuy makes a purchase that must succeed and returns the order.
func bpBuy(t testing.TB, s *testkit.Server, key *testkit.Key, body any, h ...testkit.Header) *testkit.Response {
	t.Helper()
	r := s.Do("POST", bpPath, body, append([]testkit.Header{key.Auth()}, h...)...).Want(t, http.StatusCreated, "")
	wantMeta(t, r)
	if r.Data()["status"] != "paid" {
		t.Fatalf("order is %v, want paid", r.Data()["status"])
	}
	return r
}

// bpQuote quotes listing to zip through Variant B and returns the first rate.
func bpQuote(t testing.TB, s *testkit.Server, key *testkit.Key, listing, zip string) map[string]any {
	t.Helper()
	r := s.Do("POST", "/v1/listings/"+listing+"/shipping-estimate", map[string]any{"zip": zip}, key.Auth()).Want(t, http.StatusOK, "")
	rates, _ := r.Data()["rates"].([]any)
	if len(rates) == 0 {
		t.Fatalf("no rates quoted: %s", r.Body)
	}
	return rates[0].(map[string]any)
}

func bpLogin(t testing.TB, s *testkit.Server, u *testkit.User) {
	t.Helper()
	r := s.Do("POST", "/api/v1/auth/login", map[string]any{"email": u.Email, "password": u.Password}).Want(t, http.StatusOK, "")
	u.Token = r.Data()["accessToken"].(string)
}

// TestPurchase walks Variant B's POST /v1/purchase through every answer it
// can give; each failure is followed by proof that nothing was charged.
func TestPurchase(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("bpseller")
		sellerKey := s.NewKey(seller, "buy_sell")

		t.Run("success with flat shipping", func(t *testing.T) {
			sh := s.NewShopper("bpflat", "pm_card_visa")
			s.SetControls(sh.User, map[string]any{"perTransactionLimit": 20000})
			id := bpListing(t, s, seller, 10000, bpFlat(800))
			before := bpSnap(t, s, sh.User)
			o := bpBuy(t, s, sh.Key, bpBody(id, 10000, "shipping_method", "carrier", "selected_shipping_cost", 800)).Data()
			bpFees(t, testkit.Obj(t, o, "fees"), 10000, 800, 378, 11178)
			if o["buyer_id"] != sh.ID || o["seller_id"] != seller.ID || o["listing_id"] != id || o["channel"] != "agent" ||
				o["fulfillment_type"] != "shipping" || o["order_id"] != o["id"] || o["paid_at"] == nil {
				t.Fatalf("order = %v", o)
			}
			for _, k := range []string{"commission", "seller_payout", "itemPrice", "listingId"} {
				if _, has := o[k]; has {
					t.Fatalf("the buyer's order carries %s: %v", k, o)
				}
			}
			if a := testkit.Obj(t, o, "shipping_address"); a["zip"] != "97201" {
				t.Fatalf("shipping_address = %v", a)
			}
			oid := o["id"].(string)
			if st := bpListingStatus(t, s, id, sh.Key.Auth()); st != "sold" {
				t.Fatalf("listing is %s, want sold", st)
			}
			var types []string
			for _, e := range s.Do("GET", "/api/v1/agent/orders/"+oid+"/events", nil, sh.Key.Auth()).Want(t, http.StatusOK, "").List() {
				types = append(types, e.(map[string]any)["type"].(string))
			}
			if !slices.Equal(types, []string{"order.created", "payment.succeeded"}) {
				t.Fatalf("events = %v", types)
			}
			if after := bpSnap(t, s, sh.User); after != (bpState{before.Orders + 1, 11178, before.Charges + 1}) {
				t.Fatalf("after the purchase %+v", after)
			}
			sp := s.Do("GET", "/v1/account/spending", nil, sh.Key.Auth()).Want(t, http.StatusOK, "").Data()
			if testkit.Num(t, sp, "spent_today") != 11178 || testkit.Num(t, sp, "daily_remaining") != 50000-11178 {
				t.Fatalf("spending = %v", sp)
			}
			so := s.Do("GET", "/v1/orders/"+oid, nil, sellerKey.Auth()).Want(t, http.StatusOK, "").Data()
			if testkit.Num(t, so, "commission") != 300 || testkit.Num(t, so, "seller_payout") != 10500 || so["role"] != "seller" {
				t.Fatalf("the seller's order = %v", so)
			}
		})

		t.Run("success with the minimum fee", func(t *testing.T) {
			sh := s.NewShopper("bpmin", "pm_card_visa")
			o := bpBuy(t, s, sh.Key, bpBody(bpListing(t, s, seller, 1000, nil), 1000)).Data()
			bpFees(t, testkit.Obj(t, o, "fees"), 1000, 0, 99, 1099)
			if got := bpSnap(t, s, sh.User); got.SpentToday != 1099 || got.Orders != 1 {
				t.Fatalf("after the purchase %+v", got)
			}
		})

		t.Run("validation", func(t *testing.T) {
			sh := s.NewShopper("bpval", "pm_card_visa")
			flat := bpListing(t, s, seller, 2000, bpFlat(800))
			other := s.Register("bpvalother")
			foreignCard := s.SaveCard(other, "pm_card_visa")
			foreignAddr := s.Do("POST", "/api/v1/addresses", testkit.Address(), other.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
			badAddr := bpAddress()
			badAddr["zip"], badAddr["state"] = "1234", "XX"
			for _, c := range []struct {
				name   string
				body   any
				fields []string
			}{
				{"no max_price", bpBody(flat, 0, "max_price", bpDrop), []string{"max_price"}},
				{"no listing_id", bpBody(flat, 3000, "listing_id", bpDrop), []string{"listing_id"}},
				{"bad listing_id", bpBody("nope", 3000), []string{"listing_id"}},
				{"negative max_price", bpBody(flat, -1), []string{"max_price"}},
				{"absurd max_price", bpBody(flat, 9_000_000_000_000), []string{"max_price"}},
				{"max_price not a number", bpBody(flat, 0, "max_price", "lots"), []string{"max_price"}},
				{"negative expected_price", bpBody(flat, 3000, "expected_price", -3), []string{"expected_price"}},
				{"negative selected_shipping_cost", bpBody(flat, 3000, "selected_shipping_cost", -1), []string{"selected_shipping_cost"}},
				{"absurd selected_shipping_cost", bpBody(flat, 3000, "selected_shipping_cost", 2_000_000_000), []string{"selected_shipping_cost"}},
				{"bad address", bpBody(flat, 3000, "shipping_address", badAddr), []string{"shipping_address.zip", "shipping_address.state"}},
				{"both address forms", bpBody(flat, 3000, "shipping_address_id", foreignAddr), []string{"shipping_address_id"}},
				{"no address", bpBody(flat, 3000, "shipping_address", bpDrop), []string{"shipping_address"}},
				{"another owner's address", bpBody(flat, 3000, "shipping_address", bpDrop, "shipping_address_id", foreignAddr), []string{"shipping_address_id"}},
				{"unknown fulfillment_type", bpBody(flat, 3000, "fulfillment_type", "teleport"), []string{"fulfillment_type"}},
				{"unknown shipping_method", bpBody(flat, 3000, "shipping_method", "pigeon"), []string{"shipping_method"}},
				{"pickup on a shipping-only listing", bpBody(flat, 3000, "fulfillment_type", "local_pickup"), []string{"fulfillment_type"}},
				{"pickup by shipping_method", bpBody(flat, 3000, "shipping_method", "local_pickup"), []string{"fulfillment_type"}},
				{"selected_shipping_cost mismatch", bpBody(flat, 3000, "selected_shipping_cost", 500), []string{"selected_shipping_cost"}},
				{"another owner's payment method", bpBody(flat, 3000, "payment_method_id", foreignCard), []string{"payment_method_id"}},
				{"bad payment_method_id", bpBody(flat, 3000, "payment_method_id", "card"), []string{"payment_method_id"}},
				{"bad offer_id", bpBody(flat, 3000, "offer_id", "o1"), []string{"offer_id"}},
			} {
				t.Run(c.name, func(t *testing.T) {
					bpInvalid(t, s, sh, flat, c.body, c.fields...)
				})
			}
			bpBuy(t, s, sh.Key, bpBody(flat, 3000, "selected_shipping_cost", 800))
		})

		t.Run("who may buy", func(t *testing.T) {
			sh := s.NewShopper("bpauth", "pm_card_visa")
			id := bpListing(t, s, seller, 1500, nil)
			body := bpBody(id, 2000)
			try := func(t *testing.T, h []testkit.Header, status int, code string) {
				t.Helper()
				before := bpSnap(t, s, sh.User)
				s.Do("POST", bpPath, body, h...).Want(t, status, code)
				bpUnchanged(t, s, sh.User, before, id)
			}
			try(t, nil, http.StatusUnauthorized, "UNAUTHORIZED")
			try(t, []testkit.Header{testkit.AgentKey("mk_test_" + strings.Repeat("1", 40))}, http.StatusUnauthorized, "INVALID_AGENT_KEY")
			try(t, []testkit.Header{s.NewKey(sh.User, "sell_only").Auth()}, http.StatusForbidden, "INSUFFICIENT_SCOPE")
			frozen := s.NewKey(sh.User, "buy_only")
			s.Do("POST", "/api/v1/admin/users/"+sh.ID+"/agent-keys/"+frozen.ID+"/freeze", nil, s.Admin().Auth()).Want(t, http.StatusOK, "")
			try(t, []testkit.Header{frozen.Auth()}, http.StatusForbidden, "AGENT_FROZEN")

			u := s.Register("bpunverified")
			s.SaveCard(u, "pm_card_visa")
			uk := s.NewKey(u, "buy_sell")
			before := bpSnap(t, s, u)
			s.Do("POST", bpPath, body, uk.Auth()).Want(t, http.StatusForbidden, "OWNER_NOT_VERIFIED")
			bpUnchanged(t, s, u, before, id)

			before = bpSnap(t, s, sh.User)
			s.SetStatus(sh.ID, accounts.StatusBanned)
			s.Do("POST", bpPath, body, sh.Key.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
			s.SetStatus(sh.ID, accounts.StatusActive)
			bpUnchanged(t, s, sh.User, before, id)
			bpBuy(t, s, sh.Key, body)
		})

		t.Run("listing and price", func(t *testing.T) {
			sh := s.NewShopper("bplist", "pm_card_visa")
			rival := s.NewShopper("bprival", "pm_card_visa")
			bpFail(t, s, sh, "", bpBody(market.NewID(), 3000), http.StatusNotFound, "LISTING_NOT_FOUND")

			sold := bpListing(t, s, seller, 1200, nil)
			bpBuy(t, s, rival.Key, bpBody(sold, 3000))
			bpFail(t, s, sh, "", bpBody(sold, 3000), http.StatusConflict, "LISTING_SOLD")

			archived := bpListing(t, s, seller, 1200, nil)
			s.Do("DELETE", "/v1/listings/"+archived, nil, sellerKey.Auth()).Want(t, http.StatusOK, "")
			r := bpFail(t, s, sh, "", bpBody(archived, 3000), http.StatusConflict, "LISTING_NOT_AVAILABLE")
			if d := bpDetails(t, r); d["status"] != "archived" {
				t.Fatalf("details = %v", d)
			}

			held := bpListing(t, s, seller, 1200, nil)
			s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": held, "shippingAddress": testkit.Address()}, s.Register("bpholder").Auth()).
				Want(t, http.StatusCreated, "")
			bpFail(t, s, sh, "", bpBody(held, 3000), http.StatusConflict, "LISTING_NOT_AVAILABLE")
			if st := bpListingStatus(t, s, held, sh.Key.Auth()); st != "reserved" {
				t.Fatalf("held listing is %s", st)
			}

			own := bpListing(t, s, sh.User, 1200, nil)
			bpFail(t, s, sh, own, bpBody(own, 3000), http.StatusForbidden, "CANNOT_BUY_OWN_LISTING")

			id := bpListing(t, s, seller, 2000, nil)
			r = bpFail(t, s, sh, id, bpBody(id, 1500), http.StatusConflict, "MAX_PRICE_EXCEEDED")
			if d := bpDetails(t, r); testkit.Num(t, d, "current_price") != 2000 || testkit.Num(t, d, "max_price") != 1500 {
				t.Fatalf("details = %v", d)
			}
			r = bpFail(t, s, sh, id, bpBody(id, 3000, "expected_price", 1900), http.StatusConflict, "PRICE_CHANGED")
			if d := bpDetails(t, r); testkit.Num(t, d, "current_price") != 2000 || testkit.Num(t, d, "expected_price") != 1900 {
				t.Fatalf("details = %v", d)
			}
			bpBuy(t, s, sh.Key, bpBody(id, 2000, "expected_price", 2000))
		})

		t.Run("shipping", func(t *testing.T) {
			sh := s.NewShopper("bpship", "pm_card_visa")
			calc := bpListing(t, s, seller, 3000, map[string]any{"shippingType": "calculated", "weightOz": 20, "dimensions": map[string]any{"l": 12, "w": 10, "h": 6}})
			calc2 := bpListing(t, s, seller, 3000, map[string]any{"shippingType": "calculated", "weightOz": 20, "dimensions": map[string]any{"l": 12, "w": 10, "h": 6}})
			bpFail(t, s, sh, calc, bpBody(calc, 5000, "shipping_method", "carrier"), http.StatusBadRequest, "SHIPPING_COST_REQUIRED")
			// A client-sent cost is no quote.
			bpFail(t, s, sh, calc, bpBody(calc, 5000, "selected_shipping_cost", 1), http.StatusBadRequest, "SHIPPING_COST_REQUIRED")

			rate := bpQuote(t, s, sh.Key, calc, "97201")
			rateID := rate["rate_id"].(string)
			cost := testkit.Num(t, rate, "amount_cents")
			mid := len(rateID) / 2
			flip := "A"
			if rateID[mid] == 'A' {
				flip = "B"
			}
			for name, id := range map[string]string{
				"tampered":      rateID[:mid] + flip + rateID[mid+1:],
				"other zip":     bpQuote(t, s, sh.Key, calc, "10001")["rate_id"].(string),
				"other listing": bpQuote(t, s, sh.Key, calc2, "97201")["rate_id"].(string),
			} {
				t.Run(name, func(t *testing.T) {
					bpInvalid(t, s, sh, calc, bpBody(calc, 5000, "carrier_rate_id", id), "carrier_rate_id")
				})
			}
			bpInvalid(t, s, sh, calc, bpBody(calc, 5000, "carrier_rate_id", rateID, "selected_shipping_cost", cost+1), "selected_shipping_cost")
			bpInvalid(t, s, sh, calc, bpBody(calc, 5000, "carrier_rate_id", rateID, "selected_carrier", "not-"+rate["carrier"].(string)), "selected_carrier")
			bpInvalid(t, s, sh, calc, bpBody(calc, 5000, "carrier_rate_id", rateID, "selected_service", "teleport"), "selected_carrier")

			o := bpBuy(t, s, sh.Key, bpBody(calc, 5000, "shipping_method", "carrier", "carrier_rate_id", rateID,
				"selected_shipping_cost", cost, "selected_carrier", rate["carrier"], "selected_service", rate["service"])).Data()
			fee := max(99, ((3000+cost)*350+5000)/10000)
			bpFees(t, testkit.Obj(t, o, "fees"), 3000, cost, fee, 3000+cost+fee)
			if o["carrier"] != rate["carrier"] || o["service"] != rate["service"] || testkit.Num(t, o, "estimated_days") != testkit.Num(t, rate, "estimated_days") ||
				o["estimated_delivery"] == nil {
				t.Fatalf("order = %v; quoted %v", o, rate)
			}

			both := bpListing(t, s, seller, 2000, map[string]any{"shippingType": "both", "shippingCost": 600})
			o = bpBuy(t, s, sh.Key, bpBody(both, 2000, "shipping_address", bpDrop, "shipping_method", "local_pickup")).Data()
			bpFees(t, testkit.Obj(t, o, "fees"), 2000, 0, 99, 2099)
			if o["fulfillment_type"] != "local_pickup" {
				t.Fatalf("fulfillment_type = %v", o["fulfillment_type"])
			}
		})

		t.Run("spending controls", func(t *testing.T) {
			sh := s.NewShopper("bpcap", "pm_card_visa")
			big := bpListing(t, s, seller, 9700, nil) // 9700 + 340 fee = 10040
			r := bpFail(t, s, sh, big, bpBody(big, 9700), http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
			bpSpendLimit(t, r, 10040, 10000, "per_transaction", 10000)

			d := s.Do("POST", "/v1/auth/keys", map[string]any{"label": "capped", "scope": "buy",
				"spending_controls": map[string]any{"per_transaction_limit": 3000, "daily_limit": 4000}}, sh.Auth()).Want(t, http.StatusCreated, "").Data()
			capped := &testkit.Key{ID: d["key_id"].(string), Secret: d["key"].(string)}
			id := bpListing(t, s, seller, 2500, nil)
			bpBuy(t, s, capped, bpBody(id, 3000)) // 2599: under both of the key's caps
			id = bpListing(t, s, seller, 2500, nil)
			before := bpSnap(t, s, sh.User)
			r = s.Do("POST", bpPath, bpBody(id, 3000), capped.Auth()).Want(t, http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
			bpSpendLimit(t, r, 2599, 4000, "daily", 4000-2599)
			bpUnchanged(t, s, sh.User, before, id)
			bpBuy(t, s, sh.Key, bpBody(id, 3000)) // the owner's caps allow it

			s.SetControls(sh.User, map[string]any{"dailyLimit": 6000})
			id = bpListing(t, s, seller, 1000, nil)
			r = bpFail(t, s, sh, id, bpBody(id, 3000), http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
			bpSpendLimit(t, r, 1099, 6000, "daily", 6000-2*2599)
			s.SetControls(sh.User, map[string]any{"dailyLimit": 50000})

			var parent, child string
			for _, n := range s.Do("GET", "/api/v1/listings/categories", nil).Want(t, http.StatusOK, "").List() {
				c := n.(map[string]any)
				if kids, _ := c["children"].([]any); len(kids) > 0 && parent == "" {
					parent, child = c["id"].(string), kids[0].(map[string]any)["id"].(string)
				}
			}
			s.SetControls(sh.User, map[string]any{"categoryRestrictions": []string{parent}}) // by id this time
			id = bpListing(t, s, seller, 1000, map[string]any{"categoryId": child})
			bpFail(t, s, sh, id, bpBody(id, 3000), http.StatusForbidden, "CATEGORY_RESTRICTED")
			s.SetControls(sh.User, map[string]any{"categoryRestrictions": []string{}})
			bpBuy(t, s, sh.Key, bpBody(id, 3000))
		})

		t.Run("payment", func(t *testing.T) {
			id := bpListing(t, s, seller, 1500, nil)
			noCard := &testkit.Shopper{User: s.VerifiedOwner("bpnocard")}
			noCard.Key = s.NewKey(noCard.User, "buy_only")
			bpFail(t, s, noCard, id, bpBody(id, 2000), http.StatusPaymentRequired, "PAYMENT_METHOD_REQUIRED")
			r := bpFail(t, s, s.NewShopper("bpdeclined", "pm_card_chargeDeclined"), id, bpBody(id, 2000), http.StatusPaymentRequired, "PAYMENT_FAILED")
			if d := bpDetails(t, r); d["decline_code"] != "card_declined" {
				t.Fatalf("details = %v", d)
			}
			bpFail(t, s, s.NewShopper("bpsca", "pm_card_authenticationRequired"), id, bpBody(id, 2000), http.StatusPaymentRequired, "SCA_REQUIRED")
		})

		t.Run("idempotency", func(t *testing.T) {
			sh := s.NewShopper("bpidem", "pm_card_visa")
			for _, c := range []struct {
				name string
				send func(body map[string]any, key string) *testkit.Response
			}{
				{"Idempotency-Key header", func(body map[string]any, key string) *testkit.Response {
					return s.Do("POST", bpPath, body, sh.Key.Auth(), testkit.Header{Name: "Idempotency-Key", Value: key})
				}},
				{"idempotency_key header", func(body map[string]any, key string) *testkit.Response {
					return s.Do("POST", bpPath, body, sh.Key.Auth(), testkit.Header{Name: "idempotency_key", Value: key})
				}},
				{"idempotency_key field", func(body map[string]any, key string) *testkit.Response {
					b := maps.Clone(body)
					b["idempotency_key"] = key
					return s.Do("POST", bpPath, b, sh.Key.Auth())
				}},
			} {
				t.Run(c.name, func(t *testing.T) {
					key := "retry-" + strings.ReplaceAll(c.name, " ", "-")
					id := bpListing(t, s, seller, 1500, nil)
					before := bpSnap(t, s, sh.User)
					first := c.send(bpBody(id, 2000), key).Want(t, http.StatusCreated, "")
					again := c.send(bpBody(id, 2000), key).Want(t, http.StatusCreated, "")
					if again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) || first.Header.Get("Idempotent-Replayed") != "" {
						t.Fatalf("replay: header %q, body\n%s\nwant\n%s", again.Header.Get("Idempotent-Replayed"), again.Body, first.Body)
					}
					if after := bpSnap(t, s, sh.User); after != (bpState{before.Orders + 1, before.SpentToday + 1599, before.Charges + 1}) {
						t.Fatalf("after a purchase and its replay %+v (before %+v)", after, before)
					}
					other := bpListing(t, s, seller, 1500, nil)
					before = bpSnap(t, s, sh.User)
					c.send(bpBody(other, 2000), key).Want(t, http.StatusConflict, "DUPLICATE_REQUEST")
					bpUnchanged(t, s, sh.User, before, other)
				})
			}
		})

		t.Run("approval", func(t *testing.T) {
			sh := s.NewShopper("bpappr", "pm_card_visa")
			s.SetControls(sh.User, map[string]any{"approvalThreshold": 2000})
			id := bpListing(t, s, seller, 2500, nil)
			before := bpSnap(t, s, sh.User)
			r := s.Do("POST", bpPath, bpBody(id, 3000), sh.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
			d := bpDetails(t, r)
			oid, _ := d["order_id"].(string)
			if r.JSON["success"] != false || !market.ValidID(oid) || !market.ValidID(d["approval_id"].(string)) {
				t.Fatalf("APPROVAL_REQUIRED answer = %s", r.Body)
			}
			if o := s.Do("GET", "/v1/orders/"+oid, nil, sh.Key.Auth()).Want(t, http.StatusOK, "").Data(); o["status"] != "pending_approval" {
				t.Fatalf("queued order = %v", o)
			}
			if after := bpSnap(t, s, sh.User); after != (bpState{before.Orders + 1, before.SpentToday, before.Charges}) {
				t.Fatalf("after queueing %+v, before %+v", after, before)
			}
			s.Do("POST", "/api/v1/approvals/"+d["approval_id"].(string)+"/approve", nil, sh.Auth()).Want(t, http.StatusOK, "")
			if o := s.Do("GET", "/v1/orders/"+oid, nil, sh.Key.Auth()).Want(t, http.StatusOK, "").Data(); o["status"] != "paid" {
				t.Fatalf("approved order = %v", o)
			}
		})

		// Last: it moves the clock (Wednesday 2026-06-10 to Tuesday 16 June).
		t.Run("weekly and monthly windows", func(t *testing.T) {
			sh := s.NewShopper("bpwindow", "pm_card_visa")
			s.SetControls(sh.User, map[string]any{"dailyLimit": 3000, "weeklyLimit": 6000, "monthlyLimit": 8000})
			advance := func(days int) {
				s.Clock.Advance(time.Duration(days) * 24 * time.Hour)
				bpLogin(t, s, seller) // access tokens last a day
				bpLogin(t, s, sh.User)
			}
			buy := func() { bpBuy(t, s, sh.Key, bpBody(bpListing(t, s, seller, 2500, nil), 3000)) }
			buy()
			advance(1)
			buy()
			advance(1)
			id := bpListing(t, s, seller, 2500, nil)
			bpSpendLimit(t, bpFail(t, s, sh, id, bpBody(id, 3000), http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED"), 2599, 6000, "weekly", 6000-2*2599)
			advance(3)
			buy()
			advance(1)
			id = bpListing(t, s, seller, 2500, nil)
			bpSpendLimit(t, bpFail(t, s, sh, id, bpBody(id, 3000), http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED"), 2599, 8000, "monthly", 8000-3*2599)
		})
	})
}
