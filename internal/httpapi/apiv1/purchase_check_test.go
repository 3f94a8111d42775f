package apiv1_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/accounts"
	"marketplace/internal/listings"
	"marketplace/internal/orders"
	"marketplace/internal/store"
	"marketplace/internal/testkit"
)

// dryRunSurface is one surface's dry run and purchase.
type dryRunSurface struct {
	name, check, purchase string
	// spell turns a Variant A body into this surface's.
	spell func(map[string]any) map[string]any
	// field spells a Variant A answer field on this surface.
	field func(string) string
}

var dryRunToB = map[string]string{"listingId": "listing_id", "maxPrice": "max_price", "expectedPrice": "expected_price",
	"shippingAddress": "shipping_address", "offerId": "offer_id", "fulfillmentType": "fulfillment_type",
	"shippingRateId": "carrier_rate_id", "paymentMethodId": "payment_method_id", "totalCharged": "total_charged",
	"itemPrice": "item_price", "perTransaction": "per_transaction", "limitType": "limit_type"}

var dryRunSurfaces = []dryRunSurface{
	{name: "A", check: "/api/v1/agent/purchase/check", purchase: "/api/v1/agent/purchase",
		spell: func(m map[string]any) map[string]any { return m }, field: func(f string) string { return f }},
	{name: "B", check: "/v1/purchase/check", purchase: "/v1/purchase",
		spell: func(m map[string]any) map[string]any {
			out := map[string]any{}
			for k, v := range m {
				if b, ok := dryRunToB[k]; ok {
					k = b
				}
				out[k] = v
			}
			return out
		},
		field: func(f string) string {
			if b, ok := dryRunToB[f]; ok {
				return b
			}
			return f
		}},
}

// dryRunState is everything a purchase could reserve, record or charge.
type dryRunState struct {
	Orders, Approvals, Spending, Charges int64
	Listing                              string
}

func dryRunSnap(t testing.TB, s *testkit.Server, listing string) dryRunState {
	t.Helper()
	var st dryRunState
	err := s.App.DB.WritePool().QueryRowContext(t.Context(), `SELECT (SELECT COUNT(*) FROM orders),
		(SELECT COUNT(*) FROM purchase_approvals), (SELECT COUNT(*) FROM agent_spending)`).Scan(&st.Orders, &st.Approvals, &st.Spending)
	if err != nil {
		t.Fatal(err)
	}
	st.Charges = s.Charges()
	if listing != "" {
		_ = s.App.DB.WritePool().QueryRowContext(t.Context(), `SELECT status FROM listings WHERE id = `+placeholder(s), listing).Scan(&st.Listing)
	}
	return st
}

func placeholder(s *testkit.Server) string {
	if s.App.DB.Dialect() == store.Postgres {
		return "$1"
	}
	return "?"
}

// dryRunCode is the code an answer gives: the dry run's data.code (200),
// or the error envelope's.
func dryRunCode(t testing.TB, r *testkit.Response) string {
	t.Helper()
	if r.Status == http.StatusOK {
		c, _ := r.Data()["code"].(string)
		if (c == "") != (r.Data()["allowed"] == true) {
			t.Fatalf("allowed and code disagree: %s", r.Body)
		}
		return c
	}
	return r.Code()
}

// TestPurchaseCheckAgrees is the dry run's table: for every code the
// purchase path gives, set the case up, ask the dry run, prove it reserved
// nothing, then purchase and get the same code, on both surfaces.
func TestPurchaseCheckAgrees(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("dry-seller")
		admin := s.Admin()
		type setup struct {
			key     testkit.Header
			listing string
			body    map[string]any
		}
		price := int64(2000)
		fresh := func(name string) (*testkit.Shopper, string) {
			return s.NewShopper(name, "pm_card_visa"), s.ActiveListing(seller, "Brass candlestick pair, polished, 8 inch", price)
		}
		cases := []struct {
			name string
			want string // the purchase's code ("" when it succeeds)
			dry  string // the dry run's, when it differs
			make func(t *testing.T) setup
		}{
			{"allowed", "", "", func(t *testing.T) setup {
				sh, l := fresh("dry-ok")
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
			{"validation: no maxPrice", "VALIDATION_ERROR", "", func(t *testing.T) setup {
				sh, l := fresh("dry-val")
				return setup{sh.Key.Auth(), l, purchBody(l, price, "maxPrice", purchDrop)}
			}},
			{"validation: pickup on a listing that ships", "VALIDATION_ERROR", "", func(t *testing.T) setup {
				sh, l := fresh("dry-pick")
				return setup{sh.Key.Auth(), l, purchBody(l, price, "fulfillmentType", "local_pickup")}
			}},
			{"validation: no address", "VALIDATION_ERROR", "", func(t *testing.T) setup {
				sh, l := fresh("dry-addr")
				return setup{sh.Key.Auth(), l, purchBody(l, price, "shippingAddress", purchDrop)}
			}},
			{"invalid key", "INVALID_AGENT_KEY", "", func(t *testing.T) setup {
				_, l := fresh("dry-badkey")
				return setup{testkit.AgentKey("mk_test_" + strings.Repeat("x", 43)), l, purchBody(l, price)}
			}},
			{"sell-only key", "INSUFFICIENT_SCOPE", "", func(t *testing.T) setup {
				sh, l := fresh("dry-scope")
				return setup{s.NewKey(sh.User, "sell_only").Auth(), l, purchBody(l, price)}
			}},
			{"frozen key", "AGENT_FROZEN", "", func(t *testing.T) setup {
				sh, l := fresh("dry-frozen")
				s.Do("POST", "/api/v1/admin/users/"+sh.ID+"/agent-keys/"+sh.Key.ID+"/freeze", map[string]any{}, admin.Auth()).
					Want(t, http.StatusOK, "")
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
			{"suspended owner", "ACCOUNT_SUSPENDED", "", func(t *testing.T) setup {
				sh, l := fresh("dry-susp")
				s.SetStatus(sh.ID, accounts.StatusSuspended)
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
			{"owner not verified", "OWNER_NOT_VERIFIED", "", func(t *testing.T) setup {
				u := s.Register("dry-unverified")
				s.SaveCard(u, "pm_card_visa")
				l := s.ActiveListing(seller, "Linen napkins, set of six, natural", price)
				return setup{s.NewKey(u, "buy_sell").Auth(), l, purchBody(l, price)}
			}},
			{"no such listing", "LISTING_NOT_FOUND", "", func(t *testing.T) setup {
				sh, _ := fresh("dry-404")
				return setup{sh.Key.Auth(), "", purchBody("00000000-0000-4000-8000-000000000000", price)}
			}},
			{"sold", "LISTING_SOLD", "", func(t *testing.T) setup {
				sh, l := fresh("dry-sold")
				other := s.NewShopper("dry-first", "pm_card_visa")
				purchBuy(t, s, other.Key, purchBody(l, price))
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
			{"archived", "LISTING_NOT_AVAILABLE", "", func(t *testing.T) setup {
				sh, l := fresh("dry-archived")
				s.EditListing(l, func(x *listings.Listing) { x.Status = listings.StatusArchived })
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
			{"own listing", "CANNOT_BUY_OWN_LISTING", "", func(t *testing.T) setup {
				sh, _ := fresh("dry-own")
				l := s.ActiveListing(sh.User, "Walnut cutting board, end grain", price)
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
			{"unknown offer", "NOT_FOUND", "", func(t *testing.T) setup {
				sh, l := fresh("dry-offer404")
				return setup{sh.Key.Auth(), l, purchBody(l, price, "offerId", "00000000-0000-4000-8000-000000000001")}
			}},
			{"offer not accepted", "OFFER_NOT_ACCEPTED", "", func(t *testing.T) setup {
				sh, l := fresh("dry-offer")
				floor := int64(1000)
				s.EditListing(l, func(x *listings.Listing) { x.AcceptOffers, x.MinOfferAmount = true, &floor })
				o := s.Do("POST", "/api/v1/agent/offers", map[string]any{"listingId": l, "offerPrice": 1500}, sh.Key.Auth()).
					Want(t, http.StatusCreated, "").Data()
				return setup{sh.Key.Auth(), l, purchBody(l, price, "offerId", o["id"])}
			}},
			{"price changed", "PRICE_CHANGED", "", func(t *testing.T) setup {
				sh, l := fresh("dry-changed")
				return setup{sh.Key.Auth(), l, purchBody(l, price, "expectedPrice", price-100)}
			}},
			{"above maxPrice", "MAX_PRICE_EXCEEDED", "", func(t *testing.T) setup {
				sh, l := fresh("dry-max")
				return setup{sh.Key.Auth(), l, purchBody(l, price-1)}
			}},
			{"calculated shipping without a rate", "SHIPPING_COST_REQUIRED", "", func(t *testing.T) setup {
				sh, _ := fresh("dry-calc")
				l := purchListing(t, s, seller, price, map[string]any{"shippingType": "calculated", "weightOz": 24,
					"dimensions": map[string]any{"l": 12, "w": 10, "h": 4}})
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
			{"category restricted", "CATEGORY_RESTRICTED", "", func(t *testing.T) setup {
				sh, l := fresh("dry-cat")
				cat := s.Do("GET", "/api/v1/listings/"+l, nil).Want(t, http.StatusOK, "").Data()["categoryId"]
				s.SetControls(sh.User, map[string]any{"categoryRestrictions": []any{cat}})
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
			{"per-transaction cap", "SPENDING_LIMIT_EXCEEDED", "", func(t *testing.T) setup {
				sh, l := fresh("dry-pertx")
				s.SetControls(sh.User, map[string]any{"perTransactionLimit": 1000})
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
			{"daily cap", "SPENDING_LIMIT_EXCEEDED", "", func(t *testing.T) setup {
				sh, l := fresh("dry-daily")
				s.SetControls(sh.User, map[string]any{"dailyLimit": 1500})
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
			{"weekly cap", "SPENDING_LIMIT_EXCEEDED", "", func(t *testing.T) setup {
				sh, l := fresh("dry-weekly")
				s.SetControls(sh.User, map[string]any{"weeklyLimit": 1500})
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
			{"monthly cap", "SPENDING_LIMIT_EXCEEDED", "", func(t *testing.T) setup {
				sh, l := fresh("dry-monthly")
				s.SetControls(sh.User, map[string]any{"monthlyLimit": 1500})
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
			{"approval threshold", "APPROVAL_REQUIRED", "", func(t *testing.T) setup {
				sh, l := fresh("dry-approval")
				s.SetControls(sh.User, map[string]any{"approvalThreshold": 1000})
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
			{"no card", "PAYMENT_METHOD_REQUIRED", "", func(t *testing.T) setup {
				u := s.VerifiedOwner("dry-nocard")
				l := s.ActiveListing(seller, "Ceramic pour-over coffee dripper", price)
				return setup{s.NewKey(u, "buy_sell").Auth(), l, purchBody(l, price)}
			}},
			{"declined card (not predicted)", "PAYMENT_FAILED", "", func(t *testing.T) setup {
				sh := s.NewShopper("dry-declined", "pm_card_chargeDeclined")
				l := s.ActiveListing(seller, "Hand-thrown stoneware mug, blue glaze", price)
				return setup{sh.Key.Auth(), l, purchBody(l, price)}
			}},
		}
		for i, c := range cases {
			for _, sf := range dryRunSurfaces {
				t.Run(c.name+"/"+sf.name, func(t *testing.T) {
					su := c.make(t)
					body := sf.spell(su.body)
					before := dryRunSnap(t, s, su.listing)
					dry := s.Do("POST", sf.check, body, su.key)
					if after := dryRunSnap(t, s, su.listing); after != before {
						t.Fatalf("the dry run changed %+v to %+v", before, after)
					}
					got := dryRunCode(t, dry)
					wantDry := c.want
					if c.want == "PAYMENT_FAILED" { // only a charge tells
						wantDry = ""
					}
					if got != wantDry {
						t.Fatalf("dry run answered %q, want %q: %s", got, wantDry, dry.Body)
					}
					if dry.Status == http.StatusOK && len(dry.Data()["unblock"].([]any)) == 0 != (got == "") {
						t.Fatalf("unblock %v for code %q", dry.Data()["unblock"], got)
					}
					buy := s.Do("POST", sf.purchase, body, su.key,
						testkit.Header{Name: "Idempotency-Key", Value: fmt.Sprintf("dry-%d-%s", i, sf.name)})
					if code := buy.Code(); code != c.want {
						t.Fatalf("purchase answered %d %q, want %q: %s", buy.Status, code, c.want, buy.Body)
					}
					// The dry run's details are the purchase's (an approval's
					// name the queued order, which the dry run does not make).
					if c.want != "" && c.want != "APPROVAL_REQUIRED" && c.want != "PAYMENT_FAILED" {
						dd := dry.Data()["details"]
						if dry.Status != http.StatusOK {
							dd = testkit.Obj(t, dry.JSON, "error")["details"]
						}
						if bd := testkit.Obj(t, buy.JSON, "error")["details"]; fmt.Sprint(dd) != fmt.Sprint(bd) {
							t.Fatalf("dry run details %v, purchase details %v", dd, bd)
						}
					}
					if c.want == "" && buy.Status != http.StatusCreated {
						t.Fatalf("purchase answered %d: %s", buy.Status, buy.Body)
					}
				})
			}
		}
	})
}

// dryRunAdvice asks the dry run of surface sf and wants 200.
func dryRunAsk(t testing.TB, s *testkit.Server, path string, body map[string]any, key testkit.Header) map[string]any {
	t.Helper()
	return s.Do("POST", path, body, key).Want(t, http.StatusOK, "").Data()
}

// dryRunUnblock is the unblock entry with action (and limitType, when
// given), failing t when there is none.
func dryRunUnblock(t testing.TB, d map[string]any, action, limitType string) map[string]any {
	t.Helper()
	for _, u := range d["unblock"].([]any) {
		m := u.(map[string]any)
		lt, _ := m["limitType"].(string)
		if lt == "" {
			lt, _ = m["limit_type"].(string)
		}
		if m["action"] == action && (limitType == "" || lt == limitType) {
			return m
		}
	}
	t.Fatalf("no %s %s in unblock %v", action, limitType, d["unblock"])
	return nil
}

// The dry run's figures and advice are specific: what is left of each cap,
// which cap to raise and by how many cents, whose cap it is, and when the
// window at fault resets; the key's own caps count as the tighter ones.
func TestPurchaseCheckAdvice(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("adv-seller")
		sh := s.NewShopper("adv-buyer", "pm_card_visa")
		first := s.ActiveListing(seller, "Teak serving tray with brass handles", 3000)
		purchBuy(t, s, sh.Key, purchBody(first, 3000)) // 3000 + 105 fee = 3105 spent today
		l := s.ActiveListing(seller, "Enamel camping mug set of four", 2000)
		const check = "/api/v1/agent/purchase/check"

		// Allowed: the fees, the caps left, no advice.
		d := dryRunAsk(t, s, check, purchBody(l, 2000), sh.Key.Auth())
		rem := testkit.Obj(t, d, "remaining")
		if d["allowed"] != true || d["code"] != nil || d["details"] != nil || testkit.Num(t, d, "totalCharged") != 2099 ||
			testkit.Num(t, d, "serviceFee") != 99 || len(d["unblock"].([]any)) != 0 {
			t.Fatalf("allowed answer %v", d)
		}
		if got := [4]int64{testkit.Num(t, rem, "perTransaction"), testkit.Num(t, rem, "daily"), testkit.Num(t, rem, "weekly"),
			testkit.Num(t, rem, "monthly")}; got != [4]int64{10000, 50000 - 3105, 200000 - 3105, 500000 - 3105} {
			t.Fatalf("remaining = %v", got)
		}

		// The daily cap: raise it by what is missing, or wait for midnight UTC.
		s.SetControls(sh.User, map[string]any{"dailyLimit": 5000})
		d = dryRunAsk(t, s, check, purchBody(l, 2000), sh.Key.Auth())
		det := testkit.Obj(t, d, "details")
		if d["allowed"] != false || d["code"] != "SPENDING_LIMIT_EXCEEDED" || det["limit_type"] != "daily" ||
			testkit.Num(t, det, "remaining") != 5000-3105 {
			t.Fatalf("daily cap answer %v", d)
		}
		raise := dryRunUnblock(t, d, "raise_limit", "daily")
		if testkit.Num(t, raise, "amount") != 3105+2099-5000 || raise["level"] != "owner" {
			t.Fatalf("raise_limit %v", raise)
		}
		if wait := dryRunUnblock(t, d, "wait_for_reset", ""); wait["until"] != "2026-06-11T00:00:00Z" {
			t.Fatalf("wait_for_reset %v (the sandbox clock is 2026-06-10 12:00 UTC)", wait)
		}
		if testkit.Num(t, testkit.Obj(t, d, "remaining"), "daily") != 5000-3105 {
			t.Fatalf("remaining %v", d["remaining"])
		}
		// The week and month together: waiting means the later reset.
		s.SetControls(sh.User, map[string]any{"dailyLimit": 50000, "weeklyLimit": 5000, "monthlyLimit": 5000})
		d = dryRunAsk(t, s, check, purchBody(l, 2000), sh.Key.Auth())
		dryRunUnblock(t, d, "raise_limit", "weekly")
		dryRunUnblock(t, d, "raise_limit", "monthly")
		if wait := dryRunUnblock(t, d, "wait_for_reset", ""); wait["until"] != "2026-07-01T00:00:00Z" {
			t.Fatalf("wait_for_reset %v, want the month's end", wait)
		}
		s.SetControls(sh.User, map[string]any{"weeklyLimit": 200000, "monthlyLimit": 500000})

		// A key's own cap is the tighter one, and named as the key's; a
		// purchase above the cap itself cannot wait it out.
		r := s.Do("POST", "/api/v1/agent-keys", map[string]any{"label": "small", "scope": "buy_only", "acceptedAgentTerms": true,
			"spendingControls": map[string]any{"dailyLimit": 1000}}, sh.Auth()).Want(t, http.StatusCreated, "")
		small := testkit.AgentKey(r.Data()["key"].(string))
		d = dryRunAsk(t, s, check, purchBody(l, 2000), small)
		raise = dryRunUnblock(t, d, "raise_limit", "daily")
		if raise["level"] != "key" || testkit.Num(t, raise, "amount") != 1099 || testkit.Num(t, testkit.Obj(t, d, "remaining"), "daily") != 1000 {
			t.Fatalf("key cap answer %v", d)
		}
		for _, u := range d["unblock"].([]any) {
			if u.(map[string]any)["action"] == "wait_for_reset" {
				t.Fatalf("waiting cannot help a purchase above the cap: %v", d["unblock"])
			}
		}

		// Above the approval threshold: APPROVAL_REQUIRED, by how much.
		s.SetControls(sh.User, map[string]any{"approvalThreshold": 1000})
		d = dryRunAsk(t, s, check, purchBody(l, 2000), sh.Key.Auth())
		if d["code"] != "APPROVAL_REQUIRED" || testkit.Num(t, testkit.Obj(t, d, "details"), "approvalThreshold") != 1000 {
			t.Fatalf("approval answer %v", d)
		}
		if ap := dryRunUnblock(t, d, "request_approval", "approval_threshold"); testkit.Num(t, ap, "amount") != 1099 {
			t.Fatalf("request_approval %v", ap)
		}

		// Variant B spells it all in snake_case.
		b := dryRunAsk(t, s, "/v1/purchase/check", map[string]any{"listing_id": l, "max_price": 2000,
			"shipping_address": testkit.Address()}, sh.Key.Auth())
		if b["code"] != "APPROVAL_REQUIRED" || testkit.Num(t, b, "total_charged") != 2099 ||
			testkit.Num(t, testkit.Obj(t, b, "remaining"), "per_transaction") != 10000 ||
			testkit.Num(t, testkit.Obj(t, b, "details"), "approval_threshold") != 1000 {
			t.Fatalf("Variant B answer %v", b)
		}
		dryRunUnblock(t, b, "request_approval", "approval_threshold")

		// A request the purchase cannot take is refused as the purchase refuses it.
		s.Do("POST", check, purchBody(l, 0), sh.Key.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		if n := s.Charges(); n != 1 {
			t.Fatalf("charges = %d, want the one purchase", n)
		}

		// While agent purchases are switched off the dry run answers as the purchase does.
		adm := s.Admin()
		s.Do("PATCH", "/api/v1/admin/feature-flags/agent_purchases", map[string]any{"enabled": false}, adm.Auth()).Want(t, http.StatusOK, "")
		for _, path := range []string{check, purchPath, "/v1/purchase/check", "/v1/purchase"} {
			s.Do("POST", path, purchBody(l, 2000), sh.Key.Auth()).Want(t, http.StatusServiceUnavailable, "FEATURE_DISABLED")
		}
	})
}

// Every agent order carries its authorization record, shown to the owner,
// the owner's agents and admins, never to the seller; human orders have
// none; an approved purchase's record names the approval and the agent's
// own request; the record cannot be written twice.
func TestOrderAuthorizationRecord(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("rec-seller")
		sh := s.NewShopper("rec-buyer", "pm_card_visa")
		admin := s.Admin()
		s.Do("POST", "/api/v1/addresses", testkit.Address(), sh.Auth()).Want(t, http.StatusCreated, "")
		s.SetControls(sh.User, map[string]any{"dailyLimit": 40000})
		l := s.ActiveListing(seller, "Vintage field binoculars 8x30", 2500)
		r := s.Do("POST", purchPath, purchBody(l, 3000, "expectedPrice", 2500), sh.Key.Auth(),
			testkit.Header{Name: "Idempotency-Key", Value: "rec-1"}).Want(t, http.StatusCreated, "")
		reqID := testkit.Obj(t, r.JSON, "meta")["requestId"]
		id := r.Data()["id"].(string)
		check := func(where string, a map[string]any) {
			t.Helper()
			lim, before := testkit.Obj(t, a, "limits"), testkit.Obj(t, a, "remainingBefore")
			if a["keyId"] != sh.Key.ID || a["keyPrefix"] == "" || a["keyLabel"] != "test buy_sell" || a["scope"] != "buy_sell" ||
				testkit.Num(t, a, "maxPrice") != 3000 || testkit.Num(t, a, "expectedPrice") != 2500 || a["offerId"] != nil ||
				a["idempotencyKey"] != "rec-1" || a["approval"] != nil || a["requestId"] != reqID || a["createdAt"] == nil ||
				testkit.Num(t, lim, "daily") != 40000 || testkit.Num(t, lim, "perTransaction") != 10000 ||
				testkit.Num(t, before, "daily") != 40000 || testkit.Num(t, before, "monthly") != 500000 {
				t.Fatalf("%s: authorization %v (request %v)", where, a, reqID)
			}
		}
		check("purchase answer", testkit.Obj(t, r.Data(), "authorization"))
		check("owner", testkit.Obj(t, s.Do("GET", "/api/v1/purchases/"+id, nil, sh.Auth()).Want(t, http.StatusOK, "").Data(), "authorization"))
		check("owner's list", testkit.Obj(t, s.Do("GET", "/api/v1/purchases/buyer", nil, sh.Auth()).Want(t, http.StatusOK, "").List()[0].(map[string]any), "authorization"))
		check("admin order", testkit.Obj(t, testkit.Obj(t, s.Do("GET", "/api/v1/admin/orders/"+id, nil, admin.Auth()).Want(t, http.StatusOK, "").Data(), "order"), "authorization"))
		check("admin record", testkit.Obj(t, testkit.Obj(t, s.Do("GET", "/api/v1/admin/orders/"+id, nil, admin.Auth()).Data(), "authorization"), "record"))
		// An admin sees it wherever the order is answered, not only on the admin routes.
		check("admin, the order route", testkit.Obj(t, s.Do("GET", "/api/v1/orders/"+id, nil, admin.Auth()).Want(t, http.StatusOK, "").Data(), "authorization"))
		if a := testkit.Obj(t, s.Do("GET", "/v1/orders/"+id, nil, admin.Auth()).Want(t, http.StatusOK, "").Data(), "authorization"); a["key_id"] != sh.Key.ID {
			t.Fatalf("an admin on Variant B: authorization %v", a)
		}
		b := testkit.Obj(t, s.Do("GET", "/v1/orders/"+id, nil, sh.Key.Auth()).Want(t, http.StatusOK, "").Data(), "authorization")
		if b["key_id"] != sh.Key.ID || b["scope"] != "buy_sell" || b["idempotency_key"] != "rec-1" || b["request_id"] != reqID ||
			testkit.Num(t, testkit.Obj(t, b, "remaining_before"), "per_transaction") != 10000 {
			t.Fatalf("Variant B authorization %v", b)
		}
		// Never the seller's.
		for _, path := range []string{"/api/v1/purchases/" + id, "/v1/orders/" + id} {
			d := s.Do("GET", path, nil, seller.Auth()).Want(t, http.StatusOK, "").Data()
			if v, ok := d["authorization"]; !ok || v != nil {
				t.Fatalf("the seller sees authorization %v at %s", v, path)
			}
		}
		sales := s.Do("GET", "/api/v1/purchases/seller", nil, seller.Auth()).Want(t, http.StatusOK, "").List()
		if a := sales[0].(map[string]any)["authorization"]; a != nil {
			t.Fatalf("the seller's list shows authorization %v", a)
		}

		// A human's own purchase has none.
		hl := s.ActiveListing(seller, "Folding wooden step stool", 1500)
		h := s.Do("POST", "/v1/purchase", map[string]any{"listing_id": hl}, sh.Auth(),
			testkit.Header{Name: "Idempotency-Key", Value: "rec-human"}).Want(t, http.StatusCreated, "").Data()
		if v, ok := h["authorization"]; !ok || v != nil || h["channel"] != "human" {
			t.Fatalf("a human order's authorization %v", h)
		}

		// Queued for approval: no record until the owner approves; then it
		// names the approval, and the agent's request, not the owner's.
		s.SetControls(sh.User, map[string]any{"approvalThreshold": 1000})
		al := s.ActiveListing(seller, "Copper watering can, two litres", 2000)
		q := s.Do("POST", purchPath, purchBody(al, 2000), sh.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
		agentReq := testkit.Obj(t, q.JSON, "meta")["requestId"]
		det := purchDetails(t, q)
		oid, apID := det["orderId"].(string), det["approvalId"].(string)
		if v := s.Do("GET", "/api/v1/purchases/"+oid, nil, sh.Auth()).Want(t, http.StatusOK, "").Data()["authorization"]; v != nil {
			t.Fatalf("a queued order has authorization %v", v)
		}
		s.Do("POST", "/api/v1/approvals/"+apID+"/approve", nil, sh.Auth()).Want(t, http.StatusOK, "")
		a := testkit.Obj(t, s.Do("GET", "/api/v1/purchases/"+oid, nil, sh.Auth()).Want(t, http.StatusOK, "").Data(), "authorization")
		ap := testkit.Obj(t, a, "approval")
		if ap["id"] != apID || ap["decidedBy"] != sh.ID || ap["decidedAt"] == nil || a["requestId"] != agentReq ||
			a["keyId"] != sh.Key.ID || testkit.Num(t, testkit.Obj(t, a, "remainingBefore"), "daily") != 40000-2500-99 {
			t.Fatalf("approved order's authorization %v (agent request %v)", a, agentReq)
		}

		// Written once: the store refuses a second record.
		err := s.App.DB.InTx(t.Context(), func(tx *store.Tx) error {
			return tx.RecordAuthorization(t.Context(), id, &orders.Authorization{KeyID: "forged"})
		})
		if err == nil {
			t.Fatal("a second authorization record was written")
		}
		again := testkit.Obj(t, s.Do("GET", "/api/v1/purchases/"+id, nil, sh.Auth()).Data(), "authorization")
		check("after a second write", again)
	})
}
