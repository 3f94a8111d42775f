package api

import (
	"context"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/messaging"
	"marketplace/internal/moderation"
)

// Message is a message in a thread, as one participant sees it. Variant B
// also sends the text as 'message', the name it takes it under.
type Message struct {
	ID               string         `json:"id"`
	ThreadID         string         `json:"threadId"`
	SenderID         *string        `json:"senderId" doc:"The user who wrote it (for an agent, its owner); null for system messages."`
	MessageType      string         `json:"messageType" enum:"text,offer,system" doc:"'text' written by a participant, 'offer' an offer round, 'system' posted by the service for an order event."`
	Content          string         `json:"content"`
	Text             string         `json:"-" snake:"message" doc:"The same text as 'content'."`
	StructuredFields map[string]any `json:"structuredFields" nullable:"true" doc:"Machine-readable data sent with the message, as sent; system messages carry 'event' and 'orderId'."`
	SentByAgent      bool           `json:"sentByAgent" doc:"True when an agent key sent it, for its owner."`
	CreatedAt        time.Time      `json:"createdAt"`
	ReadAt           *time.Time     `json:"readAt" doc:"On the caller's own messages, when the other participant read it; on the others, when the caller did. Null while unread."`
	ContentTrust     *ContentTrust  `json:"contentTrust,omitempty" doc:"To an agent key's caller, on text the other participant wrote: it is untrusted input (CONTRACT section 16)."`
}

// MessageOf is m, of thread t, as viewer sees it: to an agent key's
// caller, text another participant wrote carries ContentTrust (an offer
// round's is the offer's text); system messages have no author, and none.
func MessageOf(m *messaging.Message, t *messaging.Thread, viewer market.Actor) *Message {
	source := TrustMessage
	if m.Type == messaging.TypeOffer {
		source = TrustOffer
	}
	return &Message{ID: m.ID, ThreadID: m.ThreadID, SenderID: strOrNil(m.SenderID), MessageType: string(m.Type),
		Content: m.Content, Text: m.Content, StructuredFields: m.Fields, SentByAgent: m.SentByAgent, CreatedAt: m.CreatedAt,
		ReadAt:       m.ReadAt(t, viewer.UserID),
		ContentTrust: ForeignTrust(viewer, m.SenderID, source, moderation.TrustField{Name: "content", Text: m.Content})}
}

// Thread is a buyer's thread with the seller of one listing, as one
// participant sees it. 'role' is Variant A's, 'thread_id' Variant B's.
type Thread struct {
	ID            string        `json:"id"`
	ThreadID      string        `json:"-" snake:"thread_id" doc:"Same as 'id'."`
	ListingID     string        `json:"listingId"`
	ListingTitle  string        `json:"listingTitle"`
	BuyerID       string        `json:"buyerId"`
	SellerID      string        `json:"sellerId"`
	Role          string        `json:"role" snake:"-" enum:"buyer,seller" doc:"The caller's side of the thread."`
	UnreadCount   int           `json:"unreadCount" minimum:"0" doc:"Messages the caller has not read (their own never count)."`
	LastMessage   *Message      `json:"lastMessage" doc:"The newest message, as a preview."`
	LastMessageAt time.Time     `json:"lastMessageAt"`
	CreatedAt     time.Time     `json:"createdAt"`
	ContentTrust  *ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller on the buyer's side: the listing title is the seller's text, untrusted input (CONTRACT section 16)."`
}

// ThreadOf is t as viewer sees it: to an agent key's caller on the buyer's
// side, the listing title (the seller's text) carries ContentTrust, which
// names the field in cs's spelling; the last message follows MessageOf.
func ThreadOf(t *messaging.Thread, viewer market.Actor, cs Casing) *Thread {
	role := "buyer"
	if viewer.UserID == t.SellerID {
		role = "seller"
	}
	title := "listingTitle"
	if cs == Snake {
		title = "listing_title"
	}
	out := &Thread{ID: t.ID, ThreadID: t.ID, ListingID: t.ListingID, ListingTitle: t.ListingTitle, BuyerID: t.BuyerID,
		SellerID: t.SellerID, Role: role, UnreadCount: t.Unread(viewer.UserID), LastMessageAt: t.LastMessageAt,
		CreatedAt:    t.CreatedAt,
		ContentTrust: ForeignTrust(viewer, t.SellerID, TrustListing, moderation.TrustField{Name: title, Text: t.ListingTitle})}
	if t.LastMessage != nil {
		out.LastMessage = MessageOf(t.LastMessage, t, viewer)
	}
	return out
}

// UnreadCount is the caller's unread messages over all threads.
type UnreadCount struct {
	UnreadCount int `json:"unreadCount" minimum:"0" doc:"Unread messages over all the caller's threads (messages, not threads)."`
}

// Conversation is a thread's messages, oldest first, as the caller sees
// them, with the thread they are in (each surface shows it its own way).
type Conversation struct {
	Thread   *messaging.Thread
	Messages []Message
}

// ThreadPage is a page of the caller's threads, newest activity first:
// the cursor of the next page ("" on the last) and the page size used.
type ThreadPage struct {
	Threads []Thread
	Next    string
	Limit   int
}

// Messages are messaging's operations, for a surface that spells as
// Casing.
type Messages struct {
	Service *messaging.Service
	Casing  Casing
}

func msgCaller(c *Caller) messaging.Caller { return messaging.CallerOf(c.Actor, c.Key) }

// sent is the message of a send or reply as c sees it.
func sent(c *Caller) func(*messaging.Sent, error) (*Message, error) {
	return func(s *messaging.Sent, err error) (*Message, error) {
		if err != nil {
			return nil, err
		}
		return MessageOf(s.Message, s.Thread, c.Actor), nil
	}
}

// Send is a buyer writing about a listing; the thread is made on the first
// message.
func (x Messages) Send(ctx context.Context, c *Caller, listingID string, in messaging.Input) (*Message, error) {
	return sent(c)(x.Service.Send(ctx, msgCaller(c), listingID, in))
}

// Post is Send for a buyer, and for the seller an answer in the thread of
// buyerID on the listing.
func (x Messages) Post(ctx context.Context, c *Caller, listingID, buyerID string, in messaging.Input) (*Message, error) {
	return sent(c)(x.Service.Post(ctx, msgCaller(c), listingID, buyerID, in))
}

// Reply answers in a thread of the caller's.
func (x Messages) Reply(ctx context.Context, c *Caller, threadID string, in messaging.Input) (*Message, error) {
	return sent(c)(x.Service.Reply(ctx, msgCaller(c), threadID, in))
}

// Threads is a page of the caller's threads; limit 0 is the default page
// size.
func (x Messages) Threads(ctx context.Context, c *Caller, cursor string, limit int) (*ThreadPage, error) {
	ts, next, err := x.Service.Threads(ctx, msgCaller(c), cursor, limit)
	if err != nil {
		return nil, err
	}
	if limit == 0 {
		limit = messaging.DefaultPageSize
	}
	return &ThreadPage{Threads: x.threads(ts, c.Actor), Next: next, Limit: limit}, nil
}

// Thread is one of the caller's threads with its messages, now read by
// the caller.
func (x Messages) Thread(ctx context.Context, c *Caller, threadID string) (*Conversation, error) {
	conv, err := x.Service.Thread(ctx, msgCaller(c), threadID)
	if err != nil {
		return nil, err
	}
	return conversationOf(conv, c.Actor), nil
}

// OnListing is the caller's thread on a listing with its messages, now
// read; or for its seller naming no buyer, every thread on it (conv nil).
func (x Messages) OnListing(ctx context.Context, c *Caller, listingID, buyerID string) (conv *Conversation, threads []Thread, err error) {
	lt, err := x.Service.OnListing(ctx, msgCaller(c), listingID, buyerID)
	if err != nil {
		return nil, nil, err
	}
	if lt.Conversation == nil {
		return nil, x.threads(lt.Threads, c.Actor), nil
	}
	return conversationOf(lt.Conversation, c.Actor), nil, nil
}

// Unread counts the caller's unread messages.
func (x Messages) Unread(ctx context.Context, c *Caller) (*UnreadCount, error) {
	n, err := x.Service.Unread(ctx, msgCaller(c))
	if err != nil {
		return nil, err
	}
	return &UnreadCount{UnreadCount: n}, nil
}

func (x Messages) threads(ts []messaging.Thread, viewer market.Actor) []Thread {
	out := make([]Thread, len(ts))
	for i := range ts {
		out[i] = *ThreadOf(&ts[i], viewer, x.Casing)
	}
	return out
}

func conversationOf(conv *messaging.Conversation, viewer market.Actor) *Conversation {
	out := &Conversation{Thread: conv.Thread, Messages: make([]Message, len(conv.Messages))}
	for i := range conv.Messages {
		out.Messages[i] = *MessageOf(&conv.Messages[i], conv.Thread, viewer)
	}
	return out
}

// MessageOps are the messaging operations.
func (o Ops) MessageOps() Messages { return Messages{Service: o.Messages, Casing: o.Casing} }
