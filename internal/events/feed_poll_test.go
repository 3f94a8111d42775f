package events_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// countingStore counts the feed queries made through it.
type countingStore struct {
	db             *store.DB
	feeds, changes atomic.Int64
}

func (c *countingStore) Feed(ctx context.Context, q events.FeedQuery) ([]events.FeedEntry, events.Cursor, error) {
	c.feeds.Add(1)
	return c.db.Feed(ctx, q)
}

func (c *countingStore) FeedChanges(ctx context.Context, since events.Cursor, users []string) (events.Cursor, []string, error) {
	c.changes.Add(1)
	return c.db.FeedChanges(ctx, since, users)
}

// commitFor records one public event for userID and returns its id.
func commitFor(t *testing.T, db *store.DB, userID string) string {
	t.Helper()
	id := market.NewID()
	err := db.InTx(context.Background(), func(tx *store.Tx) error {
		return tx.AppendEvent(context.Background(), &events.Event{ID: id, Type: "order.created", ActorType: market.ActorSystem,
			EntityType: "order", EntityID: "o1", Data: map[string]any{}, CreatedAt: time.Now(), Recipients: []string{userID}})
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// headOf is where a reader of userID starts: after everything now.
func headOf(t *testing.T, f *events.FeedService, userID string) string {
	t.Helper()
	_, c, err := f.Read(context.Background(), events.Reader{UserID: userID}, events.FeedParams{})
	if err != nil {
		t.Fatal(err)
	}
	return c.String()
}

// TestFeedIdleWaitersCost: 200 waiting long polls and 20 streams of 20
// users cost one query per poller tick together, and no feed read, while
// nothing happens (a stream's heartbeats included); an event wakes its
// user's readers alone. (Each reader used to read its feed every 250 ms:
// 880 reads a second here.)
func TestFeedIdleWaitersCost(t *testing.T) {
	const users, perUser = 20, 10
	const poll = 100 * time.Millisecond
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		cs := &countingStore{db: db}
		broker := events.NewBroker()
		db.OnCommit("feed", broker.Notify)
		f := events.NewFeedService(cs, market.SystemClock{}, events.FeedOptions{Broker: broker, Poll: poll})

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ids := make([]string, users)
		type answer struct {
			user    int
			entries []events.FeedEntry
			err     error
		}
		answers := make(chan answer, users*perUser)
		var wg sync.WaitGroup
		defer wg.Wait()
		defer cancel()
		for u := range users {
			ids[u] = market.NewID()
			after := headOf(t, f, ids[u])
			for range perUser {
				wg.Add(1)
				go func() {
					defer wg.Done()
					es, _, err := f.Read(ctx, events.Reader{UserID: ids[u]}, events.FeedParams{After: after, Limit: 10, Wait: 25 * time.Second})
					answers <- answer{u, es, err}
				}()
			}
		}
		// And a stream per user, whose heartbeat comes every poll tick: an
		// idle stream reads nothing at its heartbeats either.
		for u := range users {
			st, err := f.Open(ctx, events.Reader{UserID: ids[u]}, events.FeedParams{After: headOf(t, f, ids[u]), Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer st.Close()
				for ctx.Err() == nil {
					if es, _, err := st.Next(ctx, poll); len(es) > 0 || (err != nil && ctx.Err() == nil) {
						answers <- answer{u, es, err}
					}
				}
			}()
		}
		readers := users * (perUser + 1)
		deadline := time.Now().Add(10 * time.Second)
		for f.Waiting() < readers {
			if time.Now().After(deadline) {
				t.Fatalf("%d readers waiting, want %d", f.Waiting(), readers)
			}
			time.Sleep(10 * time.Millisecond)
		}
		// The readers' first reads and the poller's first wake are done once
		// three ticks pass without a feed read; on a loaded machine that can
		// take longer than three ticks from here. Readers that never settle
		// (reading at every tick) fail here.
		settled := time.Now().Add(10 * time.Second)
		for last := cs.feeds.Load(); ; {
			time.Sleep(3 * poll)
			now := cs.feeds.Load()
			if now == last {
				break
			}
			if time.Now().After(settled) {
				t.Fatalf("idle readers still reading their feeds after 10s (%d reads in the last 3 ticks)", now-last)
			}
			last = now
		}

		feeds0, changes0 := cs.feeds.Load(), cs.changes.Load()
		time.Sleep(10 * poll)
		feeds, changes := cs.feeds.Load()-feeds0, cs.changes.Load()-changes0
		t.Logf("%d idle readers (%d long polls, %d streams) over %v: %d feed reads, %d poller queries", readers, users*perUser, users, 10*poll, feeds, changes)
		if feeds != 0 {
			t.Fatalf("idle readers read their feeds %d times", feeds)
		}
		if changes < 5 || changes > 12 {
			t.Fatalf("%d poller queries in 10 ticks", changes)
		}

		// An event for user 0 wakes its readers, and theirs only.
		feeds0 = cs.feeds.Load()
		id := commitFor(t, db, ids[0])
		for range perUser + 1 {
			select {
			case a := <-answers:
				if a.err != nil || a.user != 0 || len(a.entries) != 1 || a.entries[0].Event.ID != id {
					t.Fatalf("answer of user %d: %v %v, want user 0's event", a.user, a.entries, a.err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("user 0's readers were not woken")
			}
		}
		time.Sleep(3 * poll)
		// On PostgreSQL the commit's own wake may come before the entry is
		// readable, and the poller's wake reads it: at most a few reads each.
		// The stream reads on after the event, once more.
		if n := cs.feeds.Load() - feeds0; n < perUser+1 || n > 3*(perUser+2) {
			t.Fatalf("the event cost %d feed reads for %d woken readers", n, perUser+1)
		}
		if w := f.Waiting(); w != readers-perUser {
			t.Fatalf("%d readers still waiting, want %d", w, readers-perUser)
		}
	})
}

// TestFeedOtherInstanceWakes: a reader of one instance waits while the
// event is committed through another on the same database, whose commit
// hook wakes only its own readers: the reader's poller finds the event and
// the read answers it, long before its wait ends.
func TestFeedOtherInstanceWakes(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		here := events.NewFeedService(db, market.SystemClock{}, events.FeedOptions{Poll: 100 * time.Millisecond})
		there := events.NewBroker()
		db.OnCommit("feed", there.Notify) // commits wake the other instance's readers only

		user := market.NewID()
		after := headOf(t, here, user)
		type answer struct {
			entries []events.FeedEntry
			err     error
		}
		done := make(chan answer, 1)
		// Only the poller can wake this read: the commit wakes the other
		// instance's broker. A read whose wait ran out would find the
		// event too, at its deadline, so the test asks for an answer well
		// before it (a loaded CI machine once took 11 s).
		wait := events.FeedMaxWait
		deadline := time.Now().Add(wait)
		go func() {
			es, _, err := here.Read(context.Background(), events.Reader{UserID: user}, events.FeedParams{After: after, Limit: 10, Wait: wait})
			done <- answer{es, err}
		}()
		for here.Waiting() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		start := time.Now()
		id := commitFor(t, db, user)
		a := <-done
		answered := time.Now()
		took := answered.Sub(start)
		if a.err != nil || len(a.entries) != 1 || a.entries[0].Event.ID != id {
			t.Fatalf("read %v %v, want %s", a.entries, a.err, id)
		}
		t.Logf("the other instance's commit answered the read after %v", took)
		if answered.After(deadline.Add(-time.Second)) {
			t.Fatalf("the read waited %v: its wait ran out rather than the poller waking it", took)
		}
	})
}
