package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"marketplace/internal/api"
	"marketplace/internal/events"
)

// StreamHeartbeat is how long an event stream stays silent at most: a
// comment line is sent when nothing happened for this long.
var StreamHeartbeat = 15 * time.Second

// streamBatch is how many events a stream reads at a time.
const streamBatch = 100

// ServeEventStream serves p's feed as Server-Sent Events (CONTRACT.md
// section 12): each event as `id: <cursor>`, `event: <type>`, `data:
// <payload>`, resuming after the Last-Event-ID header (or the after query
// parameter; neither: the last 30 days), with a comment line every
// StreamHeartbeat while nothing happens. It runs until the client goes.
// Bad parameters, a cursor beyond the newest event and a caller at its
// caps of open streams are answered in the envelope before the stream
// starts.
func ServeEventStream(w http.ResponseWriter, r *http.Request, feed *events.FeedService, p *Principal, casing api.Casing) error {
	q := r.URL.Query()
	after := r.Header.Get("Last-Event-ID")
	if after == "" {
		after = q.Get("after")
	}
	fp, err := events.ParseFeedParams(after, q.Get("types"), strconv.Itoa(streamBatch), "")
	if err != nil {
		return err
	}
	stream, err := feed.Open(r.Context(), api.EventReader(p), fp)
	if err != nil {
		return err
	}
	defer stream.Close()
	rc := http.NewResponseController(w)
	// The server's read deadline (ReadTimeout) would end the request's
	// context after a minute; the write deadline is moved on below.
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Now().Add(StreamHeartbeat + time.Minute))
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, ": stream of the event feed\nretry: 2000\n\n"); err != nil {
		return nil
	}
	if rc.Flush() != nil {
		return nil
	}
	ctx := r.Context()
	for {
		entries, _, err := stream.Next(ctx, StreamHeartbeat)
		if err != nil {
			return nil // the client went, or the store failed: end the stream, the client resumes
		}
		_ = rc.SetWriteDeadline(time.Now().Add(StreamHeartbeat + time.Minute))
		if len(entries) == 0 {
			if _, err := fmt.Fprint(w, ": heartbeat\n\n"); err != nil {
				return nil
			}
		}
		for i := range entries {
			e := &entries[i]
			body, err := json.Marshal(api.EventPayload(&e.Event, p, casing))
			if err != nil {
				return nil
			}
			if _, err := fmt.Fprintf(w, "id: %s\nevent: %s\ndata: %s\n\n", e.Cursor, e.Event.Type, body); err != nil {
				return nil
			}
		}
		if rc.Flush() != nil {
			return nil
		}
	}
}
