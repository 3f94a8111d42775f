package events

import (
	"context"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/ratelimit"
)

// Feed bounds (CONTRACT.md section 12).
const (
	FeedDefaultLimit = 50
	FeedMaxLimit     = 100
	FeedMaxWait      = 30 * time.Second
	// FeedWindow is how far back a feed read without a cursor starts.
	FeedWindow = 30 * 24 * time.Hour
	// FeedPoll is how often the poller of a process looks for events that
	// became readable (feed_poll.go): those of other replicas, or held back
	// for a moment by PostgreSQL's visibility cut.
	FeedPoll = 250 * time.Millisecond
	// FeedBusyRetry is the Retry-After of a read refused for its caps: a
	// long poll ends within 30 s, so a slot frees soon unless the caller
	// holds streams.
	FeedBusyRetry = 5 * time.Second
)

// FeedCaps bounds the streams and held long polls open at once per agent
// key and per user (an agent key's count in its owner's too); 0 is no cap.
type FeedCaps struct {
	PerKey, PerUser int
}

// DefaultFeedCaps are the caps of CONTRACT.md section 12's feed: a reader
// needs one stream or one long poll; these leave room for a few tools and
// reconnects overlapping.
var DefaultFeedCaps = FeedCaps{PerKey: 10, PerUser: 20}

// Scale multiplies the caps (MARKETPLACE_RATE_LIMIT_SCALE), rounding up;
// 0 switches them off.
func (c FeedCaps) Scale(f float64) FeedCaps {
	scale := func(n int) int {
		if f <= 0 || n <= 0 {
			return 0
		}
		return int(min(math.Ceil(float64(n)*f), 1<<30))
	}
	return FeedCaps{PerKey: scale(c.PerKey), PerUser: scale(c.PerUser)}
}

// FeedParams is one read of a feed: after a cursor (absent: the last 30
// days), of some types (none: all), at most Limit entries, waiting up to
// Wait for one when there is none yet.
type FeedParams struct {
	After string
	Types []string
	Limit int
	Wait  time.Duration
}

// ParseFeedParams reads the query parameters of a feed read as the client
// sent them (every one may be empty), naming each bad one.
func ParseFeedParams(after, types, limit, wait string) (FeedParams, error) {
	var c market.Check
	p := FeedParams{After: after, Limit: FeedDefaultLimit}
	if after != "" {
		_, ok := ParseCursor(after)
		c.Require(ok, "after", "is not a cursor of this feed")
	}
	if types != "" {
		for _, t := range strings.Split(types, ",") {
			t = strings.TrimSpace(t)
			if t == "" {
				continue
			}
			if !Public(t) {
				c.Add("types", "unknown event type "+strconv.Quote(t))
				break
			}
			p.Types = append(p.Types, t)
		}
	}
	if limit != "" {
		n, err := strconv.Atoi(limit)
		if c.Require(err == nil && n >= 1 && n <= FeedMaxLimit, "limit", "must be a whole number from 1 to 100") {
			p.Limit = n
		}
	}
	if wait != "" {
		s, err := strconv.ParseFloat(wait, 64)
		if c.Require(err == nil && s >= 0 && s <= FeedMaxWait.Seconds(), "wait", "must be a number of seconds from 0 to 30") {
			p.Wait = time.Duration(s * float64(time.Second))
		}
	}
	return p, c.Err()
}

// Reader is who reads a feed: the user, and the agent key when one reads
// for its owner.
type Reader struct {
	UserID string
	KeyID  string
}

// FeedOptions are the service's parts besides its store; every one may be
// left zero.
type FeedOptions struct {
	// Broker wakes waiting readers; the store's OnCommit hook notifies it.
	Broker *Broker
	// Slots counts the open streams and held long polls against Caps (no
	// caps when nil).
	Slots ratelimit.Slots
	Caps  FeedCaps
	// Poll is how often the poller looks for newly readable events while
	// readers wait (FeedPoll when 0).
	Poll time.Duration
	Log  *slog.Logger
}

// FeedService reads users' event feeds, holding a read open while there is
// nothing new when asked to (long poll, stream).
type FeedService struct {
	store  FeedStore
	clock  market.Clock
	broker *Broker
	slots  ratelimit.Slots
	caps   FeedCaps
	poll   time.Duration
	log    *slog.Logger

	// newest is the highest position this process has seen handed out or
	// read as the head: a cursor at or below it is no cursor from the
	// future, with no need to read the head again.
	mu     sync.Mutex
	newest Cursor
	// pos is where the poller looked last (valid when polled);
	// pollFailing, that its last query failed.
	pos         Cursor
	polled      bool
	pollFailing bool
}

// NewFeedService makes the service.
func NewFeedService(store FeedStore, clock market.Clock, opts FeedOptions) *FeedService {
	f := &FeedService{store: store, clock: clock, broker: opts.Broker, slots: opts.Slots, caps: opts.Caps, poll: opts.Poll, log: opts.Log}
	if f.broker == nil {
		f.broker = NewBroker()
	}
	if f.poll <= 0 {
		f.poll = FeedPoll
	}
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	f.broker.mu.Lock()
	f.broker.onFirst = f.startPoller
	f.broker.mu.Unlock()
	return f
}

// query checks a read's parameters and makes its first query.
func (f *FeedService) query(userID string, p FeedParams) (FeedQuery, error) {
	var c market.Check
	q := FeedQuery{UserID: userID, Types: p.Types, Limit: p.Limit}
	if p.After != "" {
		cur, ok := ParseCursor(p.After)
		if c.Require(ok, "after", "is not a cursor of this feed") {
			q.After = &cur
		}
	} else {
		q.Since = f.clock.Now().Add(-FeedWindow)
	}
	for _, t := range p.Types {
		if !Public(t) {
			c.Add("types", "unknown event type "+strconv.Quote(t))
			break
		}
	}
	if q.Limit == 0 {
		q.Limit = FeedDefaultLimit
	}
	c.Require(q.Limit >= 1 && q.Limit <= FeedMaxLimit, "limit", "must be a whole number from 1 to 100")
	c.Require(p.Wait >= 0 && p.Wait <= FeedMaxWait, "wait", "must be a number of seconds from 0 to 30")
	return q, c.Err()
}

// checkAfter refuses a cursor beyond the head of the feed: no event will
// ever come after it, so a reader waiting on it would wait for ever. A
// cursor handed out earlier is never refused: the head read here is read
// after it was handed out, and the head only moves on.
func (f *FeedService) checkAfter(ctx context.Context, c Cursor) error {
	f.mu.Lock()
	known := !f.newest.Less(c)
	f.mu.Unlock()
	if known {
		return nil
	}
	head, _, err := f.store.FeedChanges(ctx, Cursor{}, nil)
	if err != nil {
		return err
	}
	f.seen(head)
	if head.Less(c) {
		var c market.Check
		c.Add("after", "is beyond the newest event of this feed: send a cursor this feed handed out")
		return c.Err()
	}
	return nil
}

// seen records a position read from the store.
func (f *FeedService) seen(c Cursor) {
	f.mu.Lock()
	if f.newest.Less(c) {
		f.newest = c
	}
	f.mu.Unlock()
}

// hold takes r's slots for an open stream or a held long poll, or refuses
// with RATE_LIMITED when one of its caps is reached.
func (f *FeedService) hold(ctx context.Context, r Reader) (func(), error) {
	if f.slots == nil || (f.caps.PerKey <= 0 && f.caps.PerUser <= 0) {
		return func() {}, nil
	}
	var keys []ratelimit.SlotKey
	if r.KeyID != "" && f.caps.PerKey > 0 {
		keys = append(keys, ratelimit.SlotKey{Key: "feed:key:" + r.KeyID, Max: f.caps.PerKey})
	}
	if f.caps.PerUser > 0 {
		keys = append(keys, ratelimit.SlotKey{Key: "feed:user:" + r.UserID, Max: f.caps.PerUser})
	}
	release, full, err := f.slots.Take(ctx, keys)
	if err != nil {
		return nil, err
	}
	if full != nil {
		who := "this account"
		if strings.HasPrefix(full.Key, "feed:key:") {
			who = "this agent key"
		}
		secs := int64(FeedBusyRetry / time.Second)
		return nil, market.Errorf(market.CodeRateLimited,
			"%s has %d event streams and long polls open, the most it may; close one, or retry after %d seconds", who, full.Max, secs).
			WithDetails(map[string]any{"retry_after": secs, "limit": full.Max})
	}
	return release, nil
}

// Read reads r's feed: the entries after p.After (absent: the last 30
// days), oldest first. With p.Wait > 0 and nothing to return yet, it
// waits, holding one of r's slots, until an event for the user becomes
// readable, the wait ends or ctx does, and returns what is there then. The
// cursor returned is never empty: an empty page gives back the one asked
// with (or the head of the feed). A wait cut short by ctx ends like one
// that ran out.
func (f *FeedService) Read(ctx context.Context, r Reader, p FeedParams) ([]FeedEntry, Cursor, error) {
	q, err := f.query(r.UserID, p)
	if err != nil {
		return nil, Cursor{}, err
	}
	var wake <-chan struct{}
	if p.Wait > 0 {
		// Subscribed before the first read, so an event that becomes
		// readable between the read and the wait still wakes it.
		ch, cancel := f.broker.Subscribe(r.UserID)
		defer cancel()
		wake = ch
	}
	deadline := time.Now().Add(p.Wait) // real time: the wait is the client's
	if q.After != nil {
		if err := f.checkAfter(ctx, *q.After); err != nil {
			return nil, Cursor{}, err
		}
	}
	entries, next, err := f.read(ctx, &q)
	if err != nil || len(entries) > 0 || p.Wait <= 0 {
		return entries, next, err
	}
	release, err := f.hold(ctx, r)
	if err != nil {
		return nil, Cursor{}, err
	}
	defer release()
	entries, next, err = f.wait(ctx, &q, wake, deadline)
	if err != nil && ctx.Err() != nil {
		// The caller left (a client hanging up on its long poll): the wait
		// is over, nothing failed.
		return nil, *q.After, nil
	}
	return entries, next, err
}

// Page is Read for userID with the parameters given one by one.
func (f *FeedService) Page(ctx context.Context, userID, after string, types []string, limit int, wait time.Duration) ([]FeedEntry, Cursor, error) {
	return f.Read(ctx, Reader{UserID: userID}, FeedParams{After: after, Types: types, Limit: limit, Wait: wait})
}

// read reads one page of q and moves q on past it: for a first read, to
// the head of the feed.
func (f *FeedService) read(ctx context.Context, q *FeedQuery) ([]FeedEntry, Cursor, error) {
	entries, next, err := f.store.Feed(ctx, *q)
	if err != nil {
		return nil, Cursor{}, err
	}
	f.seen(next)
	q.After = &next
	return entries, next, nil
}

// wait reads q again at each wake until it has entries, the deadline
// passes or ctx ends.
func (f *FeedService) wait(ctx context.Context, q *FeedQuery, wake <-chan struct{}, deadline time.Time) ([]FeedEntry, Cursor, error) {
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return nil, *q.After, nil
		}
		t := time.NewTimer(left)
		select {
		case <-wake:
			t.Stop()
		case <-t.C:
			return nil, *q.After, nil
		case <-ctx.Done():
			t.Stop()
			return nil, *q.After, ctx.Err()
		}
		entries, next, err := f.read(ctx, q)
		if err != nil || len(entries) > 0 {
			return entries, next, err
		}
	}
}

// Stream is an open stream of one reader's feed: it holds one of the
// reader's slots until Close.
type Stream struct {
	f       *FeedService
	q       FeedQuery
	wake    <-chan struct{}
	cancel  func()
	release func()
	// caughtUp: the last read found nothing new and no wake came since,
	// so nothing readable was added: the next read waits for a wake first.
	caughtUp bool
}

// Open opens a stream of r's feed after p.After (absent: the last 30
// days), of p.Types, read p.Limit entries at a time. Bad parameters, a
// cursor beyond the head and a reader at its caps are refused here, before
// anything is streamed.
func (f *FeedService) Open(ctx context.Context, r Reader, p FeedParams) (*Stream, error) {
	p.Wait = 0
	q, err := f.query(r.UserID, p)
	if err != nil {
		return nil, err
	}
	if q.After != nil {
		if err := f.checkAfter(ctx, *q.After); err != nil {
			return nil, err
		}
	}
	release, err := f.hold(ctx, r)
	if err != nil {
		return nil, err
	}
	wake, cancel := f.broker.Subscribe(r.UserID)
	return &Stream{f: f, q: q, wake: wake, cancel: cancel, release: release}, nil
}

// Next returns the next entries of the stream, waiting up to wait for some;
// none when the wait ends first. The cursor is the position reached.
// An idle stream costs no query: after an empty read it reads again only
// when woken (every event that becomes readable wakes it).
func (s *Stream) Next(ctx context.Context, wait time.Duration) ([]FeedEntry, Cursor, error) {
	deadline := time.Now().Add(wait)
	if !s.caughtUp {
		entries, next, err := s.f.read(ctx, &s.q)
		if err != nil || len(entries) > 0 {
			return entries, next, err
		}
	}
	entries, next, err := s.f.wait(ctx, &s.q, s.wake, deadline)
	s.caughtUp = err == nil && len(entries) == 0
	return entries, next, err
}

// Close ends the stream and frees its slot.
func (s *Stream) Close() {
	s.cancel()
	s.release()
}

// Notify wakes the readers of these users' feeds in this process; the
// store calls it after each commit that recorded events for them. It never
// blocks.
func (f *FeedService) Notify(userIDs []string) { f.broker.Notify(userIDs) }

// Waiting is how many readers wait in this process.
func (f *FeedService) Waiting() int { return f.broker.Waiting() }
