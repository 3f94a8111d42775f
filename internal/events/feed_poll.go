package events

import (
	"context"
	"time"
)

// The poller: one per process, running while readers wait. Each tick it
// asks the store, in one query whatever the number of readers, which of
// the waiting users have entries that became readable since its last
// look (FeedChanges), and wakes their readers. It finds the events other
// replicas commit, and those a commit in this process woke a reader for
// too early (on PostgreSQL an entry becomes readable only once every older
// transaction has ended).
//
// Why no reader misses an event. A reader registers (Broker.Subscribe)
// before its first read, and an entry that read did not see is after the
// read's head. Ticks look at consecutive spans of the feed, (previous
// head, head], each with a head read after the one before, so the ticks
// whose query runs after the read cover every such entry. Each of those
// ticks either took its list of users after the reader registered (the
// user is in it) or took it before and wakes, once its query is done,
// every reader registered since (notifySince). The first tick of a process
// has no previous head and wakes every reader.

// startPoller starts the poller unless it runs; the broker calls it, under
// its lock, when a reader registers after none was.
func (f *FeedService) startPoller() {
	if f.broker.polling {
		return
	}
	f.broker.polling = true
	go f.runPoller()
}

// runPoller ticks until no reader waits.
func (f *FeedService) runPoller() {
	t := time.NewTicker(f.poll)
	defer t.Stop()
	for range t.C {
		if f.pollerIdle() {
			return
		}
		f.pollOnce()
	}
}

// pollerIdle stops the poller when no reader waits; the next reader starts
// it again.
func (f *FeedService) pollerIdle() bool {
	b := f.broker
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n > 0 {
		return false
	}
	b.polling = false
	return true
}

// pollOnce is one tick: one query, then the wakes. A failed query is
// retried at the next tick from the same position, so it loses nothing.
func (f *FeedService) pollOnce() {
	users, gen := f.broker.users()
	f.mu.Lock()
	since, polled := f.pos, f.polled
	f.mu.Unlock()
	if !polled {
		users = nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	head, changed, err := f.store.FeedChanges(ctx, since, users)
	f.mu.Lock()
	failing := f.pollFailing
	f.pollFailing = err != nil
	f.mu.Unlock()
	if err != nil {
		if !failing { // once per outage, not four times a second
			f.log.Warn("feed poller: readers of other replicas' events wait until the database answers", "err", err)
		}
		return
	}
	if failing {
		f.log.Info("feed poller: the database answers again")
	}
	f.seen(head)
	f.mu.Lock()
	f.pos, f.polled = head, true
	f.mu.Unlock()
	if !polled {
		f.broker.notifyAll()
		return
	}
	f.broker.Notify(changed)
	f.broker.notifySince(gen)
}
