package storetest

import (
	"context"
	"testing"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/store"
)

// HoldWrite opens a transaction on db that has written (an event for
// nobody, so it holds an xid) and keeps it open until the returned func is
// called, which waits for it to end: a transaction another one's feed read
// must either wait for or place in another database.
func HoldWrite(t testing.TB, db *store.DB) (release func()) {
	t.Helper()
	ctx := context.Background()
	written, end, done := make(chan error, 1), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		_ = db.InTx(ctx, func(tx *store.Tx) error {
			err := tx.AppendEvent(ctx, &events.Event{ID: market.NewID(), Type: "listing.updated", ActorType: market.ActorSystem,
				EntityType: "listing", EntityID: "l1", Data: map[string]any{}, CreatedAt: time.Now().UTC(),
				Recipients: []string{market.NewID()}})
			written <- err
			<-end
			return err
		})
	}()
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	return func() { close(end); <-done }
}
