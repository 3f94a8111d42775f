package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"

	"marketplace/internal/accounts"
	"marketplace/internal/audit"
	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/openapi"
	"marketplace/internal/httpapi/web"
	"marketplace/internal/market"
	"marketplace/internal/payments"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

const secret = "whsec_web_test_0123456789"

// stripeAccounts stands in for Stripe's account side, so that Connect
// records a known account id.
type stripeAccounts struct{ id string }

func (stripeAccounts) Name() string { return "stripe" }
func (p stripeAccounts) CreateAccount(context.Context, *accounts.User, string, string) (string, error) {
	return p.id, nil
}
func (stripeAccounts) OnboardingURL(context.Context, *payments.PayoutAccount) (string, error) {
	return "https://connect.stripe.test/setup/x", nil
}

type dbAudit struct{ db *store.DB }

func (a dbAudit) AppendAudit(ctx context.Context, e *audit.Entry) error {
	return a.db.InTx(ctx, func(tx *store.Tx) error { return tx.AppendAudit(ctx, e) })
}

// webhookServer serves the webhook on a router of its own and checks every
// exchange against the published documents.
type webhookServer struct {
	t   *testing.T
	url string
	v   *openapi.Validator
}

func startWebhook(t *testing.T, db *store.DB, h *web.StripeWebhook) *webhookServer {
	t.Helper()
	v, err := openapi.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	rt := httpapi.NewRouter(httpapi.Services{}, dbAudit{db}, slog.New(slog.NewJSONHandler(io.Discard, nil)),
		market.SystemClock{}, httpapi.NewMetrics(), httpapi.RouterOptions{})
	h.Register(rt)
	srv := httptest.NewServer(rt)
	t.Cleanup(srv.Close)
	return &webhookServer{t: t, url: srv.URL, v: v}
}

// post delivers body with a Stripe-Signature header (none when sig is "")
// and returns the status and the error code ("" on success).
func (s *webhookServer) post(body []byte, sig string) (int, map[string]any) {
	s.t.Helper()
	req, err := http.NewRequest("POST", s.url+web.StripeWebhookPath, bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set("Stripe-Signature", sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	reqErr, respErr := s.v.Check(req, body, resp.StatusCode, resp.Header, out)
	if reqErr != nil && resp.StatusCode < 400 {
		s.t.Errorf("the documents reject a request the server accepted: %v", reqErr)
	}
	if respErr != nil {
		s.t.Errorf("response does not match the documents: %v\n%s", respErr, out)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		s.t.Fatalf("status %d, not JSON: %s", resp.StatusCode, out)
	}
	return resp.StatusCode, m
}

func code(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func event(t *testing.T, id, typ string, object any, at time.Time) ([]byte, string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"id": id, "object": "event", "type": typ, "api_version": stripe.APIVersion,
		"created": at.Unix(), "data": map[string]any{"object": object}})
	if err != nil {
		t.Fatal(err)
	}
	return body, stripe.GenerateTestSignedPayload(&stripe.UnsignedPayload{Payload: body, Secret: secret, Timestamp: at}).Header
}

func TestStripeWebhookVerifiesSeller(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		acct := "acct_1Web" + strings.ReplaceAll(market.NewID(), "-", "")[:8]
		svc := payments.NewService(store.Payments(db), market.SystemClock{}, stripeAccounts{id: acct}, nil, nil)
		now := time.Now().UTC()
		u := &accounts.User{ID: market.NewID(), Email: "seller@example.com", Username: "seller", DisplayName: "Seller",
			Role: accounts.RoleUser, Status: accounts.StatusActive, TrustTier: accounts.TierNew, CreatedAt: now, UpdatedAt: now}
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.CreateUser(ctx, u) }); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Connect(ctx, market.Actor{Type: market.ActorUser, UserID: u.ID}, payments.ConnectInput{}); err != nil {
			t.Fatal(err)
		}
		s := startWebhook(t, db, &web.StripeWebhook{Secret: secret, Payments: svc})

		body, sig := event(t, "evt_acct", "account.updated", map[string]any{"id": acct, "object": "account",
			"details_submitted": true, "charges_enabled": true, "payouts_enabled": true}, time.Now())
		for i := 0; i < 2; i++ { // Stripe may deliver twice
			status, m := s.post(body, sig)
			data, _ := m["data"].(map[string]any)
			if status != 200 || data["applied"] != true || data["eventId"] != "evt_acct" || data["type"] != "account.updated" {
				t.Fatalf("delivery %d: %d %v", i+1, status, m)
			}
		}
		a, err := db.Read().PayoutAccountOf(ctx, u.ID)
		if err != nil || a.Status != payments.AccountVerified || !a.PayoutsEnabled {
			t.Fatalf("payout account: %+v %v", a, err)
		}
		owner, err := db.Read().UserByID(ctx, u.ID)
		if err != nil || !owner.IdentityVerified {
			t.Fatalf("owner not verified: %+v %v", owner, err)
		}

		// Payment events with no orders area attached: acknowledged.
		body, sig = event(t, "evt_pi", "payment_intent.succeeded", map[string]any{"id": "pi_1", "object": "payment_intent",
			"status": "succeeded"}, time.Now())
		if status, m := s.post(body, sig); status != 200 || m["data"].(map[string]any)["applied"] != false {
			t.Fatalf("payment event without PaymentEvents: %d %v", status, m)
		}
	})
}

func TestStripeWebhookRefusals(t *testing.T) {
	db := storetest.OpenSQLite(t)
	s := startWebhook(t, db, &web.StripeWebhook{Secret: secret})
	now := time.Now()
	obj := map[string]any{"id": "cus_1", "object": "customer"}
	body, sig := event(t, "evt_1", "customer.created", obj, now)

	if status, m := s.post(body, sig); status != 200 || m["data"].(map[string]any)["applied"] != false {
		t.Fatalf("unknown type: %d %v", status, m)
	}

	oldBody, oldSig := event(t, "evt_1", "customer.created", obj, now.Add(-10*time.Minute))
	other := stripe.GenerateTestSignedPayload(&stripe.UnsignedPayload{Payload: body, Secret: "whsec_other"}).Header
	for name, c := range map[string]struct {
		body []byte
		sig  string
	}{
		"missing signature": {body, ""},
		"bad signature":     {body, other},
		"old signature":     {oldBody, oldSig},
		"garbled header":    {body, "t=abc,v1=zz"},
		"tampered body":     {bytes.Replace(body, []byte("cus_1"), []byte("cus_2"), 1), sig},
	} {
		status, m := s.post(c.body, c.sig)
		if status != 400 || code(m) != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %v", name, status, m)
		}
	}

	big := []byte(fmt.Sprintf(`{"id":"evt_big","type":"x","data":{"object":{"pad":"%s"}}}`, strings.Repeat("a", 1<<20)))
	bigSig := stripe.GenerateTestSignedPayload(&stripe.UnsignedPayload{Payload: big, Secret: secret}).Header
	if status, m := s.post(big, bigSig); status != 413 || code(m) != "PAYLOAD_TOO_LARGE" {
		t.Fatalf("over 1 MiB: %d %v", status, m)
	}

	unconfigured := startWebhook(t, db, &web.StripeWebhook{})
	if status, m := unconfigured.post(body, sig); status != 404 || code(m) != "NOT_FOUND" {
		t.Fatalf("no secret configured: %d %v", status, m)
	}
}
