package api

import (
	"context"
	"time"

	"marketplace/internal/events"
)

// FeedEvent is an event as the feed, the stream and webhooks carry it, as
// the documents publish it; the answers are events.PayloadFor's maps, the
// event data's names spelled by the surface (events.Spell).
type FeedEvent struct {
	ID        string         `json:"id" doc:"The event's id: the same in the feed, the stream and every webhook delivery of it."`
	Type      string         `json:"type" doc:"The event type (CONTRACT section 12), e.g. 'order.created'."`
	CreatedAt time.Time      `json:"createdAt"`
	Data      map[string]any `json:"data" doc:"The ids involved and a snapshot of the object, in camelCase. Read with an agent key, text in it another party wrote (a listing's title and brand, an offer's message, a message's content, a cancelling seller's reason) comes with 'contentTrust' {untrusted: true, source (listing, message or offer), flags, fields} beside it (CONTRACT section 16); the owner's own text, and any text read with a bearer token, has none."`
}

// EventReader is who reads the event feed on c's behalf: the user, and
// the agent key reading for its owner.
func EventReader(c *Caller) events.Reader {
	r := events.Reader{UserID: c.Actor.UserID}
	if c.Key != nil {
		r.KeyID = c.Key.ID
	}
	return r
}

// EventPayload is e as c reads it in casing: to an agent key, text another
// party wrote carries contentTrust (CONTRACT.md section 16); a human reads
// the event as it is.
func EventPayload(e *events.Event, c *Caller, casing Casing) map[string]any {
	owner := ""
	if c.Actor.IsAgent() {
		owner = c.Actor.UserID
	}
	return events.PayloadFor(e, casing == Snake, owner)
}

// Events are the event feed's operations.
type Events struct {
	Feed   *events.FeedService
	Casing Casing
}

// EventOps are the event feed's operations.
func (o Ops) EventOps() Events { return Events{Feed: o.Feed, Casing: o.Casing} }

// Page is a page of c's feed after p's cursor, each event as c reads it,
// and the cursor to ask for the next page with.
func (x Events) Page(ctx context.Context, c *Caller, p events.FeedParams) ([]map[string]any, string, error) {
	es, next, err := x.Feed.Read(ctx, EventReader(c), p)
	if err != nil {
		return nil, "", err
	}
	out := make([]map[string]any, len(es))
	for i := range es {
		out[i] = EventPayload(&es[i].Event, c, x.Casing)
	}
	return out, next.String(), nil
}
