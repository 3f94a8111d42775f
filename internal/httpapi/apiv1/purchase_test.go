package apiv1_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

// purchPath is Variant A's agent purchase.
const purchPath = "/api/v1/agent/purchase"

// purchDropT marks a key purchBody removes.
var purchDrop = testkit.Drop

// purchBody is an agent purchase of listing for at most maxPrice, shipped to
// testkit.Address; kv pairs set (or, with purchDrop, remove) fields.
func purchBody(listing string, maxPrice int64, kv ...any) map[string]any {
	return testkit.Body(map[string]any{"listingId": listing, "maxPrice": maxPrice, "shippingAddress": testkit.Address()}, kv...)
}

// purchListing creates an active listing by seller at price cents. extra
// replaces the defaults (free shipping, condition good): shippingType,
// shippingCost, categoryId, weightOz.
func purchListing(t testing.TB, s *testkit.Server, seller *testkit.User, price int64, extra map[string]any) string {
	t.Helper()
	return s.ListingWith(t, seller, "Vintage cast iron skillet, ten inch, seasoned, no cracks", price, extra)
}

// purchFlat is a flat-rate shipping listing's extra fields.
func purchFlat(cost int64) map[string]any {
	return map[string]any{"shippingType": "flat_rate", "shippingCost": cost}
}

// purchDetails is an error answer's details.
func purchDetails(t testing.TB, r *testkit.Response) map[string]any {
	t.Helper()
	return testkit.Obj(t, testkit.Obj(t, r.JSON, "error"), "details")
}

// purchFees fails unless fees (camelCase) hold exactly these figures.
func purchFees(t testing.TB, fees map[string]any, item, ship, fee, total int64) {
	t.Helper()
	got := [4]int64{testkit.Num(t, fees, "itemPrice"), testkit.Num(t, fees, "shippingCost"), testkit.Num(t, fees, "serviceFee"),
		testkit.Num(t, fees, "totalCharged")}
	if want := [4]int64{item, ship, fee, total}; got != want {
		t.Fatalf("fees {item, shipping, service, total} = %v, want %v", got, want)
	}
}

// purchServiceFee is CONTRACT.md section 3's buyer fee, for amounts a test
// does not know in advance (quoted shipping).
func purchServiceFee(item, ship int64) int64 {
	return max(99, ((item+ship)*350+5000)/10000)
}

// purchListingStatus is a listing's status as auth (or anyone) reads it.
func purchListingStatus(t testing.TB, s *testkit.Server, id string, auth ...testkit.Header) string {
	t.Helper()
	r := s.Do("GET", "/api/v1/listings/"+id, nil, auth...).Want(t, http.StatusOK, "")
	st, _ := r.Data()["status"].(string)
	return st
}

// purchState is what a purchase changes: the orders the owner's agents see,
// the owner's spending today, and the processor's successful payments.
type purchState struct{ Orders, SpentToday, Charges int64 }

// purchSnapWith reads owner's purchState, listing orders with reader (an
// agent key of the owner's).
func purchSnapWith(t testing.TB, s *testkit.Server, owner *testkit.User, reader testkit.Header) purchState {
	t.Helper()
	os := s.Do("GET", "/api/v1/agent/orders", nil, reader).Want(t, http.StatusOK, "")
	spent := s.Do("GET", "/api/v1/spending-controls", nil, owner.Auth()).Want(t, http.StatusOK, "")
	return purchState{Orders: testkit.Num(t, testkit.Obj(t, os.JSON, "meta"), "total"),
		SpentToday: testkit.Num(t, testkit.Obj(t, spent.Data(), "spent"), "today"), Charges: s.Charges()}
}

func purchSnap(t testing.TB, s *testkit.Server, sh *testkit.Shopper) purchState {
	t.Helper()
	return purchSnapWith(t, s, sh.User, sh.Key.Auth())
}

// purchUnchanged proves a failed purchase charged nothing: no new order, no
// spending, no payment at the processor, and listing (when given) active.
func purchUnchanged(t testing.TB, s *testkit.Server, before, after purchState, listing string) {
	t.Helper()
	if after != before {
		t.Fatalf("a failed purchase changed {orders, spent today, charges} from %+v to %+v", before, after)
	}
	if listing != "" {
		if st := purchListingStatus(t, s, listing); st != "active" {
			t.Fatalf("listing is %s after a failed purchase, want active", st)
		}
	}
}

// purchFail sends body with sh's key, wants status and code, and proves
// nothing was charged.
func purchFail(t testing.TB, s *testkit.Server, sh *testkit.Shopper, listing string, body any, status int, code string) *testkit.Response {
	t.Helper()
	before := purchSnap(t, s, sh)
	r := s.Do("POST", purchPath, body, sh.Key.Auth()).Want(t, status, code)
	purchUnchanged(t, s, before, purchSnap(t, s, sh), listing)
	return r
}

// purchInvalid is purchFail for a VALIDATION_ERROR naming exactly fields.
func purchInvalid(t testing.TB, s *testkit.Server, sh *testkit.Shopper, listing string, body any, fields ...string) {
	t.Helper()
	before := purchSnap(t, s, sh)
	testkit.WantFields(t, s.Do("POST", purchPath, body, sh.Key.Auth()), fields...)
	purchUnchanged(t, s, before, purchSnap(t, s, sh), listing)
}

// purchSpendLimit checks a SPENDING_LIMIT_EXCEEDED answer's details.
func purchSpendLimit(t testing.TB, r *testkit.Response, requested, limit int64, kind string, remaining int64) {
	t.Helper()
	d := purchDetails(t, r)
	if testkit.Num(t, d, "requested_amount") != requested || testkit.Num(t, d, "limit") != limit || d["limit_type"] != kind ||
		testkit.Num(t, d, "remaining") != remaining {
		t.Fatalf("details = %v, want requested_amount %d, limit %d, limit_type %s, remaining %d", d, requested, limit, kind, remaining)
	}
}

// purchBuy makes a purchase that must succeed and returns the order.
func purchBuy(t testing.TB, s *testkit.Server, key *testkit.Key, body any) map[string]any {
	t.Helper()
	o := s.Do("POST", purchPath, body, key.Auth()).Want(t, http.StatusCreated, "").Data()
	if o["status"] != "paid" {
		t.Fatalf("order is %v, want paid", o["status"])
	}
	return o
}

// purchEventTypes lists an order's timeline as h reads it at path.
func purchEventTypes(t testing.TB, s *testkit.Server, path string, h testkit.Header) []string {
	t.Helper()
	var out []string
	for _, e := range s.Do("GET", path, nil, h).Want(t, http.StatusOK, "").List() {
		out = append(out, e.(map[string]any)["type"].(string))
	}
	return out
}

// purchQuote asks for the shipping rates of listing to zip and returns the
// first (cheapest) rate.
func purchQuote(t testing.TB, s *testkit.Server, listing, zip string) map[string]any {
	t.Helper()
	r := s.Do("POST", "/api/v1/shipping/rates", map[string]any{"listingId": listing, "buyerZip": zip}).Want(t, http.StatusOK, "")
	rates, _ := r.Data()["rates"].([]any)
	if len(rates) == 0 {
		t.Fatalf("no rates quoted: %s", r.Body)
	}
	return rates[0].(map[string]any)
}

// purchSubCategory finds a top-level category with a sub-category and
// returns the parent's slug and the child's id.
func purchSubCategory(t testing.TB, s *testkit.Server) (parentSlug, childID string) {
	t.Helper()
	for _, n := range s.Do("GET", "/api/v1/listings/categories", nil).Want(t, http.StatusOK, "").List() {
		c := n.(map[string]any)
		if kids, _ := c["children"].([]any); len(kids) > 0 {
			return c["slug"].(string), kids[0].(map[string]any)["id"].(string)
		}
	}
	t.Fatal("the category tree has no sub-categories")
	return "", ""
}

// purchAddress saves an address for u and returns its id.
func purchAddress(t testing.TB, s *testkit.Server, u *testkit.User) string {
	t.Helper()
	return s.Do("POST", "/api/v1/addresses", testkit.Address(), u.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
}

// purchLogin gives u a fresh access token (after the clock moved).
func purchLogin(t testing.TB, s *testkit.Server, u *testkit.User) {
	t.Helper()
	r := s.Do("POST", "/api/v1/auth/login", map[string]any{"email": u.Email, "password": u.Password}).Want(t, http.StatusOK, "")
	u.Token = r.Data()["accessToken"].(string)
}

// TestAgentPurchase walks Variant A's agent purchase through every answer it
// can give. Each failure is followed by proof that nothing was charged.
func TestAgentPurchase(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("purchseller")

		t.Run("success with flat shipping", func(t *testing.T) {
			sh := s.NewShopper("flatbuyer", "pm_card_visa")
			s.SetControls(sh.User, map[string]any{"perTransactionLimit": 20000})
			id := purchListing(t, s, seller, 10000, purchFlat(800))
			before := purchSnap(t, s, sh)

			est := s.Do("POST", purchPath+"/fee-estimate", purchBody(id, 10000), sh.Key.Auth()).Want(t, http.StatusOK, "").Data()
			purchFees(t, testkit.Obj(t, est, "fees"), 10000, 800, 378, 11178)
			if testkit.Num(t, est, "totalCharged") != 11178 {
				t.Fatalf("estimate totalCharged = %v", est["totalCharged"])
			}

			o := purchBuy(t, s, sh.Key, purchBody(id, 10000))
			purchFees(t, testkit.Obj(t, o, "fees"), 10000, 800, 378, 11178)
			if o["buyerId"] != sh.ID || o["sellerId"] != seller.ID || o["listingId"] != id || o["channel"] != "agent" ||
				o["fulfillmentType"] != "shipping" || o["role"] != "buyer" || o["paidAt"] == nil {
				t.Fatalf("order = %v", o)
			}
			for _, k := range []string{"commission", "sellerPayout"} {
				if _, has := o[k]; has {
					t.Fatalf("the buyer sees %s: %v", k, o)
				}
			}
			if a := testkit.Obj(t, o, "shippingAddress"); a["zip"] != "97201" || a["line1"] != "1 Main St" {
				t.Fatalf("shippingAddress = %v", a)
			}
			oid := o["id"].(string)
			if st := purchListingStatus(t, s, id); st != "sold" {
				t.Fatalf("listing is %s after the purchase, want sold", st)
			}
			if got := purchEventTypes(t, s, "/api/v1/agent/orders/"+oid+"/events", sh.Key.Auth()); !slices.Equal(got, []string{"order.created", "payment.succeeded"}) {
				t.Fatalf("events = %v", got)
			}
			after := purchSnap(t, s, sh)
			if want := (purchState{before.Orders + 1, 11178, before.Charges + 1}); after != want {
				t.Fatalf("after the purchase %+v, want %+v", after, want)
			}
			sum := s.Do("GET", purchPath+"/spending-summary", nil, sh.Key.Auth()).Want(t, http.StatusOK, "").Data()
			if testkit.Num(t, testkit.Obj(t, sum, "spent"), "today") != 11178 || testkit.Num(t, testkit.Obj(t, sum, "remaining"), "daily") != 50000-11178 {
				t.Fatalf("spending summary = %v", sum)
			}

			// The seller sees the commission (3% of the item) and the payout.
			so := s.Do("GET", "/api/v1/orders/"+oid, nil, seller.Auth()).Want(t, http.StatusOK, "").Data()
			if testkit.Num(t, so, "commission") != 300 || testkit.Num(t, so, "sellerPayout") != 10000-300+800 || so["role"] != "seller" {
				t.Fatalf("the seller's order = %v", so)
			}
			bo := s.Do("GET", "/api/v1/orders/"+oid, nil, sh.Auth()).Want(t, http.StatusOK, "").Data()
			if _, has := bo["commission"]; has || bo["sellerPayout"] != nil {
				t.Fatalf("the buyer's order shows the seller's figures: %v", bo)
			}
		})

		t.Run("success with the minimum fee", func(t *testing.T) {
			sh := s.NewShopper("minbuyer", "pm_card_visa")
			id := purchListing(t, s, seller, 1000, nil)
			est := s.Do("POST", purchPath+"/fee-estimate", purchBody(id, 1000), sh.Key.Auth()).Want(t, http.StatusOK, "").Data()
			purchFees(t, testkit.Obj(t, est, "fees"), 1000, 0, 99, 1099)
			o := purchBuy(t, s, sh.Key, purchBody(id, 1000))
			purchFees(t, testkit.Obj(t, o, "fees"), 1000, 0, 99, 1099)
			if got := purchSnap(t, s, sh); got.SpentToday != 1099 || got.Orders != 1 {
				t.Fatalf("after the purchase %+v", got)
			}
		})

		t.Run("validation", func(t *testing.T) {
			sh := s.NewShopper("valbuyer", "pm_card_visa")
			flat := purchListing(t, s, seller, 2000, purchFlat(800))
			other := s.Register("valother")
			foreignCard := s.SaveCard(other, "pm_card_visa")
			foreignAddr := purchAddress(t, s, other)
			badAddr := testkit.Address()
			badAddr["zip"], badAddr["state"] = "ABCDE", "ZZ"
			for _, c := range []struct {
				name   string
				body   any
				fields []string
			}{
				{"no maxPrice", purchBody(flat, 0, "maxPrice", purchDrop), []string{"maxPrice"}},
				{"no listingId", purchBody(flat, 3000, "listingId", purchDrop), []string{"listingId"}},
				{"bad listingId", purchBody("not-a-listing", 3000), []string{"listingId"}},
				{"negative maxPrice", purchBody(flat, -5), []string{"maxPrice"}},
				{"zero maxPrice", purchBody(flat, 0), []string{"maxPrice"}},
				{"absurd maxPrice", purchBody(flat, 1_000_000_000_000), []string{"maxPrice"}},
				{"maxPrice not a number", purchBody(flat, 0, "maxPrice", "3000"), []string{"maxPrice"}},
				{"fractional maxPrice", purchBody(flat, 0, "maxPrice", 30.5), []string{"maxPrice"}},
				{"negative expectedPrice", purchBody(flat, 3000, "expectedPrice", -1), []string{"expectedPrice"}},
				{"absurd expectedPrice", purchBody(flat, 3000, "expectedPrice", 5_000_000_000), []string{"expectedPrice"}},
				{"bad address", purchBody(flat, 3000, "shippingAddress", badAddr), []string{"shippingAddress.zip", "shippingAddress.state"}},
				{"empty address", purchBody(flat, 3000, "shippingAddress", map[string]any{}),
					[]string{"shippingAddress.line1", "shippingAddress.city", "shippingAddress.state", "shippingAddress.zip"}},
				{"both address forms", purchBody(flat, 3000, "shippingAddressId", foreignAddr), []string{"shippingAddressId"}},
				{"no address", purchBody(flat, 3000, "shippingAddress", purchDrop), []string{"shippingAddress"}},
				{"bad shippingAddressId", purchBody(flat, 3000, "shippingAddress", purchDrop, "shippingAddressId", "x"), []string{"shippingAddressId"}},
				{"another owner's address", purchBody(flat, 3000, "shippingAddress", purchDrop, "shippingAddressId", foreignAddr), []string{"shippingAddressId"}},
				{"unknown fulfillmentType", purchBody(flat, 3000, "fulfillmentType", "drone"), []string{"fulfillmentType"}},
				{"pickup on a shipping-only listing", purchBody(flat, 3000, "fulfillmentType", "local_pickup"), []string{"fulfillmentType"}},
				{"bad paymentMethodId", purchBody(flat, 3000, "paymentMethodId", "pm_card_visa"), []string{"paymentMethodId"}},
				{"another owner's payment method", purchBody(flat, 3000, "paymentMethodId", foreignCard), []string{"paymentMethodId"}},
				{"unknown payment method", purchBody(flat, 3000, "paymentMethodId", market.NewID()), []string{"paymentMethodId"}},
				{"bad offerId", purchBody(flat, 3000, "offerId", "offer-1"), []string{"offerId"}},
				{"overlong shippingRateId", purchBody(flat, 3000, "shippingRateId", strings.Repeat("x", 3000)), []string{"shippingRateId"}},
			} {
				t.Run(c.name, func(t *testing.T) {
					purchInvalid(t, s, sh, flat, c.body, c.fields...)
				})
			}
			t.Run("malformed JSON", func(t *testing.T) {
				before := purchSnap(t, s, sh)
				s.Do("POST", purchPath, `{"listingId": `, sh.Key.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
				purchUnchanged(t, s, before, purchSnap(t, s, sh), flat)
			})
			// The listing was never touched: it still sells.
			purchBuy(t, s, sh.Key, purchBody(flat, 3000))
		})

		t.Run("who may buy", func(t *testing.T) {
			sh := s.NewShopper("authbuyer", "pm_card_visa")
			id := purchListing(t, s, seller, 1500, nil)
			body := purchBody(id, 2000)
			try := func(t *testing.T, h []testkit.Header, status int, code string) {
				t.Helper()
				before := purchSnap(t, s, sh)
				s.Do("POST", purchPath, body, h...).Want(t, status, code)
				purchUnchanged(t, s, before, purchSnap(t, s, sh), id)
			}
			try(t, nil, http.StatusUnauthorized, "INVALID_AGENT_KEY")
			try(t, []testkit.Header{testkit.AgentKey("mk_test_" + strings.Repeat("0", 40))}, http.StatusUnauthorized, "INVALID_AGENT_KEY")
			try(t, []testkit.Header{sh.Auth()}, http.StatusUnauthorized, "INVALID_AGENT_KEY") // a bearer token is not a key
			try(t, []testkit.Header{s.NewKey(sh.User, "sell_only").Auth()}, http.StatusForbidden, "INSUFFICIENT_SCOPE")

			frozen := s.NewKey(sh.User, "buy_sell")
			s.Do("POST", "/api/v1/admin/users/"+sh.ID+"/agent-keys/"+frozen.ID+"/freeze", nil, s.Admin().Auth()).Want(t, http.StatusOK, "")
			try(t, []testkit.Header{frozen.Auth()}, http.StatusForbidden, "AGENT_FROZEN")

			// An unverified owner's agent, card on file and all.
			u := s.Register("unverified")
			s.SaveCard(u, "pm_card_visa")
			uk := s.NewKey(u, "buy_sell")
			before := purchSnapWith(t, s, u, uk.Auth())
			s.Do("POST", purchPath, body, uk.Auth()).Want(t, http.StatusForbidden, "OWNER_NOT_VERIFIED")
			purchUnchanged(t, s, before, purchSnapWith(t, s, u, uk.Auth()), id)

			// A suspended owner's agents are refused too.
			before = purchSnap(t, s, sh)
			s.SetStatus(sh.ID, accounts.StatusSuspended)
			s.Do("POST", purchPath, body, sh.Key.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
			s.SetStatus(sh.ID, accounts.StatusActive)
			purchUnchanged(t, s, before, purchSnap(t, s, sh), id)

			purchBuy(t, s, sh.Key, body)
		})

		t.Run("listing and price", func(t *testing.T) {
			sh := s.NewShopper("listbuyer", "pm_card_visa")
			rival := s.NewShopper("listrival", "pm_card_visa")

			purchFail(t, s, sh, "", purchBody(market.NewID(), 3000), http.StatusNotFound, "LISTING_NOT_FOUND")

			sold := purchListing(t, s, seller, 1200, nil)
			purchBuy(t, s, rival.Key, purchBody(sold, 3000))
			purchFail(t, s, sh, "", purchBody(sold, 3000), http.StatusConflict, "LISTING_SOLD")
			if st := purchListingStatus(t, s, sold); st != "sold" {
				t.Fatalf("sold listing is %s", st)
			}

			archived := purchListing(t, s, seller, 1200, nil)
			s.Do("DELETE", "/api/v1/listings/"+archived, nil, seller.Auth()).Want(t, http.StatusOK, "")
			r := purchFail(t, s, sh, "", purchBody(archived, 3000), http.StatusConflict, "LISTING_NOT_AVAILABLE")
			if d := purchDetails(t, r); d["status"] != "archived" {
				t.Fatalf("details = %v", d)
			}
			if st := purchListingStatus(t, s, archived, seller.Auth()); st != "archived" {
				t.Fatalf("archived listing is %s", st)
			}

			// A human checkout holds the listing: the agent cannot take it.
			held := purchListing(t, s, seller, 1200, nil)
			human := s.Register("holder")
			s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": held, "shippingAddress": testkit.Address()}, human.Auth()).
				Want(t, http.StatusCreated, "")
			purchFail(t, s, sh, "", purchBody(held, 3000), http.StatusConflict, "LISTING_NOT_AVAILABLE")
			if st := purchListingStatus(t, s, held); st != "reserved" {
				t.Fatalf("held listing is %s, want reserved", st)
			}

			own := purchListing(t, s, sh.User, 1200, nil)
			purchFail(t, s, sh, own, purchBody(own, 3000), http.StatusForbidden, "CANNOT_BUY_OWN_LISTING")

			id := purchListing(t, s, seller, 2000, nil)
			r = purchFail(t, s, sh, id, purchBody(id, 1999), http.StatusConflict, "MAX_PRICE_EXCEEDED")
			if d := purchDetails(t, r); testkit.Num(t, d, "currentPrice") != 2000 || testkit.Num(t, d, "maxPrice") != 1999 {
				t.Fatalf("details = %v", d)
			}
			// The seller raises the price after the agent looked.
			s.Do("PATCH", "/api/v1/listings/"+id, map[string]any{"price": 2100}, seller.Auth()).Want(t, http.StatusOK, "")
			r = purchFail(t, s, sh, id, purchBody(id, 3000, "expectedPrice", 2000), http.StatusConflict, "PRICE_CHANGED")
			if d := purchDetails(t, r); testkit.Num(t, d, "currentPrice") != 2100 || testkit.Num(t, d, "expectedPrice") != 2000 {
				t.Fatalf("details = %v", d)
			}
			// PRICE_CHANGED comes before MAX_PRICE_EXCEEDED.
			purchFail(t, s, sh, id, purchBody(id, 2000, "expectedPrice", 2000), http.StatusConflict, "PRICE_CHANGED")
			purchFail(t, s, sh, id, purchBody(id, 2000, "expectedPrice", 2100), http.StatusConflict, "MAX_PRICE_EXCEEDED")
			o := purchBuy(t, s, sh.Key, purchBody(id, 2100, "expectedPrice", 2100))
			purchFees(t, testkit.Obj(t, o, "fees"), 2100, 0, 99, 2199)
		})

		t.Run("shipping", func(t *testing.T) {
			sh := s.NewShopper("shipbuyer", "pm_card_visa")
			calc := purchListing(t, s, seller, 3000, map[string]any{"shippingType": "calculated", "weightOz": 24, "dimensions": map[string]any{"l": 12, "w": 10, "h": 4}})
			calc2 := purchListing(t, s, seller, 3000, map[string]any{"shippingType": "calculated", "weightOz": 24, "dimensions": map[string]any{"l": 12, "w": 10, "h": 4}})

			r := purchFail(t, s, sh, calc, purchBody(calc, 5000), http.StatusBadRequest, "SHIPPING_COST_REQUIRED")
			if !strings.Contains(r.JSON["error"].(map[string]any)["message"].(string), "/shipping/rates") {
				t.Fatalf("message does not say how to quote: %s", r.Body)
			}
			// The fee estimate needs the quote too.
			s.Do("POST", purchPath+"/fee-estimate", purchBody(calc, 5000), sh.Key.Auth()).Want(t, http.StatusBadRequest, "SHIPPING_COST_REQUIRED")

			rate := purchQuote(t, s, calc, "97201")
			rateID := rate["rate_id"].(string)
			otherZip := purchQuote(t, s, calc, "10001")["rate_id"].(string)
			foreign := purchQuote(t, s, calc2, "97201")["rate_id"].(string)
			mid, flip := len(rateID)/2, "A"
			if rateID[mid] == 'A' {
				flip = "B"
			}
			tampered := rateID[:mid] + flip + rateID[mid+1:]
			for name, id := range map[string]string{"tampered": tampered, "other zip": otherZip, "other listing": foreign,
				"garbage": "not-a-rate"} {
				t.Run(name, func(t *testing.T) {
					purchInvalid(t, s, sh, calc, purchBody(calc, 5000, "shippingRateId", id), "shippingRateId")
				})
			}

			cost := testkit.Num(t, rate, "amount_cents")
			fee := purchServiceFee(3000, cost)
			est := s.Do("POST", purchPath+"/fee-estimate", purchBody(calc, 5000, "shippingRateId", rateID), sh.Key.Auth()).
				Want(t, http.StatusOK, "").Data()
			purchFees(t, testkit.Obj(t, est, "fees"), 3000, cost, fee, 3000+cost+fee)
			o := purchBuy(t, s, sh.Key, purchBody(calc, 5000, "shippingRateId", rateID))
			purchFees(t, testkit.Obj(t, o, "fees"), 3000, cost, fee, 3000+cost+fee)
			if sp := testkit.Obj(t, o, "shipping"); sp["carrier"] != rate["carrier"] || sp["service"] != rate["service"] ||
				testkit.Num(t, sp, "estimatedDays") != testkit.Num(t, rate, "estimated_days") || o["estimatedDelivery"] == nil {
				t.Fatalf("order shipping = %v, estimatedDelivery %v; quoted %v", sp, o["estimatedDelivery"], rate)
			}
			if got := purchSnap(t, s, sh); got.SpentToday != 3000+cost+fee {
				t.Fatalf("spent today = %d, want %d", got.SpentToday, 3000+cost+fee)
			}

			// Pickup of a listing that offers it needs no address and costs no shipping.
			both := purchListing(t, s, seller, 2000, map[string]any{"shippingType": "both", "shippingCost": 700})
			o = purchBuy(t, s, sh.Key, purchBody(both, 2000, "shippingAddress", purchDrop, "fulfillmentType", "local_pickup"))
			purchFees(t, testkit.Obj(t, o, "fees"), 2000, 0, 99, 2099)
			if o["fulfillmentType"] != "local_pickup" {
				t.Fatalf("fulfillmentType = %v", o["fulfillmentType"])
			}
			// A saved default address serves when the body names none.
			purchAddress(t, s, sh.User)
			flat := purchListing(t, s, seller, 2000, purchFlat(500))
			o = purchBuy(t, s, sh.Key, purchBody(flat, 2000, "shippingAddress", purchDrop))
			purchFees(t, testkit.Obj(t, o, "fees"), 2000, 500, 99, 2599)
		})

		t.Run("spending controls", func(t *testing.T) {
			sh := s.NewShopper("capbuyer", "pm_card_visa")

			// The owner's default per-transaction cap of 10000 counts the fee.
			big := purchListing(t, s, seller, 10000, nil)
			r := purchFail(t, s, sh, big, purchBody(big, 10000), http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
			purchSpendLimit(t, r, 10350, 10000, "per_transaction", 10000)

			// A key's own cap applies on top of the owner's.
			capped := s.Do("POST", "/api/v1/agent-keys", map[string]any{"label": "capped", "scope": "buy_sell", "acceptedAgentTerms": true,
				"spendingControls": map[string]any{"perTransactionLimit": 2000}}, sh.Auth()).Want(t, http.StatusCreated, "").Data()
			cappedKey := &testkit.Key{ID: capped["id"].(string), Secret: capped["key"].(string)}
			id := purchListing(t, s, seller, 2500, nil)
			before := purchSnap(t, s, sh)
			r = s.Do("POST", purchPath, purchBody(id, 3000), cappedKey.Auth()).Want(t, http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
			purchSpendLimit(t, r, 2599, 2000, "per_transaction", 2000)
			purchUnchanged(t, s, before, purchSnap(t, s, sh), id)
			purchBuy(t, s, sh.Key, purchBody(id, 3000)) // the owner's other key has no cap of its own

			// Daily: what was spent today counts.
			s.SetControls(sh.User, map[string]any{"dailyLimit": 5000})
			second := purchListing(t, s, seller, 2500, nil)
			r = purchFail(t, s, sh, second, purchBody(second, 3000), http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
			purchSpendLimit(t, r, 2599, 5000, "daily", 5000-2599)
			s.SetControls(sh.User, map[string]any{"dailyLimit": 50000})

			// A restricted category covers its sub-categories.
			parent, child := purchSubCategory(t, s)
			s.SetControls(sh.User, map[string]any{"categoryRestrictions": []string{parent}})
			inChild := purchListing(t, s, seller, 1000, map[string]any{"categoryId": child})
			purchFail(t, s, sh, inChild, purchBody(inChild, 2000), http.StatusForbidden, "CATEGORY_RESTRICTED")
			s.SetControls(sh.User, map[string]any{"categoryRestrictions": []string{}})
			purchBuy(t, s, sh.Key, purchBody(inChild, 2000))
		})

		t.Run("payment", func(t *testing.T) {
			noCard := &testkit.Shopper{User: s.VerifiedOwner("nocard")}
			noCard.Key = s.NewKey(noCard.User, "buy_sell")
			id := purchListing(t, s, seller, 1500, nil)
			purchFail(t, s, noCard, id, purchBody(id, 2000), http.StatusPaymentRequired, "PAYMENT_METHOD_REQUIRED")

			declined := s.NewShopper("declined", "pm_card_chargeDeclined")
			r := purchFail(t, s, declined, id, purchBody(id, 2000), http.StatusPaymentRequired, "PAYMENT_FAILED")
			if d := purchDetails(t, r); d["declineCode"] != "card_declined" {
				t.Fatalf("details = %v", d)
			}
			// A failed purchase may be tried again, and fails the same way.
			purchFail(t, s, declined, id, purchBody(id, 2000), http.StatusPaymentRequired, "PAYMENT_FAILED")

			sca := s.NewShopper("sca", "pm_card_authenticationRequired")
			purchFail(t, s, sca, id, purchBody(id, 2000), http.StatusPaymentRequired, "SCA_REQUIRED")

			// Naming a card picks it over the default.
			good := s.NewShopper("twocards", "pm_card_visa")
			bad := s.SaveCard(good.User, "pm_card_chargeDeclined")
			purchFail(t, s, good, id, purchBody(id, 2000, "paymentMethodId", bad), http.StatusPaymentRequired, "PAYMENT_FAILED")
			o := purchBuy(t, s, good.Key, purchBody(id, 2000))
			if o["paymentMethodId"] == bad || o["paymentMethodId"] == nil {
				t.Fatalf("paid with %v", o["paymentMethodId"])
			}
		})

		t.Run("idempotency", func(t *testing.T) {
			sh := s.NewShopper("idembuyer", "pm_card_visa")
			id := purchListing(t, s, seller, 1500, nil)
			before := purchSnap(t, s, sh)
			body := purchBody(id, 2000, "idempotencyKey", "order-42")
			first := s.Do("POST", purchPath, body, sh.Key.Auth()).Want(t, http.StatusCreated, "")
			if first.Header.Get("Idempotent-Replayed") != "" {
				t.Fatal("the first answer says it was replayed")
			}
			again := s.Do("POST", purchPath, body, sh.Key.Auth()).Want(t, http.StatusCreated, "")
			if again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) {
				t.Fatalf("replay: header %q, body\n%s\nwant\n%s", again.Header.Get("Idempotent-Replayed"), again.Body, first.Body)
			}
			// Another key of the same owner shares the owner's idempotency keys.
			other := s.NewKey(sh.User, "buy_only")
			s.Do("POST", purchPath, body, other.Auth()).Want(t, http.StatusCreated, "")
			after := purchSnap(t, s, sh)
			if want := (purchState{before.Orders + 1, 1599, before.Charges + 1}); after != want {
				t.Fatalf("after a purchase and its replays %+v, want %+v", after, want)
			}

			// The same key with other parameters.
			next := purchListing(t, s, seller, 1500, nil)
			purchFail(t, s, sh, next, purchBody(next, 2000, "idempotencyKey", "order-42"), http.StatusConflict, "DUPLICATE_REQUEST")
			purchFail(t, s, sh, next, purchBody(id, 2500, "idempotencyKey", "order-42"), http.StatusConflict, "DUPLICATE_REQUEST")
			// A key is the owner's: another owner may use the same one.
			rival := s.NewShopper("idemrival", "pm_card_visa")
			purchBuy(t, s, rival.Key, purchBody(next, 2000, "idempotencyKey", "order-42"))
		})

		// Last: it moves the clock. Windows are calendar day, ISO week and
		// month in UTC; the clock starts on Wednesday 2026-06-10.
		t.Run("weekly and monthly windows", func(t *testing.T) {
			sh := s.NewShopper("windowbuyer", "pm_card_visa")
			s.SetControls(sh.User, map[string]any{"dailyLimit": 3000, "weeklyLimit": 6000, "monthlyLimit": 8000})
			advance := func(days int) {
				s.Clock.Advance(time.Duration(days) * 24 * time.Hour)
				purchLogin(t, s, seller) // access tokens last a day
				purchLogin(t, s, sh.User)
			}
			buy := func() { purchBuy(t, s, sh.Key, purchBody(purchListing(t, s, seller, 2500, nil), 3000)) }
			buy() // Wednesday
			advance(1)
			buy() // Thursday: a new day, the same week
			advance(1)
			id := purchListing(t, s, seller, 2500, nil)
			r := purchFail(t, s, sh, id, purchBody(id, 3000), http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
			purchSpendLimit(t, r, 2599, 6000, "weekly", 6000-2*2599)
			advance(3)
			buy() // Monday 15 June: a new week, the same month
			advance(1)
			id = purchListing(t, s, seller, 2500, nil)
			r = purchFail(t, s, sh, id, purchBody(id, 3000), http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
			purchSpendLimit(t, r, 2599, 8000, "monthly", 8000-3*2599)
			sum := s.Do("GET", purchPath+"/spending-summary", nil, sh.Key.Auth()).Want(t, http.StatusOK, "").Data()
			spent := testkit.Obj(t, sum, "spent")
			if testkit.Num(t, spent, "today") != 0 || testkit.Num(t, spent, "thisWeek") != 2599 || testkit.Num(t, spent, "thisMonth") != 3*2599 {
				t.Fatalf("spent = %v", spent)
			}
		})
	})
}

// TestHumanPurchase is POST /purchases: a reservation paid on the hosted
// checkout page, confirmed, or left to expire.
func TestHumanPurchase(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("humanseller")
		buyer := s.Register("humanbuyer")
		stranger := s.Register("stranger")
		start := func(t *testing.T, listing string) map[string]any {
			t.Helper()
			now := s.Clock.Now()
			d := s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": listing, "shippingAddress": testkit.Address()}, buyer.Auth()).
				Want(t, http.StatusCreated, "").Data()
			exp, err := time.Parse(time.RFC3339, d["expiresAt"].(string))
			if d["status"] != "pending_payment" || d["orderId"] == nil || err != nil || !exp.Equal(now.Add(15*time.Minute)) {
				t.Fatalf("checkout = %v (expiresAt %v, want %v)", d, d["expiresAt"], now.Add(15*time.Minute))
			}
			if !strings.HasPrefix(d["checkoutUrl"].(string), s.URL+"/") {
				t.Fatalf("checkoutUrl %v is not on the service", d["checkoutUrl"])
			}
			if st := purchListingStatus(t, s, listing); st != "reserved" {
				t.Fatalf("listing is %s during checkout, want reserved", st)
			}
			return d
		}
		orderStatus := func(t *testing.T, id string) string {
			t.Helper()
			return s.Do("GET", "/api/v1/purchases/"+id, nil, buyer.Auth()).Want(t, http.StatusOK, "").Data()["status"].(string)
		}
		card := func(number string) map[string]any { return map[string]any{"cardNumber": number} }

		t.Run("pay on the checkout page", func(t *testing.T) {
			id := purchListing(t, s, seller, 10000, purchFlat(800))
			c := start(t, id)
			oid, page := c["orderId"].(string), s.Path(c["checkoutUrl"].(string))
			purchFees(t, testkit.Obj(t, testkit.Obj(t, c, "order"), "fees"), 10000, 800, 378, 11178)

			charges := s.Charges()
			s.Do("POST", page, card("4000000000000002")).Want(t, http.StatusPaymentRequired, "PAYMENT_FAILED")
			if st := orderStatus(t, oid); st != "pending_payment" {
				t.Fatalf("order is %s after a declined card, want pending_payment", st)
			}
			s.Do("POST", "/api/v1/purchases/confirm", map[string]any{"orderId": oid}, buyer.Auth()).
				Want(t, http.StatusPaymentRequired, "PAYMENT_FAILED")
			if s.Charges() != charges || purchListingStatus(t, s, id) != "reserved" {
				t.Fatal("a declined card charged or released something")
			}
			s.Do("POST", page, card("not a card")).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")

			paid := s.Do("POST", page, card("4242424242424242")).Want(t, http.StatusOK, "").Data()
			if paid["status"] != "paid" || testkit.Num(t, paid, "totalCharged") != 11178 {
				t.Fatalf("checkout page answer = %v", paid)
			}
			if s.Charges() != charges+1 || purchListingStatus(t, s, id) != "sold" || orderStatus(t, oid) != "paid" {
				t.Fatal("a paid checkout did not sell the listing")
			}
			// Confirming a paid order answers it again; only the buyer may.
			o := s.Do("POST", "/api/v1/purchases/confirm", map[string]any{"orderId": oid}, buyer.Auth()).Want(t, http.StatusOK, "").Data()
			if o["status"] != "paid" || o["channel"] != "human" {
				t.Fatalf("confirm = %v", o)
			}
			s.Do("POST", "/api/v1/purchases/confirm", map[string]any{"orderId": oid}, stranger.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", "/api/v1/purchases/confirm", map[string]any{"orderId": oid}, seller.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", page, card("4242424242424242")).Want(t, http.StatusOK, "") // paying again changes nothing
			if s.Charges() != charges+1 {
				t.Fatal("paying a paid checkout again charged again")
			}
			// A human's own purchases are not agent spending.
			if spent := s.Do("GET", "/api/v1/spending-controls", nil, buyer.Auth()).Want(t, http.StatusOK, "").Data(); testkit.Num(t, testkit.Obj(t, spent, "spent"), "today") != 0 {
				t.Fatalf("spending = %v", spent)
			}
			if got := purchEventTypes(t, s, "/api/v1/purchases/"+oid+"/events", buyer.Auth()); !slices.Equal(got, []string{"order.created", "payment.succeeded"}) {
				t.Fatalf("events = %v", got)
			}
		})

		t.Run("pay, then confirm", func(t *testing.T) {
			id := purchListing(t, s, seller, 1000, nil)
			c := start(t, id)
			oid := c["orderId"].(string)
			// Paying moves the processor's payment; confirm reads it.
			s.Do("POST", s.Path(c["checkoutUrl"].(string)), card("4242424242424242")).Want(t, http.StatusOK, "")
			o := s.Do("POST", "/api/v1/purchases/confirm", map[string]any{"orderId": oid}, buyer.Auth()).Want(t, http.StatusOK, "").Data()
			if o["status"] != "paid" {
				t.Fatalf("confirmed order is %v", o["status"])
			}
			purchFees(t, testkit.Obj(t, o, "fees"), 1000, 0, 99, 1099)
		})

		t.Run("refused", func(t *testing.T) {
			id := purchListing(t, s, seller, 1000, nil)
			charges := s.Charges()
			s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": id}, buyer.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
			s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": id, "shippingAddress": testkit.Address()}, seller.Auth()).
				Want(t, http.StatusForbidden, "CANNOT_BUY_OWN_LISTING")
			s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": id, "shippingAddress": testkit.Address()}).
				Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			k := s.NewKey(s.VerifiedOwner("humanagent"), "buy_sell")
			s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": id, "shippingAddress": testkit.Address()}, k.Auth()).
				Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("POST", "/api/v1/purchases/confirm", map[string]any{"orderId": market.NewID()}, buyer.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("POST", "/api/v1/purchases/confirm", map[string]any{"orderId": "x"}, buyer.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
			s.Do("POST", "/checkout/"+market.NewID(), card("4242424242424242")).Want(t, http.StatusNotFound, "NOT_FOUND")
			if s.Charges() != charges || purchListingStatus(t, s, id) != "active" {
				t.Fatal("a refused purchase changed something")
			}
		})

		// Last: it moves the clock.
		t.Run("expiry", func(t *testing.T) {
			id := purchListing(t, s, seller, 1000, nil)
			c := start(t, id)
			oid, page := c["orderId"].(string), s.Path(c["checkoutUrl"].(string))
			// Another buyer cannot take the reserved listing meanwhile.
			s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": id, "shippingAddress": testkit.Address()}, stranger.Auth()).
				Want(t, http.StatusConflict, "LISTING_NOT_AVAILABLE")
			charges := s.Charges()
			s.Clock.Advance(16 * time.Minute)
			// Past the reservation the page refuses even before the reconciler runs.
			s.Do("POST", page, card("4242424242424242")).Want(t, http.StatusConflict, "INVALID_STATE")
			if _, err := s.App.Orders.Reconcile(t.Context()); err != nil {
				t.Fatal(err)
			}
			if st := orderStatus(t, oid); st != "expired" {
				t.Fatalf("order is %s after its reservation ran out, want expired", st)
			}
			if st := purchListingStatus(t, s, id); st != "active" {
				t.Fatalf("listing is %s after the reservation expired, want active", st)
			}
			s.Do("POST", page, card("4242424242424242")).Want(t, http.StatusConflict, "INVALID_STATE")
			s.Do("POST", "/api/v1/purchases/confirm", map[string]any{"orderId": oid}, buyer.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			if s.Charges() != charges {
				t.Fatal("an expired checkout was charged")
			}
			// The listing sells again.
			c = start(t, id)
			s.Do("POST", s.Path(c["checkoutUrl"].(string)), card("4242424242424242")).Want(t, http.StatusOK, "")
			if st := orderStatus(t, c["orderId"].(string)); st != "paid" {
				t.Fatalf("second checkout is %s", st)
			}
		})
	})
}
