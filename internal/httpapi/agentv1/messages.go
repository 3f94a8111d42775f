package agentv1

import (
	"context"
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/messaging"
)

// RegisterMessages adds Variant B's message routes.
func (a *API) RegisterMessages(rt *httpapi.Router) {
	rt = rt.In("messages")
	rt.Handle("POST", Prefix+"/messages", httpapi.Either, a.postMessage)
	rt.Handle("GET", Prefix+"/messages/{listing_id}", httpapi.Either, a.listingMessages)
}

// listingThread is one thread on a listing with its messages.
type listingThread struct {
	ThreadID  string        `json:"thread_id"`
	ListingID string        `json:"listing_id"`
	BuyerID   string        `json:"buyer_id"`
	SellerID  string        `json:"seller_id"`
	Messages  []api.Message `json:"messages" doc:"Oldest first; now read by the caller."`
}

func listingThreadOf(conv *api.Conversation) *listingThread {
	t := conv.Thread
	return &listingThread{ThreadID: t.ID, ListingID: t.ListingID, BuyerID: t.BuyerID, SellerID: t.SellerID, Messages: conv.Messages}
}

// listingThreads is the seller's list of the threads on a listing.
type listingThreads struct {
	ListingID string       `json:"listing_id"`
	Threads   []api.Thread `json:"threads" doc:"Newest activity first; at most 100."`
}

type postMessageBody struct {
	ListingID        string         `json:"listing_id" required:"true" doc:"The listing the message is about."`
	Message          string         `json:"message" minLength:"1" maxLength:"5000" required:"true" doc:"The text; leading and trailing spaces are dropped."`
	StructuredFields map[string]any `json:"structured_fields" nullable:"true" doc:"Optional machine-readable data: a JSON object of at most 16 KiB and 8 levels of nesting."`
	BuyerID          string         `json:"buyer_id" doc:"The seller answering: the buyer whose thread on the listing to write in. A buyer leaves it out."`
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
func (a *API) postMessageOf(ctx context.Context, p *httpapi.Principal, b *postMessageBody) (*api.Message, error) {
	return a.MessageOps().Post(ctx, p, b.ListingID, b.BuyerID, messaging.Input{Content: b.Message, Fields: b.StructuredFields})
}

// threadList is the get_threads tool's answer (Variant A's GET
// /api/v1/agent/messages/threads), as Variant B spells lists.
type threadList struct {
	Threads []api.Thread `json:"threads" doc:"Newest activity first."`
	Cursor  *string      `json:"cursor" doc:"Pass it back for the next page; null on the last page."`
	Limit   int          `json:"limit" minimum:"1"`
}

// threadsOf lists the caller's threads, a page at a time.
func (a *API) threadsOf(ctx context.Context, p *httpapi.Principal, cursor string, limit int) (*threadList, error) {
	page, err := a.MessageOps().Threads(ctx, p, cursor, limit)
	if err != nil {
		return nil, err
	}
	return &threadList{Threads: page.Threads, Cursor: strOrNil(page.Next), Limit: page.Limit}, nil
}

// threadMessagesOf is the get_thread_messages tool (Variant A's GET
// /api/v1/agent/messages/threads/{threadId}): the messages, oldest first,
// now read by the caller.
func (a *API) threadMessagesOf(ctx context.Context, p *httpapi.Principal, threadID string) (*listingThread, error) {
	conv, err := a.MessageOps().Thread(ctx, p, threadID)
	if err != nil {
		return nil, err
	}
	return listingThreadOf(conv), nil
}

// listingMessages is GET /v1/messages/{listing_id}?buyer_id=: the caller's
// thread on the listing, or for its seller without buyer_id, every thread
// on it.
func (a *API) listingMessages(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("listing_id")
	conv, threads, err := a.MessageOps().OnListing(r.Context(), httpapi.PrincipalOf(r), id, r.URL.Query().Get("buyer_id"))
	if err != nil {
		return err
	}
	if conv == nil {
		return httpapi.OK(w, r, http.StatusOK, listingThreads{ListingID: id, Threads: threads})
	}
	return httpapi.OK(w, r, http.StatusOK, listingThreadOf(conv))
}
