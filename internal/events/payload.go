package events

import (
	"maps"
	"strings"
	"time"
	"unicode"
)

// Payload is the public form of an event (CONTRACT.md section 12):
// {id, type, createdAt, data} in camelCase, or with snake case keys
// (created_at, and every key of data) for Variant B readers and webhooks
// registered through /v1. The webhook body, the feed and the SSE stream
// all use it, so an event reads the same everywhere.
func Payload(e *Event, snake bool) map[string]any {
	return PayloadFor(e, snake, "")
}

// PayloadFor is Payload as an agent key of agentOwner reads it (a human
// reader: ""): text in data that another party wrote comes with
// contentTrust (content_trust in snake case), CONTRACT.md section 16.
func PayloadFor(e *Event, snake bool, agentOwner string) map[string]any {
	created := e.CreatedAt.UTC().Format(time.RFC3339Nano)
	var trust map[string]any
	if agentOwner != "" {
		trust = trustFor(e, agentOwner, snake)
	}
	if !snake {
		data := e.Data
		if trust != nil {
			data = maps.Clone(e.Data)
			data["contentTrust"] = trust
		}
		return map[string]any{"id": e.ID, "type": e.Type, "createdAt": created, "data": data}
	}
	data := snakeKeys(e.Data).(map[string]any)
	if trust != nil {
		data["content_trust"] = trust
	}
	return map[string]any{"id": e.ID, "type": e.Type, "created_at": created, "data": data}
}

// snakeKeys copies v with every map key in snake case.
func snakeKeys(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[Snake(k)] = snakeKeys(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = snakeKeys(x)
		}
		return out
	}
	return v
}

// Snake turns a camelCase name into snake_case ("previousPrice" ->
// "previous_price"); a name in snake case already is unchanged.
func Snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
