package storetest

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/store"
)

// TestFeedConcurrentWriters: writers commit events for one user out of
// sequence order (some hold their transaction open a few milliseconds
// after inserting) while a reader pages the feed with its cursor. The
// reader sees every committed event exactly once.
func TestFeedConcurrentWriters(t *testing.T) {
	const writers, perWriter = 8, 300
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		user := market.NewID()
		other := market.NewID()
		now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)

		var mu sync.Mutex
		committed := map[string]bool{}
		var done atomic.Bool
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), 7))
				for range perWriter {
					var ids []string
					err := db.InTx(ctx, func(tx *store.Tx) error {
						ids = ids[:0]
						n := 1 + rng.IntN(2)
						for range n {
							e := &events.Event{ID: market.NewID(), Type: "listing.updated", ActorType: market.ActorSystem,
								EntityType: "listing", EntityID: "l1", Data: map[string]any{"w": w}, CreatedAt: now,
								Recipients: []string{user, other}}
							if err := tx.AppendEvent(ctx, e); err != nil {
								return err
							}
							ids = append(ids, e.ID)
						}
						if rng.IntN(3) == 0 {
							time.Sleep(time.Duration(rng.IntN(4000)) * time.Microsecond)
						}
						return nil
					})
					if err != nil {
						t.Errorf("writer %d: %v", w, err)
						return
					}
					mu.Lock()
					for _, id := range ids {
						committed[id] = true
					}
					mu.Unlock()
				}
			}()
		}
		go func() { wg.Wait(); done.Store(true) }()

		seen := map[string]int{}
		var cursor *events.Cursor
		pages, empties := 0, 0
		var drainUntil time.Time
		var maxSeq int64
		late := 0 // entries read after one of a higher sequence number: commits out of order
		for {
			// Once every writer is done, read on until the reader has
			// them all: on PostgreSQL the last commits become readable once
			// no older transaction runs anywhere on the server, which
			// another session may delay a moment.
			if drainUntil.IsZero() && done.Load() {
				drainUntil = time.Now().Add(30 * time.Second)
			}
			q := events.FeedQuery{UserID: user, After: cursor, Since: now.Add(-time.Hour), Limit: 100}
			entries, next, err := db.Feed(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, e := range entries {
				seen[e.Event.ID]++
				if seen[e.Event.ID] > 1 {
					t.Fatalf("event %s seen twice", e.Event.ID)
				}
				if e.Cursor.Seq < maxSeq {
					late++
				}
				maxSeq = max(maxSeq, e.Cursor.Seq)
			}
			if cursor != nil && len(entries) == 0 && next != *cursor {
				t.Fatalf("an empty page moved the cursor from %v to %v", *cursor, next)
			}
			cursor = &next
			if len(entries) == 0 {
				if !drainUntil.IsZero() {
					mu.Lock()
					all := len(seen) >= len(committed)
					mu.Unlock()
					if all || time.Now().After(drainUntil) {
						break
					}
				}
				empties++
				time.Sleep(time.Millisecond)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if len(committed) < writers*perWriter {
			t.Fatalf("only %d events committed", len(committed))
		}
		missed := 0
		for id := range committed {
			if seen[id] == 0 {
				missed++
			}
		}
		if missed > 0 {
			all, _, _ := db.Feed(ctx, events.FeedQuery{UserID: user, Since: now.Add(-time.Hour), Limit: 100000})
			n := 0
			for _, e := range all {
				if seen[e.Event.ID] == 0 && n < 5 {
					t.Logf("missed %v; final cursor %v", e.Cursor, *cursor)
					n++
				}
			}
			t.Logf("all visible now: %d", len(all))
		}
		if missed > 0 || len(seen) != len(committed) {
			t.Fatalf("reader saw %d events of %d committed; %d missed", len(seen), len(committed), missed)
		}
		t.Logf("%d events, %d pages (%d empty) while writing, %d read after a higher sequence number", len(seen), pages, empties, late)
	})
}
