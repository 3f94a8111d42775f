package agentv1

import (
	"context"
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/events"
	"marketplace/internal/httpapi"
)

// RegisterEvents adds the event feed (CONTRACT.md section 12) in snake
// case: {events, cursor}, and the same feed as Server-Sent Events. An
// agent key reads its owner's feed.
func (a *API) RegisterEvents(rt *httpapi.Router) {
	rt = rt.In("events")
	rt.Handle("GET", Prefix+"/events", httpapi.Either, a.listEvents)
	rt.Handle("GET", Prefix+"/events/stream", httpapi.Either, a.streamEvents)
}

// eventPage is a page of the feed.
type eventPage struct {
	Events []api.FeedEvent `json:"events" doc:"Oldest first."`
	Cursor string          `json:"cursor" doc:"Send it as 'after' for the next page. Never null: an empty page gives back the cursor it was asked with."`
}

// eventPageOut is eventPage as written (each event in its public form).
type eventPageOut struct {
	Events []map[string]any `json:"events"`
	Cursor string           `json:"cursor"`
}

// listEvents is GET /v1/events?after=&types=&limit=&wait=.
func (a *API) listEvents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	p, err := events.ParseFeedParams(q.Get("after"), q.Get("types"), q.Get("limit"), q.Get("wait"))
	if err != nil {
		return err
	}
	return httpapi.Reply(w, r, http.StatusOK).With(a.eventsOf(r.Context(), httpapi.PrincipalOf(r), p))
}

// eventsOf is GET /v1/events and the get_events tool: a page of the
// owner's feed.
func (a *API) eventsOf(ctx context.Context, p *httpapi.Principal, fp events.FeedParams) (*eventPageOut, error) {
	es, next, err := a.EventOps().Page(ctx, p, fp)
	if err != nil {
		return nil, err
	}
	return &eventPageOut{Events: es, Cursor: next}, nil
}

// streamEvents is GET /v1/events/stream: the feed as Server-Sent Events.
func (a *API) streamEvents(w http.ResponseWriter, r *http.Request) error {
	return httpapi.ServeEventStream(w, r, a.Feed, httpapi.PrincipalOf(r), a.Casing)
}
