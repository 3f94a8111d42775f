package storetest

import (
	"context"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/audit"
	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/payments"
	"marketplace/internal/store"
)

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC)

func newUser(t *testing.T, tx *store.Tx, email, username string) *accounts.User {
	t.Helper()
	u := &accounts.User{ID: market.NewID(), Email: email, Username: username, DisplayName: "D " + username,
		Role: accounts.RoleUser, Status: accounts.StatusActive, TrustTier: accounts.TierNew, CreatedAt: t0, UpdatedAt: t0}
	if err := tx.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return u
}

func wantCode(t *testing.T, err error, code market.Code) {
	t.Helper()
	if got := market.CodeOf(err); got != code {
		t.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

func TestUsers(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var u *accounts.User
		err := db.InTx(ctx, func(tx *store.Tx) error {
			u = newUser(t, tx, "a@example.com", "alice")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.Read().UserByEmail(ctx, "a@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != u.ID || !got.CreatedAt.Equal(t0) || got.Role != accounts.RoleUser || got.IdentityVerified {
			t.Fatalf("round trip: %+v", got)
		}
		if _, err := db.Read().UserByUsername(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
		_, err = db.Read().UserByID(ctx, market.NewID())
		wantCode(t, err, market.CodeNotFound)

		dup := func(email, username string) error {
			return db.InTx(ctx, func(tx *store.Tx) error {
				return tx.CreateUser(ctx, &accounts.User{ID: market.NewID(), Email: email, Username: username,
					Role: "user", Status: "active", TrustTier: "new", CreatedAt: t0, UpdatedAt: t0})
			})
		}
		wantCode(t, dup("a@example.com", "other"), market.CodeEmailTaken)
		wantCode(t, dup("b@example.com", "alice"), market.CodeUsernameTaken)

		got.IdentityVerified, got.TrustTier = true, accounts.TierVerified
		got.ShipFrom = &accounts.Address{Line1: "1 Main St", City: "Austin", State: "TX", Zip: "78701", Country: "US"}
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.UpdateUser(ctx, got) }); err != nil {
			t.Fatal(err)
		}
		again, _ := db.Read().UserByID(ctx, u.ID)
		if !again.IdentityVerified || again.TrustTier != accounts.TierVerified || again.ShipFrom == nil || again.ShipFrom.City != "Austin" {
			t.Fatalf("update lost: %+v", again)
		}
	})
}

func TestRollback(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		err := db.InTx(ctx, func(tx *store.Tx) error {
			newUser(t, tx, "r@example.com", "rolled")
			return market.Errorf(market.CodeValidation, "stop")
		})
		wantCode(t, err, market.CodeValidation)
		_, err = db.Read().UserByEmail(ctx, "r@example.com")
		wantCode(t, err, market.CodeNotFound)
	})
}

func TestAddresses(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		err := db.InTx(ctx, func(tx *store.Tx) error {
			u := newUser(t, tx, "addr@example.com", "addr")
			other := newUser(t, tx, "o@example.com", "other")
			var ids []string
			for i := 0; i < 3; i++ {
				a := &accounts.Address{ID: market.NewID(), UserID: u.ID, Name: "N", Line1: "L", City: "C", State: "CA",
					Zip: "94103", Country: "US", CreatedAt: t0.Add(time.Duration(i) * time.Second)}
				if err := tx.CreateAddress(ctx, a); err != nil {
					return err
				}
				ids = append(ids, a.ID)
			}
			if err := tx.SetDefaultAddress(ctx, u.ID, ids[1]); err != nil {
				return err
			}
			list, err := tx.Addresses(ctx, u.ID)
			if err != nil {
				return err
			}
			if len(list) != 3 || list[0].ID != ids[1] || !list[0].IsDefault || list[1].IsDefault || list[1].ID != ids[2] {
				t.Fatalf("order or default wrong: %+v", list)
			}
			wantCode(t, tx.SetDefaultAddress(ctx, other.ID, ids[0]), market.CodeNotFound)
			wantCode(t, tx.DeleteAddress(ctx, other.ID, ids[0]), market.CodeNotFound)
			if err := tx.DeleteAddress(ctx, u.ID, ids[0]); err != nil {
				return err
			}
			list, _ = tx.Addresses(ctx, u.ID)
			if len(list) != 2 {
				t.Fatalf("after delete: %d", len(list))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func TestAgentKeys(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		daily := int64(2500)
		k := &agents.Key{ID: market.NewID(), Label: "bot", Scope: agents.ScopeBuy, Status: agents.KeyActive,
			Prefix: "mk_test_abcd", Hash: agents.HashSecret("s1"), Limits: agents.Limits{Daily: &daily},
			Metadata: map[string]any{"framework": "x"}, CreatedAt: t0}
		var u *accounts.User
		err := db.InTx(ctx, func(tx *store.Tx) error {
			u = newUser(t, tx, "k@example.com", "keys")
			k.UserID = u.ID
			return tx.CreateKey(ctx, k)
		})
		if err != nil {
			t.Fatal(err)
		}
		got, owner, err := db.Read().KeyByHash(ctx, agents.HashSecret("s1"))
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != k.ID || owner.ID != u.ID || got.Limits.Daily == nil || *got.Limits.Daily != 2500 ||
			got.Limits.PerTransaction != nil || got.Metadata["framework"] != "x" || got.LastUsedAt != nil {
			t.Fatalf("round trip: %+v %+v", got, owner)
		}
		_, _, err = db.Read().KeyByHash(ctx, agents.HashSecret("nope"))
		wantCode(t, err, market.CodeNotFound)

		at := t0.Add(time.Hour)
		err = db.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.TouchKey(ctx, k.ID, at); err != nil {
				return err
			}
			k.Status, k.FrozenAt = agents.KeyFrozen, &at
			return tx.UpdateKey(ctx, k)
		})
		if err != nil {
			t.Fatal(err)
		}
		list, err := db.Read().KeysOf(ctx, u.ID)
		if err != nil || len(list) != 1 {
			t.Fatal(err, len(list))
		}
		if list[0].Status != agents.KeyFrozen || list[0].FrozenAt == nil || !list[0].LastUsedAt.Equal(at) {
			t.Fatalf("after update: %+v", list[0])
		}
	})
}

func TestSpendingControlsAndWindows(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var u *accounts.User
		keyID := market.NewID()
		// Wednesday 2026-04-01: the week began Monday 2026-03-30, in the
		// previous month.
		now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
		err := db.InTx(ctx, func(tx *store.Tx) error {
			u = newUser(t, tx, "s@example.com", "spender")
			_, err := tx.Controls(ctx, u.ID)
			wantCode(t, err, market.CodeNotFound)
			thr := int64(700)
			c := agents.Controls{PerTransaction: 1, Daily: 2, Weekly: 3, Monthly: 4, CategoryRestrictions: []string{"electronics"}, ApprovalThreshold: &thr}
			if err := tx.PutControls(ctx, u.ID, c, now); err != nil {
				return err
			}
			c.Daily = 20
			if err := tx.PutControls(ctx, u.ID, c, now); err != nil {
				return err
			}
			if err := tx.CreateKey(ctx, &agents.Key{ID: keyID, UserID: u.ID, Label: "k", Scope: agents.ScopeBuySell,
				Status: agents.KeyActive, Prefix: "p", Hash: "h", CreatedAt: now}); err != nil {
				return err
			}
			rows := []struct {
				at       time.Time
				amount   int64
				released bool
			}{
				{now.Add(-time.Hour), 100, false},                         // today
				{now.Add(-time.Hour), 5000, true},                         // today, released
				{time.Date(2026, 3, 31, 9, 0, 0, 0, time.UTC), 20, false}, // this week, last month
				{time.Date(2026, 3, 20, 9, 0, 0, 0, time.UTC), 3, false},  // neither
				{time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), 7, false},   // the first instant of today
			}
			for _, r := range rows {
				var rel any
				if r.released {
					rel = r.at
				}
				if err := testInsertSpend(ctx, tx, u.ID, keyID, r.amount, r.at, rel); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		c, err := db.Read().Controls(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Daily != 20 || c.PerTransaction != 1 || len(c.CategoryRestrictions) != 1 || c.ApprovalThreshold == nil || *c.ApprovalThreshold != 700 {
			t.Fatalf("controls: %+v", c)
		}
		day, week, month := agents.Windows(now)
		if !week.Equal(time.Date(2026, 3, 30, 0, 0, 0, 0, time.UTC)) || !month.Equal(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)) || !day.Equal(month) {
			t.Fatalf("windows: %v %v %v", day, week, month)
		}
		q := agents.SpentQuery{UserID: u.ID, KeyID: keyID, DayStart: day, WeekStart: week, MonthStart: month}
		snap, err := db.Read().SpendingSnapshot(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want := agents.Spent{Today: 107, ThisWeek: 127, ThisMonth: 107}
		if snap.Owner != want || snap.Key != want || snap.Controls == nil || snap.Controls.Daily != 20 || *snap.Controls.ApprovalThreshold != 700 {
			t.Fatalf("snapshot %+v %+v", snap, snap.Controls)
		}
		// An owner who never saved controls, and no key asked for.
		var other *accounts.User
		_ = db.InTx(ctx, func(tx *store.Tx) error { other = newUser(t, tx, "none@example.com", "nobody"); return nil })
		snap, err = db.Read().SpendingSnapshot(ctx, agents.SpentQuery{UserID: other.ID, DayStart: day, WeekStart: week, MonthStart: month})
		if err != nil || snap.Controls != nil || snap.Owner != (agents.Spent{}) || snap.Key != (agents.Spent{}) {
			t.Fatalf("empty snapshot %+v %v", snap, err)
		}
	})
}

func TestOnboardingSessions(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		o := &agents.Onboarding{ID: market.NewID(), MagicHash: "m1", PollSecretHash: "p1", SealPublicKey: "pk",
			Status: agents.OnboardPendingHuman, OwnerEmail: "o@example.com", DesiredScope: agents.ScopeBuySell,
			AgentLabel: "bot", AgentMetadata: map[string]any{"v": "1"}, ExpiresAt: t0.Add(24 * time.Hour), CreatedAt: t0, UpdatedAt: t0}
		old := *o
		old.ID, old.MagicHash, old.ExpiresAt = market.NewID(), "m2", t0.Add(time.Minute)
		err := db.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.CreateOnboarding(ctx, o); err != nil {
				return err
			}
			return tx.CreateOnboarding(ctx, &old)
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.Read().OnboardingByMagicHash(ctx, "m1")
		if err != nil || got.ID != o.ID || got.AgentMetadata["v"] != "1" || got.UserID != "" || !got.ExpiresAt.Equal(o.ExpiresAt) {
			t.Fatalf("round trip: %+v %v", got, err)
		}
		var n int
		err = db.InTx(ctx, func(tx *store.Tx) error {
			n, err = tx.ExpireOnboardings(ctx, t0.Add(time.Hour))
			return err
		})
		if err != nil || n != 1 {
			t.Fatalf("expired %d, %v", n, err)
		}
		gone, _ := db.Read().OnboardingByID(ctx, old.ID)
		if gone.Status != agents.OnboardExpired {
			t.Fatalf("status %s", gone.Status)
		}
		_, err = db.Read().OnboardingByID(ctx, market.NewID())
		wantCode(t, err, market.CodeNotFound)
	})
}

func TestPayoutAccounts(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		err := db.InTx(ctx, func(tx *store.Tx) error {
			u := newUser(t, tx, "p@example.com", "payee")
			a := &payments.PayoutAccount{ID: market.NewID(), UserID: u.ID, Processor: "sandbox", ExternalID: "acct_1",
				Status: payments.AccountPending, OnboardingToken: "tok", Country: "US", BusinessType: "individual", CreatedAt: t0, UpdatedAt: t0}
			if err := tx.CreatePayoutAccount(ctx, a); err != nil {
				return err
			}
			a.Status, a.PayoutsEnabled, a.VerifiedAt = payments.AccountVerified, true, &t0
			if err := tx.UpdatePayoutAccount(ctx, a); err != nil {
				return err
			}
			got, err := tx.PayoutAccountByToken(ctx, "tok")
			if err != nil || got.ID != a.ID || !got.PayoutsEnabled || got.VerifiedAt == nil {
				t.Fatalf("by token: %+v %v", got, err)
			}
			_, err = tx.PayoutAccountOf(ctx, market.NewID())
			wantCode(t, err, market.CodeNotFound)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func TestEventsAndAudit(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		id := market.NewID()
		err := db.InTx(ctx, func(tx *store.Tx) error {
			actor := market.Actor{Type: market.ActorUser, UserID: "u1"}
			if err := events.Record(ctx, tx, t0, actor, "thing.made", "thing", id, map[string]any{"n": 1}); err != nil {
				return err
			}
			return events.Record(ctx, tx, t0.Add(time.Second), market.System, "thing.done", "thing", id, nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		// An event written in a rolled-back transaction never happened.
		_ = db.InTx(ctx, func(tx *store.Tx) error {
			_ = events.Record(ctx, tx, t0, market.System, "thing.undone", "thing", id, nil)
			return market.Errorf(market.CodeInvalidState, "no")
		})
		list, err := db.Read().EventsFor(ctx, "thing", id)
		if err != nil || len(list) != 2 || list[0].Type != "thing.made" || list[0].ActorID != "u1" || list[1].ActorType != market.ActorSystem {
			t.Fatalf("events: %+v %v", list, err)
		}
		for i, r := range []audit.Result{audit.Allowed, audit.Refused, audit.Refused} {
			e := &audit.Entry{ID: market.NewID(), ActorType: market.ActorAgent, ActorID: "k1", Action: "POST /x",
				Result: r, Status: 200, RequestID: "r", IP: "127.0.0.1", CreatedAt: t0.Add(time.Duration(i) * time.Second)}
			if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.AppendAudit(ctx, e) }); err != nil {
				t.Fatal(err)
			}
		}
		got, total, err := db.Read().ListAudit(ctx, audit.Filter{ActorID: "k1", Result: "refused"})
		if err != nil || total != 2 || len(got) != 2 || !got[0].CreatedAt.After(got[1].CreatedAt) {
			t.Fatalf("audit: %d %+v %v", total, got, err)
		}
	})
}

func testInsertSpend(ctx context.Context, tx *store.Tx, userID, keyID string, amount int64, at time.Time, released any) error {
	var rel *time.Time
	if r, ok := released.(time.Time); ok {
		rel = &r
	}
	return tx.RecordSpend(ctx, userID, keyID, market.NewID(), amount, at, rel)
}
