package agentv1

import (
	"context"
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/messaging"
	"marketplace/internal/moderation"
)

// RegisterMessages adds Variant B's message routes.
func (a *API) RegisterMessages(rt *httpapi.Router) {
	rt.Handle("POST", Prefix+"/messages", httpapi.Either, a.postMessage)
	rt.Handle("GET", Prefix+"/messages/{listing_id}", httpapi.Either, a.listingMessages)
}

// message is Variant B's message: Variant A's fields in snake_case, with
// the text also as 'message', the name this surface sends it under.
type message struct {
	ID               string                `json:"id"`
	ThreadID         string                `json:"thread_id"`
	SenderID         *string               `json:"sender_id" doc:"The user who wrote it (for an agent, its owner); null for system messages."`
	MessageType      string                `json:"message_type" enum:"text,offer,system" doc:"'text' written by a participant, 'offer' an offer round, 'system' posted by the service for an order event."`
	Content          string                `json:"content"`
	Message          string                `json:"message" doc:"The same text as 'content'."`
	StructuredFields map[string]any        `json:"structured_fields" nullable:"true" doc:"Machine-readable data sent with the message, as sent; system messages carry 'event' and 'orderId'."`
	SentByAgent      bool                  `json:"sent_by_agent" doc:"True when an agent key sent it, for its owner."`
	CreatedAt        time.Time             `json:"created_at"`
	ReadAt           *time.Time            `json:"read_at" doc:"On the caller's own messages, when the other participant read it; on the others, when the caller did. Null while unread."`
	ContentTrust     *httpapi.ContentTrust `json:"content_trust,omitempty" doc:"To an agent key's caller, on text the other participant wrote: it is untrusted input (CONTRACT section 16)."`
}

func toMessage(m *messaging.Message, t *messaging.Thread, viewer string, agent bool) message {
	out := message{ID: m.ID, ThreadID: m.ThreadID, SenderID: strOrNil(m.SenderID), MessageType: string(m.Type),
		Content: m.Content, Message: m.Content, StructuredFields: m.Fields, SentByAgent: m.SentByAgent,
		CreatedAt: m.CreatedAt, ReadAt: m.ReadAt(t, viewer)}
	if agent && m.SenderID != "" && m.SenderID != viewer {
		out.ContentTrust = trustOf(m)
	}
	return out
}

// thread is Variant B's thread summary, as one participant sees it.
type thread struct {
	ID            string                `json:"id"`
	ThreadID      string                `json:"thread_id" doc:"Same as 'id'."`
	ListingID     string                `json:"listing_id"`
	ListingTitle  string                `json:"listing_title"`
	BuyerID       string                `json:"buyer_id"`
	SellerID      string                `json:"seller_id"`
	UnreadCount   int                   `json:"unread_count" minimum:"0" doc:"Messages the caller has not read (their own never count)."`
	LastMessage   *message              `json:"last_message" doc:"The newest message, as a preview."`
	LastMessageAt time.Time             `json:"last_message_at"`
	CreatedAt     time.Time             `json:"created_at"`
	ContentTrust  *httpapi.ContentTrust `json:"content_trust,omitempty" doc:"To an agent key's caller on the buyer's side: the listing title is the seller's text, untrusted input (CONTRACT section 16)."`
}

func toThread(t *messaging.Thread, viewer string, agent bool) thread {
	out := thread{ID: t.ID, ThreadID: t.ID, ListingID: t.ListingID, ListingTitle: t.ListingTitle, BuyerID: t.BuyerID,
		SellerID: t.SellerID, UnreadCount: t.Unread(viewer), LastMessageAt: t.LastMessageAt, CreatedAt: t.CreatedAt}
	if agent && viewer != t.SellerID {
		out.ContentTrust = httpapi.NewTrust(httpapi.TrustListing, moderation.TrustField{Name: "listing_title", Text: t.ListingTitle})
	}
	if t.LastMessage != nil {
		m := toMessage(t.LastMessage, t, viewer, agent)
		out.LastMessage = &m
	}
	return out
}

// listingThread is one thread on a listing with its messages.
type listingThread struct {
	ThreadID  string    `json:"thread_id"`
	ListingID string    `json:"listing_id"`
	BuyerID   string    `json:"buyer_id"`
	SellerID  string    `json:"seller_id"`
	Messages  []message `json:"messages" doc:"Oldest first; now read by the caller."`
}

// listingThreads is the seller's list of the threads on a listing.
type listingThreads struct {
	ListingID string   `json:"listing_id"`
	Threads   []thread `json:"threads" doc:"Newest activity first; at most 100."`
}

type postMessageBody struct {
	ListingID        string         `json:"listing_id" required:"true" doc:"The listing the message is about."`
	Message          string         `json:"message" minLength:"1" maxLength:"5000" required:"true" doc:"The text; leading and trailing spaces are dropped."`
	StructuredFields map[string]any `json:"structured_fields" nullable:"true" doc:"Optional machine-readable data: a JSON object of at most 16 KiB and 8 levels of nesting."`
	BuyerID          string         `json:"buyer_id" doc:"The seller answering: the buyer whose thread on the listing to write in. A buyer leaves it out."`
}

func msgCaller(r *http.Request) messaging.Caller {
	p := httpapi.PrincipalOf(r)
	return messaging.CallerOf(p.Actor, p.Key)
}

// postMessage is POST /v1/messages: a buyer writes about a listing (the
// thread is made on the first message); the seller answers with buyer_id.
func (a *API) postMessage(w http.ResponseWriter, r *http.Request) error {
	var b postMessageBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	m, err := a.postMessageOf(r.Context(), httpapi.PrincipalOf(r), &b)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "thread", m.ThreadID)
	return httpapi.OK(w, r, http.StatusCreated, m)
}

// postMessageOf is POST /v1/messages and the send_message tool.
func (a *API) postMessageOf(ctx context.Context, p *httpapi.Principal, b *postMessageBody) (*message, error) {
	c := messaging.CallerOf(p.Actor, p.Key)
	s, err := a.Messages.Post(ctx, c, b.ListingID, b.BuyerID, messaging.Input{Content: b.Message, Fields: b.StructuredFields})
	if err != nil {
		return nil, err
	}
	m := toMessage(s.Message, s.Thread, c.Actor.UserID, c.Actor.IsAgent())
	return &m, nil
}

// replyOf is the reply_to_thread tool (Variant A's POST
// /api/v1/agent/messages/threads/{threadId}/reply).
func (a *API) replyOf(ctx context.Context, p *httpapi.Principal, threadID string, in messaging.Input) (*message, error) {
	c := messaging.CallerOf(p.Actor, p.Key)
	s, err := a.Messages.Reply(ctx, c, threadID, in)
	if err != nil {
		return nil, err
	}
	m := toMessage(s.Message, s.Thread, c.Actor.UserID, c.Actor.IsAgent())
	return &m, nil
}

// threadList is the get_threads tool's answer (Variant A's GET
// /api/v1/agent/messages/threads), as Variant B spells lists.
type threadList struct {
	Threads []thread `json:"threads" doc:"Newest activity first."`
	Cursor  *string  `json:"cursor" doc:"Pass it back for the next page; null on the last page."`
	Limit   int      `json:"limit" minimum:"1"`
}

// threadsOf lists the caller's threads, a page at a time.
func (a *API) threadsOf(ctx context.Context, p *httpapi.Principal, cursor string, limit int) (*threadList, error) {
	c := messaging.CallerOf(p.Actor, p.Key)
	ts, next, err := a.Messages.Threads(ctx, c, cursor, limit)
	if err != nil {
		return nil, err
	}
	if limit == 0 {
		limit = messaging.DefaultPageSize
	}
	out := &threadList{Threads: make([]thread, len(ts)), Cursor: strOrNil(next), Limit: limit}
	for i := range ts {
		out.Threads[i] = toThread(&ts[i], c.Actor.UserID, c.Actor.IsAgent())
	}
	return out, nil
}

// threadMessagesOf is the get_thread_messages tool (Variant A's GET
// /api/v1/agent/messages/threads/{threadId}): the messages, oldest first,
// now read by the caller.
func (a *API) threadMessagesOf(ctx context.Context, p *httpapi.Principal, threadID string) (*listingThread, error) {
	c := messaging.CallerOf(p.Actor, p.Key)
	conv, err := a.Messages.Thread(ctx, c, threadID)
	if err != nil {
		return nil, err
	}
	t := conv.Thread
	out := &listingThread{ThreadID: t.ID, ListingID: t.ListingID, BuyerID: t.BuyerID, SellerID: t.SellerID,
		Messages: make([]message, len(conv.Messages))}
	for i := range conv.Messages {
		out.Messages[i] = toMessage(&conv.Messages[i], t, c.Actor.UserID, c.Actor.IsAgent())
	}
	return out, nil
}

// unreadCount is the get_unread_count tool's answer (Variant A's GET
// /api/v1/agent/messages/unread).
type unreadCount struct {
	UnreadCount int `json:"unread_count" minimum:"0" doc:"Unread messages over all the caller's threads (messages, not threads)."`
}

func (a *API) unreadOf(ctx context.Context, p *httpapi.Principal) (*unreadCount, error) {
	n, err := a.Messages.Unread(ctx, messaging.CallerOf(p.Actor, p.Key))
	if err != nil {
		return nil, err
	}
	return &unreadCount{UnreadCount: n}, nil
}

// listingMessages is GET /v1/messages/{listing_id}?buyer_id=: the caller's
// thread on the listing, or for its seller without buyer_id, every thread
// on it.
func (a *API) listingMessages(w http.ResponseWriter, r *http.Request) error {
	c := msgCaller(r)
	lt, err := a.Messages.OnListing(r.Context(), c, r.PathValue("listing_id"), r.URL.Query().Get("buyer_id"))
	if err != nil {
		return err
	}
	if lt.Conversation == nil {
		out := listingThreads{ListingID: r.PathValue("listing_id"), Threads: make([]thread, len(lt.Threads))}
		for i := range lt.Threads {
			out.Threads[i] = toThread(&lt.Threads[i], c.Actor.UserID, c.Actor.IsAgent())
		}
		return httpapi.OK(w, r, http.StatusOK, out)
	}
	t := lt.Conversation.Thread
	out := listingThread{ThreadID: t.ID, ListingID: t.ListingID, BuyerID: t.BuyerID, SellerID: t.SellerID,
		Messages: make([]message, len(lt.Conversation.Messages))}
	for i := range lt.Conversation.Messages {
		out.Messages[i] = toMessage(&lt.Conversation.Messages[i], t, c.Actor.UserID, c.Actor.IsAgent())
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// trustOf marks a message another participant wrote; an offer round's
// message is the offer's text.
func trustOf(m *messaging.Message) *httpapi.ContentTrust {
	source := httpapi.TrustMessage
	if m.Type == messaging.TypeOffer {
		source = httpapi.TrustOffer
	}
	return httpapi.NewTrust(source, moderation.TrustField{Name: "content", Text: m.Content})
}
