package events

import (
	"context"
	"strconv"
	"strings"
	"time"

	"marketplace/internal/market"
)

// Feed bounds (CONTRACT.md section 12).
const (
	FeedDefaultLimit = 50
	FeedMaxLimit     = 100
	FeedMaxWait      = 30 * time.Second
	// FeedWindow is how far back a feed read without a cursor starts.
	FeedWindow = 30 * 24 * time.Hour
	// feedRecheck is how often a waiting reader reads the feed again
	// without being woken: events committed by another replica, or one
	// PostgreSQL's visibility cut held back for a moment.
	feedRecheck = 250 * time.Millisecond
)

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

// FeedService reads users' event feeds, holding a read open while there is
// nothing new when asked to (long poll).
type FeedService struct {
	store  FeedStore
	clock  market.Clock
	broker *Broker
}

// NewFeedService makes the service. broker may be nil (no wake-ups: a
// waiting read then re-reads on its timer only).
func NewFeedService(store FeedStore, clock market.Clock, broker *Broker) *FeedService {
	if broker == nil {
		broker = NewBroker()
	}
	return &FeedService{store: store, clock: clock, broker: broker}
}

// Page reads userID's feed after the cursor after (absent: the last 30
// days), oldest first. With wait > 0 and nothing to return yet, it waits
// until an event for the user commits, the wait ends or ctx does, and
// returns what is there then. The cursor returned is never empty: an empty
// page gives back the one asked with (or the head of the feed).
func (f *FeedService) Page(ctx context.Context, userID, after string, types []string, limit int, wait time.Duration) ([]FeedEntry, Cursor, error) {
	var c market.Check
	q := FeedQuery{UserID: userID, Types: types, Limit: limit}
	if after != "" {
		cur, ok := ParseCursor(after)
		if c.Require(ok, "after", "is not a cursor of this feed") {
			q.After = &cur
		}
	} else {
		q.Since = f.clock.Now().Add(-FeedWindow)
	}
	for _, t := range types {
		if !Public(t) {
			c.Add("types", "unknown event type "+strconv.Quote(t))
			break
		}
	}
	if limit == 0 {
		q.Limit = FeedDefaultLimit
	}
	c.Require(q.Limit >= 1 && q.Limit <= FeedMaxLimit, "limit", "must be a whole number from 1 to 100")
	c.Require(wait >= 0 && wait <= FeedMaxWait, "wait", "must be a number of seconds from 0 to 30")
	if err := c.Err(); err != nil {
		return nil, Cursor{}, err
	}

	var wake <-chan struct{}
	if wait > 0 {
		// Subscribed before the first read, so a commit between the read
		// and the wait still wakes it.
		ch, cancel := f.broker.Subscribe(userID)
		defer cancel()
		wake = ch
	}
	deadline := time.Now().Add(wait) // real time: the wait is the client's
	for {
		entries, next, err := f.store.Feed(ctx, q)
		if err != nil {
			return nil, Cursor{}, err
		}
		left := time.Until(deadline)
		if len(entries) > 0 || wait <= 0 || left <= 0 {
			return entries, next, nil
		}
		// From here on read after the position reached: for a first read,
		// the head of the feed.
		q.After = &next
		t := time.NewTimer(min(feedRecheck, left))
		select {
		case <-wake:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, next, ctx.Err()
		}
		t.Stop()
	}
}

// Read is Page with the parameters as ParseFeedParams reads them.
func (f *FeedService) Read(ctx context.Context, userID string, p FeedParams) ([]FeedEntry, Cursor, error) {
	return f.Page(ctx, userID, p.After, p.Types, p.Limit, p.Wait)
}

// Notify wakes the readers of these users' feeds in this process; the
// store calls it after each commit that recorded events for them. It never
// blocks.
func (f *FeedService) Notify(userIDs []string) { f.broker.Notify(userIDs) }
