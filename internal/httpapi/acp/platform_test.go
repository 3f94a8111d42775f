package acp_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"marketplace/internal/httpapi/acp/acpcheck"

	"marketplace/internal/market"
	"marketplace/internal/notify"
	"marketplace/internal/testkit"
)

// connect has an admin connect an agent platform; it answers the
// platform's id and secret.
func connect(t *testing.T, s *testkit.Server, hook string) (id, secret string) {
	t.Helper()
	p := s.Do("POST", "/api/v1/admin/acp-platforms", map[string]any{"name": "Example Agents", "webhookUrl": hook},
		s.Admin().Auth()).Want(t, http.StatusCreated, "").Data()
	secret, _ = p["secret"].(string)
	if !strings.HasPrefix(secret, "acp_") || !strings.HasPrefix(p["signingSecret"].(string), "whsec_") {
		t.Fatalf("platform %v", p)
	}
	return p["id"].(string), secret
}

// TestACPPlatformFlow walks an agent platform's purchase for a guest
// buyer: a session with the buyer's e-mail, an address, an option, a card
// delegated to the sandbox PSP, complete, and the order that results,
// bought by the guest of that e-mail, whose mails reach the address.
func TestACPPlatformFlow(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{WithJobs: true}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("Selma")
		listing := s.ListingWith(t, seller, "walnut cutting board end grain large", 4500,
			map[string]any{"shippingType": "calculated"})
		hook := newReceiver(t)
		platform := s.Do("POST", "/api/v1/admin/acp-platforms", map[string]any{"name": "Example Agents", "webhookUrl": hook.URL},
			s.Admin().Auth()).Want(t, http.StatusCreated, "").Data()
		secret, signing := platform["secret"].(string), platform["signingSecret"].(string)
		c := newClient(t, s, secret)

		d := c.send("GET", "/.well-known/acp.json", "", nil).want(t, http.StatusOK, "")
		if services, _ := d.JSON["capabilities"].(map[string]any)["services"].([]any); !containsAll(services, "checkout", "delegate_payment") {
			t.Errorf("discovery services %v", d.JSON["capabilities"])
		}
		created := c.send("POST", "/acp/checkout_sessions", "new", map[string]any{
			"line_items": []any{map[string]any{"id": listing}}, "currency": "usd", "capabilities": map[string]any{}}).
			want(t, http.StatusCreated, "")
		id := created.id()
		created.wantMessage(t, "missing", "$.buyer.email", "")
		handlers := created.JSON["capabilities"].(map[string]any)["payment"].(map[string]any)["handlers"].([]any)
		if len(handlers) != 1 || handlers[0].(map[string]any)["id"] != "card_tokenized" {
			t.Fatalf("a platform's handlers: %v", handlers)
		}
		c.send("POST", "/acp/checkout_sessions/"+id, "new", map[string]any{
			"buyer":               map[string]any{"first_name": "Gwen", "last_name": "Guest", "email": "Gwen.Guest@Example.com"},
			"fulfillment_details": map[string]any{"name": "Gwen Guest", "address": acpAddress()}}).want(t, http.StatusOK, "")
		ready := c.choose(id)
		if ready.status() != "ready_for_payment" {
			t.Fatalf("ready: %s", ready.Body)
		}
		total := ready.total("total")

		token, a := c.delegate("4242424242424242", id, total, time.Hour)
		if !strings.HasPrefix(token, "vt_") || a.JSON["metadata"].(map[string]any)["merchant_id"] != "marketplace" {
			t.Fatalf("delegate_payment: %s", a.Body)
		}
		done := c.send("POST", "/acp/checkout_sessions/"+id+"/complete", "new", card(token)).want(t, http.StatusOK, "")
		if done.status() != "completed" || s.Charges() != 1 {
			t.Fatalf("complete: %s (%d charges)", done.Body, s.Charges())
		}
		orderID := done.JSON["order"].(map[string]any)["id"].(string)

		// The order is the guest's: a buyer account of the e-mail that
		// cannot sign in, charged the session's total.
		ctx := context.Background()
		o, err := s.App.Orders.Get(ctx, market.Actor{Type: market.ActorAdmin, Admin: true}, orderID)
		if err != nil || o.Fees.TotalCharged != total || o.CheckoutSessionID != id {
			t.Fatalf("order %+v, %v", o, err)
		}
		guest, err := s.App.Accounts.User(ctx, o.BuyerID)
		if err != nil || !guest.IsGuest() || guest.Email != "gwen.guest@example.com" {
			t.Fatalf("buyer %+v, %v", guest, err)
		}
		s.Do("POST", "/api/v1/auth/login", map[string]any{"email": guest.Email, "password": ""}).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		mails, err := s.App.Notify.Outbox(ctx, guest.ID, 20)
		if err != nil || !mailedAbout(mails, guest.Email) {
			t.Fatalf("the guest's mails %+v, %v", mails, err)
		}

		// The platform hears of the order, then of its shipping and its
		// refunds, each event signed with its signing secret.
		made := hook.next(t, signing)
		if made.Type != "order_create" || made.Data["id"] != orderID || made.Data["status"] != "confirmed" ||
			made.Data["checkout_session_id"] != id {
			t.Fatalf("order_create %+v", made)
		}
		s.Do("POST", "/api/v1/orders/"+orderID+"/ship", map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"},
			seller.Auth()).Want(t, http.StatusOK, "")
		shipped := hook.next(t, signing)
		f := shipped.Data["fulfillments"].([]any)[0].(map[string]any)
		if shipped.Type != "order_update" || shipped.Data["status"] != "shipped" || f["tracking_number"] != "1Z999AA10123456784" {
			t.Fatalf("shipped %+v", shipped)
		}
		refund := func(amount int64) {
			s.Do("POST", "/api/v1/purchases/"+orderID+"/refund/seller", map[string]any{"action": "approve", "amount": amount,
				"reason": "damaged"}, seller.Auth()).Want(t, http.StatusOK, "")
		}
		refund(1000)
		partial := hook.next(t, signing)
		adj, _ := partial.Data["adjustments"].([]any)
		if partial.Data["status"] != "shipped" || len(adj) != 1 || adj[0].(map[string]any)["amount"].(float64) != 1000 {
			t.Fatalf("a partial refund %+v", partial)
		}
		refund(total - 1000)
		full := hook.next(t, signing)
		if full.Data["status"] != "canceled" || len(full.Data["adjustments"].([]any)) != 2 {
			t.Fatalf("a full refund %+v", full)
		}
		// The delivery log.
		// (A delivery is marked delivered just after its answer came.)
		var log []any
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			log = s.Do("GET", "/api/v1/admin/acp-platforms/"+platform["id"].(string)+"/deliveries", nil, s.Admin().Auth()).
				Want(t, http.StatusOK, "").List()
			if len(log) == 4 && log[0].(map[string]any)["status"] == "delivered" || time.Now().After(deadline) {
				break
			}
		}
		if len(log) != 4 || log[0].(map[string]any)["status"] != "delivered" || log[3].(map[string]any)["eventType"] != "order.created" {
			t.Fatalf("delivery log %v", log)
		}

		// A second session of the same e-mail buys as the same guest.
		other := s.ListingWith(t, seller, "brass desk lamp with a green glass shade", 2500, map[string]any{"shippingType": "calculated"})
		id2 := c.openFor(other, "gwen.guest@example.com").id()
		tok2, _ := c.delegate("4242424242424242", id2, 100000, time.Hour)
		done2 := c.send("POST", "/acp/checkout_sessions/"+id2+"/complete", "new", card(tok2)).want(t, http.StatusOK, "")
		o2, err := s.App.Orders.Get(ctx, market.Actor{Type: market.ActorAdmin, Admin: true}, done2.JSON["order"].(map[string]any)["id"].(string))
		if err != nil || o2.BuyerID != guest.ID {
			t.Fatalf("second order %+v, %v", o2, err)
		}
	})
}

// TestACPDelegatedTokens: a token is charged once, within its allowance,
// for its own session, before it expires; every other use is declined
// with payment_declined and nothing charged.
func TestACPDelegatedTokens(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("Selma")
		_, secret := connect(t, s, "http://127.0.0.1:9/acp")
		c := newClient(t, s, secret)
		session := func(title string) (string, int64) {
			l := s.ListingWith(t, seller, title, 3000, map[string]any{"shippingType": "calculated"})
			a := c.openFor(l, "tess@example.com")
			return a.id(), a.total("total")
		}
		declined := func(id string, pay map[string]any, why string) {
			t.Helper()
			before := s.Charges()
			a := c.send("POST", "/acp/checkout_sessions/"+id+"/complete", "new", pay).want(t, http.StatusOK, "")
			m := a.wantMessage(t, "payment_declined", "", "recoverable")
			if a.status() != "ready_for_payment" || s.Charges() != before {
				t.Fatalf("%s: %s, %d charges", why, a.Body, s.Charges()-before)
			}
			if !strings.Contains(m["content"].(string), why) {
				t.Errorf("message %q does not say %q", m["content"], why)
			}
		}

		a, totalA := session("oak bookshelf five shelves")
		b, totalB := session("pine bookshelf three shelves")
		tokA, _ := c.delegate("4242424242424242", a, totalA, time.Hour)
		declined(b, card(tokA), "another checkout session")
		over, _ := c.delegate("4242424242424242", b, totalB-1, time.Hour)
		declined(b, card(over), "over the payment token's allowance")
		soon, _ := c.delegate("4242424242424242", b, totalB, time.Second)
		s.Clock.Advance(2 * time.Second)
		declined(b, card(soon), "expired")
		declined(b, card("vt_unknown"), "unknown")
		bad, _ := c.delegate("4000000000000002", b, totalB, time.Hour)
		declined(b, card(bad), "declined")

		c.send("POST", "/acp/checkout_sessions/"+a+"/complete", "new", card(tokA)).want(t, http.StatusOK, "")
		charged := s.Charges()
		cSess, _ := session("maple bookshelf two shelves")
		// Used: the token of a's purchase cannot pay again, even for a
		// session whose allowance check it would otherwise fail later.
		declined(cSess, card(tokA), "used already")
		if s.Charges() != charged {
			t.Fatalf("charges moved")
		}

		// Refused requests: a card that is none, another merchant, a
		// session of someone else's.
		if _, r := c.delegate("4242424242424241", b, totalB, time.Hour); r.Status != http.StatusBadRequest || r.JSON["code"] != "invalid_card" ||
			r.JSON["param"] != "$.payment_method.number" {
			t.Errorf("bad number: %s", r.Body)
		}
		buyer := s.NewShopper("Bruno", "pm_card_visa")
		if _, r := newClient(t, s, buyer.Key.Secret).delegate("4242424242424242", b, totalB, time.Hour); r.Status != http.StatusBadRequest ||
			r.JSON["param"] != "$.allowance.checkout_session_id" {
			t.Errorf("another's session: %s", r.Body)
		}
		c.send("POST", "/acp/delegate_payment", "", c.delegation("4242424242424242", b, totalB, time.Hour)).
			want(t, http.StatusBadRequest, "idempotency_key_required")
	})
}

// TestACPPlatformCredentials: a platform's secret works on /acp only, and
// not once the platform is deleted.
func TestACPPlatformCredentials(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		id, secret := connect(t, s, "http://127.0.0.1:9/acp")
		adm := s.Admin()
		list := s.Do("GET", "/api/v1/admin/acp-platforms", nil, adm.Auth()).Want(t, http.StatusOK, "").List()
		if len(list) != 1 || list[0].(map[string]any)["id"] != id || list[0].(map[string]any)["secret"] != nil {
			t.Fatalf("list %v", list)
		}
		user := s.Register("nobody")
		s.Do("GET", "/api/v1/admin/acp-platforms", nil, user.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("POST", "/api/v1/admin/acp-platforms", map[string]any{"name": "", "webhookUrl": "ftp://x"}, adm.Auth()).
			Want(t, http.StatusBadRequest, "VALIDATION_ERROR")

		c := newClient(t, s, secret)
		c.send("GET", "/acp/checkout_sessions/cs_"+market.NewID(), "", nil).want(t, http.StatusNotFound, "not_found")
		// Not a credential of any other surface.
		s.Do("GET", "/v1/auth/whoami", nil, testkit.Header{Name: "Authorization", Value: "Bearer " + secret}).
			Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		s.Do("GET", "/api/v1/auth/me", nil, testkit.Header{Name: "Authorization", Value: "Bearer " + secret}).
			Want(t, http.StatusUnauthorized, "UNAUTHORIZED")

		s.Do("DELETE", "/api/v1/admin/acp-platforms/"+id, nil, adm.Auth()).Want(t, http.StatusOK, "")
		s.Do("DELETE", "/api/v1/admin/acp-platforms/"+id, nil, adm.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		c.send("GET", "/acp/checkout_sessions/cs_"+market.NewID(), "", nil).want(t, http.StatusUnauthorized, "unauthorized")
		newClient(t, s, "acp_nonsense").send("POST", "/acp/checkout_sessions", "new", map[string]any{
			"line_items": []any{map[string]any{"id": "x"}}, "currency": "usd", "capabilities": map[string]any{}}).
			want(t, http.StatusUnauthorized, "unauthorized")
	})
}

func containsAll(list []any, want ...string) bool {
	for _, w := range want {
		found := false
		for _, v := range list {
			found = found || v == w
		}
		if !found {
			return false
		}
	}
	return true
}

// mailedAbout reports whether an order mail went to the address.
func mailedAbout(mails []notify.Mail, to string) bool {
	for _, m := range mails {
		if m.To == to && strings.HasPrefix(m.Kind, "order.") {
			return true
		}
	}
	return false
}

// receiver is a platform's webhook URL: it keeps what it is sent.
type receiver struct {
	*httptest.Server
	got chan received
}

type received struct {
	header http.Header
	body   []byte
}

// hookEvent is an ACP order webhook as received.
type hookEvent struct {
	Type string         `json:"type"`
	Data map[string]any `json:"data"`
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{got: make(chan received, 32)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.got <- received{header: req.Header.Clone(), body: b}
	}))
	t.Cleanup(r.Close)
	return r
}

// next waits for the next webhook, checks its signature with secret and
// its body against ACP's schema, and answers it.
func (r *receiver) next(t *testing.T, secret string) hookEvent {
	t.Helper()
	select {
	case g := <-r.got:
		sig := g.header.Get("Merchant-Signature")
		ts, mac, ok := strings.Cut(sig, ",v1=")
		ts = strings.TrimPrefix(ts, "t=")
		h := hmac.New(sha256.New, []byte(secret))
		h.Write([]byte(ts + "."))
		h.Write(g.body)
		if !ok || !hmac.Equal([]byte(mac), []byte(hex.EncodeToString(h.Sum(nil)))) {
			t.Fatalf("Merchant-Signature %q does not verify", sig)
		}
		if n, err := strconv.ParseInt(ts, 10, 64); err != nil || time.Since(time.Unix(n, 0)).Abs() > time.Minute {
			t.Fatalf("Merchant-Signature time %q", ts)
		}
		if err := acpcheck.WebhookEvent(g.body); err != nil {
			t.Fatalf("the webhook breaks ACP's schema: %v\n%s", err, g.body)
		}
		var e hookEvent
		if err := json.Unmarshal(g.body, &e); err != nil {
			t.Fatal(err)
		}
		return e
	case <-time.After(20 * time.Second):
		t.Fatal("no webhook came")
	}
	return hookEvent{}
}
