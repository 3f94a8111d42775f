package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"marketplace/internal/httpapi/acp/acpcheck"
	"marketplace/internal/testkit"
)

// ACP's MCP binding: the five checkout tools on /mcp, over the official
// client on both transports. Every payload sent is checked against ACP's
// request schema, and every answer against ACP's CheckoutSession or, for a
// refusal, its flat Error (acpcheck, as the REST tests do).

var acpRequestCheck = map[string]func([]byte) error{
	"create_checkout_session":   acpcheck.CreateRequest,
	"update_checkout_session":   acpcheck.UpdateRequest,
	"complete_checkout_session": acpcheck.CompleteRequest,
	"cancel_checkout_session":   acpcheck.CancelRequest,
}

// acpArgs are a checkout tool's arguments: meta with the version (and the
// idempotency key, unless ""), the session id (unless "") and the payload
// (unless nil).
func acpArgs(key, id string, payload map[string]any) map[string]any {
	meta := map[string]any{"api_version": "2026-04-17"}
	if key != "" {
		meta["idempotency_key"] = key
	}
	args := map[string]any{"meta": meta}
	if id != "" {
		args["id"] = id
	}
	if payload != nil {
		args["payload"] = payload
	}
	return args
}

// acpCall calls a checkout tool and checks what went and came back against
// ACP's schemas; code is the refusal's ACP code, "" for success.
func acpCall(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any, code string) map[string]any {
	t.Helper()
	if p, ok := args["payload"]; ok {
		raw, _ := json.Marshal(p)
		if err := acpRequestCheck[tool](raw); err != nil {
			t.Fatalf("%s: the payload breaks ACP's schema: %v\n%s", tool, err, raw)
		}
	}
	a := call(t, cs, tool, args).want(t, tool, code)
	raw, _ := json.Marshal(a.Data)
	check := acpcheck.CheckoutSession
	if code != "" {
		check = acpcheck.Error
		for k := range a.Data {
			if !slices.Contains([]string{"type", "code", "message", "param", "supported_versions"}, k) {
				t.Fatalf("%s: the refusal is not ACP's flat error: %s", tool, raw)
			}
		}
	}
	if err := check(raw); err != nil {
		t.Fatalf("%s: the answer breaks ACP's schema: %v\n%s", tool, err, raw)
	}
	return a.Data
}

func acpList(m map[string]any, k string) []any { l, _ := m[k].([]any); return l }

func acpTotal(m map[string]any, typ string) int64 {
	for _, x := range acpList(m, "totals") {
		if tt := x.(map[string]any); tt["type"] == typ {
			return int64(tt["amount"].(float64))
		}
	}
	return -1
}

func acpAddress() map[string]any {
	return map[string]any{"name": "Ada Buyer", "line_one": "1 Main St", "city": "Portland", "state": "OR",
		"country": "US", "postal_code": "97201"}
}

func acpSavedCard() map[string]any {
	return map[string]any{"payment_data": map[string]any{"handler_id": "saved_payment_method",
		"instrument": map[string]any{"type": "card", "credential": map[string]any{"type": "saved_payment_method", "token": "default"}}}}
}

// TestACPTools walks an agent through ACP's checkout over MCP: the five
// tools listed with their input schemas; create, an address, an option and
// complete with the owner's saved card, which makes one order and one
// charge; get; the refusals (cancel of a completed session, an unknown
// session, no api_version, a bad payload field, a key without buy scope)
// as isError with ACP's flat error; a cancel; and meta.idempotency_key
// with the REST binding's rules, in one key space with the REST route.
func TestACPTools(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("acpt-seller")
		buyer := s.NewShopper("acpt-buyer", "pm_card_visa")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000})
		sellKey := s.NewKey(s.VerifiedOwner("acpt-seller-agent"), "sell").Secret

		for i, tr := range transports {
			cs := tr.open(t, s, buyer.Key.Secret)

			list, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for tool, want := range map[string][]string{
				"create_checkout_session": {"meta", "payload"}, "get_checkout_session": {"id", "meta"},
				"update_checkout_session": {"id", "meta", "payload"}, "complete_checkout_session": {"id", "meta", "payload"},
				"cancel_checkout_session": {"id", "meta"},
			} {
				i := slices.IndexFunc(list.Tools, func(x *mcp.Tool) bool { return x.Name == tool })
				if i < 0 {
					t.Fatalf("%s: tools/list has no %s", tr.name, tool)
				}
				raw, _ := json.Marshal(list.Tools[i].InputSchema)
				var sch struct {
					Type       string   `json:"type"`
					Required   []string `json:"required"`
					Properties map[string]struct {
						Required []string `json:"required"`
					} `json:"properties"`
				}
				if err := json.Unmarshal(raw, &sch); err != nil {
					t.Fatal(err)
				}
				slices.Sort(sch.Required)
				if sch.Type != "object" || !slices.Equal(sch.Required, want) ||
					!slices.Equal(sch.Properties["meta"].Required, []string{"api_version"}) {
					t.Fatalf("%s: %s input schema %s", tr.name, tool, raw)
				}
				if tool == "create_checkout_session" && !slices.Equal(sch.Properties["payload"].Required,
					[]string{"line_items", "currency", "capabilities"}) {
					t.Fatalf("%s: %s payload schema %s", tr.name, tool, raw)
				}
				if a := list.Tools[i].Annotations; a.ReadOnlyHint != (tool == "get_checkout_session") ||
					*a.DestructiveHint != (tool == "complete_checkout_session" || tool == "cancel_checkout_session") {
					t.Fatalf("%s: %s annotations %+v", tr.name, tool, a)
				}
			}

			listing := s.ListingWith(t, seller, fmt.Sprintf("walnut cutting board end grain large, board %d", i), 4500,
				map[string]any{"shippingType": "calculated"})
			create := map[string]any{"line_items": []any{map[string]any{"id": listing}}, "currency": "usd",
				"capabilities": map[string]any{}, "buyer": map[string]any{"first_name": "Ada", "email": "ada@example.com"}}
			key := "create-" + tr.name
			created := acpCall(t, cs, "create_checkout_session", acpArgs(key, "", create), "")
			id, _ := created["id"].(string)
			if created["status"] != "incomplete" || len(acpList(created, "fulfillment_options")) != 0 {
				t.Fatalf("%s: created %v", tr.name, created)
			}
			// The key: a retry replays the session; another payload is a conflict.
			if again := acpCall(t, cs, "create_checkout_session", acpArgs(key, "", create), ""); again["id"] != id {
				t.Fatalf("%s: the retry made session %v, not %s", tr.name, again["id"], id)
			}
			other := map[string]any{"line_items": create["line_items"], "currency": "usd", "capabilities": map[string]any{}}
			acpCall(t, cs, "create_checkout_session", acpArgs(key, "", other), "idempotency_conflict")

			withAddress := acpCall(t, cs, "update_checkout_session", acpArgs("", id, map[string]any{
				"fulfillment_details": map[string]any{"name": "Ada Buyer", "address": acpAddress()}}), "")
			opts := acpList(withAddress, "fulfillment_options")
			if withAddress["status"] != "incomplete" || len(opts) == 0 {
				t.Fatalf("%s: with an address %v", tr.name, withAddress)
			}
			opt := opts[0].(map[string]any)
			item := acpList(withAddress, "line_items")[0].(map[string]any)["id"]
			ready := acpCall(t, cs, "update_checkout_session", acpArgs("", id, map[string]any{"selected_fulfillment_options": []any{
				map[string]any{"type": opt["type"], "option_id": opt["id"], "item_ids": []any{item}}}}), "")
			if ready["status"] != "ready_for_payment" || acpTotal(ready, "fulfillment") < 0 || acpTotal(ready, "total") <= 4500 {
				t.Fatalf("%s: with an option %v", tr.name, ready)
			}

			done := acpCall(t, cs, "complete_checkout_session", acpArgs("complete-"+tr.name, id, acpSavedCard()), "")
			order, _ := done["order"].(map[string]any)
			orderID, _ := order["id"].(string)
			if done["status"] != "completed" || orderID == "" || order["checkout_session_id"] != id {
				t.Fatalf("%s: complete %v", tr.name, done)
			}
			o := s.Do("GET", "/api/v1/orders/"+orderID, nil, buyer.Auth()).Want(t, http.StatusOK, "").Data()
			if testkit.Num(t, testkit.Obj(t, o, "fees"), "totalCharged") != acpTotal(ready, "total") || o["status"] != "paid" {
				t.Fatalf("%s: the order %v", tr.name, o)
			}
			if got := s.Charges(); got != int64(i+1) {
				t.Fatalf("%s: %d charges after %d completes", tr.name, got, i+1)
			}
			// A retry of the complete replays it; nothing is charged again.
			acpCall(t, cs, "complete_checkout_session", acpArgs("complete-"+tr.name, id, acpSavedCard()), "")
			got := acpCall(t, cs, "get_checkout_session", acpArgs("", id, nil), "")
			if got["status"] != "completed" || got["order"].(map[string]any)["id"] != orderID || s.Charges() != int64(i+1) {
				t.Fatalf("%s: get after complete %v (%d charges)", tr.name, got, s.Charges())
			}

			// Refusals: isError with ACP's flat error.
			e := acpCall(t, cs, "cancel_checkout_session", acpArgs("", id, nil), "not_allowed")
			if e["type"] != "invalid_request" || e["message"] == "" {
				t.Fatalf("%s: cancel of a completed session %v", tr.name, e)
			}
			acpCall(t, cs, "get_checkout_session", acpArgs("", "cs_nosuchsession", nil), "not_found")
			acpCall(t, cs, "update_checkout_session", acpArgs("", "cs_nosuchsession", map[string]any{}), "not_found")
			noVersion := acpArgs("", id, nil)
			noVersion["meta"] = map[string]any{}
			e = acpCall(t, cs, "get_checkout_session", noVersion, "unsupported_api_version")
			if v := acpList(e, "supported_versions"); len(v) != 1 || v[0] != "2026-04-17" {
				t.Fatalf("%s: supported_versions %v", tr.name, e)
			}
			noCurrency := map[string]any{"line_items": create["line_items"], "currency": "", "capabilities": map[string]any{}}
			if e := call(t, cs, "create_checkout_session", acpArgs("", "", noCurrency)).want(t, "create", "invalid").Data; e["param"] != "$.payload.currency" {
				t.Fatalf("%s: a payload without currency %v", tr.name, e)
			}
			if e := call(t, cs, "get_checkout_session", map[string]any{"meta": map[string]any{"api_version": "2026-04-17"}}).
				want(t, "get", "invalid").Data; e["param"] != "$.id" {
				t.Fatalf("%s: no id %v", tr.name, e)
			}
			acpCall(t, tr.open(t, s, sellKey), "get_checkout_session", acpArgs("", id, nil), "insufficient_scope")

			// An open session cancels, with the payload left out.
			open := acpCall(t, cs, "create_checkout_session", acpArgs("", "", create), "")
			if c := acpCall(t, cs, "cancel_checkout_session", acpArgs("", open["id"].(string), nil), ""); c["status"] != "canceled" {
				t.Fatalf("%s: cancel %v", tr.name, c)
			}
		}

		// Discovery names the MCP transport.
		dr, err := http.Get(s.URL + "/.well-known/acp.json")
		if err != nil {
			t.Fatal(err)
		}
		d, err := io.ReadAll(dr.Body)
		dr.Body.Close()
		if err := acpcheck.Discovery(d); err != nil || dr.StatusCode != http.StatusOK {
			t.Fatalf("discovery %d: %v\n%s", dr.StatusCode, err, d)
		}
		var disc struct {
			Transports []string `json:"transports"`
		}
		if err := json.Unmarshal(d, &disc); err != nil || !slices.Equal(disc.Transports, []string{"rest", "mcp"}) {
			t.Fatalf("discovery transports %v (%v)", disc.Transports, err)
		}

		// One key space with REST: a tool call with the key of a REST
		// request, and the same body, answers that request's session.
		body := map[string]any{"line_items": []any{map[string]any{"id": s.ActiveListing(seller, "brass desk lamp with a green glass shade", 2500)}},
			"currency": "usd", "capabilities": map[string]any{}}
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", s.URL+"/acp/checkout_sessions", bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+buyer.Key.Secret)
		req.Header.Set("API-Version", "2026-04-17")
		req.Header.Set("Idempotency-Key", "shared-key")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var rest map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&rest); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("REST create: %d %v %v", resp.StatusCode, rest, err)
		}
		resp.Body.Close()
		cs := overHTTP(t, s, buyer.Key.Secret)
		if viaMCP := acpCall(t, cs, "create_checkout_session", acpArgs("shared-key", "", body), ""); viaMCP["id"] != rest["id"] {
			t.Fatalf("the tool call with the REST request's key made %v, REST made %v", viaMCP["id"], rest["id"])
		}
	})
}
