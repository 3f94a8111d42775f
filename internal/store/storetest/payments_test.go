package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/payments"
	"marketplace/internal/store"
)

func newCard(userID string, at time.Time, isDefault bool) *payments.PaymentMethod {
	return &payments.PaymentMethod{ID: market.NewID(), UserID: userID, Processor: "sandbox", ExternalID: "pm_sbx_" + market.NewID()[:8],
		Brand: "visa", Last4: "4242", ExpMonth: 12, ExpYear: 2029, IsDefault: isDefault, CreatedAt: at}
}

func TestPaymentMethodsStore(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var ann, bob string
		mustTx(t, db, func(tx *store.Tx) error {
			ann, bob = newUser(t, tx, "ann@example.com", "ann").ID, newUser(t, tx, "bob@example.com", "bob").ID
			return nil
		})

		// Customers: the first recorded one stays.
		_, err := db.Read().PaymentCustomer(ctx, ann)
		wantCode(t, err, market.CodeNotFound)
		mustTx(t, db, func(tx *store.Tx) error {
			if added, err := tx.InsertPaymentCustomer(ctx, ann, "sandbox", "cus_first", t0); err != nil || !added {
				t.Fatalf("first customer: %v %v", added, err)
			}
			if added, err := tx.InsertPaymentCustomer(ctx, ann, "sandbox", "cus_second", t0); err != nil || added {
				t.Fatalf("second customer: %v %v", added, err)
			}
			return nil
		})
		if id, err := db.Read().PaymentCustomer(ctx, ann); err != nil || id != "cus_first" {
			t.Fatalf("customer = %q %v", id, err)
		}

		// Setup records round-trip.
		rec := &payments.SetupRecord{ID: "seti_1", UserID: ann, Processor: "sandbox", ClientSecret: "seti_1_secret_x",
			Status: payments.SetupPending, CreatedAt: t0}
		mustTx(t, db, func(tx *store.Tx) error { return tx.CreateSetupRecord(ctx, rec) })
		got, err := db.Read().SetupRecord(ctx, "seti_1")
		if err != nil || got.UserID != ann || got.Status != payments.SetupPending || !got.CreatedAt.Equal(t0) || got.ConfirmedWith != "" {
			t.Fatalf("setup record: %+v %v", got, err)
		}
		got.Status, got.ConfirmedWith, got.PaymentMethodID = payments.SetupSucceeded, "pm_card_visa", "m1"
		mustTx(t, db, func(tx *store.Tx) error { return tx.UpdateSetupRecord(ctx, got) })
		if again, _ := db.Read().SetupRecord(ctx, "seti_1"); again.Status != payments.SetupSucceeded || again.ConfirmedWith != "pm_card_visa" || again.PaymentMethodID != "m1" {
			t.Fatalf("updated setup record: %+v", again)
		}
		_, err = db.Read().SetupRecord(ctx, "seti_none")
		wantCode(t, err, market.CodeNotFound)

		// Cards: default first, then newest first.
		c1, c2, c3 := newCard(ann, t0, true), newCard(ann, t0.Add(time.Minute), false), newCard(ann, t0.Add(2*time.Minute), false)
		other := newCard(bob, t0, true)
		mustTx(t, db, func(tx *store.Tx) error {
			for _, c := range []*payments.PaymentMethod{c1, c2, c3, other} {
				if err := tx.CreatePaymentMethod(ctx, c); err != nil {
					return err
				}
			}
			return nil
		})
		wantOrder := func(ids ...string) {
			t.Helper()
			list, err := db.Read().PaymentMethods(ctx, ann)
			if err != nil || len(list) != len(ids) {
				t.Fatalf("list: %+v %v", list, err)
			}
			for i, id := range ids {
				if list[i].ID != id || list[i].IsDefault != (i == 0) {
					t.Fatalf("list[%d] = %s (default %v), want %s", i, list[i].ID, list[i].IsDefault, id)
				}
			}
		}
		wantOrder(c1.ID, c3.ID, c2.ID)
		m, err := db.Read().PaymentMethodByID(ctx, c2.ID)
		if err != nil || m.ExternalID != c2.ExternalID || m.ExpYear != 2029 || !m.CreatedAt.Equal(c2.CreatedAt) || m.IsDefault {
			t.Fatalf("by id: %+v %v", m, err)
		}
		if d, err := db.Read().DefaultPaymentMethod(ctx, ann); err != nil || d.ID != c1.ID {
			t.Fatalf("default: %+v %v", d, err)
		}

		// At most one default per user: the index refuses a second.
		err = db.InTx(ctx, func(tx *store.Tx) error { return tx.CreatePaymentMethod(ctx, newCard(ann, t0, true)) })
		if err == nil {
			t.Fatal("a second default card was saved")
		}
		mustTx(t, db, func(tx *store.Tx) error { return tx.SetDefaultPaymentMethod(ctx, ann, c2.ID) })
		wantOrder(c2.ID, c3.ID, c1.ID)
		// Another user's card cannot be made ann's default or deleted by ann.
		wantCode(t, db.InTx(ctx, func(tx *store.Tx) error { return tx.SetDefaultPaymentMethod(ctx, ann, other.ID) }), market.CodeNotFound)
		wantCode(t, db.InTx(ctx, func(tx *store.Tx) error { return tx.DeletePaymentMethod(ctx, ann, other.ID) }), market.CodeNotFound)
		wantOrder(c2.ID, c3.ID, c1.ID)
		if d, _ := db.Read().DefaultPaymentMethod(ctx, bob); d == nil || d.ID != other.ID {
			t.Fatalf("bob's default changed: %+v", d)
		}

		mustTx(t, db, func(tx *store.Tx) error { return tx.DeletePaymentMethod(ctx, ann, c2.ID) })
		_, err = db.Read().DefaultPaymentMethod(ctx, ann)
		wantCode(t, err, market.CodeNotFound)
		_, err = db.Read().PaymentMethodByID(ctx, c2.ID)
		wantCode(t, err, market.CodeNotFound)
	})
}

func TestPayoutAccountByExternalID(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		mustTx(t, db, func(tx *store.Tx) error {
			u := newUser(t, tx, "pa@example.com", "pa")
			return tx.CreatePayoutAccount(ctx, &payments.PayoutAccount{ID: market.NewID(), UserID: u.ID, Processor: "sandbox",
				ExternalID: "acct_sandbox_1", Status: payments.AccountPending, OnboardingToken: "tok", Country: "US",
				BusinessType: "individual", CreatedAt: t0, UpdatedAt: t0})
		})
		a, err := db.Read().PayoutAccountByExternalID(ctx, "acct_sandbox_1")
		if err != nil || a.OnboardingToken != "tok" {
			t.Fatalf("by external id: %+v %v", a, err)
		}
		_, err = db.Read().PayoutAccountByExternalID(ctx, "acct_sandbox_2")
		wantCode(t, err, market.CodeNotFound)
	})
}

func TestSandboxStore(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		mustTx(t, db, func(tx *store.Tx) error {
			if added, err := tx.InsertSandboxCustomer(ctx, &payments.SandboxCustomer{ID: "cus_a", UserID: "u1", Email: "a@x.test", CreatedAt: t0}); err != nil || !added {
				t.Fatalf("customer: %v %v", added, err)
			}
			if added, err := tx.InsertSandboxCustomer(ctx, &payments.SandboxCustomer{ID: "cus_b", UserID: "u1", Email: "a@x.test", CreatedAt: t0}); err != nil || added {
				t.Fatalf("second customer of a user: %v %v", added, err)
			}
			si := &payments.SandboxSetupIntent{SetupIntent: payments.SetupIntent{ID: "seti_a", ClientSecret: "s", CustomerID: "cus_a",
				Status: "requires_payment_method"}, CreatedAt: t0}
			if err := tx.CreateSandboxSetupIntent(ctx, si); err != nil {
				return err
			}
			si.Status, si.PaymentMethodID, si.ConfirmedWith = "succeeded", "pm_a", "pm_card_chargeDeclined"
			if err := tx.UpdateSandboxSetupIntent(ctx, si); err != nil {
				return err
			}
			return tx.CreateSandboxCard(ctx, &payments.SandboxCard{Card: payments.Card{ID: "pm_a", Brand: "visa", Last4: "0002",
				ExpMonth: 12, ExpYear: 2029}, CustomerID: "cus_a", Outcome: payments.OutcomeDecline, CreatedAt: t0})
		})
		r := db.Read()
		if c, err := r.SandboxCustomerOf(ctx, "u1"); err != nil || c.ID != "cus_a" {
			t.Fatalf("customer of u1: %+v %v", c, err)
		}
		if _, err := r.SandboxCustomer(ctx, "cus_b"); market.CodeOf(err) != market.CodeNotFound {
			t.Fatalf("cus_b exists: %v", err)
		}
		if si, err := r.SandboxSetupIntent(ctx, "seti_a"); err != nil || si.Status != "succeeded" || si.PaymentMethodID != "pm_a" || si.ConfirmedWith != "pm_card_chargeDeclined" {
			t.Fatalf("setup intent: %+v %v", si, err)
		}
		if c, err := r.SandboxCard(ctx, "pm_a"); err != nil || c.Outcome != payments.OutcomeDecline || c.CustomerID != "cus_a" {
			t.Fatalf("card: %+v %v", c, err)
		}
		mustTx(t, db, func(tx *store.Tx) error { return tx.DetachSandboxCard(ctx, "pm_a") })
		mustTx(t, db, func(tx *store.Tx) error { return tx.DetachSandboxCard(ctx, "pm_a") })
		if c, _ := r.SandboxCard(ctx, "pm_a"); c.CustomerID != "" {
			t.Fatalf("detached card keeps customer %q", c.CustomerID)
		}
		wantCode(t, db.InTx(ctx, func(tx *store.Tx) error { return tx.DetachSandboxCard(ctx, "pm_none") }), market.CodeNotFound)

		// Payments: one per idempotency key.
		p := &payments.SandboxPayment{Payment: payments.Payment{ID: "pi_a", Status: payments.PaymentSucceeded, Amount: 1099,
			ClientSecret: "pi_a_secret", IdempotencyKey: "order-1", CreatedAt: t0}, CustomerID: "cus_a", PaymentMethodID: "pm_a",
			Currency: "usd", Description: "Lamp", Metadata: map[string]string{"order_id": "order-1"}, UpdatedAt: t0}
		dup := *p
		dup.ID = "pi_b"
		mustTx(t, db, func(tx *store.Tx) error {
			if added, err := tx.InsertSandboxPayment(ctx, p); err != nil || !added {
				t.Fatalf("payment: %v %v", added, err)
			}
			if added, err := tx.InsertSandboxPayment(ctx, &dup); err != nil || added {
				t.Fatalf("payment with a used key: %v %v", added, err)
			}
			return nil
		})
		got, err := r.SandboxPaymentByKey(ctx, "order-1")
		if err != nil || got.ID != "pi_a" || got.Metadata["order_id"] != "order-1" || got.Amount != 1099 || !got.CreatedAt.Equal(t0) {
			t.Fatalf("payment by key: %+v %v", got, err)
		}
		_, err = r.SandboxPayment(ctx, "pi_b")
		wantCode(t, err, market.CodeNotFound)
		_, err = r.SandboxPaymentByKey(ctx, "order-2")
		wantCode(t, err, market.CodeNotFound)
		got.AmountRefunded, got.Status, got.UpdatedAt = 500, payments.PaymentSucceeded, t0.Add(time.Hour)
		mustTx(t, db, func(tx *store.Tx) error {
			if err := tx.UpdateSandboxPayment(ctx, got); err != nil {
				return err
			}
			re := &payments.SandboxRefund{Refund: payments.Refund{ID: "re_a", PaymentID: "pi_a", Amount: 500, Status: "succeeded"},
				IdempotencyKey: "refund-1", CreatedAt: t0}
			if added, err := tx.InsertSandboxRefund(ctx, re); err != nil || !added {
				t.Fatalf("refund: %v %v", added, err)
			}
			re2 := *re
			re2.ID = "re_b"
			if added, err := tx.InsertSandboxRefund(ctx, &re2); err != nil || added {
				t.Fatalf("refund with a used key: %v %v", added, err)
			}
			return nil
		})
		if p, _ := r.SandboxPayment(ctx, "pi_a"); p.AmountRefunded != 500 {
			t.Fatalf("refunded = %d", p.AmountRefunded)
		}
		if re, err := r.SandboxRefundByKey(ctx, "refund-1"); err != nil || re.ID != "re_a" || re.Amount != 500 {
			t.Fatalf("refund by key: %+v %v", re, err)
		}

		// Transfers, newest first per destination.
		mustTx(t, db, func(tx *store.Tx) error {
			for i, key := range []string{"t1", "t2", "t2"} {
				tr := &payments.SandboxTransfer{Transfer: payments.Transfer{ID: fmt.Sprintf("tr_%d", i), Destination: "acct_1",
					Amount: int64(100 * (i + 1))}, IdempotencyKey: key, CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
				if _, err := tx.InsertSandboxTransfer(ctx, tr); err != nil {
					return err
				}
			}
			return nil
		})
		ts, err := r.SandboxTransfersTo(ctx, "acct_1")
		if err != nil || len(ts) != 2 || ts[0].ID != "tr_1" || ts[1].ID != "tr_0" || ts[0].Metadata == nil {
			t.Fatalf("transfers: %+v %v", ts, err)
		}
		if ts, _ := r.SandboxTransfersTo(ctx, "acct_2"); len(ts) != 0 {
			t.Fatalf("transfers of another account: %+v", ts)
		}

		mustTx(t, db, func(tx *store.Tx) error {
			return tx.CreateSandboxDashboardLink(ctx, &payments.SandboxDashboardLink{Token: "tok", AccountID: "acct_1",
				ExpiresAt: t0.Add(time.Hour), CreatedAt: t0})
		})
		if l, err := r.SandboxDashboardLink(ctx, "tok"); err != nil || l.AccountID != "acct_1" || !l.ExpiresAt.Equal(t0.Add(time.Hour)) {
			t.Fatalf("dashboard link: %+v %v", l, err)
		}
	})
}

// TestSandboxChargeConcurrent sends one idempotency key from many
// goroutines at once: one payment is made and every caller gets it.
func TestSandboxChargeConcurrent(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clock := market.NewFixedClock(t0)
		sb := payments.NewSandbox("http://x", store.PaymentsSandbox(db), clock)
		var u string
		mustTx(t, db, func(tx *store.Tx) error {
			u = newUser(t, tx, "charge@example.com", "charge").ID
			return nil
		})
		user, _ := db.Read().UserByID(ctx, u)
		cus, err := sb.CreateCustomer(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		si, err := sb.CreateSetupIntent(ctx, cus)
		if err != nil {
			t.Fatal(err)
		}
		card, err := sb.ConfirmSetup(ctx, si.ID, cus, "pm_card_visa")
		if err != nil {
			t.Fatal(err)
		}
		const n = 16
		ids := make(chan string, n)
		errs := make(chan error, n)
		var wg sync.WaitGroup
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, err := sb.Charge(ctx, payments.ChargeRequest{IdempotencyKey: "order-race", CustomerID: cus,
					PaymentMethodID: card.ID, Amount: 1099, Currency: "usd"})
				if err != nil {
					errs <- err
					return
				}
				ids <- p.ID
			}()
		}
		wg.Wait()
		close(ids)
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for id := range ids {
			seen[id] = true
		}
		if len(seen) != 1 {
			t.Fatalf("concurrent charges with one key made payments %v", seen)
		}
		var count int
		if err := db.WritePool().QueryRowContext(ctx, `SELECT COUNT(*) FROM sandbox_payments WHERE idempotency_key = 'order-race'`).Scan(&count); err != nil || count != 1 {
			t.Fatalf("payments stored under the key: %d %v", count, err)
		}
	})
}

// TestOneDefaultCardConcurrent saves a user's first cards concurrently:
// exactly one becomes the default.
func TestOneDefaultCardConcurrent(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clock := market.NewFixedClock(t0)
		sb := payments.NewSandbox("http://x", store.PaymentsSandbox(db), clock)
		svc := payments.NewService(store.Payments(db), clock, sb, sb, nil)
		var actor market.Actor
		mustTx(t, db, func(tx *store.Tx) error {
			actor = market.Actor{Type: market.ActorUser, UserID: newUser(t, tx, "cards@example.com", "cards").ID}
			return nil
		})
		const n = 8
		intents := make([]string, n)
		for i := range intents {
			si, err := svc.SetupIntent(ctx, actor)
			if err != nil {
				t.Fatal(err)
			}
			intents[i] = si.ID
		}
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for _, id := range intents {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := svc.ConfirmSetup(ctx, actor, id, "pm_card_visa"); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		list, err := svc.PaymentMethods(ctx, actor)
		if err != nil || len(list) != n {
			t.Fatalf("cards: %d %v", len(list), err)
		}
		defaults := 0
		for _, m := range list {
			if m.IsDefault {
				defaults++
			}
		}
		if defaults != 1 {
			t.Fatalf("%d default cards", defaults)
		}
	})
}

func mustTx(t *testing.T, db *store.DB, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := db.InTx(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}
