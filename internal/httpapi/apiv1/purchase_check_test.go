package apiv1_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/accounts"
	"marketplace/internal/listings"
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
					if c.want == "" && buy.Status != http.StatusCreated {
						t.Fatalf("purchase answered %d: %s", buy.Status, buy.Body)
					}
				})
			}
		}
	})
}
