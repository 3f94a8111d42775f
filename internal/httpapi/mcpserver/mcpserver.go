// Package mcpserver serves the agent tool catalogue (agentv1.Tool) over the
// Model Context Protocol (CONTRACT.md section 13): Streamable HTTP at /mcp
// on the service's own router, and the same server on any other transport
// (in-memory in tests, stdio in `marketplace mcp`).
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/agentv1"
	"marketplace/internal/market"
)

// Path is where the MCP endpoint is served.
const Path = "/mcp"

// Caller finds the principal of a tool call. Over HTTP the router has
// authenticated the key of the request that carries the call; elsewhere
// (tests) the caller says who it is.
type Caller func(ctx context.Context, req *mcp.CallToolRequest) (*httpapi.Principal, error)

// Server builds MCP servers over one catalogue.
type Server struct {
	Tools   []agentv1.Tool
	Version string
	// Audit, when set, records each call of a tool that may change
	// something (audit.go); Clock dates the entries and Log reports a
	// failed write.
	Audit httpapi.AuditWriter
	Clock market.Clock
	Log   *slog.Logger
}

// New is an MCP server whose tool calls run as the principal caller finds.
func (s *Server) New(caller Caller) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "marketplace", Title: "Marketplace", Version: s.Version},
		&mcp.ServerOptions{Instructions: instructions})
	for i := range s.Tools {
		t := &s.Tools[i]
		srv.AddTool(describe(t), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args json.RawMessage
			if req.Params != nil {
				args = req.Params.Arguments
			}
			p, err := caller(ctx, req)
			if err != nil {
				s.audit(ctx, t, nil, args, nil, err)
				return refusal(t, err), nil
			}
			out, err := t.Call(ctx, p, args)
			s.audit(ctx, t, p, args, out, err)
			if err != nil {
				return refusal(t, err), nil
			}
			return result(out)
		})
	}
	s.addResources(srv, caller)
	return srv
}

// instructions is what an MCP host shows the model about the server.
const instructions = "A resale marketplace where AI agents buy and sell second-hand goods for their verified human owners, " +
	"inside spending limits the owner sets. Start with whoami to see the key's scope and what it may still spend. " +
	"Amounts are integer cents. Purchases take an idempotency_key: reuse it when you retry, so nothing is bought twice. " +
	"A refused call answers isError with {code, message, details}; the code says what to do next. " +
	"The *_checkout_session tools are ACP's (the Agentic Commerce Protocol's MCP binding): arguments {meta: {api_version}, id, payload}, " +
	"answers ACP's CheckoutSession, refusals ACP's flat {type, code, message, param}."

// describe is t as MCP lists it.
func describe(t *agentv1.Tool) *mcp.Tool {
	destructive, openWorld := t.Destructive, t.OpenWorld
	return &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: t.InputSchema(),
		Annotations: &mcp.ToolAnnotations{Title: t.Title, ReadOnlyHint: t.ReadOnly, DestructiveHint: &destructive,
			IdempotentHint: t.Idempotent, OpenWorldHint: &openWorld},
	}
}

// result is a tool's answer: the object as structured content and as JSON
// text. Structured content must be an object; every tool answers one.
func result(out any) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(raw)}},
		StructuredContent: json.RawMessage(raw),
	}, nil
}

// refusal is a refused call of t: a tool error whose structured content is
// the contract's {code, message, details}, or the tool's own shape (ACP's
// flat error for ACP's tools).
func refusal(t *agentv1.Tool, err error) *mcp.CallToolResult {
	body := t.Refusal(err)
	if body == nil {
		body = ErrorBody(err)
	}
	raw, _ := json.Marshal(body)
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: string(raw)}},
		StructuredContent: json.RawMessage(raw),
	}
}

// ErrorBody is err as a tool error's structured content: the code of
// CONTRACT.md section 2, a safe message, and details with the fields at
// fault (under the names the caller sent them).
func ErrorBody(err error) map[string]any {
	e := market.ErrorOf(err)
	msg := e.Message
	if e.Code == market.CodeInternal {
		msg = "internal error"
	}
	details := map[string]any{}
	for k, v := range e.Details {
		details[k] = v
	}
	if len(e.Fields) > 0 {
		fields := make([]map[string]string, len(e.Fields))
		for i, f := range e.Fields {
			fields[i] = map[string]string{"field": f.Field, "message": f.Message}
		}
		details["fields"] = fields
	}
	return map[string]any{"code": string(e.Code), "message": msg, "details": details}
}

// KeyCaller is a Caller that authenticates secret on every call, as the
// HTTP endpoint authenticates every request (in-memory sessions in tests).
func KeyCaller(rt *httpapi.Router, secret string) Caller {
	return func(ctx context.Context, _ *mcp.CallToolRequest) (*httpapi.Principal, error) {
		return rt.AgentPrincipal(ctx, secret)
	}
}

type principalKey struct{}

// Handler serves MCP over Streamable HTTP, stateless (any replica answers
// any call). Register it on the router with agent-key authentication, so a
// request without a valid key is answered 401 before any MCP message; each
// call then runs as that request's principal.
func (s *Server) Handler() httpapi.HandlerFunc {
	srv := s.New(func(ctx context.Context, _ *mcp.CallToolRequest) (*httpapi.Principal, error) {
		p, _ := ctx.Value(principalKey{}).(*httpapi.Principal)
		if p == nil {
			return nil, market.Errorf(market.CodeInvalidAgentKey, "an agent key is required")
		}
		return p, nil
	})
	// Bodies are bounded (bodies.go): by the largest tool's bound, each
	// call by its own tool's, and the bytes held at once by a budget.
	bounds := map[string]int64{}
	maxBody := int64(0)
	for i := range s.Tools {
		bounds[s.Tools[i].Name] = s.Tools[i].ArgBytes()
		maxBody = max(maxBody, s.Tools[i].ArgBytes()+envelopeBytes)
	}
	bound := func(tool string) int64 {
		if b, ok := bounds[tool]; ok {
			return b
		}
		return agentv1.DefaultToolArgBytes // no such tool: the MCP server says so
	}
	budget := newBodyBudget(maxBody)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: maxBody})
	return func(w http.ResponseWriter, r *http.Request) error {
		p := httpapi.PrincipalOf(r)
		key := ""
		if p != nil && p.Key != nil {
			key = p.Key.ID
		}
		body, release, err := budget.read(r.Body, r.ContentLength, key, maxBody)
		defer release()
		if err != nil {
			return err
		}
		// Every tool takes at least the default: only a larger body may
		// hold arguments over their tool's bound.
		if int64(len(body)) > agentv1.DefaultToolArgBytes {
			if err := checkArguments(body, bound); err != nil {
				return err
			}
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		ctx := context.WithValue(r.Context(), principalKey{}, p)
		ctx = context.WithValue(ctx, callInfoKey{}, callInfo{ip: httpapi.ClientIP(r)})
		cw := &captureErrors{ResponseWriter: w}
		h.ServeHTTP(cw, r.WithContext(ctx))
		if cw.status == 0 {
			return nil
		}
		// The transport refused the request (not JSON-RPC, a wrong
		// Accept header, ...): the same refusal, in the envelope.
		msg := strings.TrimSpace(cw.body.String())
		if msg == "" {
			msg = http.StatusText(cw.status)
		}
		switch cw.status {
		case http.StatusRequestEntityTooLarge:
			return market.Errorf(market.CodePayloadTooLarge, "%s", msg)
		case http.StatusNotFound:
			return market.Errorf(market.CodeNotFound, "%s", msg)
		}
		return market.Invalid(market.FieldError{Field: "body", Message: msg})
	}
}

// captureErrors passes a successful answer through and keeps an error
// answer of the MCP transport (plain text) back, to be answered in the
// envelope instead.
type captureErrors struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *captureErrors) WriteHeader(code int) {
	if code >= 400 {
		c.status = code
		return
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *captureErrors) Write(b []byte) (int, error) {
	if c.status != 0 {
		if c.body.Len() < 4096 {
			c.body.Write(b)
		}
		return len(b), nil
	}
	return c.ResponseWriter.Write(b)
}

func (c *captureErrors) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// Flush lets streamed answers through.
func (c *captureErrors) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok && c.status == 0 {
		f.Flush()
	}
}
