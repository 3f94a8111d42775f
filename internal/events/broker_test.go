package events

import (
	"context"
	"testing"
	"time"

	"marketplace/internal/market"
)

// TestBrokerNeverBlocks: a reader that does not drain its wake-ups never
// holds up a committer, and a cancelled reader is forgotten.
func TestBrokerNeverBlocks(t *testing.T) {
	b := NewBroker()
	wake, cancel := b.Subscribe("u1")
	other, cancelOther := b.Subscribe("u2")
	done := make(chan struct{})
	go func() {
		for range 1000 {
			b.Notify([]string{"u1", "u3"})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Notify blocked")
	}
	select {
	case <-wake:
	default:
		t.Fatal("no wake-up")
	}
	select {
	case <-other:
		t.Fatal("u2 woken for u1's event")
	default:
	}
	cancel()
	cancelOther()
	cancelOther() // twice is harmless
	if n := b.Waiting(); n != 0 {
		t.Fatalf("%d readers left", n)
	}
}

// stubFeed is a FeedStore whose page fills once an event is "committed".
type stubFeed struct{ ready chan struct{} }

func (s *stubFeed) FeedChanges(ctx context.Context, since Cursor, users []string) (Cursor, []string, error) {
	return Cursor{Seq: 9}, nil, nil
}

func (s *stubFeed) Feed(ctx context.Context, q FeedQuery) ([]FeedEntry, Cursor, error) {
	select {
	case <-s.ready:
		return []FeedEntry{{Cursor: Cursor{Seq: 9}}}, Cursor{Seq: 9}, nil
	default:
	}
	if q.After != nil {
		return nil, *q.After, nil
	}
	return nil, Cursor{Seq: 5}, nil
}

// TestPageWaits: a waiting read returns at the wake-up after the commit,
// an empty read at the end of the wait with the cursor it had, and a
// cancelled one at once.
func TestPageWaits(t *testing.T) {
	b := NewBroker()
	st := &stubFeed{ready: make(chan struct{})}
	f := NewFeedService(st, market.SystemClock{}, FeedOptions{Broker: b})
	ctx := context.Background()

	start := time.Now()
	es, next, err := f.Page(ctx, "u1", "", nil, 0, 300*time.Millisecond)
	if err != nil || len(es) != 0 || next != (Cursor{Seq: 5}) || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("empty wait: %v %v %v after %v", es, next, err, time.Since(start))
	}

	// A wait cut short (the client hung up) ends as one that ran out, at
	// once and without an error to log.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	start = time.Now()
	if es, c, err := f.Page(cctx, "u1", next.String(), nil, 10, 10*time.Second); err != nil || len(es) != 0 || c != next || time.Since(start) > 2*time.Second {
		t.Fatalf("a cancelled wait: %v %v %v after %v", es, c, err, time.Since(start))
	}

	go func() {
		time.Sleep(100 * time.Millisecond)
		close(st.ready)
		b.Notify([]string{"u1"})
	}()
	start = time.Now()
	es, _, err = f.Page(ctx, "u1", next.String(), nil, 10, 10*time.Second)
	if err != nil || len(es) != 1 || time.Since(start) > 2*time.Second {
		t.Fatalf("woken wait: %v %v after %v", es, err, time.Since(start))
	}
	if _, _, err := f.Page(ctx, "u1", "x", []string{"nope"}, 500, time.Minute); err == nil {
		t.Fatal("bad parameters accepted")
	}
}
