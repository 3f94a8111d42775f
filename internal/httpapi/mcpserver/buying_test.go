package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"marketplace/internal/listings"
	"marketplace/internal/testkit"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// buyStr is m[k] as a string ("" when absent).
func buyStr(m map[string]any, k string) string { s, _ := m[k].(string); return s }

// buyObj is m[k] as an object.
func buyObj(t testing.TB, m map[string]any, k string) map[string]any {
	t.Helper()
	o, ok := m[k].(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object in %v", k, m)
	}
	return o
}

// Buying over MCP: the account and spending reads, a fee estimate, a
// purchase with an idempotency key that an MCP retry and an HTTP retry
// answer with the same order and a single charge, the same key with other
// arguments refused, and a purchase that waits for the owner's approval.
func TestMCPBuying(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("mcpb-seller")
		buyer := s.NewShopper("mcpb-buyer", "pm_card_visa")
		s.Do("POST", "/api/v1/addresses", testkit.Address(), buyer.Auth()).Want(t, http.StatusCreated, "")
		key := buyer.Key.Secret

		for _, tr := range transports {
			cs := tr.open(t, s, key)
			if a := call(t, cs, "get_account", nil).want(t, "get_account", "").Data; a["id"] != buyer.ID {
				t.Fatalf("%s: get_account %v", tr.name, a)
			}
			if c := call(t, cs, "get_spending_controls", nil).want(t, "get_spending_controls", "").Data; c["daily_remaining"] == nil {
				t.Fatalf("%s: get_spending_controls %v", tr.name, c)
			}
			sum := call(t, cs, "get_spending_summary", nil).want(t, "get_spending_summary", "").Data
			buyObj(t, sum, "controls")
			buyObj(t, sum, "remaining")
			if pm := call(t, cs, "get_payment_methods", nil).want(t, "get_payment_methods", "").Data; testkit.Num(t, pm, "total") != 1 {
				t.Fatalf("%s: get_payment_methods %v", tr.name, pm)
			}
			if ad := call(t, cs, "get_addresses", nil).want(t, "get_addresses", "").Data; testkit.Num(t, ad, "total") != 1 {
				t.Fatalf("%s: get_addresses %v", tr.name, ad)
			}
		}

		listing := s.ActiveListing(seller, "Brass desk lamp with green glass shade", 5000)
		for _, tr := range transports {
			cs := tr.open(t, s, key)
			est := call(t, cs, "estimate_fees", map[string]any{"listing_id": listing, "max_price": 5000}).want(t, "estimate_fees", "").Data
			if testkit.Num(t, est, "item_price") != 5000 || testkit.Num(t, est, "total_charged") <= 5000 {
				t.Fatalf("%s: estimate_fees %v", tr.name, est)
			}
			// The dry run: allowed, the same total, the caps left.
			chk := call(t, cs, "check_purchase", map[string]any{"listing_id": listing, "max_price": 5000}).want(t, "check_purchase", "").Data
			if chk["allowed"] != true || chk["code"] != nil || testkit.Num(t, chk, "total_charged") != testkit.Num(t, est, "total_charged") ||
				testkit.Num(t, buyObj(t, chk, "remaining"), "daily") != 50000 {
				t.Fatalf("%s: check_purchase %v", tr.name, chk)
			}
			// The key is required.
			call(t, cs, "purchase_listing", map[string]any{"listing_id": listing, "max_price": 5000}).
				want(t, "purchase_listing", "VALIDATION_ERROR")
		}
		if n := s.Charges(); n != 0 {
			t.Fatalf("an estimate charged: %d", n)
		}

		// One key: the first call buys; a retry over the other transport
		// and over HTTP answers the same order; one charge.
		args := map[string]any{"listing_id": listing, "max_price": 5000, "idempotency_key": "mcp-buy-1"}
		first := call(t, overHTTP(t, s, key), "purchase_listing", args).want(t, "purchase_listing", "").Data
		orderID := buyStr(first, "id")
		if orderID == "" || first["status"] != "paid" {
			t.Fatalf("purchase_listing %v", first)
		}
		again := call(t, inMemory(t, s, key), "purchase_listing", args).want(t, "purchase_listing", "").Data
		if again["id"] != orderID {
			t.Fatalf("a retry answered another order: %v", again)
		}
		r := s.Do("POST", "/v1/purchase", args, buyer.Key.Auth()).Want(t, http.StatusCreated, "")
		if r.Data()["id"] != orderID {
			t.Fatalf("an HTTP retry with the key answered %v", r.Data())
		}
		if n := s.Charges(); n != 1 {
			t.Fatalf("charges = %d, want 1", n)
		}
		// The same key with other arguments.
		call(t, inMemory(t, s, key), "purchase_listing", map[string]any{"listing_id": listing, "max_price": 6000, "idempotency_key": "mcp-buy-1"}).
			want(t, "purchase_listing", "DUPLICATE_REQUEST")

		// An HTTP purchase first, then an MCP retry with its key.
		listing2 := s.ActiveListing(seller, "Cast iron skillet, ten inch, seasoned", 3000)
		args2 := map[string]any{"listing_id": listing2, "max_price": 3000, "idempotency_key": "mcp-buy-2"}
		o2 := s.Do("POST", "/v1/purchase", args2, buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()
		if got := call(t, inMemory(t, s, key), "purchase_listing", args2).want(t, "purchase_listing", "").Data; got["id"] != o2["id"] {
			t.Fatalf("an MCP retry of an HTTP purchase answered %v, want %v", got, o2["id"])
		}
		if n := s.Charges(); n != 2 {
			t.Fatalf("charges = %d, want 2", n)
		}

		// Above the approval threshold: APPROVAL_REQUIRED, then the status.
		s.SetControls(buyer.User, map[string]any{"approvalThreshold": 1000})
		for i, tr := range transports {
			cs := tr.open(t, s, key)
			l := s.ActiveListing(seller, "Wool picnic blanket, red tartan, fringed", 2500)
			ans := call(t, cs, "purchase_listing", map[string]any{"listing_id": l, "max_price": 2500, "idempotency_key": "mcp-approval-" + tr.name}).
				want(t, "purchase_listing", "APPROVAL_REQUIRED")
			details := buyObj(t, ans.Data, "details")
			oid := buyStr(details, "order_id")
			if oid == "" || buyStr(details, "approval_id") == "" {
				t.Fatalf("%s: APPROVAL_REQUIRED details %v", tr.name, details)
			}
			// A retry answers the same refusal.
			again := call(t, cs, "purchase_listing", map[string]any{"listing_id": l, "max_price": 2500, "idempotency_key": "mcp-approval-" + tr.name}).
				want(t, "purchase_listing", "APPROVAL_REQUIRED")
			if buyStr(buyObj(t, again.Data, "details"), "order_id") != oid {
				t.Fatalf("%s: retry details %v", tr.name, again.Data)
			}
			st := call(t, cs, "get_approval_status", map[string]any{"order_id": oid}).want(t, "get_approval_status", "").Data
			if st["awaiting_approval"] != true || st["status"] != "pending_approval" {
				t.Fatalf("%s: get_approval_status %v", tr.name, st)
			}
			if n := s.Charges(); n != 2 {
				t.Fatalf("%s (%d): a purchase waiting for approval charged", tr.name, i)
			}
		}
	})
}

// buyTools are the tools of this area: buying, spending, offers, messages.
var buyTools = []string{"purchase_listing", "check_purchase", "estimate_fees", "get_spending_summary", "get_spending_controls", "get_account",
	"get_payment_methods", "get_addresses", "get_approval_status", "make_offer", "counter_offer", "accept_offer", "reject_offer",
	"withdraw_offer", "get_offer", "get_offers", "send_message", "reply_to_thread", "get_threads", "get_thread_messages",
	"get_unread_count"}

// The authorization table of the buying, offer and message tools: a bad
// key, a frozen key and a revoked key are refused on every tool; a key
// without buy scope on the buying ones; another owner's offer, order and
// thread are refused exactly as the HTTP routes refuse them.
func TestMCPBuyingAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("mcpa-seller")
		buyer := s.NewShopper("mcpa-buyer", "pm_card_visa")
		s.Do("POST", "/api/v1/addresses", testkit.Address(), buyer.Auth()).Want(t, http.StatusCreated, "")

		bad := inMemory(t, s, "mk_test_bad")
		for _, name := range buyTools {
			call(t, bad, name, nil).want(t, name, "INVALID_AGENT_KEY")
		}

		sellOnly := s.NewKey(buyer.User, "sell_only").Secret
		listing := s.ActiveListing(seller, "Oak bookshelf, five shelves, solid", 9000)
		for _, tr := range transports {
			cs := tr.open(t, s, sellOnly)
			for name, args := range map[string]map[string]any{
				"purchase_listing": {"listing_id": listing, "max_price": 9000, "idempotency_key": "scope-" + tr.name},
				"check_purchase":   {"listing_id": listing, "max_price": 9000},
				"make_offer":       {"listing_id": listing, "amount": 5000},
				"withdraw_offer":   {"offer_id": "00000000-0000-0000-0000-000000000000"},
			} {
				call(t, cs, name, args).want(t, name, "INSUFFICIENT_SCOPE")
			}
			// An estimate is a read, as on HTTP: any key.
			call(t, cs, "estimate_fees", map[string]any{"listing_id": listing, "max_price": 9000}).want(t, "estimate_fees", "")
		}

		// Another owner's objects: an offer, an order waiting for approval
		// and a thread of buyer's.
		l := s.ActiveListing(seller, "Linen tablecloth, natural, 8 seats", 10000)
		minimum := int64(3000)
		s.EditListing(l, func(x *listings.Listing) { x.AcceptOffers, x.MinOfferAmount = true, &minimum })
		mine := inMemory(t, s, buyer.Key.Secret)
		offerID := buyStr(call(t, mine, "make_offer", map[string]any{"listing_id": l, "amount": 6000}).want(t, "make_offer", "").Data, "id")
		thread := buyStr(call(t, mine, "send_message", map[string]any{"listing_id": l, "message": "Any stains?"}).want(t, "send_message", "").Data, "thread_id")
		s.SetControls(buyer.User, map[string]any{"approvalThreshold": 1000})
		l2 := s.ActiveListing(seller, "Copper kettle, two litres, polished", 4000)
		ap := call(t, mine, "purchase_listing", map[string]any{"listing_id": l2, "max_price": 4000, "idempotency_key": "auth-approval"}).
			want(t, "purchase_listing", "APPROVAL_REQUIRED")
		orderID := buyStr(buyObj(t, ap.Data, "details"), "order_id")

		stranger := s.NewShopper("mcpa-stranger", "pm_card_visa")
		sk := stranger.Key.Auth()
		code := func(r *testkit.Response) string {
			c := r.Code()
			if c != "NOT_FOUND" && c != "FORBIDDEN" {
				t.Fatalf("HTTP answered %d %s to another owner's object", r.Status, r.Body)
			}
			return c
		}
		s.Unchecked = true
		want := map[string]struct {
			args map[string]any
			code string
		}{
			"get_offer":           {map[string]any{"offer_id": offerID}, code(s.Do("GET", "/v1/offers/"+offerID, nil, sk))},
			"accept_offer":        {map[string]any{"offer_id": offerID}, code(s.Do("POST", "/v1/offers/"+offerID+"/respond", map[string]any{"action": "accept"}, sk))},
			"reject_offer":        {map[string]any{"offer_id": offerID}, code(s.Do("POST", "/v1/offers/"+offerID+"/respond", map[string]any{"action": "reject"}, sk))},
			"counter_offer":       {map[string]any{"offer_id": offerID, "counter_amount": 7000}, code(s.Do("POST", "/v1/offers/"+offerID+"/respond", map[string]any{"action": "counter", "counter_amount": 7000}, sk))},
			"withdraw_offer":      {map[string]any{"offer_id": offerID}, code(s.Do("POST", "/api/v1/agent/offers/"+offerID+"/withdraw", nil, sk))},
			"get_approval_status": {map[string]any{"order_id": orderID}, code(s.Do("GET", "/v1/orders/"+orderID, nil, sk))},
			"get_thread_messages": {map[string]any{"thread_id": thread}, code(s.Do("GET", "/api/v1/agent/messages/threads/"+thread, nil, sk))},
			"reply_to_thread":     {map[string]any{"thread_id": thread, "message": "hi"}, code(s.Do("POST", "/api/v1/agent/messages/threads/"+thread+"/reply", map[string]any{"content": "hi"}, sk))},
		}
		s.Unchecked = false
		for _, tr := range transports {
			cs := tr.open(t, s, stranger.Key.Secret)
			for name, w := range want {
				call(t, cs, name, w.args).want(t, name, w.code)
			}
		}
		// The stranger's lists do not show them.
		if o := call(t, inMemory(t, s, stranger.Key.Secret), "get_offers", map[string]any{"role": "buyer"}).want(t, "get_offers", "").Data; testkit.Num(t, o, "total") != 0 {
			t.Fatalf("a stranger's get_offers %v", o)
		}

		// Frozen, then revoked: every tool refused.
		frozen := s.NewKey(buyer.User, "buy_sell")
		s.Do("POST", "/api/v1/admin/users/"+buyer.ID+"/agent-keys/"+frozen.ID+"/freeze", map[string]any{}, s.Admin().Auth()).
			Want(t, http.StatusOK, "")
		fz := inMemory(t, s, frozen.Secret)
		for _, name := range buyTools {
			call(t, fz, name, nil).want(t, name, "AGENT_FROZEN")
		}
		revoked := s.NewKey(buyer.User, "buy_sell")
		rv := inMemory(t, s, revoked.Secret)
		call(t, rv, "get_account", nil).want(t, "get_account", "")
		s.Do("DELETE", "/v1/auth/keys/"+revoked.ID, nil, buyer.Auth()).Want(t, http.StatusOK, "")
		for _, name := range buyTools {
			call(t, rv, name, nil).want(t, name, "INVALID_AGENT_KEY")
		}
	})
}

// Two purchase_listing calls at once with one key, one over each
// transport: one purchase, one charge, both answered with its order.
func TestMCPPurchaseConcurrentRetry(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("mcpc-seller")
		buyer := s.NewShopper("mcpc-buyer", "pm_card_visa")
		s.Do("POST", "/api/v1/addresses", testkit.Address(), buyer.Auth()).Want(t, http.StatusCreated, "")
		listing := s.ActiveListing(seller, "Rattan armchair with linen cushion", 4500)
		args := map[string]any{"listing_id": listing, "max_price": 4500, "idempotency_key": "mcp-concurrent"}
		sessions := []*mcp.ClientSession{overHTTP(t, s, buyer.Key.Secret), inMemory(t, s, buyer.Key.Secret)}
		ids := make([]string, len(sessions))
		errs := make([]error, len(sessions))
		var wg sync.WaitGroup
		for i, cs := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "purchase_listing", Arguments: args})
				if err != nil {
					errs[i] = err
					return
				}
				raw, _ := json.Marshal(res.StructuredContent)
				var out map[string]any
				_ = json.Unmarshal(raw, &out)
				if res.IsError {
					errs[i] = fmt.Errorf("refused: %s", raw)
					return
				}
				ids[i] = buyStr(out, "id")
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if ids[0] == "" || ids[0] != ids[1] {
			t.Fatalf("orders %v, want one", ids)
		}
		if n := s.Charges(); n != 1 {
			t.Fatalf("charges = %d, want 1", n)
		}
	})
}

// purchase_listing names its ceiling: max_price is required in its input
// schema (tools/list and the OpenAI export alike), a call without it is a
// VALIDATION_ERROR naming max_price over either transport and charges
// nothing, and a price above it is refused, never paid.
func TestMCPPurchaseNamesItsCeiling(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("mcpc-seller")
		buyer := s.NewShopper("mcpc-buyer", "pm_card_visa")
		listing := s.ActiveListing(seller, "Enamel bread bin, cream, with lid", 4000)

		required := func(schema any) []any {
			raw, _ := json.Marshal(schema)
			var s struct{ Required []any }
			_ = json.Unmarshal(raw, &s)
			return s.Required
		}
		contains := func(xs []any, x string) bool {
			for _, v := range xs {
				if v == x {
					return true
				}
			}
			return false
		}
		cs := inMemory(t, s, buyer.Key.Secret)
		list, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		listed := false
		for _, tool := range list.Tools {
			if tool.Name == "purchase_listing" {
				listed = true
				if r := required(tool.InputSchema); !contains(r, "max_price") || !contains(r, "listing_id") || !contains(r, "idempotency_key") {
					t.Fatalf("tools/list: purchase_listing requires %v, want max_price among them", r)
				}
			}
		}
		if !listed {
			t.Fatal("tools/list has no purchase_listing")
		}
		exported := false
		for _, x := range s.Do("GET", "/v1/tools/openai", nil).Want(t, http.StatusOK, "").Data()["tools"].([]any) {
			fn := x.(map[string]any)["function"].(map[string]any)
			if fn["name"] == "purchase_listing" {
				exported = true
				if r := required(fn["parameters"]); !contains(r, "max_price") {
					t.Fatalf("/v1/tools/openai: purchase_listing requires %v, want max_price among them", r)
				}
			}
		}
		if !exported {
			t.Fatal("/v1/tools/openai has no purchase_listing")
		}

		charges := s.Charges()
		for _, tr := range transports {
			cs := tr.open(t, s, buyer.Key.Secret)
			a := call(t, cs, "purchase_listing", map[string]any{"listing_id": listing, "shipping_address": testkit.Address(),
				"idempotency_key": "no-ceiling-" + tr.name}).want(t, "purchase_listing", "VALIDATION_ERROR")
			fields, _ := buyObj(t, a.Data, "details")["fields"].([]any)
			if len(fields) != 1 || fields[0].(map[string]any)["field"] != "max_price" {
				t.Fatalf("%s: without max_price: %v, want one field, max_price", tr.name, a.Data)
			}
			call(t, cs, "purchase_listing", map[string]any{"listing_id": listing, "max_price": 3999, "shipping_address": testkit.Address(),
				"idempotency_key": "low-ceiling-" + tr.name}).want(t, "purchase_listing", "MAX_PRICE_EXCEEDED")
		}
		if got := s.Charges(); got != charges {
			t.Fatalf("%d charges made by refused purchases", got-charges)
		}
		if o := s.Do("GET", "/v1/orders", nil, buyer.Key.Auth()).Want(t, http.StatusOK, "").Data(); testkit.Num(t, o, "total") != 0 {
			t.Fatalf("orders after refused purchases: %v", o)
		}
	})
}
