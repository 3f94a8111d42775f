package payments_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/payments"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

var t0 = time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)

func wantCode(t *testing.T, err error, code market.Code) {
	t.Helper()
	if got := market.CodeOf(err); got != code {
		t.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

func wantField(t *testing.T, err error, field string) {
	t.Helper()
	wantCode(t, err, market.CodeValidation)
	if fs := market.ErrorOf(err).Fields; len(fs) != 1 || fs[0].Field != field {
		t.Fatalf("fields = %+v, want %s", fs, field)
	}
}

// sandboxFixture is a sandbox processor on a fresh store with one customer.
type sandboxFixture struct {
	db       *store.DB
	clock    *market.FixedClock
	sb       *payments.Sandbox
	customer string
}

func newSandbox(t *testing.T, db *store.DB) *sandboxFixture {
	t.Helper()
	ctx := context.Background()
	f := &sandboxFixture{db: db, clock: market.NewFixedClock(t0)}
	f.sb = payments.NewSandbox("http://svc.test", store.PaymentsSandbox(db), f.clock)
	u := &accounts.User{ID: market.NewID(), Email: "sb@example.com", Username: "sb", DisplayName: "SB", Role: accounts.RoleUser,
		Status: accounts.StatusActive, TrustTier: accounts.TierNew, CreatedAt: t0, UpdatedAt: t0}
	if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.CreateUser(ctx, u) }); err != nil {
		t.Fatal(err)
	}
	var err error
	if f.customer, err = f.sb.CreateCustomer(ctx, u); err != nil {
		t.Fatal(err)
	}
	again, err := f.sb.CreateCustomer(ctx, u)
	if err != nil || again != f.customer || !strings.HasPrefix(again, "cus_sbx_") {
		t.Fatalf("customer %q then %q (%v)", f.customer, again, err)
	}
	return f
}

// card saves a card of a test token.
func (f *sandboxFixture) card(t *testing.T, token string) *payments.Card {
	t.Helper()
	ctx := context.Background()
	si, err := f.sb.CreateSetupIntent(ctx, f.customer)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(si.ID, "seti_sbx_") || !strings.HasPrefix(si.ClientSecret, si.ID+"_secret_") || si.Status != "requires_payment_method" {
		t.Fatalf("setup intent: %+v", si)
	}
	c, err := f.sb.ConfirmSetup(ctx, si.ID, f.customer, token)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *sandboxFixture) charge(t *testing.T, key string, card *payments.Card, amount int64) *payments.Payment {
	t.Helper()
	p, err := f.sb.Charge(context.Background(), payments.ChargeRequest{IdempotencyKey: key, CustomerID: f.customer,
		PaymentMethodID: card.ID, Amount: amount, Currency: "usd", Metadata: map[string]string{"order_id": key}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSandboxTestTokens(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSandbox(t, db)
		cases := []struct {
			token, brand, last4 string
			status              payments.PaymentStatus
			failure             string
		}{
			{"pm_card_visa", "visa", "4242", payments.PaymentSucceeded, ""},
			{"pm_card_mastercard", "mastercard", "4444", payments.PaymentSucceeded, ""},
			{"pm_card_amex", "amex", "0005", payments.PaymentSucceeded, ""},
			{"pm_card_chargeDeclined", "visa", "0002", payments.PaymentFailed, "card_declined"},
			{"pm_card_chargeDeclinedInsufficientFunds", "visa", "9995", payments.PaymentFailed, "insufficient_funds"},
			{"pm_card_authenticationRequired", "visa", "3155", payments.PaymentRequiresAction, "authentication_required"},
		}
		for _, c := range cases {
			card := f.card(t, c.token)
			if !strings.HasPrefix(card.ID, "pm_sbx_") || card.Brand != c.brand || card.Last4 != c.last4 || card.ExpMonth != 12 || card.ExpYear != 2029 {
				t.Fatalf("%s: card %+v", c.token, card)
			}
			p := f.charge(t, "order-"+c.token, card, 1099)
			if p.Status != c.status || p.FailureCode != c.failure || p.Amount != 1099 || !strings.HasPrefix(p.ID, "pi_sbx_") ||
				p.IdempotencyKey != "order-"+c.token || (c.failure != "") != (p.FailureMessage != "") || !p.CreatedAt.Equal(t0) {
				t.Fatalf("%s: payment %+v", c.token, p)
			}
			// The same key again returns the same payment; nothing new is made.
			again := f.charge(t, "order-"+c.token, card, 1099)
			if again.ID != p.ID || again.Status != p.Status {
				t.Fatalf("%s: repeated charge %+v, first %+v", c.token, again, p)
			}
			byKey, err := f.sb.PaymentByKey(ctx, "order-"+c.token)
			if err != nil || byKey.ID != p.ID {
				t.Fatalf("%s: by key %+v %v", c.token, byKey, err)
			}
		}
		_, err := f.sb.PaymentByKey(ctx, "order-never")
		wantCode(t, err, market.CodeNotFound)
		_, err = f.sb.PaymentByKey(ctx, "bad\x00key")
		wantCode(t, err, market.CodeNotFound)

		// A restarted processor (a new value on the same store) knows it all.
		restarted := payments.NewSandbox("http://svc.test", store.PaymentsSandbox(db), f.clock)
		p, err := restarted.PaymentByKey(ctx, "order-pm_card_visa")
		if err != nil || p.Status != payments.PaymentSucceeded {
			t.Fatalf("after restart: %+v %v", p, err)
		}
	})
}

func TestSandboxSetupErrors(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSandbox(t, db)
		si, err := f.sb.CreateSetupIntent(ctx, f.customer)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.sb.ConfirmSetup(ctx, si.ID, f.customer, "pm_card_unknown")
		wantField(t, err, "payment_method")
		_, err = f.sb.ConfirmSetup(ctx, si.ID, "cus_sbx_other", "pm_card_visa")
		wantCode(t, err, market.CodeNotFound)
		_, err = f.sb.ConfirmSetup(ctx, "seti_sbx_none", f.customer, "pm_card_visa")
		wantCode(t, err, market.CodeNotFound)
		_, err = f.sb.ConfirmSetup(ctx, "seti\x00", f.customer, "pm_card_visa")
		wantCode(t, err, market.CodeNotFound)
		first, err := f.sb.ConfirmSetup(ctx, si.ID, f.customer, "pm_card_visa")
		if err != nil {
			t.Fatal(err)
		}
		// Again with the same token: the same card. With another: refused.
		again, err := f.sb.ConfirmSetup(ctx, si.ID, f.customer, "pm_card_visa")
		if err != nil || again.ID != first.ID {
			t.Fatalf("repeated confirm: %+v %v, first %+v", again, err, first)
		}
		_, err = f.sb.ConfirmSetup(ctx, si.ID, f.customer, "pm_card_amex")
		wantCode(t, err, market.CodeInvalidState)
		_, err = f.sb.CreateSetupIntent(ctx, "cus_sbx_none")
		wantCode(t, err, market.CodeNotFound)
	})
}

func TestSandboxChargeErrors(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSandbox(t, db)
		card := f.card(t, "pm_card_visa")
		base := payments.ChargeRequest{IdempotencyKey: "k", CustomerID: f.customer, PaymentMethodID: card.ID, Amount: 1099}
		for _, c := range []struct {
			name  string
			edit  func(*payments.ChargeRequest)
			field string
		}{
			{"zero amount", func(r *payments.ChargeRequest) { r.Amount = 0 }, "amount"},
			{"negative amount", func(r *payments.ChargeRequest) { r.Amount = -5 }, "amount"},
			{"absurd amount", func(r *payments.ChargeRequest) { r.Amount = 1 << 40 }, "amount"},
			{"currency", func(r *payments.ChargeRequest) { r.Currency = "dollars" }, "currency"},
			{"no customer", func(r *payments.ChargeRequest) { r.CustomerID = "" }, "customer_id"},
			{"no card", func(r *payments.ChargeRequest) { r.PaymentMethodID = "" }, "payment_method_id"},
			{"unknown card", func(r *payments.ChargeRequest) { r.PaymentMethodID = "pm_sbx_none" }, "payment_method_id"},
			{"another customer", func(r *payments.ChargeRequest) { r.CustomerID = "cus_sbx_other" }, "payment_method_id"},
			{"bad key", func(r *payments.ChargeRequest) { r.IdempotencyKey = "a\x00b" }, "idempotency_key"},
			{"bad description", func(r *payments.ChargeRequest) { r.Description = "a\x00b" }, "description"},
		} {
			req := base
			c.edit(&req)
			_, err := f.sb.Charge(ctx, req)
			if market.CodeOf(err) != market.CodeValidation {
				t.Fatalf("%s: %v", c.name, err)
			}
			if fs := market.ErrorOf(err).Fields; len(fs) != 1 || fs[0].Field != c.field {
				t.Fatalf("%s: fields %+v, want %s", c.name, fs, c.field)
			}
		}
		// None of them stored a payment.
		_, err := f.sb.PaymentByKey(ctx, "k")
		wantCode(t, err, market.CodeNotFound)

		// A detached card cannot be charged; detaching twice is fine.
		if err := f.sb.DetachPaymentMethod(ctx, card.ID); err != nil {
			t.Fatal(err)
		}
		if err := f.sb.DetachPaymentMethod(ctx, card.ID); err != nil {
			t.Fatal(err)
		}
		wantCode(t, f.sb.DetachPaymentMethod(ctx, "pm_sbx_none"), market.CodeNotFound)
		_, err = f.sb.Charge(ctx, base)
		wantField(t, err, "payment_method_id")
	})
}

func TestSandboxHostedPayment(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSandbox(t, db)
		start := func(key string) *payments.Payment {
			t.Helper()
			p, err := f.sb.StartPayment(ctx, payments.ChargeRequest{IdempotencyKey: key, Amount: 2500, Description: "Lamp"})
			if err != nil {
				t.Fatal(err)
			}
			if p.Status != payments.PaymentRequiresMethod || !strings.HasPrefix(p.ClientSecret, p.ID+"_secret_") {
				t.Fatalf("started payment: %+v", p)
			}
			return p
		}
		p := start("hosted-1")
		if again := start("hosted-1"); again.ID != p.ID {
			t.Fatalf("a second start with the key made %s, first %s", again.ID, p.ID)
		}
		for _, bad := range []string{"", "4242", "4242424242424241", "4242-4242-4242-424x", strings.Repeat("4", 25)} {
			_, err := f.sb.PayWithCard(ctx, p.ID, bad)
			wantField(t, err, "card_number")
		}
		_, err := f.sb.PayWithCard(ctx, "pi_sbx_none", "4242424242424242")
		wantCode(t, err, market.CodeNotFound)

		// A decline, then authentication, then a good card.
		got, err := f.sb.PayWithCard(ctx, p.ID, "4000 0000 0000 0002")
		if err != nil || got.Status != payments.PaymentFailed || got.FailureCode != "card_declined" {
			t.Fatalf("declining card: %+v %v", got, err)
		}
		got, err = f.sb.PayWithCard(ctx, p.ID, "4000002500003155")
		if err != nil || got.Status != payments.PaymentRequiresAction || got.FailureCode != "authentication_required" {
			t.Fatalf("authenticating card: %+v %v", got, err)
		}
		got, err = f.sb.PayWithCard(ctx, p.ID, "4242-4242-4242-4242")
		if err != nil || got.Status != payments.PaymentSucceeded || got.FailureCode != "" {
			t.Fatalf("paying card: %+v %v", got, err)
		}
		if read, _ := f.sb.Payment(ctx, p.ID); read.Status != payments.PaymentSucceeded {
			t.Fatalf("read back: %+v", read)
		}
		_, err = f.sb.PayWithCard(ctx, p.ID, "4242424242424242")
		wantCode(t, err, market.CodeInvalidState)
		wantCode(t, f.sb.CancelPayment(ctx, p.ID), market.CodeInvalidState)

		// A canceled payment cannot be paid; canceling twice is fine.
		c := start("hosted-2")
		if err := f.sb.CancelPayment(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		if err := f.sb.CancelPayment(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		_, err = f.sb.PayWithCard(ctx, c.ID, "4242424242424242")
		wantCode(t, err, market.CodeInvalidState)
		wantCode(t, f.sb.CancelPayment(ctx, "pi_sbx_none"), market.CodeNotFound)
		_, err = f.sb.Payment(ctx, "pi\x00")
		wantCode(t, err, market.CodeNotFound)
	})
}

func TestSandboxRefundsAndTransfers(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSandbox(t, db)
		p := f.charge(t, "order-r", f.card(t, "pm_card_visa"), 1000)
		refund := func(key string, amount int64) (*payments.Refund, error) {
			return f.sb.Refund(ctx, payments.RefundRequest{PaymentID: p.ID, Amount: amount, IdempotencyKey: key, Reason: "requested_by_customer"})
		}
		r1, err := refund("r1", 400)
		if err != nil || r1.Amount != 400 || r1.Status != "succeeded" || r1.PaymentID != p.ID || !strings.HasPrefix(r1.ID, "re_sbx_") {
			t.Fatalf("refund: %+v %v", r1, err)
		}
		// The same key refunds nothing more, even with another amount.
		again, err := refund("r1", 600)
		if err != nil || again.ID != r1.ID || again.Amount != 400 {
			t.Fatalf("repeated refund: %+v %v", again, err)
		}
		_, err = refund("r2", 601)
		wantField(t, err, "amount")
		_, err = refund("r2", 0)
		wantField(t, err, "amount")
		_, err = refund("r2", -1)
		wantField(t, err, "amount")
		if read, _ := f.sb.Payment(ctx, p.ID); read.AmountRefunded != 400 {
			t.Fatalf("refunded = %d", read.AmountRefunded)
		}
		if _, err := refund("r2", 600); err != nil {
			t.Fatal(err)
		}
		_, err = refund("r3", 1)
		wantCode(t, err, market.CodeInvalidState)
		if read, _ := f.sb.Payment(ctx, p.ID); read.AmountRefunded != 1000 {
			t.Fatalf("refunded = %d", read.AmountRefunded)
		}
		_, err = f.sb.Refund(ctx, payments.RefundRequest{PaymentID: "pi_sbx_none", Amount: 1, IdempotencyKey: "r4"})
		wantCode(t, err, market.CodeNotFound)
		// A failed payment has nothing to refund.
		failed := f.charge(t, "order-f", f.card(t, "pm_card_chargeDeclined"), 1000)
		_, err = f.sb.Refund(ctx, payments.RefundRequest{PaymentID: failed.ID, Amount: 1, IdempotencyKey: "r5"})
		wantCode(t, err, market.CodeInvalidState)
		// A key used for another payment's refund is refused.
		_, err = f.sb.Refund(ctx, payments.RefundRequest{PaymentID: failed.ID, Amount: 1, IdempotencyKey: "r1"})
		wantCode(t, err, market.CodeInvalidState)

		tr, err := f.sb.Transfer(ctx, payments.TransferRequest{Destination: "acct_sandbox_1", Amount: 970, IdempotencyKey: "payout-1"})
		if err != nil || tr.Amount != 970 || tr.Destination != "acct_sandbox_1" || !strings.HasPrefix(tr.ID, "tr_sbx_") {
			t.Fatalf("transfer: %+v %v", tr, err)
		}
		if again, err := f.sb.Transfer(ctx, payments.TransferRequest{Destination: "acct_sandbox_1", Amount: 970, IdempotencyKey: "payout-1"}); err != nil || again.ID != tr.ID {
			t.Fatalf("repeated transfer: %+v %v", again, err)
		}
		_, err = f.sb.Transfer(ctx, payments.TransferRequest{Destination: "acct_sandbox_1", Amount: 0, IdempotencyKey: "payout-2"})
		wantField(t, err, "amount")
		_, err = f.sb.Transfer(ctx, payments.TransferRequest{Destination: "", Amount: 5, IdempotencyKey: "payout-2"})
		wantCode(t, err, market.CodeNotFound)
		ts, err := f.sb.TransfersTo(ctx, "acct_sandbox_1")
		if err != nil || len(ts) != 1 || ts[0].ID != tr.ID {
			t.Fatalf("transfers: %+v %v", ts, err)
		}
	})
}

func TestSandboxDashboardLinks(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSandbox(t, db)
		url, err := f.sb.DashboardURL(ctx, &payments.PayoutAccount{ExternalID: "acct_sandbox_9"})
		if err != nil || !strings.HasPrefix(url, "http://svc.test"+payments.SandboxDashboardPath) {
			t.Fatalf("url %q %v", url, err)
		}
		token := strings.TrimPrefix(url, "http://svc.test"+payments.SandboxDashboardPath)
		l, err := f.sb.DashboardLink(ctx, token)
		if err != nil || l.AccountID != "acct_sandbox_9" || !l.ExpiresAt.Equal(t0.Add(payments.DashboardLinkLifetime)) {
			t.Fatalf("link: %+v %v", l, err)
		}
		for _, bad := range []string{"", "nope", "a\x00b", strings.Repeat("a", 300)} {
			_, err := f.sb.DashboardLink(ctx, bad)
			wantCode(t, err, market.CodeNotFound)
		}
		f.clock.Advance(payments.DashboardLinkLifetime)
		_, err = f.sb.DashboardLink(ctx, token)
		wantCode(t, err, market.CodeNotFound)
	})
}

// TestSandboxRefundConcurrent races refunds that together exceed the
// payment: the amounts refunded never pass it.
func TestSandboxRefundConcurrent(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSandbox(t, db)
		p := f.charge(t, "order-race", f.card(t, "pm_card_visa"), 1000)
		const n = 8
		errs := make(chan error, n)
		for i := range n {
			go func() {
				_, err := f.sb.Refund(ctx, payments.RefundRequest{PaymentID: p.ID, Amount: 300, IdempotencyKey: fmt.Sprint("race-", i)})
				errs <- err
			}()
		}
		ok := 0
		for range n {
			switch err := <-errs; market.CodeOf(err) {
			case "":
				ok++
			case market.CodeValidation:
			default:
				t.Fatal(err)
			}
		}
		read, err := f.sb.Payment(ctx, p.ID)
		if err != nil || ok != 3 || read.AmountRefunded != 900 {
			t.Fatalf("%d refunds went through, %d refunded (%v)", ok, read.AmountRefunded, err)
		}
	})
}

// TestSandboxTransferReversals takes money back from a transfer: the same
// key reverses once, the transfer's reversed sum never passes its amount,
// and a restart (a new processor on the same store) sees what was
// reversed.
func TestSandboxTransferReversals(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSandbox(t, db)
		tr, err := f.sb.Transfer(ctx, payments.TransferRequest{Destination: "acct_sandbox_rv", Amount: 1000, IdempotencyKey: "payout-rv"})
		if err != nil {
			t.Fatal(err)
		}
		reverse := func(key string, amount int64) (*payments.TransferReversal, error) {
			return f.sb.ReverseTransfer(ctx, payments.TransferReversalRequest{TransferID: tr.ID, Amount: amount, IdempotencyKey: key})
		}
		r1, err := reverse("reversal-1", 300)
		if err != nil || r1.Amount != 300 || r1.TransferID != tr.ID || !strings.HasPrefix(r1.ID, "trr_sbx_") {
			t.Fatalf("reversal: %+v %v", r1, err)
		}
		// The same key reverses nothing more, even with another amount.
		if again, err := reverse("reversal-1", 500); err != nil || again.ID != r1.ID || again.Amount != 300 {
			t.Fatalf("repeated reversal: %+v %v", again, err)
		}
		_, err = reverse("reversal-2", 701)
		wantField(t, err, "amount")
		_, err = reverse("reversal-2", 0)
		wantField(t, err, "amount")
		_, err = reverse("reversal-2", -5)
		wantField(t, err, "amount")
		_, err = reverse("", 0)
		wantField(t, err, "amount")
		_, err = f.sb.ReverseTransfer(ctx, payments.TransferReversalRequest{TransferID: "tr_sbx_none", Amount: 1, IdempotencyKey: "reversal-3"})
		wantCode(t, err, market.CodeNotFound)
		_, err = f.sb.ReverseTransfer(ctx, payments.TransferReversalRequest{TransferID: "tr/../x", Amount: 1, IdempotencyKey: "reversal-3"})
		wantCode(t, err, market.CodeNotFound)
		_, err = f.sb.ReverseTransfer(ctx, payments.TransferReversalRequest{TransferID: tr.ID, Amount: 1, IdempotencyKey: "bad\x00key"})
		wantField(t, err, "idempotency_key")
		if _, err := reverse("reversal-2", 700); err != nil {
			t.Fatal(err)
		}
		_, err = reverse("reversal-3", 1)
		wantField(t, err, "amount")

		// A key used for another transfer's reversal is refused.
		other, err := f.sb.Transfer(ctx, payments.TransferRequest{Destination: "acct_sandbox_rv", Amount: 50, IdempotencyKey: "payout-rv2"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.sb.ReverseTransfer(ctx, payments.TransferReversalRequest{TransferID: other.ID, Amount: 1, IdempotencyKey: "reversal-1"})
		wantCode(t, err, market.CodeInvalidState)

		restarted := payments.NewSandbox("http://svc.test", store.PaymentsSandbox(db), f.clock)
		ts, err := restarted.TransfersTo(ctx, "acct_sandbox_rv")
		if err != nil || len(ts) != 2 {
			t.Fatalf("transfers: %+v %v", ts, err)
		}
		for _, got := range ts {
			if want := map[string]int64{tr.ID: 1000, other.ID: 0}[got.ID]; got.Reversed != want {
				t.Fatalf("transfer %s reversed %d, want %d", got.ID, got.Reversed, want)
			}
		}
	})
}

// TestSandboxReversalConcurrent races reversals that together exceed the
// transfer: what is reversed never passes it.
func TestSandboxReversalConcurrent(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSandbox(t, db)
		tr, err := f.sb.Transfer(ctx, payments.TransferRequest{Destination: "acct_sandbox_race", Amount: 1000, IdempotencyKey: "payout-race"})
		if err != nil {
			t.Fatal(err)
		}
		const n = 8
		errs := make(chan error, n)
		for i := range n {
			go func() {
				_, err := f.sb.ReverseTransfer(ctx, payments.TransferReversalRequest{TransferID: tr.ID, Amount: 300,
					IdempotencyKey: fmt.Sprint("reverse-race-", i)})
				errs <- err
			}()
		}
		ok := 0
		for range n {
			switch err := <-errs; market.CodeOf(err) {
			case "":
				ok++
			case market.CodeValidation:
			default:
				t.Fatal(err)
			}
		}
		ts, err := f.sb.TransfersTo(ctx, "acct_sandbox_race")
		if err != nil || ok != 3 || len(ts) != 1 || ts[0].Reversed != 900 {
			t.Fatalf("%d reversals went through: %+v (%v)", ok, ts, err)
		}
	})
}
