package storetest

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
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

// feedChangesTx appends one public event for each of users in one
// transaction.
func feedChangesTx(ctx context.Context, tx *store.Tx, now time.Time, users ...string) error {
	for _, u := range users {
		e := &events.Event{ID: market.NewID(), Type: "order.created", ActorType: market.ActorSystem,
			EntityType: "order", EntityID: "o1", Data: map[string]any{}, CreatedAt: now, Recipients: []string{u}}
		if err := tx.AppendEvent(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// TestFeedChanges: the feed poller's query. It names the users asked
// about that have entries after a head and up to the new head, never one
// not asked about, never one without a new entry; and on PostgreSQL it
// never moves its head past an entry that is not readable yet (a
// transaction still open), so the entry is reported once it commits.
func TestFeedChanges(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
		u1, u2, u3, u4 := market.NewID(), market.NewID(), market.NewID(), market.NewID()
		asked := []string{u1, u2, u3}

		h0, changed, err := db.FeedChanges(ctx, events.Cursor{}, nil)
		if err != nil || changed != nil {
			t.Fatalf("head alone: %v %v", changed, err)
		}
		// changesUntil polls from since until want (sorted) is reported,
		// and returns the new head; other users may never show up.
		changesUntil := func(since events.Cursor, want ...string) events.Cursor {
			t.Helper()
			deadline := time.Now().Add(20 * time.Second)
			for {
				head, changed, err := db.FeedChanges(ctx, since, asked)
				if err != nil {
					t.Fatal(err)
				}
				if head.Less(since) {
					t.Fatalf("head went back from %v to %v", since, head)
				}
				slices.Sort(changed)
				if slices.Equal(changed, want) {
					return head
				}
				for _, u := range changed {
					if !slices.Contains(want, u) {
						t.Fatalf("reported %s, which has no new entry (want %v)", u, want)
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("reported %v, want %v", changed, want)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		if err := db.InTx(ctx, func(tx *store.Tx) error { return feedChangesTx(ctx, tx, now, u1, u3, u4, u3) }); err != nil {
			t.Fatal(err)
		}
		want := []string{u1, u3}
		slices.Sort(want)
		h1 := changesUntil(h0, want...)
		// Nothing new after h1.
		if _, changed, err := db.FeedChanges(ctx, h1, asked); err != nil || len(changed) != 0 {
			t.Fatalf("after the head: %v %v", changed, err)
		}
		// The feed's own head for an empty first page is no further on.
		_, fh, err := db.Feed(ctx, events.FeedQuery{UserID: u2, Since: now.Add(-time.Hour), Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if h2, _, _ := db.FeedChanges(ctx, events.Cursor{}, nil); h2.Less(fh) || h2.Less(h1) {
			t.Fatalf("head %v is behind the feed's %v or the earlier %v", h2, fh, h1)
		}

		if db.Dialect() != store.Postgres {
			return
		}
		// An open transaction holds an entry for u2; a later one commits
		// one for u1. u1's is not readable before u2's transaction ends (the
		// feed reads below the oldest open transaction), so the head stays
		// before both, and both are reported once u2's commits.
		sqlTx, err := db.WritePool().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer sqlTx.Rollback() //nolint:errcheck // committed below
		if _, err := sqlTx.ExecContext(ctx, `INSERT INTO event_feed (user_id, event_id, type, created_at) VALUES ($1, 'held', 'order.created', $2)`, u2, now); err != nil {
			t.Fatal(err)
		}
		if err := db.InTx(ctx, func(tx *store.Tx) error { return feedChangesTx(ctx, tx, now, u1) }); err != nil {
			t.Fatal(err)
		}
		for range 20 {
			if _, changed, err := db.FeedChanges(ctx, h1, asked); err != nil || len(changed) != 0 {
				t.Fatalf("with u2's entry held: %v %v", changed, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := sqlTx.Commit(); err != nil {
			t.Fatal(err)
		}
		want = []string{u1, u2}
		slices.Sort(want)
		changesUntil(h1, want...)
	})
}

// TestFeedChangesConcurrentWriters: while writers commit entries for
// several users out of sequence order, a poller asks FeedChanges from
// each head it got to the next. Every committed entry lies in exactly one
// of the spans (previous head, head] the poller looked at after the first,
// and that look reported its user: a waiter woken by the poller never
// misses an entry.
func TestFeedChangesConcurrentWriters(t *testing.T) {
	const writers, perWriter = 6, 150
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
		users := []string{market.NewID(), market.NewID(), market.NewID(), market.NewID(), market.NewID()}

		type look struct {
			since, head events.Cursor
			changed     []string
		}
		var looks []look
		head, _, err := db.FeedChanges(ctx, events.Cursor{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		start := head
		var done atomic.Bool
		var written atomic.Int64 // entries committed
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), 11))
				for range perWriter {
					var to []string
					err := db.InTx(ctx, func(tx *store.Tx) error {
						to = []string{users[rng.IntN(len(users))]}
						if rng.IntN(4) == 0 {
							to = append(to, users[rng.IntN(len(users))])
						}
						if err := feedChangesTx(ctx, tx, now, to...); err != nil {
							return err
						}
						if rng.IntN(3) == 0 {
							time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
						}
						return nil
					})
					if err != nil {
						t.Errorf("writer %d: %v", w, err)
						return
					}
					written.Add(int64(len(to)))
				}
			}()
		}
		go func() { wg.Wait(); done.Store(true) }()

		// The last head to reach: after every committed entry, read once
		// the writers are done and every entry they wrote is readable (on
		// PostgreSQL entries become readable once no older transaction runs
		// on the server, and other tests share it).
		var final *events.Cursor
		deadline := time.Now().Add(time.Minute)
		for {
			next, changed, err := db.FeedChanges(ctx, head, users)
			if err != nil {
				t.Fatal(err)
			}
			looks = append(looks, look{since: head, head: next, changed: changed})
			head = next
			if final == nil && done.Load() {
				var maxPos events.Cursor
				readable := 0
				for _, u := range users {
					entries, _, err := db.Feed(ctx, events.FeedQuery{UserID: u, After: &start, Limit: 100000})
					if err != nil {
						t.Fatal(err)
					}
					readable += len(entries)
					for _, e := range entries {
						if maxPos.Less(e.Cursor) {
							maxPos = e.Cursor
						}
					}
				}
				if int64(readable) == written.Load() {
					final = &maxPos
				}
			}
			if final != nil && !head.Less(*final) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after a minute: head %v, final %v (written %d)", head, final, written.Load())
			}
			time.Sleep(time.Millisecond)
		}
		if head.Less(*final) {
			t.Fatalf("the head %v never reached the last entry %v", head, *final)
		}
		total, checked := 0, 0
		for _, u := range users {
			entries, _, err := db.Feed(ctx, events.FeedQuery{UserID: u, After: &start, Limit: 100000})
			if err != nil {
				t.Fatal(err)
			}
			total += len(entries)
			for _, e := range entries {
				i := slices.IndexFunc(looks, func(l look) bool { return l.since.Less(e.Cursor) && !l.head.Less(e.Cursor) })
				if i < 0 {
					t.Fatalf("entry %v of %s lies in no span the poller looked at", e.Cursor, u)
				}
				if !slices.Contains(looks[i].changed, u) {
					t.Fatalf("entry %v of %s: the look at (%v, %v] reported %v", e.Cursor, u, looks[i].since, looks[i].head, looks[i].changed)
				}
				checked++
			}
		}
		if total == 0 || checked != total {
			t.Fatalf("checked %d of %d entries", checked, total)
		}
		t.Logf("%d entries, %d looks", total, len(looks))
	})
}

// TestFeedConcurrentReads: many feed reads at once (a crowd of long polls
// starting together) all finish. On SQLite each read once held a pooled
// read connection for a transaction its statements did not use, and took
// another for them: with as many reads as connections, every read waited
// for one for ever.
func TestFeedConcurrentReads(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		user := market.NewID()
		now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
		if err := db.InTx(ctx, func(tx *store.Tx) error { return feedChangesTx(ctx, tx, now, user) }); err != nil {
			t.Fatal(err)
		}
		const readers = 64
		done := make(chan error, readers)
		for range readers {
			go func() {
				for range 20 {
					if _, _, err := db.Feed(ctx, events.FeedQuery{UserID: user, Since: now.Add(-time.Hour), Limit: 10}); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
		}
		timeout := time.After(60 * time.Second)
		for range readers {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-timeout:
				t.Fatal("concurrent feed reads did not finish: the read pool is exhausted")
			}
		}
	})
}

// TestFeedOtherDatabase: a transaction left open in another database on the
// same PostgreSQL server does not hold this store's feed back (xids are the
// server's, so a bound taken from the snapshot's xmin alone would), while
// one left open in this database still does.
func TestFeedOtherDatabase(t *testing.T) {
	if os.Getenv(PostgresEnv) == "" {
		t.Skip(PostgresEnv + " is not set")
	}
	ctx := context.Background()
	db, other := OpenPostgres(t), OpenPostgres(t)
	now := time.Now().UTC()
	appendEvent := func(tx *store.Tx, user string) error {
		return tx.AppendEvent(ctx, &events.Event{ID: market.NewID(), Type: "listing.updated", ActorType: market.ActorSystem,
			EntityType: "listing", EntityID: "l1", Data: map[string]any{}, CreatedAt: now, Recipients: []string{user}})
	}
	read := func(user string) int {
		t.Helper()
		page, _, err := db.Feed(ctx, events.FeedQuery{UserID: user, Since: now.Add(-time.Hour), Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		_, changed, err := db.FeedChanges(ctx, events.Cursor{}, []string{user})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > 0 && len(changed) == 0 {
			t.Fatalf("Feed reads %d entries for %s, FeedChanges says nothing changed", len(page), user)
		}
		return len(page)
	}
	// readSoon reads until the entry shows, for up to 2 s while the other
	// transaction stays open: a transaction of another database that ended
	// between a read's snapshot and its look at pg_stat_activity still
	// bounds that one read (it cannot be placed), never the next ones.
	readSoon := func(user string) int {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if n := read(user); n > 0 || time.Now().After(deadline) {
				return n
			}
		}
	}

	release := HoldWrite(t, other)
	user := market.NewID()
	if err := db.InTx(ctx, func(tx *store.Tx) error { return appendEvent(tx, user) }); err != nil {
		t.Fatal(err)
	}
	if n := readSoon(user); n != 1 {
		t.Fatalf("with a transaction open in another database the feed reads %d entries, want 1", n)
	}
	release()

	release = HoldWrite(t, db)
	later := market.NewID()
	if err := db.InTx(ctx, func(tx *store.Tx) error { return appendEvent(tx, later) }); err != nil {
		t.Fatal(err)
	}
	if n := read(later); n != 0 {
		t.Fatalf("an event committed after a transaction still open in this database is read (%d entries) before it ends", n)
	}
	release()
	if n := readSoon(later); n != 1 {
		t.Fatalf("after the open transaction ended the feed reads %d entries, want 1", n)
	}
}
