package mcpserver_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

// ordScene is a paid order: its seller (with a ship-from address and a
// sell-only key) and its buyer (a shopper with a buy_sell key).
type ordScene struct {
	seller    *testkit.User
	sellerKey *testkit.Key
	buyer     *testkit.Shopper
	listing   string
	order     string
}

// ordPaid has the buyer's agent buy a listing over HTTP (flat-rate
// shipping, or local pickup when extra says so).
func ordPaid(t *testing.T, s *testkit.Server, name string, extra map[string]any) ordScene {
	t.Helper()
	seller := s.VerifiedOwner(name + "seller")
	s.Do("PUT", "/api/v1/auth/me/address", map[string]any{"name": "S", "line1": "1 Main St", "city": "Chicago",
		"state": "IL", "zip": "60601", "country": "US"}, seller.Auth()).Want(t, http.StatusOK, "")
	fields := map[string]any{"shippingType": "flat_rate", "shippingCost": 800, "weightOz": 32,
		"dimensions": map[string]any{"l": 12, "w": 10, "h": 6}}
	for k, v := range extra {
		fields[k] = v
	}
	listing := s.ListingWith(t, seller, "Mid-century teak side table, small, light wear", 4000, fields)
	buyer := s.NewShopper(name+"buyer", "pm_card_visa")
	body := map[string]any{"listing_id": listing, "max_price": 4000, "shipping_address": testkit.Address()}
	if extra["shippingType"] == "local_pickup" {
		body = map[string]any{"listing_id": listing, "max_price": 4000, "fulfillment_type": "local_pickup"}
	}
	o := s.Do("POST", "/v1/purchase", body, buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()
	return ordScene{seller: seller, sellerKey: s.NewKey(seller, "sell_only"), buyer: buyer, listing: listing, order: o["id"].(string)}
}

// ordStr is d[k] as a string.
func ordStr(d map[string]any, k string) string { v, _ := d[k].(string); return v }

// An after-sale day over MCP, on each transport: the buyer's agent bought
// (over HTTP); the seller's agent quotes and ships; the buyer's agent
// tracks, confirms delivery, reads the order's timeline and its feed, and
// asks for a refund. Each answer is the object the HTTP route answers.
func TestMCPAfterSaleDay(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		for _, tr := range transports {
			t.Run(tr.name, func(t *testing.T) {
				sc := ordPaid(t, s, "day"+tr.name, nil)
				buyer, seller := tr.open(t, s, sc.buyer.Key.Secret), tr.open(t, s, sc.sellerKey.Secret)
				oid := map[string]any{"order_id": sc.order}

				list := call(t, buyer, "get_orders", map[string]any{"role": "buyer"}).want(t, "get_orders", "").Data
				os, _ := list["orders"].([]any)
				if len(os) != 1 || os[0].(map[string]any)["id"] != sc.order || list["total"] != float64(1) {
					t.Fatalf("get_orders %v", list)
				}
				detail := call(t, buyer, "get_order_detail", oid).want(t, "get_order_detail", "").Data
				viaHTTP := s.Do("GET", "/v1/orders/"+sc.order, nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "").Data()
				if !equalJSON(detail, viaHTTP) || detail["role"] != "buyer" || detail["status"] != "paid" {
					t.Fatalf("get_order_detail %v, HTTP %v", detail, viaHTTP)
				}
				// Seller's view: the payout is shown.
				if d := call(t, seller, "get_order_detail", oid).want(t, "get_order_detail", "").Data; d["seller_payout"] == nil {
					t.Fatalf("seller's order %v", d)
				}

				next := s.ListingWith(t, sc.seller, "Teak footstool with a woven seat, light wear", 3000,
					map[string]any{"shippingType": "calculated", "weightOz": 32, "dimensions": map[string]any{"l": 12, "w": 10, "h": 6}})
				q := call(t, buyer, "get_shipping_rates", map[string]any{"listing_id": next, "zip": "94103"}).
					want(t, "get_shipping_rates", "").Data
				if rates, _ := q["rates"].([]any); len(rates) == 0 || q["listing_id"] != next || q["buyer_zip"] != "94103" {
					t.Fatalf("listing rates %v", q)
				}
				q = call(t, seller, "get_shipping_rates", oid).want(t, "get_shipping_rates", "").Data
				if rates, _ := q["rates"].([]any); len(rates) == 0 || q["buyer_zip"] != "97201" {
					t.Fatalf("order rates %v", q)
				}
				call(t, seller, "get_shipping_rates", map[string]any{"listing_id": sc.listing}).want(t, "get_shipping_rates", "VALIDATION_ERROR")
				call(t, seller, "get_shipping_rates", map[string]any{}).want(t, "get_shipping_rates", "VALIDATION_ERROR")
				call(t, seller, "create_shipment", oid).want(t, "create_shipment", "VALIDATION_ERROR")

				shipped := call(t, seller, "create_shipment", map[string]any{"order_id": sc.order, "carrier": "ups",
					"tracking_number": "1Z999AA10123456784"}).want(t, "create_shipment", "").Data
				if shipped["status"] != "shipped" || shipped["tracking_number"] != "1Z999AA10123456784" || shipped["role"] != "seller" {
					t.Fatalf("create_shipment %v", shipped)
				}
				// The same shipment again changes nothing, as on HTTP.
				again := call(t, seller, "create_shipment", map[string]any{"order_id": sc.order, "carrier": "ups",
					"tracking_number": "1Z999AA10123456784"}).want(t, "create_shipment", "").Data
				if again["shipped_at"] != shipped["shipped_at"] || again["status"] != "shipped" {
					t.Fatalf("create_shipment again %v", again)
				}

				track := call(t, buyer, "track_shipment", oid).want(t, "track_shipment", "").Data
				if track["status"] != "shipped" || track["carrier"] != "ups" || track["tracking_number"] != "1Z999AA10123456784" ||
					track["tracking_url"] == nil || track["shipped_at"] == nil {
					t.Fatalf("track_shipment %v", track)
				}

				done := call(t, buyer, "confirm_delivery", oid).want(t, "confirm_delivery", "").Data
				if done["status"] != "delivered" || done["delivered_at"] == nil {
					t.Fatalf("confirm_delivery %v", done)
				}

				tl := call(t, buyer, "get_order_events", oid).want(t, "get_order_events", "").Data
				var types []string
				for _, e := range tl["events"].([]any) {
					types = append(types, e.(map[string]any)["type"].(string))
				}
				for _, want := range []string{"order.created", "order.shipped", "order.delivered"} {
					if !slices.Contains(types, want) {
						t.Fatalf("timeline %v lacks %s", types, want)
					}
				}

				// Page on with the cursor, waiting: on PostgreSQL an event
				// shows once every older transaction on the server has ended.
				args := map[string]any{"types": []string{"order.shipped", "order.delivered"}, "wait": 5}
				var seen []string
				var feed map[string]any
				for range 10 {
					feed = call(t, buyer, "get_events", args).want(t, "get_events", "").Data
					for _, e := range feed["events"].([]any) {
						e := e.(map[string]any)
						if d, _ := e["data"].(map[string]any); d["order_id"] == sc.order {
							seen = append(seen, e["type"].(string))
						}
					}
					if slices.Contains(seen, "order.shipped") && slices.Contains(seen, "order.delivered") {
						break
					}
					args["after"] = feed["cursor"]
				}
				if !slices.Contains(seen, "order.shipped") || !slices.Contains(seen, "order.delivered") || ordStr(feed, "cursor") == "" {
					t.Fatalf("feed %v (seen %v)", feed, seen)
				}
				// Reading on from the cursor: nothing new.
				more := call(t, buyer, "get_events", map[string]any{"after": feed["cursor"], "wait": 0}).want(t, "get_events", "").Data
				if es, _ := more["events"].([]any); len(es) != 0 {
					t.Fatalf("after the cursor %v", more)
				}
				call(t, buyer, "get_events", map[string]any{"types": []string{"no.such"}}).want(t, "get_events", "VALIDATION_ERROR")
				call(t, buyer, "get_events", map[string]any{"wait": 11}).want(t, "get_events", "VALIDATION_ERROR")

				rf := call(t, buyer, "request_refund", map[string]any{"order_id": sc.order, "reason": "The top is scratched.",
					"amount": 1000}).want(t, "request_refund", "").Data
				if rf["status"] != "requested" || rf["amount"] != float64(1000) || rf["order_id"] != sc.order || rf["initiated_by"] != "buyer" {
					t.Fatalf("request_refund %v", rf)
				}
			})
		}
	})
}

// The other moves of an order, on each transport: local pickup (ready,
// collected), the seller's cancel, the platform label, and a dispute.
func TestMCPOrderMoves(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		for _, tr := range transports {
			t.Run(tr.name, func(t *testing.T) {
				pick := ordPaid(t, s, "pick"+tr.name, map[string]any{"shippingType": "local_pickup", "shippingCost": nil})
				buyer, seller := tr.open(t, s, pick.buyer.Key.Secret), tr.open(t, s, pick.sellerKey.Secret)
				oid := map[string]any{"order_id": pick.order}
				call(t, buyer, "confirm_pickup", oid).want(t, "confirm_pickup", "INVALID_STATE")
				call(t, seller, "mark_pickup_ready", oid).want(t, "mark_pickup_ready", "")
				if o := call(t, buyer, "confirm_pickup", oid).want(t, "confirm_pickup", "").Data; o["status"] != "delivered" {
					t.Fatalf("confirm_pickup %v", o)
				}

				cn := ordPaid(t, s, "cancel"+tr.name, nil)
				seller = tr.open(t, s, cn.sellerKey.Secret)
				o := call(t, seller, "cancel_order", map[string]any{"order_id": cn.order, "reason": "Sold elsewhere."}).
					want(t, "cancel_order", "").Data
				if o["status"] != "cancelled" || o["cancelled_at"] == nil {
					t.Fatalf("cancel_order %v", o)
				}

				lb := ordPaid(t, s, "label"+tr.name, nil)
				buyer, seller = tr.open(t, s, lb.buyer.Key.Secret), tr.open(t, s, lb.sellerKey.Secret)
				args := map[string]any{"order_id": lb.order, "buy_label": true}
				l := call(t, seller, "create_shipment", args).want(t, "create_shipment", "").Data
				lo, _ := l["order"].(map[string]any)
				if l["bought"] != true || ordStr(l, "tracking_number") == "" || l["label_url"] == nil || lo["status"] != "shipped" ||
					lo["tracking_number"] != l["tracking_number"] {
					t.Fatalf("label %v", l)
				}
				again := call(t, seller, "create_shipment", args).want(t, "create_shipment", "").Data
				if again["bought"] != false || again["id"] != l["id"] {
					t.Fatalf("a second label call %v", again)
				}
				d := call(t, buyer, "open_dispute", map[string]any{"order_id": lb.order, "reason": "not_received",
					"description": "Tracking has not moved for two weeks."}).want(t, "open_dispute", "").Data
				if d["status"] != "open" || d["order_id"] != lb.order || d["reason"] != "not_received" {
					t.Fatalf("open_dispute %v", d)
				}
				call(t, buyer, "open_dispute", map[string]any{"order_id": lb.order, "reason": "not_received",
					"description": "again"}).want(t, "open_dispute", "INVALID_STATE")
			})
		}
	})
}

// memAs is an in-memory session whose calls are authenticated as secret,
// whatever it is (a bad, frozen or revoked key).
func memAs(t *testing.T, s *testkit.Server, secret string) *mcp.ClientSession {
	t.Helper()
	return inMemory(t, s, secret)
}

// ordCase is one order tool and the HTTP route it mirrors (for the code
// another owner's key gets).
type ordCase struct {
	tool         string
	args         func(sc ordScene) map[string]any
	method, path string // path's "{id}" is the order id
	body         map[string]any
	scope        string // the scope it needs: "buy", "sell" or "" (any)
	human        bool   // the route is the owner's (bearer token) only
}

var ordCases = []ordCase{
	{"get_orders", func(ordScene) map[string]any { return nil }, "", "", nil, "", false},
	{"get_order_detail", ordID, "GET", "/v1/orders/{id}", nil, "", false},
	{"get_order_events", ordID, "GET", "/api/v1/agent/orders/{id}/events", nil, "", false},
	{"track_shipment", ordID, "GET", "/api/v1/agent/orders/{id}/shipping", nil, "", false},
	{"get_shipping_rates", ordID, "POST", "/api/v1/orders/{id}/shipping/rates", map[string]any{}, "", true},
	{"create_shipment", func(sc ordScene) map[string]any {
		return map[string]any{"order_id": sc.order, "carrier": "ups", "tracking_number": "1Z999AA10123456784"}
	}, "POST", "/v1/orders/{id}/ship", map[string]any{"carrier": "ups", "tracking_number": "1Z999AA10123456784"}, "sell", false},
	{"confirm_delivery", ordID, "POST", "/api/v1/agent/orders/{id}/delivered", nil, "buy", false},
	{"confirm_pickup", ordID, "POST", "/api/v1/agent/orders/{id}/confirm-pickup", nil, "buy", false},
	{"mark_pickup_ready", ordID, "POST", "/api/v1/orders/{id}/pickup-ready", map[string]any{}, "sell", true},
	{"cancel_order", ordID, "POST", "/api/v1/agent/orders/{id}/cancel", nil, "sell", false},
	{"request_refund", func(sc ordScene) map[string]any {
		return map[string]any{"order_id": sc.order, "reason": "scratched"}
	}, "POST", "/api/v1/purchases/{id}/refund", map[string]any{"reason": "scratched"}, "buy", true},
	{"open_dispute", func(sc ordScene) map[string]any {
		return map[string]any{"order_id": sc.order, "reason": "other", "description": "Not what I ordered."}
	}, "POST", "/v1/orders/{id}/dispute", map[string]any{"reason": "other", "description": "Not what I ordered."}, "buy", false},
}

func ordID(sc ordScene) map[string]any { return map[string]any{"order_id": sc.order} }

// The authorization table of the order tools: a bad, revoked or frozen key,
// the wrong scope, and another owner's order (answered as the HTTP route
// answers it; NOT_FOUND for reads). Nothing refused moved the order.
func TestMCPOrderToolsAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := ordPaid(t, s, "authz", nil)
		owner := sc.buyer.User
		revoked := s.NewKey(owner, "buy_sell")
		s.Do("DELETE", "/api/v1/agent-keys/"+revoked.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
		frozen := s.NewKey(owner, "buy_sell")
		s.Do("POST", "/api/v1/admin/users/"+owner.ID+"/agent-keys/"+frozen.ID+"/freeze", nil, s.Admin().Auth()).
			Want(t, http.StatusOK, "")
		stranger := s.NewShopper("authzstranger", "pm_card_visa")
		buyOnly, sellOnly := s.NewKey(owner, "buy_only"), s.NewKey(sc.seller, "sell_only")

		bad, rev, frz := memAs(t, s, "mk_test_bad"), memAs(t, s, revoked.Secret), memAs(t, s, frozen.Secret)
		for _, c := range ordCases {
			args := c.args(sc)
			call(t, bad, c.tool, args).want(t, c.tool, "INVALID_AGENT_KEY")
			call(t, rev, c.tool, args).want(t, c.tool, "INVALID_AGENT_KEY")
			call(t, frz, c.tool, args).want(t, c.tool, "AGENT_FROZEN")
		}
		for _, tr := range transports {
			buyer, seller := tr.open(t, s, buyOnly.Secret), tr.open(t, s, sellOnly.Secret)
			other := tr.open(t, s, stranger.Key.Secret)
			for _, c := range ordCases {
				args := c.args(sc)
				switch c.scope {
				case "sell":
					call(t, buyer, c.tool, args).want(t, c.tool, "INSUFFICIENT_SCOPE")
				case "buy":
					call(t, seller, c.tool, args).want(t, c.tool, "INSUFFICIENT_SCOPE")
				}
				if c.tool == "get_orders" {
					d := call(t, other, c.tool, args).want(t, c.tool, "").Data
					if d["total"] != float64(0) {
						t.Fatalf("%s: a stranger sees %v", tr.name, d)
					}
					continue
				}
				want := ""
				{
					auth := stranger.Key.Auth()
					if c.human {
						auth = stranger.Auth()
					}
					body := c.body
					if body == nil && c.method == "POST" {
						body = map[string]any{}
					}
					r := s.Do(c.method, replaceID(c.path, sc.order), body, auth)
					if r.Status < 400 {
						t.Fatalf("%s %s by a stranger: %d", c.method, c.path, r.Status)
					}
					want = r.Code()
				}
				call(t, other, c.tool, args).want(t, c.tool+" (another owner's order)", want)
				// An unknown order: NOT_FOUND.
				unknown := c.args(ordScene{order: market.NewID()})
				call(t, other, c.tool, unknown).want(t, c.tool+" (unknown order)", "NOT_FOUND")
			}
		}
		if o := s.Do("GET", "/v1/orders/"+sc.order, nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "").Data(); o["status"] != "paid" {
			t.Fatalf("refused calls moved the order to %v", o["status"])
		}
	})
}

func replaceID(path, id string) string { return strings.Replace(path, "{id}", id, 1) }
