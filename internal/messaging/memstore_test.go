package messaging

import (
	"context"
	"slices"
	"sync"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// memTx is an in-memory messaging Tx for the rules' tests. One mutex makes
// every transaction serial, as SQLite's single writer does.
type memTx struct {
	listings map[string]listings.Listing
	threads  map[string]*Thread
	messages []Message
	events   []events.Event
}

type memStore struct {
	mu sync.Mutex
	tx *memTx
}

func newMemStore(ls ...listings.Listing) *memStore {
	m := &memTx{listings: map[string]listings.Listing{}, threads: map[string]*Thread{}}
	for _, l := range ls {
		m.listings[l.ID] = l
	}
	return &memStore{tx: m}
}

func (s *memStore) InTx(_ context.Context, fn func(Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Roll back on error: work on a copy.
	cp := &memTx{listings: s.tx.listings, threads: map[string]*Thread{}, messages: slices.Clone(s.tx.messages),
		events: slices.Clone(s.tx.events)}
	for k, v := range s.tx.threads {
		t := *v
		cp.threads[k] = &t
	}
	if err := fn(cp); err != nil {
		return err
	}
	s.tx = cp
	return nil
}

func (s *memStore) Read() Tx { return s.tx }

func (m *memTx) AppendEvent(_ context.Context, e *events.Event) error {
	m.events = append(m.events, *e)
	return nil
}

func (m *memTx) ListingByID(_ context.Context, id string) (*listings.Listing, error) {
	l, ok := m.listings[id]
	if !ok {
		return nil, market.Errorf(market.CodeListingNotFound, "listing not found")
	}
	return &l, nil
}

func (m *memTx) EnsureThread(ctx context.Context, t *Thread) (*Thread, error) {
	if got, err := m.ThreadOf(ctx, t.ListingID, t.BuyerID); err == nil {
		return got, nil
	}
	c := *t
	m.threads[t.ID] = &c
	return m.ThreadByID(ctx, t.ID)
}

func (m *memTx) AddMessage(_ context.Context, msg *Message, t *Thread) error {
	m.messages = append(m.messages, *msg)
	cur := m.threads[msg.ThreadID]
	if msg.BuyerReadAt == nil {
		cur.BuyerUnread++
	}
	if msg.SellerReadAt == nil {
		cur.SellerUnread++
	}
	if msg.CreatedAt.After(cur.LastMessageAt) {
		cur.LastMessageAt = msg.CreatedAt
	}
	t.BuyerUnread, t.SellerUnread, t.LastMessageAt = cur.BuyerUnread, cur.SellerUnread, cur.LastMessageAt
	return nil
}

func (m *memTx) ThreadByID(_ context.Context, id string) (*Thread, error) {
	t, ok := m.threads[id]
	if !ok {
		return nil, market.NotFound("thread")
	}
	c := *t
	return &c, nil
}

func (m *memTx) ThreadOf(ctx context.Context, listingID, buyerID string) (*Thread, error) {
	for id, t := range m.threads {
		if t.ListingID == listingID && t.BuyerID == buyerID {
			return m.ThreadByID(ctx, id)
		}
	}
	return nil, market.NotFound("thread")
}

func (m *memTx) Threads(_ context.Context, f ThreadFilter) ([]Thread, error) {
	var out []Thread
	for _, t := range m.threads {
		if !t.Participant(f.UserID) || f.ListingID != "" && t.ListingID != f.ListingID {
			continue
		}
		if f.Before != nil && !(t.LastMessageAt.Before(f.Before.At) || t.LastMessageAt.Equal(f.Before.At) && t.ID < f.Before.ID) {
			continue
		}
		c := *t
		for i := len(m.messages) - 1; i >= 0; i-- {
			if m.messages[i].ThreadID == t.ID {
				msg := m.messages[i]
				c.LastMessage = &msg
				break
			}
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Thread) int {
		if c := b.LastMessageAt.Compare(a.LastMessageAt); c != 0 {
			return c
		}
		if a.ID > b.ID {
			return -1
		}
		return 1
	})
	if len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

func (m *memTx) Messages(_ context.Context, threadID string) ([]Message, error) {
	out := []Message{}
	for _, msg := range m.messages {
		if msg.ThreadID == threadID {
			out = append(out, msg)
		}
	}
	return out, nil
}

func (m *memTx) MarkRead(_ context.Context, threadID string, buyer bool, at time.Time) error {
	n := 0
	for i := range m.messages {
		msg := &m.messages[i]
		if msg.ThreadID != threadID {
			continue
		}
		p := &msg.SellerReadAt
		if buyer {
			p = &msg.BuyerReadAt
		}
		if *p == nil {
			*p, n = &at, n+1
		}
	}
	t := m.threads[threadID]
	if buyer {
		t.BuyerUnread = max(0, t.BuyerUnread-n)
	} else {
		t.SellerUnread = max(0, t.SellerUnread-n)
	}
	return nil
}

func (m *memTx) UnreadTotal(_ context.Context, userID string) (int, error) {
	n := 0
	for _, t := range m.threads {
		if t.Participant(userID) {
			n += t.Unread(userID)
		}
	}
	return n, nil
}
