package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"marketplace/internal/httpapi/agentv1"
	"marketplace/internal/market"
)

// MCP bodies are bounded as photo uploads are: in size and in how many
// bytes are held at once.
//
//   - Size: a request is at most the largest tool's argument bound
//     (create_listing's inline photos) plus the JSON-RPC envelope; a larger
//     one is refused before it is read (413). A tools/call whose arguments
//     are over its own tool's bound (1 MiB for every tool but
//     create_listing) is refused with 413 once read, before the MCP
//     server decodes it, and the tool itself refuses it on every other
//     transport (agentv1.Tool.Call).
//   - Bytes held: the bodies being read and served take their bytes from a
//     budget of the process and one of the calling key, before they are
//     read (by Content-Length; a body without one takes them as it
//     arrives). A body that finds the budget spent is refused at once with
//     503 SERVICE_UNAVAILABLE and Retry-After, unread. The MCP server
//     copies a body a few times while it serves it, so the bytes held are
//     a small multiple of the budget, never of the bodies sent.
const (
	envelopeBytes   = 64 << 10 // the JSON-RPC envelope around the arguments
	budgetPerKey    = 1        // largest bodies a key may have in flight, and
	budgetPerServer = 2        // the process: both in multiples of the largest body
	budgetStep      = 64 << 10 // what a body without Content-Length takes at a time
	busyRetryAfter  = 2        // seconds
)

// bodyBudget is the bytes of MCP bodies held at once, per process and per
// agent key.
type bodyBudget struct {
	mu              sync.Mutex
	total, maxTotal int64
	perKey          map[string]int64
	maxKey          int64
}

func newBodyBudget(maxBody int64) *bodyBudget {
	return &bodyBudget{maxTotal: budgetPerServer * maxBody, maxKey: budgetPerKey*maxBody + agentv1.DefaultToolArgBytes,
		perKey: map[string]int64{}}
}

// take reserves n bytes for key; false when the process or the key has not
// that many left.
func (b *bodyBudget) take(key string, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total+n > b.maxTotal || b.perKey[key]+n > b.maxKey {
		return false
	}
	b.total += n
	b.perKey[key] += n
	return true
}

// give returns n bytes of key's.
func (b *bodyBudget) give(key string, n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total -= n
	if b.perKey[key] -= n; b.perKey[key] <= 0 {
		delete(b.perKey, key)
	}
}

func busy() error {
	return market.Errorf(market.CodeUnavailable, "too many large MCP requests are being served right now; try again in a few seconds").
		WithDetails(map[string]any{"retry_after": int64(busyRetryAfter)})
}

func tooLarge(max int64) error {
	return market.Errorf(market.CodePayloadTooLarge, "an MCP request may be at most %d bytes", max).
		WithDetails(map[string]any{"limit": max})
}

// read reads a body of at most max bytes (length is its Content-Length,
// -1 when unknown) within key's budget; release gives the budget back and
// must be called once the body is no longer held, whatever read answered.
func (b *bodyBudget) read(body io.Reader, length int64, key string, max int64) (data []byte, release func(), err error) {
	var taken int64
	release = func() { b.give(key, taken) }
	if length > max {
		return nil, release, tooLarge(max)
	}
	if length >= 0 {
		if !b.take(key, length) {
			return nil, release, busy()
		}
		taken = length
		data = make([]byte, length)
		if _, err := io.ReadFull(body, data); err != nil {
			return nil, release, market.Invalid(market.FieldError{Field: "body", Message: "could not be read"})
		}
		return data, release, nil
	}
	var buf bytes.Buffer
	for {
		// Each step of the body is paid for before it is read.
		step := min(budgetStep, max+1-taken)
		if !b.take(key, step) {
			return nil, release, busy()
		}
		taken += step
		_, err := io.CopyN(&buf, body, step)
		switch {
		case int64(buf.Len()) > max:
			return nil, release, tooLarge(max)
		case errors.Is(err, io.EOF):
			return buf.Bytes(), release, nil
		case err != nil:
			return nil, release, market.Invalid(market.FieldError{Field: "body", Message: "could not be read"})
		}
	}
}

// checkArguments refuses a body whose tools/call arguments are over their
// tool's bound, before the MCP server decodes it (and copies it). A body
// that is not JSON-RPC is left to the MCP server to refuse.
func checkArguments(body []byte, bound func(tool string) int64) error {
	type call struct {
		Method string `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	var calls []call
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		if json.Unmarshal(t, &calls) != nil {
			return nil
		}
	} else {
		var c call
		if json.Unmarshal(t, &c) != nil {
			return nil
		}
		calls = []call{c}
	}
	for _, c := range calls {
		if c.Method != "tools/call" {
			continue
		}
		if max := bound(c.Params.Name); int64(len(c.Params.Arguments)) > max {
			return agentv1.ArgumentsTooLarge(c.Params.Name, max)
		}
	}
	return nil
}
