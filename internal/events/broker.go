package events

import "sync"

// Broker wakes feed readers of this process when an event for their user
// commits (the store's OnCommit hook calls Notify). It is only a hint:
// readers re-read the feed on each wake and on a short timer besides, since
// other replicas commit too and PostgreSQL may make a commit visible to the
// feed a moment later.
type Broker struct {
	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
}

// NewBroker makes an empty broker.
func NewBroker() *Broker {
	return &Broker{waiters: map[string]map[chan struct{}]struct{}{}}
}

// Subscribe registers a reader of userID's feed. The channel receives a
// value (at most one pending) after each commit for the user; cancel
// removes the reader.
func (b *Broker) Subscribe(userID string) (wake <-chan struct{}, cancel func()) {
	ch := make(chan struct{}, 1)
	b.mu.Lock()
	set := b.waiters[userID]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		b.waiters[userID] = set
	}
	set[ch] = struct{}{}
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		if cur := b.waiters[userID]; cur != nil {
			delete(cur, ch)
			if len(cur) == 0 {
				delete(b.waiters, userID)
			}
		}
		b.mu.Unlock()
	}
}

// Notify wakes every reader of the users' feeds. It never blocks: a reader
// that has a wake pending already is not sent another.
func (b *Broker) Notify(userIDs []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, u := range userIDs {
		for ch := range b.waiters[u] {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// Waiting is how many readers are registered (for tests).
func (b *Broker) Waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, set := range b.waiters {
		n += len(set)
	}
	return n
}
