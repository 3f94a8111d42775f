// Package messaging holds the threads buyers and sellers write in: one
// thread per buyer and listing, opened by the buyer and answered by the
// seller (CONTRACT.md section 8). Order events and offers post automatic
// messages into the same threads through Auto, inside the caller's
// transaction.
package messaging

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// Type is what kind of message a message is.
type Type string

const (
	TypeText   Type = "text"   // written by a participant
	TypeOffer  Type = "offer"  // an offer round, posted by the offers area
	TypeSystem Type = "system" // posted by the service for an order event
)

// Types lists every message type.
var Types = []Type{TypeText, TypeOffer, TypeSystem}

// Limits of message input.
const (
	MaxContent      = 5000     // characters
	MaxFieldsBytes  = 16 << 10 // structured fields, as JSON
	MaxFieldsDepth  = 8        // nesting of objects and arrays
	EventReceived   = "message.received"
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// Thread is the conversation of one buyer with the seller of one listing.
type Thread struct {
	ID            string
	ListingID     string
	BuyerID       string
	SellerID      string
	BuyerUnread   int // messages the buyer has not read
	SellerUnread  int // messages the seller has not read
	LastMessageAt time.Time
	CreatedAt     time.Time
	// Filled by reads that list threads.
	ListingTitle string
	LastMessage  *Message
}

// Unread is the unread count of userID, one of the participants.
func (t *Thread) Unread(userID string) int {
	if userID == t.BuyerID {
		return t.BuyerUnread
	}
	return t.SellerUnread
}

// Participant reports whether userID is the buyer or the seller.
func (t *Thread) Participant(userID string) bool {
	return userID != "" && (userID == t.BuyerID || userID == t.SellerID)
}

// Message is one message of a thread. A participant's read time is kept
// per side; the sender's own side is set when it is sent, so a sender's
// own messages are never unread for them.
type Message struct {
	ID           string
	ThreadID     string
	SenderID     string // "" for system messages
	Type         Type
	Content      string
	Fields       map[string]any // structured fields; nil for none
	SentByAgent  bool
	BuyerReadAt  *time.Time
	SellerReadAt *time.Time
	CreatedAt    time.Time
}

// ReadAt is when the message was read, as viewer sees it: on what viewer
// sent, when the other side read it; on anything else, when viewer did.
func (m *Message) ReadAt(t *Thread, viewer string) *time.Time {
	buyerSide := viewer == t.BuyerID
	if m.SenderID != "" && m.SenderID == viewer {
		buyerSide = !buyerSide
	}
	if buyerSide {
		return m.BuyerReadAt
	}
	return m.SellerReadAt
}

// ThreadFilter selects a page of a user's threads, newest activity first.
type ThreadFilter struct {
	UserID    string
	ListingID string // "" for every listing
	Before    *Cursor
	Limit     int
}

// Cursor is where a page of threads starts: after the thread with this
// last activity and id.
type Cursor struct {
	At time.Time
	ID string
}

// PostTx is what posting a message needs from a transaction; the orders
// and offers areas embed it in their own Tx so their automatic messages
// are written in their transaction.
type PostTx interface {
	events.Tx
	// EnsureThread returns the thread of t's buyer on t's listing,
	// inserting t when there is none (t.ID is then the new thread's).
	EnsureThread(ctx context.Context, t *Thread) (*Thread, error)
	// AddMessage inserts m and counts it unread for each participant other
	// than its sender, atomically with the insert.
	AddMessage(ctx context.Context, m *Message, t *Thread) error
}

// Tx is what messaging needs from a transaction.
type Tx interface {
	PostTx
	ListingByID(ctx context.Context, id string) (*listings.Listing, error)
	// ThreadByID finds a thread.
	ThreadByID(ctx context.Context, id string) (*Thread, error)
	// ThreadOf finds the thread of buyerID on listingID.
	ThreadOf(ctx context.Context, listingID, buyerID string) (*Thread, error)
	// Threads lists a page of f.UserID's threads, newest activity first,
	// each with its listing's title and last message.
	Threads(ctx context.Context, f ThreadFilter) ([]Thread, error)
	// Messages lists a thread's messages, oldest first.
	Messages(ctx context.Context, threadID string) ([]Message, error)
	// MarkRead marks every message of the thread read for the buyer (or the
	// seller) at at, and takes what it marked off that side's unread count.
	MarkRead(ctx context.Context, threadID string, buyer bool, at time.Time) error
	// UnreadTotal is the sum of userID's unread counts over their threads.
	UnreadTotal(ctx context.Context, userID string) (int, error)
}

// Store runs messaging's transactions.
type Store interface {
	InTx(ctx context.Context, fn func(Tx) error) error
	Read() Tx
}

// Service holds the messaging rules.
type Service struct {
	store Store
	clock market.Clock
}

// NewService builds the messaging service.
func NewService(store Store, clock market.Clock) *Service {
	return &Service{store: store, clock: clock}
}

// Caller is who sends or reads: the actor and, for an agent, its key's
// scope (a human's scope is ignored).
type Caller struct {
	Actor market.Actor
	Scope agents.Scope
}

// CallerOf is who acts: actor, with the scope of key when an agent key
// was used (nil for a human).
func CallerOf(actor market.Actor, key *agents.Key) Caller {
	c := Caller{Actor: actor}
	if key != nil {
		c.Scope = key.Scope
	}
	return c
}

// Input is a message a participant writes.
type Input struct {
	Content string
	Fields  map[string]any
}

// checkInput validates content and structured fields; content comes back
// trimmed.
func checkInput(c *market.Check, in *Input) {
	in.Content = c.Text("content", in.Content, MaxContent, true)
	CheckFields(c, "structured_fields", in.Fields)
}

// CheckFields refuses structured fields over MaxFieldsBytes as JSON or
// nested deeper than MaxFieldsDepth.
func CheckFields(c *market.Check, field string, f map[string]any) {
	if f == nil {
		return
	}
	if depth(f) > MaxFieldsDepth {
		c.Add(field, "must be nested at most "+strconv.Itoa(MaxFieldsDepth)+" levels deep")
		return
	}
	b, err := json.Marshal(f)
	if err != nil {
		c.Add(field, "must be a JSON object")
		return
	}
	if len(b) > MaxFieldsBytes {
		c.Add(field, "must be at most "+strconv.Itoa(MaxFieldsBytes/1024)+" KiB as JSON")
	}
}

// depth is how deeply v nests objects and arrays (a flat object is 1).
func depth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, depth(e))
		}
		return d + 1
	case []any:
		for _, e := range x {
			d = max(d, depth(e))
		}
		return d + 1
	}
	return 0
}

// Sent is a message with its thread.
type Sent struct {
	Thread  *Thread
	Message *Message
}

// Send is a buyer writing to the seller about a listing: the buyer's thread
// on it is created if there is none. Sellers do not open threads on their
// own listings (FORBIDDEN); an agent needs the buy scope.
func (s *Service) Send(ctx context.Context, c Caller, listingID string, in Input) (*Sent, error) {
	var chk market.Check
	chk.Require(listingID != "", "listing_id", "is required")
	checkInput(&chk, &in)
	if err := chk.Err(); err != nil {
		return nil, err
	}
	if err := agents.Require(c.Actor, c.Scope, agents.OpBuy); err != nil {
		return nil, err
	}
	if !market.ValidID(listingID) {
		return nil, market.Errorf(market.CodeListingNotFound, "listing not found")
	}
	var out *Sent
	err := s.store.InTx(ctx, func(tx Tx) error {
		l, err := tx.ListingByID(ctx, listingID)
		if err != nil {
			return err
		}
		if l.SellerID == c.Actor.UserID {
			return market.Errorf(market.CodeForbidden, "sellers do not open threads on their own listings; reply in a buyer's thread")
		}
		now := s.clock.Now()
		t, err := tx.ThreadOf(ctx, l.ID, c.Actor.UserID)
		switch {
		case market.CodeOf(err) == market.CodeNotFound:
			// A new thread needs a listing the public sees (active,
			// reserved or sold); an existing one goes on whatever it became.
			if !l.Status.Visible() {
				return market.Errorf(market.CodeListingNotFound, "listing not found")
			}
			if t, err = tx.EnsureThread(ctx, &Thread{ID: market.NewID(), ListingID: l.ID, BuyerID: c.Actor.UserID,
				SellerID: l.SellerID, LastMessageAt: now, CreatedAt: now}); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		m, err := post(ctx, tx, now, c.Actor, t, TypeText, in)
		out = &Sent{Thread: t, Message: m}
		return err
	})
	return out, err
}

// Reply is a participant writing in a thread they are part of: the seller
// answering the buyer (sell scope for an agent), or the buyer writing again
// (buy scope). Anyone else gets NOT_FOUND.
func (s *Service) Reply(ctx context.Context, c Caller, threadID string, in Input) (*Sent, error) {
	var chk market.Check
	checkInput(&chk, &in)
	if err := chk.Err(); err != nil {
		return nil, err
	}
	if !market.ValidID(threadID) {
		return nil, market.NotFound("thread")
	}
	var out *Sent
	err := s.store.InTx(ctx, func(tx Tx) error {
		t, err := visible(ctx, tx, c.Actor, threadID)
		if err != nil {
			return err
		}
		if err := requireSide(c, t); err != nil {
			return err
		}
		m, err := post(ctx, tx, s.clock.Now(), c.Actor, t, TypeText, in)
		out = &Sent{Thread: t, Message: m}
		return err
	})
	return out, err
}

// ReplyTo is the seller answering the thread of buyerID on listingID, or
// the buyer writing in their own (Variant B's POST /v1/messages with
// buyer_id).
func (s *Service) ReplyTo(ctx context.Context, c Caller, listingID, buyerID string, in Input) (*Sent, error) {
	if !market.ValidID(listingID) || !market.ValidID(buyerID) {
		var chk market.Check
		checkInput(&chk, &in)
		if err := chk.Err(); err != nil {
			return nil, err
		}
		return nil, market.NotFound("thread")
	}
	t, err := s.store.Read().ThreadOf(ctx, listingID, buyerID)
	if err != nil {
		var chk market.Check
		checkInput(&chk, &in)
		if cerr := chk.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	return s.Reply(ctx, c, t.ID, in)
}

// requireSide checks the agent scope for the caller's side of the thread.
func requireSide(c Caller, t *Thread) error {
	op := agents.OpBuy
	if c.Actor.UserID == t.SellerID {
		op = agents.OpSell
	}
	return agents.Require(c.Actor, c.Scope, op)
}

func visible(ctx context.Context, tx Tx, actor market.Actor, id string) (*Thread, error) {
	t, err := tx.ThreadByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if !t.Participant(actor.UserID) {
		return nil, market.NotFound("thread")
	}
	return t, nil
}

// post writes a participant's message and records message.received for
// the other participant.
func post(ctx context.Context, tx PostTx, now time.Time, actor market.Actor, t *Thread, typ Type, in Input) (*Message, error) {
	m := newMessage(t, actor.UserID, typ, in.Content, in.Fields, actor.IsAgent(), now)
	if err := tx.AddMessage(ctx, m, t); err != nil {
		return nil, err
	}
	recipient := t.SellerID
	if actor.UserID == t.SellerID {
		recipient = t.BuyerID
	}
	return m, events.Record(ctx, tx, now, actor, EventReceived, "thread", t.ID, map[string]any{
		"thread_id": t.ID, "message_id": m.ID, "listing_id": t.ListingID, "sender_id": actor.UserID,
		"recipient_id": recipient, "message_type": string(typ), "sent_by_agent": m.SentByAgent, "content": m.Content}, recipient)
}

// newMessage builds a message; the sender's own side is read at once.
func newMessage(t *Thread, sender string, typ Type, content string, fields map[string]any, agent bool, now time.Time) *Message {
	m := &Message{ID: market.NewID(), ThreadID: t.ID, SenderID: sender, Type: typ, Content: content, Fields: fields,
		SentByAgent: agent, CreatedAt: now}
	switch sender {
	case "":
	case t.BuyerID:
		m.BuyerReadAt = &now
	case t.SellerID:
		m.SellerReadAt = &now
	}
	return m
}

// Conversation is a thread with its messages.
type Conversation struct {
	Thread   *Thread
	Messages []Message
}

// Thread answers a thread's messages to a participant and marks them read
// for that participant.
func (s *Service) Thread(ctx context.Context, c Caller, threadID string) (*Conversation, error) {
	if !market.ValidID(threadID) {
		return nil, market.NotFound("thread")
	}
	// Nothing unread for the caller: a plain read, no write transaction.
	t, err := visible(ctx, s.store.Read(), c.Actor, threadID)
	if err != nil {
		return nil, err
	}
	if t.Unread(c.Actor.UserID) == 0 {
		return s.read(ctx, s.store.Read(), c.Actor, t)
	}
	var out *Conversation
	err = s.store.InTx(ctx, func(tx Tx) error {
		t, err := visible(ctx, tx, c.Actor, threadID)
		if err != nil {
			return err
		}
		out, err = s.read(ctx, tx, c.Actor, t)
		return err
	})
	return out, err
}

// read marks t read for actor and answers its messages.
func (s *Service) read(ctx context.Context, tx Tx, actor market.Actor, t *Thread) (*Conversation, error) {
	buyer := actor.UserID == t.BuyerID
	if t.Unread(actor.UserID) > 0 {
		if err := tx.MarkRead(ctx, t.ID, buyer, s.clock.Now()); err != nil {
			return nil, err
		}
		if buyer {
			t.BuyerUnread = 0
		} else {
			t.SellerUnread = 0
		}
	}
	ms, err := tx.Messages(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	return &Conversation{Thread: t, Messages: ms}, nil
}

// ListingThread is the caller's thread on a listing (Variant B's GET
// /v1/messages/{listing_id}): the buyer's own, or for the seller the
// thread of buyerID. Threads is set instead when the seller names no buyer.
type ListingThread struct {
	Conversation *Conversation
	Threads      []Thread
}

// OnListing answers the caller's thread on a listing, marking it read. The
// seller names the buyer's thread with buyerID, and without it gets the
// listing's threads. A buyer without a thread there gets NOT_FOUND.
func (s *Service) OnListing(ctx context.Context, c Caller, listingID, buyerID string) (*ListingThread, error) {
	if !market.ValidID(listingID) {
		return nil, market.Errorf(market.CodeListingNotFound, "listing not found")
	}
	l, err := s.store.Read().ListingByID(ctx, listingID)
	if err != nil {
		return nil, err
	}
	seller := l.SellerID == c.Actor.UserID
	if seller && buyerID == "" {
		ts, err := s.store.Read().Threads(ctx, ThreadFilter{UserID: c.Actor.UserID, ListingID: l.ID, Limit: MaxPageSize})
		if err != nil {
			return nil, err
		}
		return &ListingThread{Threads: ts}, nil
	}
	if !seller {
		if buyerID != "" && buyerID != c.Actor.UserID {
			return nil, market.NotFound("thread")
		}
		buyerID = c.Actor.UserID
	}
	if !market.ValidID(buyerID) {
		return nil, market.NotFound("thread")
	}
	t, err := s.store.Read().ThreadOf(ctx, l.ID, buyerID)
	if err != nil {
		return nil, err
	}
	conv, err := s.Thread(ctx, c, t.ID)
	if err != nil {
		return nil, err
	}
	return &ListingThread{Conversation: conv}, nil
}

// Threads lists the caller's threads, newest activity first, each with its
// last message and the caller's unread count. The cursor is the previous
// page's; the next page's cursor is "" after the last page.
func (s *Service) Threads(ctx context.Context, c Caller, cursor string, limit int) ([]Thread, string, error) {
	var chk market.Check
	if limit == 0 {
		limit = DefaultPageSize
	}
	chk.Require(limit >= 1 && limit <= MaxPageSize, "limit", "must be a whole number from 1 to "+strconv.Itoa(MaxPageSize))
	cur, ok := ParseCursor(cursor)
	chk.Require(ok, "cursor", "is not a cursor this service gave out")
	if err := chk.Err(); err != nil {
		return nil, "", err
	}
	ts, err := s.store.Read().Threads(ctx, ThreadFilter{UserID: c.Actor.UserID, Before: cur, Limit: limit + 1})
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(ts) > limit {
		ts = ts[:limit]
		last := ts[limit-1]
		next = FormatCursor(Cursor{At: last.LastMessageAt, ID: last.ID})
	}
	return ts, next, nil
}

// Unread is the caller's total of unread messages over all threads.
func (s *Service) Unread(ctx context.Context, c Caller) (int, error) {
	return s.store.Read().UnreadTotal(ctx, c.Actor.UserID)
}

// Post is Variant B's POST /v1/messages: a buyer writes about a listing
// (Send); the seller answers the thread of buyerID there (ReplyTo). A
// buyerID that is the caller's own is the caller's own thread.
func (s *Service) Post(ctx context.Context, c Caller, listingID, buyerID string, in Input) (*Sent, error) {
	if buyerID == "" || buyerID == c.Actor.UserID {
		return s.Send(ctx, c, listingID, in)
	}
	var chk market.Check
	chk.Require(listingID != "", "listing_id", "is required")
	if err := chk.Err(); err != nil {
		checkInput(&chk, &in)
		return nil, chk.Err()
	}
	return s.ReplyTo(ctx, c, listingID, buyerID, in)
}
