package store_test

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// TestFeedBoundUnplaced: a transaction of another database that is running
// when a feed read takes its snapshot and ends before the read looks at
// pg_stat_activity cannot be placed, so it bounds that snapshot. The read
// takes its snapshot again instead of handing out a page without an entry
// already committed, which a long poll would then wait on for nothing.
func TestFeedBoundUnplaced(t *testing.T) {
	if os.Getenv(storetest.PostgresEnv) == "" {
		t.Skip(storetest.PostgresEnv + " is not set")
	}
	ctx := context.Background()
	db, other := storetest.OpenPostgres(t), storetest.OpenPostgres(t)
	now := time.Now().UTC()
	appendEvent := func(tx *store.Tx, user string) error {
		return tx.AppendEvent(ctx, &events.Event{ID: market.NewID(), Type: "listing.updated", ActorType: market.ActorSystem,
			EntityType: "listing", EntityID: "l1", Data: map[string]any{}, CreatedAt: now, Recipients: []string{user}})
	}
	// Another database's transaction takes an xid, then this one's entry
	// commits with a later one.
	release := storetest.HoldWrite(t, other)
	user := market.NewID()
	if err := db.InTx(ctx, func(tx *store.Tx) error { return appendEvent(tx, user) }); err != nil {
		t.Fatal(err)
	}
	first := true
	store.SetFeedBegan(t, db, func(ctx context.Context, tx *sql.Tx) {
		if !first {
			return
		}
		first = false
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil { // the snapshot, with the other running
			t.Error(err)
		}
		release() // it ends before the read's bound looks for it
	})
	page, _, err := db.Feed(ctx, events.FeedQuery{UserID: user, Since: now.Add(-time.Hour), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if first {
		t.Fatal("the hook never ran: the test proves nothing")
	}
	if len(page) != 1 {
		t.Fatalf("the feed read %d entries, want the 1 committed before it began", len(page))
	}
}
