package payments_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/payments"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

const testWebhookSecret = "whsec_test_secret_0123456789"

// fixedProcessor stands in for Stripe's account side: Connect records the
// account id it returns.
type fixedProcessor struct{ next string }

func (fixedProcessor) Name() string { return "stripe" }
func (p fixedProcessor) CreateAccount(context.Context, *accounts.User, string, string) (string, error) {
	return p.next, nil
}
func (fixedProcessor) OnboardingURL(context.Context, *payments.PayoutAccount) (string, error) {
	return "https://connect.stripe.test/setup/x", nil
}

// recordedEvents is a PaymentEvents that remembers what it was told.
type recordedEvents struct {
	mu       sync.Mutex
	updated  []payments.Payment
	refunded map[string]int64
	fail     error
}

func (r *recordedEvents) PaymentUpdated(_ context.Context, p *payments.Payment) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.updated = append(r.updated, *p)
	return nil
}

func (r *recordedEvents) PaymentRefunded(_ context.Context, id string, amount int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	if r.refunded == nil {
		r.refunded = map[string]int64{}
	}
	r.refunded[id] = amount
	return nil
}

// signed makes a delivery of an event as Stripe signs it at time at.
func signed(t *testing.T, id, typ string, object any, at time.Time, secret string) ([]byte, string) {
	t.Helper()
	payload, err := json.Marshal(map[string]any{"id": id, "object": "event", "type": typ, "api_version": stripe.APIVersion,
		"created": at.Unix(), "data": map[string]any{"object": object}})
	if err != nil {
		t.Fatal(err)
	}
	sp := stripe.GenerateTestSignedPayload(&stripe.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at})
	return payload, sp.Header
}

// seller makes a user with a pending payout account whose Stripe id is acct.
func seller(t *testing.T, db *store.DB, svc *payments.Service, acct string) (*accounts.User, *payments.PayoutAccount) {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	u := &accounts.User{ID: market.NewID(), Email: acct + "@example.com", Username: "u" + acct[len(acct)-6:], DisplayName: "Seller",
		Role: accounts.RoleUser, Status: accounts.StatusActive, TrustTier: accounts.TierNew, CreatedAt: now, UpdatedAt: now}
	if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.CreateUser(ctx, u) }); err != nil {
		t.Fatal(err)
	}
	v, err := svc.Connect(ctx, market.Actor{Type: market.ActorUser, UserID: u.ID}, payments.ConnectInput{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Account.ExternalID != acct || v.Account.Status != payments.AccountPending {
		t.Fatalf("payout account: %+v", v.Account)
	}
	return u, v.Account
}

func TestStripeWebhookAccountUpdated(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clock := market.NewFixedClock(time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC))
		acct := "acct_1Test" + market.NewID()[:6]
		svc := payments.NewService(store.Payments(db), clock, fixedProcessor{next: acct}, nil, nil)
		u, a := seller(t, db, svc, acct)
		hook := &payments.StripeWebhook{Secret: testWebhookSecret, Accounts: svc}
		now := time.Now()

		// Details submitted but nothing enabled yet: known, not verified.
		body, sig := signed(t, "evt_1", "account.updated", map[string]any{"id": acct, "object": "account",
			"details_submitted": true, "charges_enabled": false, "payouts_enabled": false}, now, testWebhookSecret)
		d, err := hook.Handle(ctx, body, sig)
		if err != nil || !d.Applied || d.EventID != "evt_1" || d.Type != "account.updated" {
			t.Fatalf("pending account.updated: %+v %v", d, err)
		}
		if got, _ := db.Read().PayoutAccountOf(ctx, u.ID); got.Status != payments.AccountPending {
			t.Fatalf("verified too early: %+v", got)
		}

		// Enabled: verified, owner identity-verified; a repeated delivery
		// changes nothing.
		body, sig = signed(t, "evt_2", "account.updated", map[string]any{"id": acct, "object": "account",
			"details_submitted": true, "charges_enabled": true, "payouts_enabled": true, "metadata": map[string]string{"user_id": u.ID}},
			now, testWebhookSecret)
		for i := 0; i < 2; i++ {
			if d, err := hook.Handle(ctx, body, sig); err != nil || !d.Applied {
				t.Fatalf("delivery %d: %+v %v", i+1, d, err)
			}
		}
		got, err := db.Read().PayoutAccountOf(ctx, u.ID)
		if err != nil || got.Status != payments.AccountVerified || !got.PayoutsEnabled || got.VerifiedAt == nil {
			t.Fatalf("account after account.updated: %+v %v", got, err)
		}
		owner, err := db.Read().UserByID(ctx, u.ID)
		if err != nil || !owner.IdentityVerified || owner.TrustTier != accounts.TierVerified {
			t.Fatalf("owner after account.updated: %+v %v", owner, err)
		}
		evs, err := db.Read().EventsFor(ctx, "payout_account", a.ID)
		if err != nil {
			t.Fatal(err)
		}
		verified := 0
		for _, e := range evs {
			if e.Type == "payout_account.verified" {
				verified++
			}
		}
		if verified != 1 {
			t.Fatalf("payout_account.verified recorded %d times", verified)
		}

		// A late, older event does not take verification back.
		body, sig = signed(t, "evt_1", "account.updated", map[string]any{"id": acct, "object": "account"}, now, testWebhookSecret)
		if _, err := hook.Handle(ctx, body, sig); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.Read().PayoutAccountOf(ctx, u.ID); got.Status != payments.AccountVerified {
			t.Fatalf("verification taken back: %+v", got)
		}

		// Someone else's account: acknowledged, ignored.
		body, sig = signed(t, "evt_3", "account.updated", map[string]any{"id": "acct_someoneelse", "object": "account",
			"charges_enabled": true, "payouts_enabled": true}, now, testWebhookSecret)
		if d, err := hook.Handle(ctx, body, sig); err != nil || d.Applied {
			t.Fatalf("foreign account: %+v %v", d, err)
		}
	})
}

func TestStripeWebhookSignatures(t *testing.T) {
	ctx := context.Background()
	hook := &payments.StripeWebhook{Secret: testWebhookSecret}
	now := time.Now()
	obj := map[string]any{"id": "pi_1", "object": "payment_intent", "status": "succeeded"}
	good, goodSig := signed(t, "evt_1", "payment_intent.succeeded", obj, now, testWebhookSecret)
	_, wrongSecret := signed(t, "evt_1", "payment_intent.succeeded", obj, now, "whsec_other")
	old, oldSig := signed(t, "evt_1", "payment_intent.succeeded", obj, now.Add(-6*time.Minute), testWebhookSecret)
	tampered := append([]byte(nil), good...)
	tampered[len(tampered)-2] = ' '

	cases := map[string]struct {
		body []byte
		sig  string
	}{
		"missing":      {good, ""},
		"wrong secret": {good, wrongSecret},
		"too old":      {old, oldSig},
		"tampered":     {tampered, goodSig},
		"garbage":      {good, "nonsense"},
		"no v1":        {good, fmt.Sprintf("t=%d", now.Unix())},
	}
	for name, c := range cases {
		_, err := hook.Handle(ctx, c.body, c.sig)
		e := market.ErrorOf(err)
		if e.Code != market.CodeValidation || len(e.Fields) != 1 || e.Fields[0].Field != "Stripe-Signature" {
			t.Errorf("%s: want VALIDATION_ERROR on Stripe-Signature, got %v", name, err)
		}
	}
	if d, err := hook.Handle(ctx, good, goodSig); err != nil || d.Applied {
		t.Fatalf("good signature without PaymentEvents: %+v %v", d, err)
	}

	// Signed, but not an event.
	for _, body := range []string{`not json`, `{"id":"evt_1"}`, `{"id":"evt_1","type":"account.updated","data":{}}`,
		`{"id":"evt_1","type":"account.updated","data":{"object":"acct_1"}}`} {
		sp := stripe.GenerateTestSignedPayload(&stripe.UnsignedPayload{Payload: []byte(body), Secret: testWebhookSecret})
		if _, err := hook.Handle(ctx, []byte(body), sp.Header); market.CodeOf(err) != market.CodeValidation {
			t.Errorf("body %s: want VALIDATION_ERROR, got %v", body, err)
		}
	}

	// Not configured.
	if _, err := (&payments.StripeWebhook{}).Handle(ctx, good, goodSig); market.CodeOf(err) != market.CodeNotFound {
		t.Fatalf("no secret: want NOT_FOUND, got %v", err)
	}
}

func TestStripeWebhookPaymentEvents(t *testing.T) {
	ctx := context.Background()
	rec := &recordedEvents{}
	hook := &payments.StripeWebhook{Secret: testWebhookSecret, Events: rec}
	now := time.Now()
	deliver := func(id, typ string, obj map[string]any) *payments.StripeDelivery {
		t.Helper()
		body, sig := signed(t, id, typ, obj, now, testWebhookSecret)
		d, err := hook.Handle(ctx, body, sig)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		return d
	}

	deliver("evt_s", "payment_intent.succeeded", map[string]any{"id": "pi_paid", "object": "payment_intent", "status": "succeeded",
		"amount": 11178, "created": 1750000000, "metadata": map[string]string{"idempotency_key": "order-1"}})
	deliver("evt_f", "payment_intent.payment_failed", map[string]any{"id": "pi_failed", "object": "payment_intent",
		"status": "requires_payment_method", "amount": 500,
		"last_payment_error": map[string]any{"type": "card_error", "code": "card_declined", "message": "Your card was declined."}})
	deliver("evt_c", "payment_intent.canceled", map[string]any{"id": "pi_gone", "object": "payment_intent", "status": "canceled"})
	deliver("evt_a", "payment_intent.requires_action", map[string]any{"id": "pi_sca", "object": "payment_intent", "status": "requires_action"})
	want := []struct {
		id     string
		status payments.PaymentStatus
	}{{"pi_paid", payments.PaymentSucceeded}, {"pi_failed", payments.PaymentFailed}, {"pi_gone", payments.PaymentCanceled},
		{"pi_sca", payments.PaymentRequiresAction}}
	if len(rec.updated) != len(want) {
		t.Fatalf("updates: %+v", rec.updated)
	}
	for i, w := range want {
		if got := rec.updated[i]; got.ID != w.id || got.Status != w.status {
			t.Errorf("update %d: %+v, want %s %s", i, got, w.id, w.status)
		}
	}
	if p := rec.updated[0]; p.Amount != 11178 || p.IdempotencyKey != "order-1" {
		t.Errorf("succeeded payment: %+v", p)
	}
	if p := rec.updated[1]; p.FailureCode != "card_declined" || p.FailureMessage == "" {
		t.Errorf("failed payment: %+v", p)
	}

	d := deliver("evt_r", "charge.refunded", map[string]any{"id": "ch_1", "object": "charge", "amount": 11178,
		"amount_refunded": 4000, "payment_intent": "pi_paid", "refunded": false})
	if !d.Applied || rec.refunded["pi_paid"] != 4000 {
		t.Fatalf("charge.refunded: %+v %v", d, rec.refunded)
	}
	// A charge outside payment intents is not ours.
	if d := deliver("evt_r2", "charge.refunded", map[string]any{"id": "ch_2", "object": "charge", "amount_refunded": 1}); d.Applied {
		t.Fatalf("charge without a payment intent applied")
	}

	// Unknown types are acknowledged.
	if d := deliver("evt_u", "customer.created", map[string]any{"id": "cus_1", "object": "customer"}); d.Applied || d.Type != "customer.created" {
		t.Fatalf("unknown type: %+v", d)
	}

	// A payment the orders area does not know: acknowledged, not applied.
	rec.fail = market.NotFound("payment")
	if d := deliver("evt_x", "payment_intent.succeeded", map[string]any{"id": "pi_other", "object": "payment_intent", "status": "succeeded"}); d.Applied {
		t.Fatalf("foreign payment applied")
	}
	// Any other failure is an error, so Stripe delivers again.
	rec.fail = market.Internal(fmt.Errorf("database down"))
	body, sig := signed(t, "evt_y", "payment_intent.succeeded", map[string]any{"id": "pi_1", "object": "payment_intent"}, now, testWebhookSecret)
	if _, err := hook.Handle(ctx, body, sig); market.CodeOf(err) != market.CodeInternal {
		t.Fatalf("failing PaymentEvents: %v", err)
	}
}
