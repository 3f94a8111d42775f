package acpcheck

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Valid documents, modelled on examples/2026-04-17 in the ACP repository but
// written here so the tests need no spec checkout.
const (
	validSession = `{
  "id": "cs_123",
  "protocol": {"version": "2026-04-17"},
  "status": "ready_for_payment",
  "currency": "usd",
  "capabilities": {
    "payment": {"handlers": [{
      "id": "card_tokenized", "name": "dev.acp.tokenized.card", "version": "2026-04-17",
      "spec": "https://acp.dev/handlers/tokenized.card", "requires_delegate_payment": true,
      "requires_pci_compliance": false, "psp": "stripe",
      "config_schema": "https://acp.dev/schemas/config.json",
      "instrument_schemas": ["https://acp.dev/schemas/instrument.json"],
      "config": {"merchant_id": "acct_1"}
    }]},
    "interventions": {"supported": ["3ds"], "max_redirects": 1},
    "extensions": ["discount@2026-04-17"]
  },
  "buyer": {"email": "jane@example.com", "first_name": "Jane"},
  "line_items": [{
    "id": "li_1", "item": {"id": "item_123"}, "quantity": 2, "name": "Mug", "unit_amount": 1500,
    "totals": [
      {"type": "items_base_amount", "display_text": "Base", "amount": 3000},
      {"type": "tax", "display_text": "Tax", "amount": 300, "breakdown": [{"jurisdiction": "CA", "rate": 0.1, "amount": 300}]},
      {"type": "total", "display_text": "Total", "amount": 3300}
    ]
  }],
  "fulfillment_options": [
    {"type": "shipping", "id": "fo_ship", "title": "Standard", "carrier": "USPS",
     "earliest_delivery_time": "2026-05-01T10:00:00Z", "latest_delivery_time": "2026-05-03T10:00:00.5+02:00",
     "totals": [{"type": "fulfillment", "display_text": "Shipping", "amount": 500}]},
    {"type": "digital", "id": "fo_dig", "title": "Email", "totals": []},
    {"type": "pickup", "id": "fo_pick", "title": "Store", "pickup_type": "curbside",
     "location": {"name": "Main St", "address": {"name": "Shop", "line_one": "1 Main St", "city": "SF", "state": "CA", "country": "US", "postal_code": "94131"}},
     "totals": []},
    {"type": "local_delivery", "id": "fo_local", "title": "Courier",
     "delivery_window": {"start": "2026-05-01T10:00:00Z", "end": "2026-05-01T12:00:00Z"}, "totals": []}
  ],
  "selected_fulfillment_options": [{"type": "shipping", "option_id": "fo_ship", "item_ids": ["item_123"]}],
  "totals": [
    {"type": "subtotal", "display_text": "Subtotal", "amount": 3000},
    {"type": "total", "display_text": "Total", "amount": 3800}
  ],
  "messages": [
    {"type": "info", "content_type": "plain", "content": "Ships tomorrow"},
    {"type": "warning", "code": "low_stock", "content_type": "markdown", "content": "**Hurry**"},
    {"type": "error", "code": "out_of_stock", "param": "$.line_items[0]", "severity": "high", "resolution": "requires_buyer_input", "content_type": "plain", "content": "Gone"}
  ],
  "links": [{"type": "terms_of_use", "url": "https://example.com/terms", "title": "Terms"}],
  "expires_at": "2026-05-01T10:00:00Z"
}`

	validOrder = `{"type": "order", "id": "ord_1", "checkout_session_id": "cs_123",
  "permalink_url": "https://example.com/orders/1", "status": "confirmed",
  "line_items": [{"id": "li_1", "title": "Mug", "quantity": {"ordered": 2, "current": 2, "fulfilled": 0}, "unit_price": 1500}],
  "fulfillments": [{"id": "ful_1", "type": "shipping", "status": "shipped",
    "line_items": [{"id": "li_1", "quantity": 2}],
    "events": [{"id": "evt_1", "type": "shipped", "occurred_at": "2026-05-01T10:00:00Z"}]}],
  "adjustments": [{"id": "adj_1", "type": "refund", "occurred_at": "2026-05-02T10:00:00Z", "status": "completed", "amount": 100, "currency": "usd"}],
  "totals": [{"type": "total", "display_text": "Total", "amount": 3800}]}`

	validCreate = `{
  "currency": "usd",
  "line_items": [{"id": "item_123"}],
  "capabilities": {"interventions": {"supported": ["3ds", "address_verification"], "display_context": "webview", "redirect_context": "in_app", "max_redirects": 1, "max_interaction_depth": 1}},
  "fulfillment_details": {"name": "John Doe", "phone_number": "15551234567", "email": "johndoe@example.com",
    "address": {"name": "John Doe", "line_one": "1234 Chat Road", "line_two": "", "city": "San Francisco", "state": "CA", "country": "US", "postal_code": "94131"}},
  "affiliate_attribution": {"provider": "impact", "publisher_id": "pub_1", "touchpoint": "first", "metadata": {"k": "v", "n": 1, "b": true}},
  "order_notes": "Leave at front door."
}`

	validUpdate = `{"buyer": {"email": "jane@example.com"},
  "selected_fulfillment_options": [{"type": "shipping", "option_id": "fo_ship", "item_ids": ["item_123"]}],
  "discounts": {"codes": ["SAVE10"]}}`

	validComplete = `{
  "buyer": {"first_name": "John", "last_name": "Smith", "email": "johnsmith@mail.com"},
  "payment_data": {"handler_id": "card_tokenized", "instrument": {"type": "card", "credential": {"type": "spt", "token": "spt_123"}}},
  "authentication_result": {"outcome": "authenticated", "outcome_details": {"three_ds_cryptogram": "AAAB", "electronic_commerce_indicator": "05", "transaction_id": "tx_1", "version": "2.2.0"}},
  "marketing_consents": [{"channel": "email", "opted_in": true}]
}`

	validCancel = `{"intent_trace": {"reason_code": "shipping_cost", "trace_summary": "Too expensive", "metadata": {"target_shipping_cost": 0, "competitor_reference": "x"}}}`

	validError = `{"type": "invalid_request", "code": "invalid_email", "message": "Bad email", "param": "$.buyer.email"}`

	validDiscovery = `{"protocol": {"name": "acp", "version": "2026-04-17", "supported_versions": ["2026-01-30", "2026-04-17"]},
  "api_base_url": "https://merchant.example.com/api", "transports": ["rest"],
  "capabilities": {"services": ["checkout", "delegate_payment"], "supported_currencies": ["usd"],
    "extensions": [{"name": "discount", "spec": "https://agenticcommerce.dev/specs/discount"}]}}`

	validDPRequest = `{
  "payment_method": {"type": "card", "card_number_type": "fpan", "virtual": false, "number": "4242424242424242",
    "exp_month": "11", "exp_year": "2026", "cvc": "223", "checks_performed": ["avs", "cvv"],
    "display_card_funding_type": "credit", "display_brand": "visa", "display_last4": "4242", "metadata": {"issuing_bank": "temp"}},
  "allowance": {"reason": "one_time", "max_amount": 2000, "currency": "usd", "checkout_session_id": "cs_123",
    "merchant_id": "acme_store", "expires_at": "2025-10-09T07:20:50.52Z"},
  "billing_address": {"name": "Ada Lovelace", "line_one": "1234 Chat Road", "city": "San Francisco", "state": "CA", "country": "US", "postal_code": "94131"},
  "risk_signals": [{"type": "card_testing", "score": 10, "action": "manual_review"}],
  "metadata": {"source": "chatgpt_checkout"}
}`

	validDPResponse = `{"id": "vt_01J8Z3", "created": "2025-09-29T11:00:00Z", "metadata": {"merchant_id": "acme_store"}}`

	validDPError = `{"type": "rate_limit_exceeded", "code": "too_many_requests", "message": "Slow down"}`

	validWebhook = `{"type": "order_update", "data": ` + validOrder + `}`
)

// completedSession is validSession with status completed and an order.
func completedSession(t *testing.T) string {
	return mutate(t, validSession, func(m map[string]any) {
		m["status"] = "completed"
		var o any
		if err := json.Unmarshal([]byte(validOrder), &o); err != nil {
			t.Fatal(err)
		}
		m["order"] = o
	})
}

// mutate decodes doc, lets f edit it and re-encodes it.
func mutate(t *testing.T, doc string, f func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("bad fixture: %v", err)
	}
	f(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// at walks a decoded document by keys and indexes.
func at(v any, path ...any) any {
	for _, p := range path {
		switch p := p.(type) {
		case string:
			v = v.(map[string]any)[p]
		case int:
			v = v.([]any)[p]
		}
	}
	return v
}

func obj(v any, path ...any) map[string]any { return at(v, path...).(map[string]any) }

func TestValid(t *testing.T) {
	tests := []struct {
		name string
		fn   func([]byte) error
		doc  string
	}{
		{"session", CheckoutSession, validSession},
		{"session completed with order", CheckoutSession, completedSession(t)},
		{"session empty extensions omitted", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			m["capabilities"] = map[string]any{}
		})},
		{"create", CreateRequest, validCreate},
		{"update", UpdateRequest, validUpdate},
		{"update empty", UpdateRequest, `{}`},
		{"complete", CompleteRequest, validComplete},
		{"complete purchase order", CompleteRequest, `{"payment_data": {"purchase_order_number": "PO-1", "payment_terms": "net_30"}}`},
		{"cancel", CancelRequest, validCancel},
		{"cancel empty body", CancelRequest, ""},
		{"cancel empty object", CancelRequest, `{}`},
		{"cancel open object", CancelRequest, `{"note": "CancelSessionRequest is not closed"}`},
		{"error", Error, validError},
		{"discovery", Discovery, validDiscovery},
		{"delegate request", DelegatePaymentRequest, validDPRequest},
		{"delegate response", DelegatePaymentResponse, validDPResponse},
		{"delegate error", DelegatePaymentError, validDPError},
		{"webhook update", WebhookEvent, validWebhook},
		{"webhook create", WebhookEvent, `{"type": "order_create", "data": {"type": "order", "id": "ord_1", "checkout_session_id": "cs_1", "permalink_url": "https://e.com/o/1", "status": "created"}}`},
		{"integer written as 1.0", CheckoutSession, strings.Replace(validSession, `"amount": 3000}`, `"amount": 3000.0}`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.fn([]byte(tt.doc)); err != nil {
				t.Fatalf("want valid, got %v", err)
			}
		})
	}
}

func TestInvalid(t *testing.T) {
	tests := []struct {
		name string
		fn   func([]byte) error
		doc  string
		want []string // each must appear in the error text
	}{
		// CheckoutSession
		{"session missing required", CheckoutSession, mutate(t, validSession, func(m map[string]any) { delete(m, "links") }),
			[]string{"$.links: required property is missing"}},
		{"session bad status", CheckoutSession, mutate(t, validSession, func(m map[string]any) { m["status"] = "open" }),
			[]string{`$.status: "open" is not one of [incomplete,`}},
		{"session completed without order", CheckoutSession, mutate(t, validSession, func(m map[string]any) { m["status"] = "completed" }),
			[]string{"$.order: required property is missing"}},
		{"session unknown field", CheckoutSession, mutate(t, validSession, func(m map[string]any) { m["payment_methods"] = []any{} }),
			[]string{"$.payment_methods: unknown property"}},
		{"total bad type", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			obj(m, "line_items", 0, "totals", 1)["type"] = "foo"
		}), []string{`$.line_items[0].totals[1].type: "foo" is not one of [items_base_amount,`}},
		{"total fractional amount", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			obj(m, "totals", 0)["amount"] = 10.5
		}), []string{"$.totals[0].amount: expected integer, got number 10.5"}},
		{"amount as string", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			obj(m, "totals", 0)["amount"] = "3000"
		}), []string{`$.totals[0].amount: expected integer, got string "3000"`}},
		{"quantity below minimum", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			obj(m, "line_items", 0)["quantity"] = 0
		}), []string{"$.line_items[0].quantity: 0 is less than the minimum 1"}},
		{"fulfillment option unknown type", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			obj(m, "fulfillment_options", 1)["type"] = "drone"
		}), []string{`$.fulfillment_options[1].type: "drone" is not one of [shipping, digital, pickup, local_delivery]`}},
		{"pickup option missing location and title", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			o := obj(m, "fulfillment_options", 2)
			delete(o, "location")
			delete(o, "title")
		}), []string{"$.fulfillment_options[2].location: required", "$.fulfillment_options[2].title: required"}},
		{"shipping option field on digital", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			obj(m, "fulfillment_options", 1)["carrier"] = "USPS"
		}), []string{"$.fulfillment_options[1].carrier: unknown property"}},
		{"bad date-time", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			obj(m, "fulfillment_options", 0)["earliest_delivery_time"] = "2026-05-01 10:00"
		}), []string{`$.fulfillment_options[0].earliest_delivery_time: "2026-05-01 10:00" is not an RFC 3339 date-time`}},
		{"warning without code", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			delete(obj(m, "messages", 1), "code")
		}), []string{"$.messages[1].code: required property is missing"}},
		{"error message bad code", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			obj(m, "messages", 2)["code"] = "low_stock_warning"
		}), []string{`$.messages[2].code: "low_stock_warning" is not one of [missing,`}},
		{"message unknown type", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			obj(m, "messages", 0)["type"] = "notice"
		}), []string{`$.messages[0].type: "notice" is not one of [info, warning, error]`}},
		{"info message with code", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			obj(m, "messages", 0)["code"] = "low_stock"
		}), []string{"$.messages[0].code: unknown property"}},
		{"link bad type and url", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			l := obj(m, "links", 0)
			l["type"] = "tos"
			l["url"] = "/terms"
		}), []string{`$.links[0].type: "tos" is not one of`, `$.links[0].url: "/terms" is not an absolute URI`}},
		{"payment handler missing psp", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			delete(obj(m, "capabilities", "payment", "handlers", 0), "psp")
		}), []string{"$.capabilities.payment.handlers[0].psp: required property is missing"}},
		{"extensions empty array matches both oneOf branches", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			obj(m, "capabilities")["extensions"] = []any{}
		}), []string{"$.capabilities.extensions: matches 2 oneOf alternatives"}},
		{"buyer bad email", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			obj(m, "buyer")["email"] = "not-an-email"
		}), []string{`$.buyer.email: "not-an-email" is not an email address`}},
		{"order line item missing title", CheckoutSession, mutate(t, completedSession(t), func(m map[string]any) {
			delete(obj(m, "order", "line_items", 0), "title")
		}), []string{"$.order.line_items[0].title: required property is missing"}},
		{"protocol version pattern", CheckoutSession, mutate(t, validSession, func(m map[string]any) {
			obj(m, "protocol")["version"] = "v1"
		}), []string{`$.protocol.version: "v1" does not match pattern`}},
		{"not an object", CheckoutSession, `[]`, []string{"$: expected object, got array"}},
		{"invalid JSON", CheckoutSession, `{"id":`, []string{"$: invalid JSON"}},
		{"trailing data", CheckoutSession, validSession + ` {}`, []string{"$: trailing data"}},

		// Requests
		{"create missing capabilities", CreateRequest, mutate(t, validCreate, func(m map[string]any) { delete(m, "capabilities") }),
			[]string{"$.capabilities: required property is missing"}},
		{"create empty line_items", CreateRequest, mutate(t, validCreate, func(m map[string]any) { m["line_items"] = []any{} }),
			[]string{"$.line_items: has 0 item(s), at least 1 required"}},
		{"create item quantity not in Item", CreateRequest, mutate(t, validCreate, func(m map[string]any) {
			obj(m, "line_items", 0)["quantity"] = 1
		}), []string{"$.line_items[0].quantity: unknown property"}},
		{"create affiliate needs token or publisher", CreateRequest, mutate(t, validCreate, func(m map[string]any) {
			delete(obj(m, "affiliate_attribution"), "publisher_id")
		}), []string{"$.affiliate_attribution: matches none of the anyOf alternatives", "$.affiliate_attribution.token: required"}},
		{"create item unit_amount fractional", CreateRequest, mutate(t, validCreate, func(m map[string]any) {
			obj(m, "line_items", 0)["unit_amount"] = 1.25
		}), []string{"$.line_items[0].unit_amount: expected integer"}},
		{"update unknown field", UpdateRequest, `{"currency": "usd"}`, []string{"$.currency: unknown property"}},
		{"update selected option bad type", UpdateRequest, mutate(t, validUpdate, func(m map[string]any) {
			obj(m, "selected_fulfillment_options", 0)["type"] = "ship"
		}), []string{`$.selected_fulfillment_options[0].type: "ship" is not one of`}},
		{"complete missing payment_data", CompleteRequest, `{}`, []string{"$.payment_data: required property is missing"}},
		{"complete payment_data neither shape", CompleteRequest, `{"payment_data": {"handler_id": "h"}}`,
			[]string{"$.payment_data: matches none of the anyOf alternatives", "$.payment_data.instrument: required"}},
		{"complete credential missing token", CompleteRequest, mutate(t, validComplete, func(m map[string]any) {
			delete(obj(m, "payment_data", "instrument", "credential"), "token")
		}), []string{"$.payment_data.instrument.credential.token: required property is missing"}},
		{"complete authenticated without details", CompleteRequest, mutate(t, validComplete, func(m map[string]any) {
			delete(obj(m, "authentication_result"), "outcome_details")
		}), []string{`$.authentication_result.outcome_details: required when outcome is "authenticated"`}},
		{"cancel bad reason", CancelRequest, `{"intent_trace": {"reason_code": "buyer_cancelled"}}`,
			[]string{`$.intent_trace.reason_code: "buyer_cancelled" is not one of`}},
		{"cancel metadata non-scalar", CancelRequest, `{"intent_trace": {"reason_code": "other", "metadata": {"x": {}}}}`,
			[]string{"$.intent_trace.metadata.x: expected string or number or boolean, got object"}},

		// Error and discovery
		{"error bad type", Error, `{"type": "rate_limit_exceeded", "code": "x", "message": "m"}`,
			[]string{`$.type: "rate_limit_exceeded" is not one of [invalid_request, processing_error, service_unavailable]`}},
		{"error missing message", Error, `{"type": "invalid_request", "code": "x"}`, []string{"$.message: required property is missing"}},
		{"error unknown field", Error, `{"type": "invalid_request", "code": "x", "message": "m", "details": {}}`, []string{"$.details: unknown property"}},
		{"discovery wrong protocol name", Discovery, mutate(t, validDiscovery, func(m map[string]any) { obj(m, "protocol")["name"] = "ucp" }),
			[]string{`$.protocol.name: "ucp" must be "acp"`}},
		{"discovery duplicate transport", Discovery, mutate(t, validDiscovery, func(m map[string]any) { m["transports"] = []any{"rest", "rest"} }),
			[]string{"$.transports[1]: duplicates item 0"}},
		{"discovery currency pattern", Discovery, mutate(t, validDiscovery, func(m map[string]any) {
			obj(m, "capabilities")["supported_currencies"] = []any{"USD"}
		}), []string{`$.capabilities.supported_currencies[0]: "USD" does not match pattern`}},

		// Delegate payment
		{"dp missing risk_signals", DelegatePaymentRequest, mutate(t, validDPRequest, func(m map[string]any) { delete(m, "risk_signals") }),
			[]string{"$.risk_signals: required property is missing"}},
		{"dp card type const", DelegatePaymentRequest, mutate(t, validDPRequest, func(m map[string]any) { obj(m, "payment_method")["type"] = "bank" }),
			[]string{`$.payment_method.type: "bank" must be "card"`}},
		{"dp max_amount fractional", DelegatePaymentRequest, mutate(t, validDPRequest, func(m map[string]any) { obj(m, "allowance")["max_amount"] = 19.99 }),
			[]string{"$.allowance.max_amount: expected integer, got number 19.99"}},
		{"dp last4 too long", DelegatePaymentRequest, mutate(t, validDPRequest, func(m map[string]any) { obj(m, "payment_method")["display_last4"] = "42424" }),
			[]string{"$.payment_method.display_last4: string of 5 characters is longer than 4"}},
		{"dp address company not allowed", DelegatePaymentRequest, mutate(t, validDPRequest, func(m map[string]any) { obj(m, "billing_address")["company"] = "ACME" }),
			[]string{"$.billing_address.company: unknown property"}},
		{"dp metadata non-string", DelegatePaymentRequest, mutate(t, validDPRequest, func(m map[string]any) { obj(m, "metadata")["n"] = 1 }),
			[]string{"$.metadata.n: expected string, got integer 1"}},
		{"dp response missing created", DelegatePaymentResponse, `{"id": "vt_1", "metadata": {}}`, []string{"$.created: required property is missing"}},
		{"dp response bad created", DelegatePaymentResponse, `{"id": "vt_1", "created": "yesterday", "metadata": {}}`, []string{`$.created: "yesterday" is not an RFC 3339`}},
		{"dp error bad code", DelegatePaymentError, `{"type": "invalid_request", "code": "invalid_email", "message": "m"}`,
			[]string{`$.code: "invalid_email" is not one of [invalid_card, duplicate_request, idempotency_conflict, too_many_requests, idempotency_key_required, idempotency_in_flight]`}},

		// Webhook
		{"webhook bad type", WebhookEvent, mutate(t, validWebhook, func(m map[string]any) { m["type"] = "order_created" }),
			[]string{`$.type: "order_created" is not one of [order_create, order_update]`}},
		{"webhook data missing status", WebhookEvent, mutate(t, validWebhook, func(m map[string]any) { delete(obj(m, "data"), "status") }),
			[]string{"$.data.status: required property is missing"}},
		{"webhook data legacy refunds", WebhookEvent, mutate(t, validWebhook, func(m map[string]any) { obj(m, "data")["refunds"] = []any{} }),
			[]string{"$.data.refunds: unknown property"}},
		{"webhook data type const", WebhookEvent, mutate(t, validWebhook, func(m map[string]any) { obj(m, "data")["type"] = "checkout_session" }),
			[]string{`$.data.type: "checkout_session" must be "order"`}},
		{"webhook adjustment missing status", WebhookEvent, mutate(t, validWebhook, func(m map[string]any) {
			delete(obj(m, "data", "adjustments", 0), "status")
		}), []string{"$.data.adjustments[0].status: required property is missing"}},
		{"webhook missing data", WebhookEvent, `{"type": "order_create"}`, []string{"$.data: required property is missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.fn([]byte(tt.doc))
			if err == nil {
				t.Fatalf("want an error mentioning %q, got nil", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
		})
	}
}

// Every problem is reported, not just the first.
func TestReportsAllProblems(t *testing.T) {
	doc := mutate(t, validSession, func(m map[string]any) {
		delete(m, "id")
		m["status"] = "bogus"
		obj(m, "totals", 1)["amount"] = 1.5
	})
	err := CheckoutSession([]byte(doc))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *ValidationError, got %v", err)
	}
	if len(ve.Problems) != 3 {
		t.Fatalf("want 3 problems, got %d:\n%v", len(ve.Problems), err)
	}
}
