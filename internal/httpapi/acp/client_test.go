package acp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"marketplace/internal/httpapi/acp/acpcheck"
	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

// client speaks ACP to a test server as an agent platform would, and
// checks every request it sends and every answer it gets against ACP
// 2026-04-17's schemas (acpcheck).
type client struct {
	t      testing.TB
	s      *testkit.Server
	secret string // Authorization: Bearer
	// version is the API-Version sent; "-" sends none.
	version string
}

func newClient(t testing.TB, s *testkit.Server, secret string) *client {
	return &client{t: t, s: s, secret: secret, version: "2026-04-17"}
}

// answer is one exchange's outcome.
type answer struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// send makes one request; key "" sends no Idempotency-Key, "new" a fresh
// one. The request body is checked against the request schema of its
// route (when check is set), the answer against the session, error or
// discovery schema its status calls for.
func (c *client) send(method, path, key string, body any) *answer {
	c.t.Helper()
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			c.t.Fatal(err)
		}
		if err := requestSchema(method, path)(raw); err != nil {
			c.t.Fatalf("%s %s: the request breaks ACP's schema: %v\n%s", method, path, err, raw)
		}
	}
	req, err := http.NewRequest(method, c.s.URL+path, bytes.NewReader(raw))
	if err != nil {
		c.t.Fatal(err)
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.secret != "" {
		req.Header.Set("Authorization", "Bearer "+c.secret)
	}
	if c.version != "-" {
		req.Header.Set("API-Version", c.version)
	}
	if key == "new" {
		key = market.NewID()
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	req.Header.Set("Request-Id", "req_"+market.NewID())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	a := &answer{Status: resp.StatusCode, Header: resp.Header}
	if a.Body, err = io.ReadAll(resp.Body); err != nil {
		c.t.Fatal(err)
	}
	if err := json.Unmarshal(a.Body, &a.JSON); err != nil {
		c.t.Fatalf("%s %s: answer %d is not a JSON object: %v\n%s", method, path, a.Status, err, a.Body)
	}
	if got := resp.Header.Get("Request-Id"); got != req.Header.Get("Request-Id") {
		c.t.Errorf("%s %s: Request-Id echoed as %q, sent %q", method, path, got, req.Header.Get("Request-Id"))
	}
	if key != "" && a.Status < 500 && resp.Header.Get("Idempotency-Key") != key {
		c.t.Errorf("%s %s: Idempotency-Key echoed as %q, sent %q", method, path, resp.Header.Get("Idempotency-Key"), key)
	}
	check := acpcheck.CheckoutSession
	switch {
	case path == "/acp/delegate_payment" && a.Status >= 400 && a.Status != http.StatusUnauthorized &&
		a.Status != http.StatusForbidden && a.Status != http.StatusNotFound:
		// The request's own refusals; those of the credential are the
		// protocol's Error, as on every route.
		check = acpcheck.DelegatePaymentError
	case path == "/acp/delegate_payment" && a.Status < 400:
		check = acpcheck.DelegatePaymentResponse
	case a.Status >= 400:
		check = acpcheck.Error
	case path == "/.well-known/acp.json":
		check = acpcheck.Discovery
	}
	if err := check(a.Body); err != nil {
		c.t.Fatalf("%s %s: answer %d breaks ACP's schema: %v\n%s", method, path, a.Status, err, a.Body)
	}
	return a
}

// requestSchema is the schema check of a request body to path.
func requestSchema(method, path string) func([]byte) error {
	switch {
	case path == "/acp/checkout_sessions":
		return acpcheck.CreateRequest
	case path == "/acp/delegate_payment":
		return acpcheck.DelegatePaymentRequest
	case strings.HasSuffix(path, "/complete"):
		return acpcheck.CompleteRequest
	case strings.HasSuffix(path, "/cancel"):
		return acpcheck.CancelRequest
	}
	return acpcheck.UpdateRequest
}

// want fails unless the answer has status and, for an error, code.
func (a *answer) want(t testing.TB, status int, code string) *answer {
	t.Helper()
	if a.Status != status || code != "" && a.JSON["code"] != code {
		t.Fatalf("got %d %v, want %d %s\n%s", a.Status, a.JSON["code"], status, code, a.Body)
	}
	return a
}

// session helpers.

func (a *answer) id() string     { return a.JSON["id"].(string) }
func (a *answer) status() string { return a.JSON["status"].(string) }
func (a *answer) list(k string) []any {
	l, _ := a.JSON[k].([]any)
	return l
}

// total is the amount of the session total of type typ, -1 when absent.
func (a *answer) total(typ string) int64 {
	for _, x := range a.list("totals") {
		m := x.(map[string]any)
		if m["type"] == typ {
			return int64(m["amount"].(float64))
		}
	}
	return -1
}

// message is the session's first message with code (for errors) or of
// type info (code ""), or nil.
func (a *answer) message(code string) map[string]any {
	for _, x := range a.list("messages") {
		m := x.(map[string]any)
		if code == "" && m["type"] == "info" || code != "" && m["code"] == code {
			return m
		}
	}
	return nil
}

// wantMessage fails unless the session has an error message with code
// (and param, resolution when given).
func (a *answer) wantMessage(t testing.TB, code, param, resolution string) map[string]any {
	t.Helper()
	m := a.message(code)
	if m == nil {
		t.Fatalf("no %s message in %s", code, a.Body)
	}
	if param != "" && m["param"] != param || resolution != "" && m["resolution"] != resolution {
		t.Fatalf("%s message %v, want param %s, resolution %s", code, m, param, resolution)
	}
	return m
}

// acpAddress is an ACP address in the United States.
func acpAddress() map[string]any {
	return map[string]any{"name": "Ada Buyer", "line_one": "1 Main St", "city": "Portland", "state": "OR",
		"country": "US", "postal_code": "97201"}
}

// savedCard is payment data charging the key owner's saved card.
func savedCard() map[string]any {
	return map[string]any{"payment_data": map[string]any{"handler_id": "saved_payment_method",
		"instrument": map[string]any{"type": "card", "credential": map[string]any{"type": "saved_payment_method", "token": "default"}}}}
}

// card is payment data charging a delegated card token.
func card(token string) map[string]any {
	return map[string]any{"payment_data": map[string]any{"handler_id": "card_tokenized",
		"instrument": map[string]any{"type": "card", "credential": map[string]any{"type": "spt", "token": token}}}}
}

// delegate asks the sandbox PSP for a token of card number for session,
// up to max cents, expiring after ttl; it answers the token, or "" with
// the answer when the request is refused.
func (c *client) delegate(number, session string, max int64, ttl time.Duration) (string, *answer) {
	c.t.Helper()
	a := c.send("POST", "/acp/delegate_payment", "new", c.delegation(number, session, max, ttl))
	if a.Status != http.StatusCreated {
		return "", a
	}
	return a.JSON["id"].(string), a
}

// delegation is a delegate_payment request.
func (c *client) delegation(number, session string, max int64, ttl time.Duration) map[string]any {
	return map[string]any{
		"payment_method": map[string]any{"type": "card", "card_number_type": "fpan", "virtual": false, "number": number,
			"exp_month": "12", "exp_year": strconv.Itoa(time.Now().Year() + 2), "name": "Ada Buyer", "cvc": "123",
			"display_card_funding_type": "credit", "display_brand": "visa", "display_last4": number[len(number)-4:],
			"metadata": map[string]any{}},
		"allowance": map[string]any{"reason": "one_time", "max_amount": max, "currency": "usd", "checkout_session_id": session,
			"merchant_id": "marketplace", "expires_at": c.s.Clock.Now().Add(ttl).UTC().Format(time.RFC3339)},
		"risk_signals": []any{map[string]any{"type": "card_testing", "score": 3, "action": "authorized"}},
		"metadata":     map[string]any{"source": "test"}}
}

// openFor opens a session for listing bought by a guest of email, with
// an address and the first shipping option chosen.
func (c *client) openFor(listing, email string) *answer {
	c.t.Helper()
	a := c.send("POST", "/acp/checkout_sessions", "new", map[string]any{"line_items": []any{map[string]any{"id": listing}},
		"currency": "usd", "capabilities": map[string]any{}, "buyer": map[string]any{"first_name": "Ada", "email": email},
		"fulfillment_details": map[string]any{"name": "Ada Buyer", "address": acpAddress()}}).want(c.t, http.StatusCreated, "")
	return c.choose(a.id())
}

// choose selects a session's first fulfillment option.
func (c *client) choose(id string) *answer {
	c.t.Helper()
	return c.pick(c.send("GET", "/acp/checkout_sessions/"+id, "", nil).want(c.t, http.StatusOK, ""))
}

// pick selects the first fulfillment option of session a.
func (c *client) pick(a *answer) *answer {
	c.t.Helper()
	id := a.id()
	opts := a.list("fulfillment_options")
	if len(opts) == 0 {
		c.t.Fatalf("no fulfillment options: %s", a.Body)
	}
	opt := opts[0].(map[string]any)
	item := a.list("line_items")[0].(map[string]any)["id"]
	return c.send("POST", "/acp/checkout_sessions/"+id, "new", map[string]any{"selected_fulfillment_options": []any{
		map[string]any{"type": opt["type"], "option_id": opt["id"], "item_ids": []any{item}}}}).want(c.t, http.StatusOK, "")
}

// open creates a session for listing and gives it an address; with
// option it also selects the first shipping option offered.
func (c *client) open(listing string, choose bool) *answer {
	c.t.Helper()
	a := c.send("POST", "/acp/checkout_sessions", "new", map[string]any{"line_items": []any{map[string]any{"id": listing}},
		"currency": "usd", "capabilities": map[string]any{}}).want(c.t, http.StatusCreated, "")
	id := a.id()
	a = c.send("POST", "/acp/checkout_sessions/"+id, "new", map[string]any{
		"fulfillment_details": map[string]any{"name": "Ada Buyer", "address": acpAddress()}}).want(c.t, http.StatusOK, "")
	if !choose {
		return a
	}
	return c.pick(a)
}
