package events

import (
	"context"
	"slices"
	"testing"
	"time"

	"marketplace/internal/market"
)

// pollStub answers FeedChanges from the test: each call sends what it was
// asked on asked and waits for the answer on answer.
type pollStub struct {
	asked  chan []string
	answer chan []string
}

func (p *pollStub) Feed(context.Context, FeedQuery) ([]FeedEntry, Cursor, error) {
	return nil, Cursor{}, nil
}

func (p *pollStub) FeedChanges(_ context.Context, since Cursor, users []string) (Cursor, []string, error) {
	p.asked <- slices.Clone(users)
	return Cursor{Seq: since.Seq + 1}, <-p.answer, nil
}

func woken(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestPollerWakes: the poller's first tick (no previous head) wakes every
// reader; later ticks ask about the waiting users and wake those that got
// entries, and also every reader that registered while the tick's query
// ran (its user was not asked about); it stops when no reader waits and
// starts again with the next.
func TestPollerWakes(t *testing.T) {
	st := &pollStub{asked: make(chan []string), answer: make(chan []string)}
	f := NewFeedService(st, market.SystemClock{}, FeedOptions{Poll: 10 * time.Millisecond})
	b := f.broker
	// tick answers the tick under way and returns what the next one asks
	// about: the ticks run one after the other, so the answered tick's
	// wakes are done by then.
	tick := func(changed []string) []string {
		t.Helper()
		st.answer <- changed
		users := <-st.asked
		slices.Sort(users)
		return users
	}

	a, cancelA := b.Subscribe("a")
	bb, cancelB := b.Subscribe("b")
	if users := <-st.asked; users != nil {
		t.Fatalf("first tick asked about %v, want the head alone", users)
	}
	if users := tick(nil); !slices.Equal(users, []string{"a", "b"}) {
		t.Fatalf("asked about %v", users)
	}
	if !woken(a) || !woken(bb) {
		t.Fatal("the first tick did not wake every reader")
	}

	late, cancelLate := b.Subscribe("c") // registers while the query runs
	if users := tick([]string{"b"}); !slices.Equal(users, []string{"a", "b", "c"}) {
		t.Fatalf("asked about %v", users)
	}
	if woken(a) || !woken(bb) || !woken(late) {
		t.Fatal("want b (new entries) and c (registered during the query) woken, a not")
	}
	tick(nil)
	if woken(a) || woken(bb) || woken(late) {
		t.Fatal("a tick without changes woke a reader")
	}

	cancelA()
	cancelB()
	cancelLate()
	st.answer <- nil // the tick under way; the next finds no reader and stops
	deadline := time.Now().Add(2 * time.Second)
	for {
		b.mu.Lock()
		polling := b.polling
		b.mu.Unlock()
		if !polling {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the poller did not stop without readers")
		}
		time.Sleep(5 * time.Millisecond)
	}
	d, cancelD := b.Subscribe("d")
	if users := <-st.asked; !slices.Equal(users, []string{"d"}) {
		t.Fatalf("restarted poller asked about %v", users)
	}
	tick([]string{"d"})
	if !woken(d) {
		t.Fatal("the restarted poller did not wake d")
	}
	cancelD()
	st.answer <- nil
}
