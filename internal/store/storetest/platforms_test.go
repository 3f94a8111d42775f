package storetest

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/checkouts"
	"marketplace/internal/market"
	"marketplace/internal/payments"
	"marketplace/internal/store"
)

// TestPlatformsStore: an agent platform round-trips, is found by its
// secret's hash until deleted, and a guest shares an e-mail with an
// account but not with another guest, on both engines.
func TestPlatformsStore(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		account := &accounts.User{ID: market.NewID(), Email: "p@platforms.invalid", Username: "platform-1", DisplayName: "P",
			Role: accounts.RolePlatform, Status: accounts.StatusActive, TrustTier: accounts.TierNew, CreatedAt: t0, UpdatedAt: t0}
		p := &checkouts.Platform{ID: "acpp_" + market.NewID(), AccountID: account.ID, EndpointID: market.NewID(), Name: "P",
			WebhookURL: "https://p.example/hook", SecretHash: "hash1", SigningSecret: "whsec_x", CreatedAt: t0}
		err := db.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.CreateUser(ctx, account); err != nil {
				return err
			}
			return tx.CreatePlatform(ctx, p)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := db.Read().PlatformBySecret(ctx, "hash1"); err != nil || !reflect.DeepEqual(got, p) {
			t.Fatalf("by secret %+v (%v), want %+v", got, err, p)
		}
		if list, err := db.Read().Platforms(ctx); err != nil || len(list) != 1 {
			t.Fatalf("list %v (%v)", list, err)
		}
		at := t0.Add(time.Hour)
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.DeletePlatform(ctx, p.ID, at) }); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Read().PlatformBySecret(ctx, "hash1"); market.CodeOf(err) != market.CodeNotFound {
			t.Fatalf("a deleted platform's secret: %v", err)
		}
		if got, err := db.Read().PlatformByID(ctx, p.ID); err != nil || got.DeletedAt == nil || !got.DeletedAt.Equal(at) {
			t.Fatalf("deleted platform %+v (%v)", got, err)
		}
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.DeletePlatform(ctx, p.ID, at) }); market.CodeOf(err) != market.CodeNotFound {
			t.Fatalf("deleting twice: %v", err)
		}

		user := func(email string, role accounts.Role) error {
			return db.InTx(ctx, func(tx *store.Tx) error {
				return tx.CreateUser(ctx, &accounts.User{ID: market.NewID(), Email: email, Username: "u" + strings.ReplaceAll(market.NewID(), "-", "")[20:],
					Role: role, Status: accounts.StatusActive, TrustTier: accounts.TierNew, CreatedAt: t0, UpdatedAt: t0})
			})
		}
		if err := user("gwen@example.com", accounts.RoleGuest); err != nil {
			t.Fatal(err)
		}
		if err := user("gwen@example.com", accounts.RoleGuest); market.CodeOf(err) != market.CodeEmailTaken {
			t.Fatalf("a second guest of one e-mail: %v", err)
		}
		if err := user("gwen@example.com", accounts.RoleUser); err != nil {
			t.Fatalf("an account of a guest's e-mail: %v", err)
		}
		g, err := db.Read().GuestByEmail(ctx, "gwen@example.com")
		u, uerr := db.Read().UserByEmail(ctx, "gwen@example.com")
		if err != nil || uerr != nil || g.Role != accounts.RoleGuest || u.Role != accounts.RoleUser {
			t.Fatalf("guest %+v (%v), account %+v (%v)", g, err, u, uerr)
		}
	})
}

// TestVaultTokensStore: a delegated card token round-trips with its
// allowance, and records the payment that used it, on both engines.
func TestVaultTokensStore(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		v := &payments.VaultToken{ID: "vt_" + market.NewID(), Owner: "platform:p1", Outcome: payments.OutcomeSucceed, Brand: "visa",
			Last4: "4242", ExpMonth: 12, ExpYear: 2030, Metadata: map[string]string{"source": "test"}, CreatedAt: t0,
			Allow: payments.Allowance{MaxAmount: 5000, Currency: "usd", CheckoutSessionID: checkouts.NewID(), MerchantID: "marketplace",
				ExpiresAt: t0.Add(time.Hour)}}
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.CreateSandboxVaultToken(ctx, v) }); err != nil {
			t.Fatal(err)
		}
		err := db.InTx(ctx, func(tx *store.Tx) error {
			got, err := tx.SandboxVaultToken(ctx, v.ID) // locks
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got, v) {
				t.Errorf("read back %+v, want %+v", got, v)
			}
			got.PaymentID = "pi_1"
			return tx.UpdateSandboxVaultToken(ctx, got)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := db.Read().SandboxVaultToken(ctx, v.ID); err != nil || got.PaymentID != "pi_1" {
			t.Fatalf("after use %+v (%v)", got, err)
		}
		if _, err := db.Read().SandboxVaultToken(ctx, "vt_none"); market.CodeOf(err) != market.CodeNotFound {
			t.Fatalf("unknown token: %v", err)
		}
	})
}
