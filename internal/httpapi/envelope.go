// Package httpapi is the HTTP core shared by the JSON surfaces: routing with
// per-route authentication, the envelope in both casings, strict decoding,
// error mapping, request ids, access logs, metrics, audit and recovery.
// The surfaces themselves live in apiv1 (camelCase, /api/v1), agentv1
// (snake_case, /v1) and web (pages).
package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"marketplace/internal/market"
)

// Meta is extra envelope metadata for list responses (Variant A).
type Meta map[string]any

// The envelope is built from structs, not maps: it is on every response.
type envelope struct {
	Success bool       `json:"success"`
	Data    any        `json:"data,omitempty"`
	Error   *errorBody `json:"error,omitempty"`
	Meta    any        `json:"meta"`
}

type errorBody struct {
	Code    market.Code    `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

type metaA struct {
	RequestID string `json:"requestId"`
	Timestamp string `json:"timestamp"`
}

type metaB struct {
	RequestID string `json:"request_id"`
	Timestamp string `json:"timestamp"`
}

func meta(r *http.Request, extra Meta) any {
	id, ts := RequestID(r.Context()), time.Now().UTC().Format(time.RFC3339Nano)
	b := surfaceOf(r).Casing == Snake
	if len(extra) == 0 {
		if b {
			return metaB{RequestID: id, Timestamp: ts}
		}
		return metaA{RequestID: id, Timestamp: ts}
	}
	m := map[string]any{"timestamp": ts}
	if b {
		m["request_id"] = id
	} else {
		m["requestId"] = id
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// OK writes a success envelope with status and data.
func OK(w http.ResponseWriter, r *http.Request, status int, data any) error {
	return OKMeta(w, r, status, data, nil)
}

// Reply is the answer of a handler that ends in one operation:
//
//	return httpapi.Reply(w, r, http.StatusOK).With(a.OrderOps().Get(ctx, caller, id))
//
// With answers the operation's error, or its view in the success envelope.
func Reply(w http.ResponseWriter, r *http.Request, status int) Replier {
	return Replier{w: w, r: r, status: status}
}

// Replier holds where and with which status an operation's outcome goes.
type Replier struct {
	w      http.ResponseWriter
	r      *http.Request
	status int
}

// With writes the outcome of an operation: its error, or data.
func (rp Replier) With(data any, err error) error {
	if err != nil {
		return err
	}
	return OK(rp.w, rp.r, rp.status, data)
}

// nullData stands for a JSON null in data, which omitempty would drop.
var nullData = json.RawMessage("null")

// OKMeta writes a success envelope with extra meta (list cursors, totals).
func OKMeta(w http.ResponseWriter, r *http.Request, status int, data any, extra Meta) error {
	if data == nil {
		data = nullData
	}
	data = Spell(data, surfaceOf(r).Casing)
	writeJSON(w, status, envelope{Success: true, Data: data, Meta: meta(r, extra)})
	return nil
}

// bodies are the buffers responses are encoded into: every response has
// one, and a fresh one (plus the copy to add the newline) was a tenth of
// the allocation of a listing read. Big ones are dropped, not kept.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const keptBody = 64 << 10

// WriteJSON writes body as JSON, no envelope: for surfaces whose wire
// shapes are a protocol's own (ACP).
func WriteJSON(w http.ResponseWriter, status int, body any) { writeJSON(w, status, body) }

// writeJSON writes body as JSON and a newline (json.Encoder's bytes are
// json.Marshal's, HTML escaped, plus the newline).
func writeJSON(w http.ResponseWriter, status int, body any) {
	buf := bodies.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= keptBody {
			buf.Reset()
			bodies.Put(buf)
		}
	}()
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(body); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"success":false,"error":{"code":"INTERNAL_ERROR","message":"internal error"}}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// writeError writes the error envelope for err. Internal errors are logged by
// the caller; their cause never reaches the client.
func writeError(w http.ResponseWriter, r *http.Request, err error) *market.Error {
	e := market.ErrorOf(err)
	if s := surfaceOf(r); s.WriteError != nil {
		shown := *e
		if e.Code == market.CodeInternal {
			shown.Message, shown.Details, shown.Fields = "internal error", nil, nil
		}
		s.WriteError(w, r, &shown)
		return e
	}
	body := &errorBody{Code: e.Code, Message: e.Message}
	if e.Code == market.CodeInternal {
		body.Message = "internal error"
	}
	details := surfaceOf(r).Details(info(r).route, e)
	if len(details) > 0 {
		body.Details = details
	}
	// A refusal that passes with time (429, 503) says when to come back.
	if e.Code == market.CodeRateLimited || e.Code == market.CodeUnavailable {
		if s, ok := e.Details["retry_after"]; ok {
			if n, ok := s.(int64); ok {
				w.Header().Set("Retry-After", itoa(n))
			}
		}
	}
	writeJSON(w, Status(e.Code), envelope{Success: false, Error: body, Meta: meta(r, nil)})
	return e
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// surfaceOf is the surface that answers r.
func surfaceOf(r *http.Request) *Surface {
	if s := info(r).surface; s != nil {
		return s
	}
	return plain
}

// WantsHTML reports whether the client asks for a page rather than JSON:
// a browser's Accept names text/html, and not application/json.
func WantsHTML(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "text/html") && !strings.Contains(accept, "application/json")
}
