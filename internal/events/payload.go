package events

import (
	"maps"
	"time"
)

// Payload is the public form of an event (CONTRACT.md section 12):
// {id, type, createdAt, data} in camelCase, or in snake case (created_at,
// and the names in data as they are canonically) for Variant B readers and
// webhooks registered through /v1. The webhook body, the feed and the SSE
// stream all use it, so an event reads the same everywhere.
func Payload(e *Event, snake bool) map[string]any {
	return PayloadFor(e, snake, "")
}

// PayloadFor is Payload as an agent key of agentOwner reads it (a human
// reader: ""): text in data that another party wrote comes with
// contentTrust (content_trust in snake case), CONTRACT.md section 16.
func PayloadFor(e *Event, snake bool, agentOwner string) map[string]any {
	created := e.CreatedAt.UTC().Format(time.RFC3339Nano)
	data, copied := spell(e.Data, snake)
	if snake && data == nil {
		data = map[string]any{} // as ever: snake case data is never null
	}
	if agentOwner != "" {
		if trust := trustFor(e, agentOwner, snake); trust != nil {
			if !copied {
				data = maps.Clone(data) // never change the event's own
			}
			data[spellName("content_trust", snake)] = trust
		}
	}
	if snake {
		return map[string]any{"id": e.ID, "type": e.Type, "created_at": created, "data": data}
	}
	return map[string]any{"id": e.ID, "type": e.Type, "createdAt": created, "data": data}
}
