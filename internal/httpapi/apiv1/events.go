package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/httpapi"
)

// RegisterEvents adds the event feed (CONTRACT.md section 12): a page of
// the caller's events after a cursor, optionally held open until one
// arrives, and the same feed as Server-Sent Events. An agent key reads its
// owner's feed.
func (a *API) RegisterEvents(rt *httpapi.Router) {
	rt.Handle("GET", Prefix+"/events", httpapi.Either, a.listEvents)
	rt.Handle("GET", Prefix+"/events/stream", httpapi.Either, a.streamEvents)
}

// feedEvent is an event as the feed, the stream and webhooks carry it.
type feedEvent struct {
	ID        string         `json:"id" doc:"The event's id: the same in the feed, the stream and every webhook delivery of it."`
	Type      string         `json:"type" doc:"The event type (CONTRACT section 12), e.g. 'order.created'."`
	CreatedAt time.Time      `json:"createdAt"`
	Data      map[string]any `json:"data" doc:"The ids involved and a snapshot of the object, in camelCase. Read with an agent key, text in it another party wrote (a listing's title and brand, an offer's message, a message's content, a cancelling seller's reason) comes with 'contentTrust' {untrusted: true, source (listing, message or offer), flags, fields} beside it (CONTRACT section 16); the owner's own text, and any text read with a bearer token, has none."`
}

func toFeedEvents(es []events.FeedEntry, p *httpapi.Principal) []map[string]any {
	out := make([]map[string]any, len(es))
	for i := range es {
		out[i] = httpapi.EventPayload(&es[i].Event, p, false)
	}
	return out
}

// listEvents is GET /events?after=&types=&limit=&wait=.
func (a *API) listEvents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	p, err := events.ParseFeedParams(q.Get("after"), q.Get("types"), q.Get("limit"), q.Get("wait"))
	if err != nil {
		return err
	}
	es, next, err := a.Feed.Read(r.Context(), httpapi.EventReader(actor(r)), p)
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, toFeedEvents(es, actor(r)), httpapi.Meta{"cursor": next.String(), "limit": p.Limit})
}

// streamEvents is GET /events/stream: the feed as Server-Sent Events.
func (a *API) streamEvents(w http.ResponseWriter, r *http.Request) error {
	return httpapi.ServeEventStream(w, r, a.Feed, actor(r), false)
}
