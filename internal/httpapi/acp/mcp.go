package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"marketplace/internal/agents"
	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/apidoc"
	"marketplace/internal/market"
)

// The five checkout operations as MCP tools, per ACP's MCP binding
// (docs/mcp-binding.md and spec/2026-04-17/openrpc of the spec). A tool
// takes the arguments {meta, id, payload}:
//
//   - meta holds what the REST binding reads from headers. api_version is
//     required and checked as API-Version is. idempotency_key is optional,
//     as the binding has it, and when given it works as the REST
//     Idempotency-Key does: the same key and payload replay the first
//     answer, another payload is idempotency_conflict, and a key whose
//     first call still runs is idempotency_in_flight. A key belongs to the
//     credential and the endpoint, and the key space is the REST route's,
//     so a REST request and a tool call with one key are one operation.
//     Other meta fields are ignored.
//   - id is the session, the {id} of the REST path.
//   - payload is the REST request body, read by the same decoder.
//
// A call runs its REST route's own handler chain in process, for the caller
// of the MCP request (httpapi.Router.ServeAs): the version check, the
// idempotency layer, the decoding, the checkout service and the wire
// mapping. A tool therefore answers what the route answers. Success is the
// CheckoutSession. A refusal is a Refused error carrying the route's flat
// Error, with each param a JSONPath into the tool's arguments
// ($.payload.line_items rather than $.line_items).

// Tool is one operation of the binding as an MCP tool, for the catalogue.
type Tool struct {
	Name, Title, Description string
	Scope                    agents.Op
	ReadOnly, Destructive    bool
	Idempotent, OpenWorld    bool
	InputSchema              apidoc.Schema
	// Call runs the tool for p with its JSON arguments. It answers the
	// session as JSON, or a *Refused.
	Call func(ctx context.Context, p *httpapi.Principal, args json.RawMessage) (any, error)
}

// Refused is a refusal of a tool call: the status the REST route answers
// and the flat Error it writes.
type Refused struct {
	Status int
	Body   json.RawMessage
	code   string
	msg    string
}

func (e *Refused) Error() string { return fmt.Sprintf("acp: %d %s: %s", e.Status, e.code, e.msg) }

// Unwrap is the refusal as a service error of the matching code, for the
// logs and the audit entry of the call.
func (e *Refused) Unwrap() error {
	code, ok := codesOfFlat[e.code]
	switch {
	case ok:
	case e.Status >= 500:
		code = market.CodeInternal
	default:
		code = market.CodeValidation
	}
	return market.Errorf(code, "%s", e.msg)
}

// codesOfFlat undoes flat for the codes it maps from one code alone.
var codesOfFlat = map[string]market.Code{
	"idempotency_in_flight": market.CodeDuplicateRequest, "idempotency_conflict": market.CodeDuplicateRequest,
	"unauthorized": market.CodeUnauthorized, "agent_frozen": market.CodeAgentFrozen,
	"account_suspended": market.CodeAccountSuspended, "forbidden": market.CodeForbidden,
	"insufficient_scope": market.CodeInsufficientScope, "owner_not_verified": market.CodeOwnerNotVerified,
	"not_found": market.CodeNotFound, "not_allowed": market.CodeInvalidState,
	"request_too_large": market.CodePayloadTooLarge, "rate_limit_exceeded": market.CodeRateLimited,
	"service_unavailable": market.CodeUnavailable, "internal_error": market.CodeInternal,
}

// ErrorBody is err as the structured content of a refused tool call: ACP's
// flat Error. A Refused carries its own. Any other error is mapped as the
// REST binding maps it (a key without buy scope, a frozen key, ...).
func ErrorBody(err error) any {
	var r *Refused
	if errors.As(err, &r) {
		return r.Body
	}
	_, body := flat(market.ErrorOf(err)) // an internal error's cause is never shown
	return body
}

// The tools' arguments, for their input schemas. The payloads are the REST
// request bodies themselves.
type toolMeta struct {
	APIVersion     string `json:"api_version" required:"true" example:"2026-04-17" doc:"The ACP version of the call (the API-Version header over REST); supported: 2026-04-17."`
	IdempotencyKey string `json:"idempotency_key" doc:"Optional (the Idempotency-Key header over REST). Send one on create and complete, and reuse it on a retry: the same key and payload replay the first answer; another payload with it is idempotency_conflict."`
	RequestID      string `json:"request_id" doc:"A correlation id of yours (Request-Id)."`
	UserAgent      string `json:"user_agent" doc:"Who is calling (User-Agent)."`
	AcceptLanguage string `json:"accept_language" doc:"Locale preference (Accept-Language); answers are in en-US."`
	Signature      string `json:"signature" doc:"Request signature (Signature); not checked here: the agent key authenticates the call."`
	Timestamp      string `json:"timestamp" format:"date-time" doc:"Request signing timestamp (Timestamp), RFC 3339."`
}

type createToolArgs struct {
	Meta    toolMeta      `json:"meta" required:"true"`
	Payload createRequest `json:"payload" required:"true" doc:"ACP's CheckoutSessionCreateRequest, the body of POST /acp/checkout_sessions."`
}

type getToolArgs struct {
	Meta toolMeta `json:"meta" required:"true"`
	ID   string   `json:"id" required:"true" minLength:"1" doc:"The checkout session's id (cs_...), the {id} of the REST path."`
}

type updateToolArgs struct {
	Meta    toolMeta      `json:"meta" required:"true"`
	ID      string        `json:"id" required:"true" minLength:"1" doc:"The checkout session's id (cs_...), the {id} of the REST path."`
	Payload updateRequest `json:"payload" required:"true" doc:"ACP's CheckoutSessionUpdateRequest, the body of POST /acp/checkout_sessions/{id}."`
}

type completeToolArgs struct {
	Meta    toolMeta        `json:"meta" required:"true"`
	ID      string          `json:"id" required:"true" minLength:"1" doc:"The checkout session's id (cs_...), the {id} of the REST path."`
	Payload completeRequest `json:"payload" required:"true" doc:"ACP's CheckoutSessionCompleteRequest, the body of POST /acp/checkout_sessions/{id}/complete."`
}

type cancelToolArgs struct {
	Meta    toolMeta      `json:"meta" required:"true"`
	ID      string        `json:"id" required:"true" minLength:"1" doc:"The checkout session's id (cs_...), the {id} of the REST path."`
	Payload cancelRequest `json:"payload" doc:"Optional: ACP's CancelSessionRequest, the body of POST /acp/checkout_sessions/{id}/cancel."`
}

// toolOp is one tool and the REST route it runs.
type toolOp struct {
	tool          Tool
	method, path  string // the route's; path holds {id} when the tool takes one
	args          any    // a zero value of the arguments, for the schema
	payload       payloadRule
	required      []string // the payload's required fields (ACP's schema)
	openPayload   bool     // the payload may carry fields of its own
	handler       func(b *Binding) httpapi.HandlerFunc
	noIdempotency bool // a GET: no key is read
}

type payloadRule int

const (
	payloadNone payloadRule = iota
	payloadRequired
	payloadOptional
)

var toolOps = []toolOp{
	{
		tool: Tool{Name: "create_checkout_session", Title: "ACP: create a checkout session",
			Description: "ACP's create_checkout_session (Agentic Commerce Protocol, MCP binding): open a checkout session for one " +
				"listing (payload.line_items [{id: listing_id}], currency usd, capabilities {}), bought for the key's owner. " +
				"Answers ACP's CheckoutSession; nothing is reserved or charged until complete_checkout_session. " +
				"Then give fulfillment_details.address and pick one of fulfillment_options with update_checkout_session. " +
				"A refusal is ACP's flat error {type, code, message, param}."},
		method: "POST", path: Prefix + "/checkout_sessions", args: createToolArgs{}, payload: payloadRequired,
		required: []string{"line_items", "currency", "capabilities"}, handler: func(b *Binding) httpapi.HandlerFunc { return b.create },
	},
	{
		tool: Tool{Name: "get_checkout_session", Title: "ACP: read a checkout session", ReadOnly: true, Idempotent: true,
			Description: "ACP's get_checkout_session: the checkout session id as it stands now (status, line items, " +
				"fulfillment options, totals, messages, and the order once completed). Costs nothing; an unknown id is not_found."},
		method: "GET", path: Prefix + "/checkout_sessions/{id}", args: getToolArgs{}, payload: payloadNone,
		handler: func(b *Binding) httpapi.HandlerFunc { return b.get }, noIdempotency: true,
	},
	{
		tool: Tool{Name: "update_checkout_session", Title: "ACP: update a checkout session", Idempotent: true,
			Description: "ACP's update_checkout_session: change the session's buyer, items, fulfillment_details (the address, " +
				"which gives the shipping options) or selected_fulfillment_options [{type, option_id, item_ids}]. " +
				"Answers the CheckoutSession; it is ready_for_payment once an address and an option are set."},
		method: "POST", path: Prefix + "/checkout_sessions/{id}", args: updateToolArgs{}, payload: payloadRequired,
		handler: func(b *Binding) httpapi.HandlerFunc { return b.update },
	},
	{
		tool: Tool{Name: "complete_checkout_session", Title: "ACP: pay for a checkout session", Destructive: true,
			Idempotent: true, OpenWorld: true,
			Description: "ACP's complete_checkout_session: buy the session's item and charge it, within the owner's spending " +
				"controls, exactly as purchase_listing does. For agent keys pay with payment_data {handler_id: " +
				"\"saved_payment_method\", instrument: {type: \"card\", credential: {type: \"saved_payment_method\", token: " +
				"\"default\"}}}, the owner's default card. Answers status completed with order {id} (our order id); a business " +
				"refusal (out_of_stock, maximum_exceeded, payment_declined, ...) answers the session, not completed, with its message. " +
				"A session completes once; send meta.idempotency_key and reuse it on a retry."},
		method: "POST", path: Prefix + "/checkout_sessions/{id}/complete", args: completeToolArgs{}, payload: payloadRequired,
		required: []string{"payment_data"}, handler: func(b *Binding) httpapi.HandlerFunc { return b.complete },
	},
	{
		tool: Tool{Name: "cancel_checkout_session", Title: "ACP: cancel a checkout session", Destructive: true, Idempotent: true,
			Description: "ACP's cancel_checkout_session: cancel an open session (payload with an intent_trace is optional). " +
				"Answers the canceled CheckoutSession. A completed or canceled session, or one waiting for the owner's " +
				"approval, is not_allowed."},
		method: "POST", path: Prefix + "/checkout_sessions/{id}/cancel", args: cancelToolArgs{}, payload: payloadOptional,
		openPayload: true, handler: func(b *Binding) httpapi.HandlerFunc { return b.cancel },
	},
}

// Tools are the binding's MCP tools. They run once Register has added the
// routes.
func (b *Binding) Tools() []Tool {
	out := make([]Tool, len(toolOps))
	for i := range toolOps {
		op := &toolOps[i]
		t := op.tool
		t.Scope = agents.OpBuy // as the routes
		t.InputSchema = op.schema()
		t.Call = func(ctx context.Context, p *httpapi.Principal, args json.RawMessage) (any, error) {
			return b.callTool(ctx, p, op, args)
		}
		out[i] = t
	}
	return out
}

// schema is the tool's input schema: the arguments' struct, with what the
// struct tags cannot say. meta is open (the binding lets it grow), and the
// payload requires what ACP's request schema requires.
func (op *toolOp) schema() apidoc.Schema {
	s, err := apidoc.JSONSchema(op.args)
	if err != nil {
		panic(fmt.Sprintf("acp tool %s: %v", op.tool.Name, err)) // a tag typo: caught by every test
	}
	props := s["properties"].(apidoc.Schema)
	props["meta"].(apidoc.Schema)["additionalProperties"] = true
	if p, ok := props["payload"].(apidoc.Schema); ok {
		if len(op.required) > 0 {
			p["required"] = op.required
		}
		if op.openPayload {
			p["additionalProperties"] = true
		}
	}
	return s
}

// toolArgs are a call's arguments as sent.
type toolArgs struct {
	Meta    json.RawMessage `json:"meta"`
	ID      json.RawMessage `json:"id"`
	Payload json.RawMessage `json:"payload"`
}

// callTool runs op's route for p with the tool's arguments.
func (b *Binding) callTool(ctx context.Context, p *httpapi.Principal, op *toolOp, raw json.RawMessage) (any, error) {
	if b.routes == nil {
		return nil, market.Internal(errors.New("acp: a checkout tool is called before Register"))
	}
	meta, id, body, err := readToolArgs(op, raw)
	if err != nil {
		return nil, refused(market.ErrorOf(err))
	}
	path := op.path
	if strings.Contains(path, "{id}") {
		path = strings.Replace(path, "{id}", url.PathEscape(id), 1)
	}
	r, err := http.NewRequestWithContext(ctx, op.method, path, bytes.NewReader(body))
	if err != nil {
		return nil, refused(market.ErrorOf(invalid("$.id", "is not a checkout session id")))
	}
	r.SetPathValue("id", id)
	if len(body) > 0 {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("API-Version", meta.APIVersion)
	for h, v := range map[string]string{"Idempotency-Key": meta.IdempotencyKey, "Request-Id": meta.RequestID,
		"User-Agent": meta.UserAgent, "Accept-Language": meta.AcceptLanguage} {
		if v != "" {
			r.Header.Set(h, v)
		}
	}
	route := op.method + " " + op.path
	h := op.handler(b)
	if !op.noIdempotency {
		// The REST route's rules, but for the key: the binding makes it
		// optional over MCP.
		h = b.routes.Idempotent(route, httpapi.IdemRules{NoWait: true, HeaderOnly: true, Owner: idemOwner}, h)
	}
	status, answer := b.routes.ServeAs(p, r, route, versioned(h))
	if status >= 400 {
		return nil, refusedBody(status, answer)
	}
	return json.RawMessage(answer), nil
}

// readToolArgs checks a call's arguments: {meta, id, payload} as op takes
// them. It answers the meta, the session id and the payload as the
// route's body.
func readToolArgs(op *toolOp, raw json.RawMessage) (meta toolMeta, id string, body []byte, err error) {
	var args toolArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return meta, "", nil, invalid("$."+strings.Trim(name, `"`), "is not an argument of "+op.tool.Name)
		}
		return meta, "", nil, invalid("$", "the arguments must be a JSON object {meta, id, payload}")
	}
	takesID := strings.Contains(op.path, "{id}")
	switch {
	case !isObject(args.Meta):
		return meta, "", nil, invalid("$.meta", "is required: an object with api_version")
	case !takesID && present(args.ID):
		return meta, "", nil, invalid("$.id", "is not an argument of "+op.tool.Name)
	case op.payload == payloadNone && present(args.Payload):
		return meta, "", nil, invalid("$.payload", "is not an argument of "+op.tool.Name)
	case op.payload == payloadRequired && !present(args.Payload):
		return meta, "", nil, invalid("$.payload", "is required: the ACP request body")
	}
	if err := json.Unmarshal(args.Meta, &meta); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return meta, "", nil, invalid("$.meta."+typeErr.Field, "must be a string")
		}
		return meta, "", nil, invalid("$.meta", "is not valid")
	}
	if !supported(meta.APIVersion) {
		msg := "is required: the ACP version of the call"
		if meta.APIVersion != "" {
			msg = fmt.Sprintf("%q is not supported", meta.APIVersion)
		}
		return meta, "", nil, market.Invalid(market.FieldError{Field: "$.meta.api_version", AsSent: true, Message: msg}).
			WithDetails(map[string]any{"acp": "unsupported_version"})
	}
	if k := meta.IdempotencyKey; len(k) > 255 || strings.ContainsFunc(k, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		return meta, "", nil, invalid("$.meta.idempotency_key", "must be 1 to 255 printable characters")
	}
	if takesID {
		if err := json.Unmarshal(args.ID, &id); err != nil || strings.TrimSpace(id) == "" {
			return meta, "", nil, invalid("$.id", "is required: the checkout session's id")
		}
	}
	if present(args.Payload) {
		body = args.Payload
	}
	return meta, id, body, nil
}

func supported(v string) bool {
	for _, s := range SupportedVersions {
		if v == s {
			return true
		}
	}
	return false
}

// present reports whether an argument was sent (null counts as absent, as
// the binding lets an optional payload be left out either way).
func present(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// refused is a refusal of the tool itself, before the route runs.
func refused(e *market.Error) *Refused {
	status, body := flat(e)
	raw, _ := json.Marshal(body)
	return &Refused{Status: status, Body: raw, code: body.Code, msg: body.Message}
}

// refusedBody is the route's refusal, its param made a path into the
// tool's arguments: the route's $ is the payload.
func refusedBody(status int, answer []byte) *Refused {
	var body Error
	if err := json.Unmarshal(answer, &body); err != nil || body.Code == "" {
		body = Error{Type: "processing_error", Code: "internal_error", Message: "internal error"}
	}
	if strings.HasPrefix(body.Param, "$") {
		body.Param = "$.payload" + strings.TrimPrefix(body.Param, "$")
	}
	raw, _ := json.Marshal(body)
	return &Refused{Status: status, Body: raw, code: body.Code, msg: body.Message}
}
