package events

import "sync"

// Broker wakes the feed readers of this process. Commits in this process
// wake their recipients' readers at once (the store's OnCommit hook calls
// Notify); the feed's poller (feed_poll.go) wakes the readers of users
// whose events became readable since its last look, wherever they were
// committed. A wake is only a hint: the reader reads its feed again.
type Broker struct {
	mu      sync.Mutex
	waiters map[string]map[*waiter]struct{}
	n       int    // readers registered
	gen     uint64 // readers ever registered: each reader's number
	// onFirst runs (under mu, so it must not block) when the first reader
	// registers after none was: the feed service starts its poller.
	onFirst func()
	polling bool // the poller runs (set and cleared by the feed service)
}

type waiter struct {
	ch  chan struct{}
	gen uint64
}

// NewBroker makes an empty broker.
func NewBroker() *Broker {
	return &Broker{waiters: map[string]map[*waiter]struct{}{}}
}

// Subscribe registers a reader of userID's feed. The channel receives a
// value (at most one pending) after each commit for the user; cancel
// removes the reader.
func (b *Broker) Subscribe(userID string) (wake <-chan struct{}, cancel func()) {
	b.mu.Lock()
	b.gen++
	w := &waiter{ch: make(chan struct{}, 1), gen: b.gen}
	set := b.waiters[userID]
	if set == nil {
		set = map[*waiter]struct{}{}
		b.waiters[userID] = set
	}
	set[w] = struct{}{}
	b.n++
	if b.n == 1 && b.onFirst != nil {
		b.onFirst()
	}
	b.mu.Unlock()
	var once sync.Once
	return w.ch, func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			if cur := b.waiters[userID]; cur != nil {
				delete(cur, w)
				b.n--
				if len(cur) == 0 {
					delete(b.waiters, userID)
				}
			}
		})
	}
}

// Notify wakes every reader of the users' feeds. It never blocks: a reader
// that has a wake pending already is not sent another.
func (b *Broker) Notify(userIDs []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, u := range userIDs {
		for w := range b.waiters[u] {
			wake(w)
		}
	}
}

// users lists the users with readers now, and the number of the last
// reader registered: NotifySince(gen) then wakes those registered after.
func (b *Broker) users() (users []string, gen uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	users = make([]string, 0, len(b.waiters))
	for u := range b.waiters {
		users = append(users, u)
	}
	return users, b.gen
}

// notifySince wakes the readers registered after reader number gen.
func (b *Broker) notifySince(gen uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.gen == gen {
		return
	}
	for _, set := range b.waiters {
		for w := range set {
			if w.gen > gen {
				wake(w)
			}
		}
	}
}

// notifyAll wakes every reader.
func (b *Broker) notifyAll() { b.notifySince(0) }

func wake(w *waiter) {
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

// Waiting is how many readers are registered.
func (b *Broker) Waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}
