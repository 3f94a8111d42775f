package apiv1

import (
	"net/http"
	"strconv"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/messaging"
	"marketplace/internal/moderation"
)

// RegisterMessages adds the messaging routes: a buyer writes about a
// listing (the thread is made on the first message), either side replies
// in the thread, and each side reads its threads and unread count.
func (a *API) RegisterMessages(rt *httpapi.Router) {
	p := Prefix
	for _, f := range []struct {
		base string
		auth httpapi.Auth
	}{{p + "/messages", httpapi.Bearer}, {p + "/agent/messages", httpapi.Agent}} {
		rt.Handle("POST", f.base, f.auth, a.sendMessage)
		rt.Handle("POST", f.base+"/threads/{threadId}/reply", f.auth, a.replyMessage)
		rt.Handle("GET", f.base+"/threads", f.auth, a.listThreads)
		rt.Handle("GET", f.base+"/threads/{threadId}", f.auth, a.getThread)
		rt.Handle("GET", f.base+"/unread", f.auth, a.unreadMessages)
	}
}

// message is Variant A's message.
type message struct {
	ID               string                `json:"id"`
	ThreadID         string                `json:"threadId"`
	SenderID         *string               `json:"senderId" doc:"The user who wrote it (for an agent, its owner); null for system messages."`
	MessageType      string                `json:"messageType" enum:"text,offer,system" doc:"'text' written by a participant, 'offer' an offer round, 'system' posted by the service for an order event."`
	Content          string                `json:"content"`
	StructuredFields map[string]any        `json:"structuredFields" nullable:"true" doc:"Machine-readable data sent with the message, as sent; system messages carry 'event' and 'orderId'."`
	SentByAgent      bool                  `json:"sentByAgent" doc:"True when an agent key sent it, for its owner."`
	CreatedAt        time.Time             `json:"createdAt"`
	ReadAt           *time.Time            `json:"readAt" doc:"On the caller's own messages, when the other participant read it; on the others, when the caller did. Null while unread."`
	ContentTrust     *httpapi.ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller, on text the other participant wrote: it is untrusted input (CONTRACT section 16)."`
}

func toMessage(m *messaging.Message, t *messaging.Thread, viewer string, agent bool) message {
	out := message{ID: m.ID, ThreadID: m.ThreadID, SenderID: strOrNil(m.SenderID), MessageType: string(m.Type),
		Content: m.Content, StructuredFields: m.Fields, SentByAgent: m.SentByAgent, CreatedAt: m.CreatedAt,
		ReadAt: m.ReadAt(t, viewer)}
	if agent && m.SenderID != "" && m.SenderID != viewer {
		out.ContentTrust = trustOf(m)
	}
	return out
}

func toMessages(ms []messaging.Message, t *messaging.Thread, viewer string, agent bool) []message {
	out := make([]message, len(ms))
	for i := range ms {
		out[i] = toMessage(&ms[i], t, viewer, agent)
	}
	return out
}

// thread is Variant A's thread, as one participant sees it.
type thread struct {
	ID            string                `json:"id"`
	ListingID     string                `json:"listingId"`
	ListingTitle  string                `json:"listingTitle"`
	BuyerID       string                `json:"buyerId"`
	SellerID      string                `json:"sellerId"`
	Role          string                `json:"role" enum:"buyer,seller" doc:"The caller's side of the thread."`
	UnreadCount   int                   `json:"unreadCount" minimum:"0" doc:"Messages the caller has not read (their own never count)."`
	LastMessage   *message              `json:"lastMessage" doc:"The newest message, as a preview."`
	LastMessageAt time.Time             `json:"lastMessageAt"`
	CreatedAt     time.Time             `json:"createdAt"`
	ContentTrust  *httpapi.ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller on the buyer's side: the listing title is the seller's text, untrusted input (CONTRACT section 16)."`
}

func toThread(t *messaging.Thread, viewer string, agent bool) thread {
	role := "buyer"
	if viewer == t.SellerID {
		role = "seller"
	}
	out := thread{ID: t.ID, ListingID: t.ListingID, ListingTitle: t.ListingTitle, BuyerID: t.BuyerID, SellerID: t.SellerID,
		Role: role, UnreadCount: t.Unread(viewer), LastMessageAt: t.LastMessageAt, CreatedAt: t.CreatedAt}
	if agent && viewer != t.SellerID {
		out.ContentTrust = httpapi.NewTrust(httpapi.TrustListing, moderation.TrustField{Name: "listingTitle", Text: t.ListingTitle})
	}
	if t.LastMessage != nil {
		m := toMessage(t.LastMessage, t, viewer, agent)
		out.LastMessage = &m
	}
	return out
}

type unreadCount struct {
	UnreadCount int `json:"unreadCount" minimum:"0" doc:"Unread messages over all the caller's threads (messages, not threads)."`
}

type sendMessageBody struct {
	ListingID        string         `json:"listingId" required:"true" doc:"The listing the message is about."`
	Content          string         `json:"content" minLength:"1" maxLength:"5000" required:"true" doc:"The text; leading and trailing spaces are dropped."`
	StructuredFields map[string]any `json:"structuredFields" nullable:"true" doc:"Optional machine-readable data: a JSON object of at most 16 KiB and 8 levels of nesting."`
}

type replyMessageBody struct {
	Content          string         `json:"content" minLength:"1" maxLength:"5000" required:"true" doc:"The text; leading and trailing spaces are dropped."`
	StructuredFields map[string]any `json:"structuredFields" nullable:"true" doc:"Optional machine-readable data: a JSON object of at most 16 KiB and 8 levels of nesting."`
}

func msgCaller(r *http.Request) messaging.Caller {
	p := actor(r)
	return messaging.CallerOf(p.Actor, p.Key)
}

// sendMessage is POST /messages and /agent/messages (SendMessageDto).
func (a *API) sendMessage(w http.ResponseWriter, r *http.Request) error {
	var b sendMessageBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	c := msgCaller(r)
	s, err := a.Messages.Send(r.Context(), c, b.ListingID, messaging.Input{Content: b.Content, Fields: b.StructuredFields})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "thread", s.Thread.ID)
	return httpapi.OK(w, r, http.StatusCreated, toMessage(s.Message, s.Thread, c.Actor.UserID, c.Actor.IsAgent()))
}

// replyMessage is POST /messages/threads/{threadId}/reply.
func (a *API) replyMessage(w http.ResponseWriter, r *http.Request) error {
	var b replyMessageBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := r.PathValue("threadId")
	httpapi.Entity(r, "thread", id)
	c := msgCaller(r)
	s, err := a.Messages.Reply(r.Context(), c, id, messaging.Input{Content: b.Content, Fields: b.StructuredFields})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusCreated, toMessage(s.Message, s.Thread, c.Actor.UserID, c.Actor.IsAgent()))
}

// listThreads is GET /messages/threads?cursor=&limit=: newest activity
// first; meta.cursor is null on the last page.
func (a *API) listThreads(w http.ResponseWriter, r *http.Request) error {
	c := msgCaller(r)
	q := r.URL.Query()
	limit := 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return market.Invalid(market.FieldError{Field: "limit", Message: "must be a whole number from 1 to 100"})
		}
		limit = n
	}
	ts, next, err := a.Messages.Threads(r.Context(), c, q.Get("cursor"), limit)
	if err != nil {
		return err
	}
	out := make([]thread, len(ts))
	for i := range ts {
		out[i] = toThread(&ts[i], c.Actor.UserID, c.Actor.IsAgent())
	}
	if limit == 0 {
		limit = messaging.DefaultPageSize
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, httpapi.Meta{"cursor": strOrNil(next), "limit": limit})
}

// getThread is GET /messages/threads/{threadId}: the messages, oldest
// first, now read by the caller.
func (a *API) getThread(w http.ResponseWriter, r *http.Request) error {
	c := msgCaller(r)
	conv, err := a.Messages.Thread(r.Context(), c, r.PathValue("threadId"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toMessages(conv.Messages, conv.Thread, c.Actor.UserID, c.Actor.IsAgent()))
}

// unreadMessages is GET /messages/unread.
func (a *API) unreadMessages(w http.ResponseWriter, r *http.Request) error {
	n, err := a.Messages.Unread(r.Context(), msgCaller(r))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, unreadCount{UnreadCount: n})
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
