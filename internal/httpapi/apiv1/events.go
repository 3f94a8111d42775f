package apiv1

import (
	"net/http"

	"marketplace/internal/events"
	"marketplace/internal/httpapi"
)

// RegisterEvents adds the event feed (CONTRACT.md section 12): a page of
// the caller's events after a cursor, optionally held open until one
// arrives, and the same feed as Server-Sent Events. An agent key reads its
// owner's feed.
func (a *API) RegisterEvents(rt *httpapi.Router) {
	rt = rt.In("events")
	rt.Handle("GET", Prefix+"/events", httpapi.Either, a.listEvents)
	rt.Handle("GET", Prefix+"/events/stream", httpapi.Either, a.streamEvents)
}

// listEvents is GET /events?after=&types=&limit=&wait=.
func (a *API) listEvents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	p, err := events.ParseFeedParams(q.Get("after"), q.Get("types"), q.Get("limit"), q.Get("wait"))
	if err != nil {
		return err
	}
	es, next, err := a.EventOps().Page(r.Context(), actor(r), p)
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, es, httpapi.Meta{"cursor": next, "limit": p.Limit})
}

// streamEvents is GET /events/stream: the feed as Server-Sent Events.
func (a *API) streamEvents(w http.ResponseWriter, r *http.Request) error {
	return httpapi.ServeEventStream(w, r, a.Feed, actor(r), a.Casing)
}
