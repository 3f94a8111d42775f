package app_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/orders"
	"marketplace/internal/settings"
	"marketplace/internal/testkit"
)

// auditLog queries the audit log as an admin through the API.
type auditLog struct {
	s   *testkit.Server
	adm *testkit.User
}

// find answers the entries matching every filter, newest first.
func (l auditLog) find(t *testing.T, filters map[string]string) []map[string]any {
	t.Helper()
	q := url.Values{"limit": {"100"}}
	for k, v := range filters {
		q.Set(k, v)
	}
	list := l.s.Do("GET", "/api/v1/admin/audit?"+q.Encode(), nil, l.adm.Auth()).Want(t, http.StatusOK, "").List()
	out := make([]map[string]any, len(list))
	for i, e := range list {
		out[i] = e.(map[string]any)
	}
	return out
}

// one fails unless exactly one entry matches the filters, and answers it.
func (l auditLog) one(t *testing.T, filters map[string]string) map[string]any {
	t.Helper()
	es := l.find(t, filters)
	if len(es) != 1 {
		t.Fatalf("%d audit entries match %v, want 1: %v", len(es), filters, es)
	}
	return es[0]
}

// move checks the system's entry of a money move on an order: actor
// system, the amount in cents, and the request it ran in ("" for none).
func (l auditLog) move(t *testing.T, action, orderID string, amount int64, requestID string) map[string]any {
	t.Helper()
	e := l.one(t, map[string]string{"action": action, "entityType": "order", "entityId": orderID})
	d, _ := e["details"].(map[string]any)
	if e["actorType"] != "system" || e["actorId"] != "" || e["result"] != "allowed" || e["requestId"] != requestID ||
		d["amount"] != float64(amount) || d["status"] != nil {
		t.Fatalf("%s of %s: entry %v, want system, allowed, amount %d, request %q", action, orderID, e, amount, requestID)
	}
	return e
}

// request checks a request's (or tool call's) entry and answers it.
func (l auditLog) request(t *testing.T, action, actorType, actorID, orderID, result string) map[string]any {
	t.Helper()
	f := map[string]string{"action": action, "actorType": actorType, "actorId": actorID, "result": result}
	if orderID != "" {
		f["entityType"], f["entityId"] = "order", orderID
	}
	e := l.one(t, f)
	if e["requestId"] == "" {
		t.Fatalf("%s: no request id: %v", action, e)
	}
	return e
}

func snakeAddress() map[string]any {
	return map[string]any{"name": "Ada Buyer", "line1": "1 Main St", "city": "Portland", "state": "OR", "zip": "97201", "country": "US"}
}

// Every money move leaves an audit entry, the service's own moves as the
// system's with their amounts, and every agent action (Variant A, Variant
// B, an MCP tool) its own entry with the agent, the order and the outcome:
// allowed, refused (a spending cap) or failed (a feature switched off).
func TestAuditCoversMoneyAndAgents(t *testing.T) {
	var settleDown atomic.Bool // a purchase interrupted after its charge
	opts := testkit.Options{BeforeSettle: func(context.Context, string) error {
		if settleDown.Load() {
			return errors.New("injected: the process stopped before settling")
		}
		return nil
	}}
	testkit.Run(t, opts, func(t *testing.T, s *testkit.Server) {
		settleDown.Store(false)
		log := auditLog{s: s, adm: s.Admin()}
		seller := s.VerifiedOwner("auditseller")
		buyer := s.NewShopper("auditbuyer", "pm_card_visa")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 100000})
		key := buyer.Key
		const price = 10000
		total := int64(price + 350) // free shipping, 3.5% fee
		list := func() string { return s.ActiveListing(seller, "walnut cutting board end grain large", price) }
		ship := map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"}

		// Purchases: Variant A, Variant B and the MCP tool by the agent, and
		// a person's checkout; each charge is the system's capture, in the
		// purchase's own request.
		r := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": list(), "maxPrice": price,
			"shippingAddress": testkit.Address()}, key.Auth()).Want(t, http.StatusCreated, "")
		orderA := r.Data()["id"].(string)
		reqA := log.request(t, "POST /api/v1/agent/purchase", "agent", key.ID, orderA, "allowed")
		log.move(t, "payment.capture", orderA, total, reqA["requestId"].(string))

		r = s.Do("POST", "/v1/purchase", map[string]any{"listing_id": list(), "max_price": price,
			"shipping_address": snakeAddress()}, key.Auth()).Want(t, http.StatusCreated, "")
		orderB := r.Data()["id"].(string)
		reqB := log.request(t, "POST /v1/purchase", "agent", key.ID, orderB, "allowed")
		log.move(t, "payment.capture", orderB, total, reqB["requestId"].(string))

		out, isErr := s.MCPTool(key.Secret, "purchase_listing", map[string]any{"listing_id": list(), "max_price": price,
			"shipping_address": snakeAddress(), "idempotency_key": "audit-mcp-1"})
		orderM, _ := out["id"].(string)
		if isErr || orderM == "" {
			t.Fatalf("purchase_listing: %v", out)
		}
		tool := log.request(t, "tool purchase_listing", "agent", key.ID, orderM, "allowed")
		log.move(t, "payment.capture", orderM, total, tool["requestId"].(string))

		c := s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": list(), "shippingAddress": testkit.Address()},
			buyer.Auth()).Want(t, http.StatusCreated, "").Data()
		orderH := c["orderId"].(string)
		log.request(t, "POST /api/v1/purchases", "user", buyer.ID, orderH, "allowed")
		paid := s.Do("POST", s.Path(c["checkoutUrl"].(string)), map[string]any{"cardNumber": "4242424242424242"}).
			Want(t, http.StatusOK, "")
		log.move(t, "payment.capture", orderH, total, paid.Header.Get("X-Request-Id"))

		// Refused: over the per-purchase cap, on each surface.
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 100})
		capped := list()
		s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": capped, "maxPrice": price,
			"shippingAddress": testkit.Address()}, key.Auth()).Want(t, http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
		s.Do("POST", "/v1/purchase", map[string]any{"listing_id": capped, "max_price": price,
			"shipping_address": snakeAddress()}, key.Auth()).Want(t, http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
		if out, isErr := s.MCPTool(key.Secret, "purchase_listing", map[string]any{"listing_id": capped, "max_price": price,
			"shipping_address": snakeAddress(), "idempotency_key": "audit-mcp-2"}); !isErr || out["code"] != "SPENDING_LIMIT_EXCEEDED" {
			t.Fatalf("purchase_listing over the cap: %v", out)
		}
		for _, action := range []string{"POST /api/v1/agent/purchase", "POST /v1/purchase", "tool purchase_listing"} {
			e := log.request(t, action, "agent", key.ID, "", "refused")
			if d := e["details"].(map[string]any); d["errorCode"] != "SPENDING_LIMIT_EXCEEDED" || d["status"] != float64(403) {
				t.Fatalf("%s refused: %v", action, e)
			}
		}
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 100000})

		// Failed: a feature switched off answers 503 on HTTP and as a tool.
		s.Do("PATCH", "/api/v1/admin/feature-flags/"+string(settings.FeatureOffers), map[string]any{"enabled": false}, log.adm.Auth()).
			Want(t, http.StatusOK, "")
		if out, isErr := s.MCPTool(key.Secret, "make_offer", map[string]any{"listing_id": capped, "amount": 5000}); !isErr ||
			out["code"] != "FEATURE_DISABLED" {
			t.Fatalf("make_offer with offers off: %v", out)
		}
		s.Do("PATCH", "/api/v1/admin/feature-flags/"+string(settings.FeatureOffers), map[string]any{"enabled": true}, log.adm.Auth()).
			Want(t, http.StatusOK, "")
		e := log.request(t, "tool make_offer", "agent", key.ID, "", "failed")
		if d := e["details"].(map[string]any); d["errorCode"] != "FEATURE_DISABLED" || d["status"] != float64(503) || e["entityType"] != "offer" {
			t.Fatalf("make_offer failed: %v", e)
		}
		// A read-only tool is not an action, as a GET is not.
		s.MCPTool(key.Secret, "get_account", nil)
		if es := log.find(t, map[string]string{"action": "tool get_account"}); len(es) != 0 {
			t.Fatalf("read-only tool audited: %v", es)
		}

		// Refunds: partial by the seller, in full by a cancellation, and by
		// a dispute resolved for the buyer; each is the system's refund.
		r = s.Do("POST", "/api/v1/purchases/"+orderA+"/refund/seller", map[string]any{"amount": 1000, "reason": "goodwill"},
			seller.Auth()).Want(t, http.StatusOK, "")
		log.request(t, "POST /api/v1/purchases/{id}/refund/seller", "user", seller.ID, orderA, "allowed")
		log.move(t, "refund.issue", orderA, 1000, r.Header.Get("X-Request-Id"))

		r = s.Do("POST", "/api/v1/orders/"+orderB+"/cancel", map[string]any{"reason": "out of stock"}, seller.Auth()).
			Want(t, http.StatusOK, "")
		log.move(t, "refund.issue", orderB, total, r.Header.Get("X-Request-Id"))

		s.Do("POST", "/api/v1/orders/"+orderM+"/ship", ship, seller.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/orders/"+orderM+"/delivered", nil, buyer.Auth()).Want(t, http.StatusOK, "")
		d := s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": orderM, "reason": "damaged",
			"description": "The board arrived split."}, buyer.Auth()).Want(t, http.StatusCreated, "").Data()
		r = s.Do("POST", "/api/v1/admin/disputes/"+d["id"].(string)+"/resolve", map[string]any{"resolution": "refund_buyer"},
			log.adm.Auth()).Want(t, http.StatusOK, "")
		log.request(t, "POST /api/v1/admin/disputes/{id}/resolve", "admin", log.adm.ID, "", "allowed")
		log.move(t, "refund.issue", orderM, total, r.Header.Get("X-Request-Id"))

		// A refund the processor reports (the Stripe webhook's path).
		capture := log.one(t, map[string]string{"action": "payment.capture", "entityId": orderH})
		paymentID := capture["details"].(map[string]any)["paymentId"].(string)
		if err := s.App.Orders.PaymentRefunded(t.Context(), paymentID, 500); err != nil {
			t.Fatal(err)
		}
		if e := log.move(t, "refund.issue", orderH, 500, ""); e["details"].(map[string]any)["source"] != "processor" {
			t.Fatalf("processor refund: %v", e)
		}

		// The payout, released by the job's sweep once the hold ends.
		s.Do("POST", "/api/v1/orders/"+orderH+"/ship", ship, seller.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/orders/"+orderH+"/delivered", nil, buyer.Auth()).Want(t, http.StatusOK, "")
		payout := int64(s.Do("GET", "/api/v1/orders/"+orderH, nil, seller.Auth()).Want(t, http.StatusOK, "").Data()["payoutAmount"].(float64))
		s.Clock.Advance(73 * time.Hour)
		if _, err := s.App.Orders.ReleasePayouts(t.Context()); err != nil {
			t.Fatal(err)
		}
		log.move(t, "payout.release", orderH, payout, "")
		// A refund after the release takes the seller's share back from the
		// transfer: a second move of its own.
		r = s.Do("POST", "/api/v1/purchases/"+orderH+"/refund/seller", map[string]any{"amount": 700, "reason": "goodwill"},
			seller.Auth()).Want(t, http.StatusOK, "")
		log.move(t, "transfer.reverse", orderH, 700, r.Header.Get("X-Request-Id"))

		// A checkout nobody paid: its reservation expires on the sweep.
		c = s.Do("POST", "/api/v1/purchases", map[string]any{"listingId": list(), "shippingAddress": testkit.Address()},
			buyer.Auth()).Want(t, http.StatusCreated, "").Data()
		orderX := c["orderId"].(string)
		s.Clock.Advance(time.Hour)
		if _, err := s.App.Orders.Reconcile(t.Context()); err != nil {
			t.Fatal(err)
		}
		if e := log.one(t, map[string]string{"action": "checkout.expire", "entityId": orderX}); e["actorType"] != "system" || e["requestId"] != "" {
			t.Fatalf("expired checkout: %v", e)
		}

		// A purchase interrupted after its charge: no capture until the
		// reconciler settles it, here on the sandbox clock's sweep.
		settleDown.Store(true)
		r = s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": list(), "maxPrice": price,
			"shippingAddress": testkit.Address()}, key.Auth()).Want(t, http.StatusCreated, "")
		settleDown.Store(false)
		orderR := r.Data()["id"].(string)
		if r.Data()["status"] != "pending_payment" {
			t.Fatalf("interrupted purchase is %v", r.Data()["status"])
		}
		if es := log.find(t, map[string]string{"action": "payment.capture", "entityId": orderR}); len(es) != 0 {
			t.Fatalf("captured before the settle: %v", es)
		}
		s.Clock.Advance(orders.SettleGrace)
		adv := s.Do("POST", "/v1/sandbox/time-advance/1", nil, key.Auth()).Want(t, http.StatusOK, "")
		log.move(t, "payment.capture", orderR, total, adv.Header.Get("X-Request-Id"))
	})
}

// adminChange is one admin route's scenario: the request that changes
// something, what its audit entry must name, and a field that the change
// moves in the entry's before and after ("" when they are the values
// themselves, as for a config key).
type adminChange struct {
	path       string
	body       any
	entityType string
	entityID   string
	field      string
}

// TestAdminChangesAudited walks every admin route that changes something,
// as the router lists them (Auth Admin, a mutating method): each is done
// once, successfully, and its request has exactly one admin entry in the
// audit log (found by requestId through GET /admin/audit) naming the route,
// the entity, and details holding "before" and "after" of the same shape
// that differ where the change happened (CONTRACT.md section 14). A route
// without a scenario here fails the test, so a new admin route cannot go
// unaudited.
func TestAdminChangesAudited(t *testing.T) {
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		log := auditLog{s: s, adm: adm}
		seller := s.VerifiedOwner("changeseller")
		buyer := s.NewShopper("changebuyer", "pm_card_visa")
		n := 0
		listing := func(price int64) string {
			n++
			return s.ActiveListing(seller, fmt.Sprintf("walnut cutting board number %d end grain", n), price)
		}
		held := func() string {
			id := listing(2000)
			s.EditListing(id, func(l *listings.Listing) { l.Status = listings.StatusHeld })
			return id
		}
		paidOrder := func() string {
			return s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing(2000), "maxPrice": 2000,
				"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		}
		// approvals queue purchases of a shopper whose every purchase
		// needs the owner's approval.
		waiting := s.NewShopper("changewaiting", "pm_card_visa")
		s.SetControls(waiting.User, map[string]any{"approvalThreshold": 100})
		approval := func() string {
			r := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing(2000), "maxPrice": 2000,
				"shippingAddress": testkit.Address()}, waiting.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
			return r.JSON["error"].(map[string]any)["details"].(map[string]any)["approvalId"].(string)
		}
		user := func(name string) *testkit.User { return s.Register(name) }
		const a = "/api/v1/admin"

		scenarios := map[string]func() adminChange{
			"POST " + a + "/categories": func() adminChange {
				return adminChange{path: a + "/categories", body: map[string]any{"name": "Audit Keyboards",
					"parentId": listings.CategoryID("keyboards-mice")}, entityType: "category",
					entityID: listings.CategoryID("audit-keyboards"), field: "slug"}
			},
			"POST " + a + "/acp-platforms": func() adminChange {
				// The id is the answer's (entityID "").
				return adminChange{path: a + "/acp-platforms", body: map[string]any{"name": "Audit Agents",
					"webhookUrl": "http://127.0.0.1:9/acp"}, entityType: "acp_platform"}
			},
			"DELETE " + a + "/acp-platforms/{id}": func() adminChange {
				p := s.Do("POST", a+"/acp-platforms", map[string]any{"name": "Gone Agents", "webhookUrl": "http://127.0.0.1:9/acp"},
					adm.Auth()).Want(t, http.StatusCreated, "").Data()
				id := p["id"].(string)
				return adminChange{path: a + "/acp-platforms/" + id, entityType: "acp_platform", entityID: id, field: "deletedAt"}
			},
			"PATCH " + a + "/categories/{id}": func() adminChange {
				return adminChange{path: a + "/categories/computers", body: map[string]any{"name": "Computing"},
					entityType: "category", entityID: listings.CategoryID("computers"), field: "name"}
			},
			"PATCH " + a + "/config/{key}": func() adminChange {
				return adminChange{path: a + "/config/" + settings.OfferMaxRounds.Name(), body: map[string]any{"value": 7},
					entityType: "config", entityID: settings.OfferMaxRounds.Name()}
			},
			"PATCH " + a + "/feature-flags/{key}": func() adminChange {
				return adminChange{path: a + "/feature-flags/" + string(settings.FeatureWebhooks), body: map[string]any{"enabled": false},
					entityType: "feature_flag", entityID: string(settings.FeatureWebhooks), field: "enabled"}
			},
			"POST " + a + "/disputes/{id}/resolve": func() adminChange {
				d := s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": paidOrder(), "reason": "not_as_described",
					"description": "The board is cracked."}, buyer.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
				return adminChange{path: a + "/disputes/" + d + "/resolve", body: map[string]any{"resolution": "refund_buyer"},
					entityType: "dispute", entityID: d, field: "status"}
			},
			"PATCH " + a + "/listings/{id}": func() adminChange {
				id := listing(3000)
				return adminChange{path: a + "/listings/" + id, body: map[string]any{"price": 2500}, entityType: "listing",
					entityID: id, field: "price"}
			},
			"POST " + a + "/listings/{id}/approve": func() adminChange {
				id := held()
				return adminChange{path: a + "/listings/" + id + "/approve", entityType: "listing", entityID: id, field: "status"}
			},
			"POST " + a + "/listings/{id}/reject": func() adminChange {
				id := held()
				return adminChange{path: a + "/listings/" + id + "/reject", body: map[string]any{"reason": "blurry photos"},
					entityType: "listing", entityID: id, field: "status"}
			},
			"POST " + a + "/listings/{id}/delist": func() adminChange {
				id := listing(2000)
				return adminChange{path: a + "/listings/" + id + "/delist", body: map[string]any{"reason": "duplicate"},
					entityType: "listing", entityID: id, field: "status"}
			},
			"POST " + a + "/moderation/rejections/{id}/override": func() adminChange {
				r := s.CreateListing(seller.Auth(), "Gucci leather belt brown", map[string]any{"price": 5000, "condition": "good",
					"shippingType": "free"}).Want(t, http.StatusUnprocessableEntity, "LISTING_RESTRICTED")
				id := r.JSON["error"].(map[string]any)["details"].(map[string]any)["rejectionId"].(string)
				return adminChange{path: a + "/moderation/rejections/" + id + "/override", entityType: "moderation_rejection",
					entityID: id, field: "status"}
			},
			"POST " + a + "/orders/{id}/force-cancel": func() adminChange {
				id := paidOrder()
				return adminChange{path: a + "/orders/" + id + "/force-cancel", body: map[string]any{"reason": "fraud"},
					entityType: "order", entityID: id, field: "status"}
			},
			"POST " + a + "/orders/{id}/force-complete": func() adminChange {
				id := paidOrder()
				return adminChange{path: a + "/orders/" + id + "/force-complete", entityType: "order", entityID: id, field: "status"}
			},
			"PATCH " + a + "/orders/{id}/hold": func() adminChange {
				id := paidOrder()
				s.Do("POST", "/api/v1/orders/"+id+"/ship", map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"},
					seller.Auth()).Want(t, http.StatusOK, "")
				s.Do("POST", "/api/v1/orders/"+id+"/delivered", nil, buyer.Auth()).Want(t, http.StatusOK, "")
				return adminChange{path: a + "/orders/" + id + "/hold", body: map[string]any{"holdHours": 1}, entityType: "order",
					entityID: id, field: "payoutDueAt"}
			},
			"POST " + a + "/queue/{id}/approve": func() adminChange {
				id := approval()
				return adminChange{path: a + "/queue/" + id + "/approve", entityType: "queue_item", entityID: id, field: "status"}
			},
			"POST " + a + "/queue/{id}/reject": func() adminChange {
				id := approval()
				return adminChange{path: a + "/queue/" + id + "/reject", body: map[string]any{"reason": "too dear"},
					entityType: "queue_item", entityID: id, field: "status"}
			},
			"PATCH " + a + "/users/{id}": func() adminChange {
				u := user("changepatched")
				return adminChange{path: a + "/users/" + u.ID, body: map[string]any{"trustTier": "trusted"}, entityType: "user",
					entityID: u.ID, field: "trustTier"}
			},
			"POST " + a + "/users/{id}/suspend": func() adminChange {
				u := user("changesuspended")
				return adminChange{path: a + "/users/" + u.ID + "/suspend", body: map[string]any{"reason": "spam"},
					entityType: "user", entityID: u.ID, field: "status"}
			},
			"POST " + a + "/users/{id}/ban": func() adminChange {
				u := user("changebanned")
				return adminChange{path: a + "/users/" + u.ID + "/ban", body: map[string]any{"reason": "fraud"},
					entityType: "user", entityID: u.ID, field: "status"}
			},
			"POST " + a + "/users/{id}/reinstate": func() adminChange {
				u := user("changereinstated")
				s.SetStatus(u.ID, accounts.StatusSuspended)
				return adminChange{path: a + "/users/" + u.ID + "/reinstate", body: map[string]any{"reason": "appeal upheld"},
					entityType: "user", entityID: u.ID, field: "status"}
			},
			"PATCH " + a + "/users/{id}/spending-controls": func() adminChange {
				u := user("changecapped")
				return adminChange{path: a + "/users/" + u.ID + "/spending-controls", body: map[string]any{"dailyLimit": 777},
					entityType: "user", entityID: u.ID, field: "dailyLimit"}
			},
			"POST " + a + "/users/{userId}/agent-keys/{keyId}/freeze": func() adminChange {
				k := s.NewKey(seller, "buy_sell")
				return adminChange{path: a + "/users/" + seller.ID + "/agent-keys/" + k.ID + "/freeze", entityType: "agent_key",
					entityID: k.ID, field: "status"}
			},
			"POST " + a + "/users/{userId}/agent-keys/{keyId}/revoke": func() adminChange {
				k := s.NewKey(seller, "buy_sell")
				return adminChange{path: a + "/users/" + seller.ID + "/agent-keys/" + k.ID + "/revoke", entityType: "agent_key",
					entityID: k.ID, field: "status"}
			},
		}

		var routes []string
		for _, r := range s.App.Router.Routes() {
			if r.Auth == httpapi.Admin && r.Method != http.MethodGet && r.Method != http.MethodHead {
				routes = append(routes, r.Method+" "+r.Pattern)
			}
		}
		for route := range scenarios {
			if !slices.Contains(routes, route) {
				t.Errorf("scenario for %s, which is not an admin route the router serves", route)
			}
		}
		if len(routes) < len(scenarios) {
			t.Fatalf("the router lists %d admin changes, the scenarios %d", len(routes), len(scenarios))
		}
		for _, route := range routes {
			setup, ok := scenarios[route]
			if !ok {
				t.Errorf("%s: an admin change with no scenario here; add one", route)
				continue
			}
			c := setup()
			method, _, _ := strings.Cut(route, " ")
			r := s.Do(method, c.path, c.body, adm.Auth())
			if r.Status != http.StatusOK && r.Status != http.StatusCreated {
				t.Errorf("%s: %d %s", route, r.Status, r.Body)
				continue
			}
			if c.entityID == "" {
				c.entityID, _ = r.Data()["id"].(string)
			}
			rid := r.Header.Get("X-Request-Id")
			es := log.find(t, map[string]string{"requestId": rid, "actorType": "admin"})
			if len(es) != 1 {
				t.Errorf("%s: %d admin audit entries for request %s, want 1: %v", route, len(es), rid, es)
				continue
			}
			e := es[0]
			if e["action"] != route || e["actorId"] != adm.ID || e["result"] != "allowed" ||
				e["entityType"] != c.entityType || e["entityId"] != c.entityID {
				t.Errorf("%s: entry %v, want action %s, entity %s %s", route, e, route, c.entityType, c.entityID)
				continue
			}
			d, _ := e["details"].(map[string]any)
			before, hasBefore := d["before"]
			after, hasAfter := d["after"]
			if !hasBefore || !hasAfter || after == nil {
				t.Errorf("%s: details %v have no before and after", route, d)
				continue
			}
			if before == nil { // a creation
				if method != http.MethodPost || !strings.HasSuffix(route, "/categories") && !strings.HasSuffix(route, "/acp-platforms") {
					t.Errorf("%s: before is null, but the route creates nothing", route)
				}
				continue
			}
			if c.field == "" {
				if reflect.DeepEqual(before, after) {
					t.Errorf("%s: before and after are the same: %v", route, before)
				}
				continue
			}
			b, okB := before.(map[string]any)
			af, okA := after.(map[string]any)
			if !okB || !okA || !slices.Equal(slices.Sorted(maps.Keys(b)), slices.Sorted(maps.Keys(af))) {
				t.Errorf("%s: before %v and after %v are not of the same shape", route, before, after)
				continue
			}
			if _, ok := b[c.field]; !ok || reflect.DeepEqual(b[c.field], af[c.field]) {
				t.Errorf("%s: %s did not change: before %v, after %v", route, c.field, b, af)
			}
		}
	})
}
