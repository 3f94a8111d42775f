package apiv1

import (
	"net/http"
	"strconv"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/messaging"
)

// RegisterMessages adds the messaging routes: a buyer writes about a
// listing (the thread is made on the first message), either side replies
// in the thread, and each side reads its threads and unread count.
func (a *API) RegisterMessages(rt *httpapi.Router) {
	rt = rt.In("messages")
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

type sendMessageBody struct {
	ListingID        string         `json:"listingId" required:"true" doc:"The listing the message is about."`
	Content          string         `json:"content" minLength:"1" maxLength:"5000" required:"true" doc:"The text; leading and trailing spaces are dropped."`
	StructuredFields map[string]any `json:"structuredFields" nullable:"true" doc:"Optional machine-readable data: a JSON object of at most 16 KiB and 8 levels of nesting."`
}

type replyMessageBody struct {
	Content          string         `json:"content" minLength:"1" maxLength:"5000" required:"true" doc:"The text; leading and trailing spaces are dropped."`
	StructuredFields map[string]any `json:"structuredFields" nullable:"true" doc:"Optional machine-readable data: a JSON object of at most 16 KiB and 8 levels of nesting."`
}

// sendMessage is POST /messages and /agent/messages (SendMessageDto).
func (a *API) sendMessage(w http.ResponseWriter, r *http.Request) error {
	var b sendMessageBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	m, err := a.MessageOps().Send(r.Context(), actor(r), b.ListingID, messaging.Input{Content: b.Content, Fields: b.StructuredFields})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "thread", m.ThreadID)
	return httpapi.OK(w, r, http.StatusCreated, m)
}

// replyMessage is POST /messages/threads/{threadId}/reply.
func (a *API) replyMessage(w http.ResponseWriter, r *http.Request) error {
	var b replyMessageBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := r.PathValue("threadId")
	httpapi.Entity(r, "thread", id)
	return httpapi.Reply(w, r, http.StatusCreated).With(a.MessageOps().Reply(r.Context(), actor(r), id, messaging.Input{Content: b.Content, Fields: b.StructuredFields}))
}

// listThreads is GET /messages/threads?cursor=&limit=: newest activity
// first; meta.cursor is null on the last page.
func (a *API) listThreads(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit := 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return market.Invalid(market.FieldError{Field: "limit", Message: "must be a whole number from 1 to 100"})
		}
		limit = n
	}
	page, err := a.MessageOps().Threads(r.Context(), actor(r), q.Get("cursor"), limit)
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, page.Threads, httpapi.Meta{"cursor": strOrNil(page.Next), "limit": page.Limit})
}

// getThread is GET /messages/threads/{threadId}: the messages, oldest
// first, now read by the caller.
func (a *API) getThread(w http.ResponseWriter, r *http.Request) error {
	conv, err := a.MessageOps().Thread(r.Context(), actor(r), r.PathValue("threadId"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, conv.Messages)
}

// unreadMessages is GET /messages/unread.
func (a *API) unreadMessages(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.MessageOps().Unread(r.Context(), actor(r)))
}
