package agents_test

import (
	"context"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// TestSpendingWindowEdgesOnStore walks the service clock over the edges of
// the calendar windows (CONTRACT.md section 5) on a real store, SQLite and
// PostgreSQL: spending recorded a microsecond before UTC midnight leaves
// the day (and, on a Sunday, the week; on the last of the month, the month)
// at midnight, spending recorded at midnight counts in full, a week that
// straddles two months keeps counting across the first, and a refund's
// given-back amount and a release stop counting at once. The daily cap is
// checked at the same instants through CheckSpend.
func TestSpendingWindowEdgesOnStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		start := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
		clock := market.NewFixedClock(start)
		svc := agents.NewService(store.Agents(db), clock, agents.Options{})
		owner := &accounts.User{ID: market.NewID(), Email: "edges@example.com", Username: "edges", DisplayName: "Edges",
			Role: accounts.RoleUser, Status: accounts.StatusActive, TrustTier: accounts.TierVerified, CreatedAt: start, UpdatedAt: start}
		weekly := int64(5000)
		key := &agents.Key{ID: market.NewID(), UserID: owner.ID, Label: "bot", Scope: agents.ScopeBuy, Status: agents.KeyActive,
			Prefix: "mk_test_edge", Hash: "edge-hash", Limits: agents.Limits{Weekly: &weekly}, CreatedAt: start}
		controls := agents.DefaultControls()
		controls.Daily = 1000
		inTx := func(fn func(tx *store.Tx) error) {
			t.Helper()
			if err := db.InTx(ctx, fn); err != nil {
				t.Fatal(err)
			}
		}
		inTx(func(tx *store.Tx) error {
			if err := tx.CreateUser(ctx, owner); err != nil {
				return err
			}
			if err := tx.CreateKey(ctx, key); err != nil {
				return err
			}
			return tx.PutControls(ctx, owner.ID, controls, start)
		})
		agent := market.Actor{Type: market.ActorAgent, UserID: owner.ID, KeyID: key.ID}
		at := func(ts time.Time) { clock.Advance(ts.Sub(clock.Now())) }
		spend := func(orderID string, amount int64) {
			inTx(func(tx *store.Tx) error {
				return tx.RecordSpend(ctx, owner.ID, key.ID, orderID, amount, clock.Now(), nil)
			})
		}
		expect := func(step string, spent agents.Spent, weeklyLeft int64) {
			t.Helper()
			st, err := svc.Spending(ctx, agent, key)
			if err != nil {
				t.Fatal(err)
			}
			if st.Spent != spent || st.Remaining.Weekly != weeklyLeft {
				t.Fatalf("%s (%v): spent %+v, weekly left %d; want %+v, %d", step, clock.Now(), st.Spent,
					st.Remaining.Weekly, spent, weeklyLeft)
			}
		}
		// canSpend runs the purchase-time check at the clock's instant.
		canSpend := func(step string, amount int64, want market.Code) {
			t.Helper()
			var err error
			_ = db.InTx(ctx, func(tx *store.Tx) error {
				_, err = agents.CheckSpend(ctx, tx, clock.Now(), agents.SpendRequest{OwnerID: owner.ID, Key: key, Amount: amount})
				return err
			})
			if market.CodeOf(err) != want {
				t.Fatalf("%s (%v): CheckSpend(%d) = %v, want %q", step, clock.Now(), amount, err, want)
			}
		}
		lastOfSunday := time.Date(2026, 6, 7, 23, 59, 59, 999999000, time.UTC) // the store keeps microseconds
		mondayMidnight := time.Date(2026, 6, 8, 0, 0, 0, 0, time.UTC)
		lastOfJune := time.Date(2026, 6, 30, 23, 59, 59, 999999000, time.UTC) // a Tuesday
		firstOfJuly := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)            // the Wednesday of the same week
		nextMonday := time.Date(2026, 7, 6, 0, 0, 0, 0, time.UTC)

		at(lastOfSunday)
		spend("order-sun", 600)
		expect("Sunday's last microsecond", agents.Spent{Today: 600, ThisWeek: 600, ThisMonth: 600}, 4400)
		canSpend("the day's cap is 1000", 400, "")
		canSpend("a cent over the day's cap", 401, market.CodeSpendingLimitExceeded)

		at(mondayMidnight)
		expect("Monday midnight: a new day and week", agents.Spent{ThisMonth: 600}, 5000)
		canSpend("the whole day's cap again", 1000, "")
		spend("order-mon", 1000)
		expect("spent at midnight counts", agents.Spent{Today: 1000, ThisWeek: 1000, ThisMonth: 1600}, 4000)
		canSpend("the day is full", 1, market.CodeSpendingLimitExceeded)

		at(lastOfJune)
		expect("the last day of June, another week", agents.Spent{ThisMonth: 1600}, 5000)
		spend("order-june", 300)
		inTx(func(tx *store.Tx) error { return tx.GiveBackSpend(ctx, "order-june", 100) }) // a partial refund
		expect("a partial refund gives its amount back", agents.Spent{Today: 200, ThisWeek: 200, ThisMonth: 1800}, 4800)

		at(firstOfJuly)
		expect("July: a new month, the same week", agents.Spent{ThisWeek: 200}, 4800)
		inTx(func(tx *store.Tx) error { return tx.ReleaseSpend(ctx, "order-june", clock.Now()) }) // a full refund
		expect("a released order no longer counts", agents.Spent{}, 5000)
		spend("order-july", 900)

		at(nextMonday)
		expect("the next Monday", agents.Spent{ThisMonth: 900}, 5000)
	})
}
