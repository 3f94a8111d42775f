package agentv1

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	textmsg "golang.org/x/text/message"

	"marketplace/internal/agents"
	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/apidoc"
	"marketplace/internal/market"
)

// Tool is one operation of the agent tool catalogue (CONTRACT.md section
// 13): the MCP server serves it, GET /v1/tools/openai lists it, and the
// agent guides and the manifest name it. A tool calls the same services
// as the route it mirrors and answers the object Variant B would (the data
// of its envelope), in snake_case.
type Tool struct {
	Name  string
	Title string
	// Description tells an agent when to use the tool and what it costs.
	Description string
	// Area names the capability the tool belongs to (the manifest's
	// capabilities): "listings", "search", "offers", ...
	Area string
	// Scope is the key scope the tool needs: agents.OpRead (the zero
	// value, any key), OpBuy or OpSell.
	Scope agents.Op
	// The MCP annotations.
	ReadOnly, Destructive, Idempotent, OpenWorld bool
	// MaxArgBytes bounds the tool's JSON arguments; 0 is
	// DefaultToolArgBytes, what every tool but create_listing needs.
	MaxArgBytes int64

	input  any           // a zero value of the argument struct
	schema apidoc.Schema // its JSON Schema
	call   func(ctx context.Context, p *httpapi.Principal, args json.RawMessage) (any, error)
	gate   func(ctx context.Context) error // the feature flag's check, if any (ToolFlags)
	// Of a tool another binding defines (RawTool): its call reads and
	// checks the arguments itself, and refuse shapes its refusals.
	raw    bool
	refuse func(err error) any
}

// RawTool is a tool another binding defines, served in the catalogue beside
// ours: ACP's checkout tools (acp.Binding.Tools), which speak ACP's shapes
// rather than Variant B's. schema is its input schema and call its run. The
// arguments reach call as sent, not checked against schema first, so its
// refusals name the fields in its own terms. refuse is the structured
// content of any refusal of the tool (ACP's flat error), including the
// checks of Call before the binding runs (scope, size).
func RawTool(t Tool, schema apidoc.Schema, call func(ctx context.Context, p *httpapi.Principal, args json.RawMessage) (any, error),
	refuse func(err error) any) Tool {
	t.schema, t.call, t.raw, t.refuse = schema, call, true, refuse
	return t
}

// Refusal is the structured content of a refused call of t, in the tool's
// own shape (RawTool); nil for every tool of ours, which answer the
// contract's {code, message, details}.
func (t *Tool) Refusal(err error) any {
	if t.refuse == nil {
		return nil
	}
	return t.refuse(err)
}

// DefaultToolArgBytes bounds a tool's arguments unless the tool says
// otherwise: the bound of a JSON body on HTTP.
const DefaultToolArgBytes = httpapi.MaxBody

// ArgBytes is the most the tool's JSON arguments may take.
func (t *Tool) ArgBytes() int64 {
	if t.MaxArgBytes > 0 {
		return t.MaxArgBytes
	}
	return DefaultToolArgBytes
}

// ArgumentsTooLarge is the refusal of arguments over a tool's bound.
func ArgumentsTooLarge(tool string, max int64) error {
	return market.Errorf(market.CodePayloadTooLarge, "the arguments of %s may be at most %d bytes", tool, max).
		WithDetails(map[string]any{"tool": tool, "limit": max})
}

// InputSchema is the JSON Schema of the tool's arguments.
func (t *Tool) InputSchema() apidoc.Schema { return t.schema }

// Call runs the tool for the caller p with JSON arguments: they are
// checked against the input schema (VALIDATION_ERROR naming the field),
// then the key's scope, then the tool's own rules.
func (t *Tool) Call(ctx context.Context, p *httpapi.Principal, args json.RawMessage) (any, error) {
	if p == nil || p.Key == nil {
		return nil, market.Errorf(market.CodeInvalidAgentKey, "tools are called with an agent key")
	}
	if t.gate != nil {
		if err := t.gate(ctx); err != nil {
			return nil, err
		}
	}
	if err := p.Allow(t.Scope); err != nil {
		return nil, err
	}
	if max := t.ArgBytes(); int64(len(args)) > max {
		return nil, ArgumentsTooLarge(t.Name, max)
	}
	// Read in place: create_listing's arguments may be 16 MiB.
	if t := bytes.TrimSpace(args); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		args = json.RawMessage("{}")
	}
	if !t.raw {
		if err := t.validate(args); err != nil {
			return nil, err
		}
	}
	out, err := t.call(ctx, p, args)
	if err != nil {
		return nil, err
	}
	return httpapi.Spell(out, httpapi.Snake), nil // the views of every surface, in Variant B's spelling
}

// tool completes t with the argument struct In and the function that runs
// it: decoding and schema checks are done here, once for every tool.
func tool[In any](t Tool, run func(ctx context.Context, p *httpapi.Principal, in *In) (any, error)) Tool {
	var zero In
	t.input = zero
	s, err := apidoc.JSONSchema(zero)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", t.Name, err)) // a wire tag typo: caught by every test
	}
	t.schema = s
	t.call = func(ctx context.Context, p *httpapi.Principal, args json.RawMessage) (any, error) {
		in := new(In)
		if err := httpapi.DecodeBytes(args, in); err != nil {
			return nil, err
		}
		return run(ctx, p, in)
	}
	return t
}

var (
	compiled sync.Map // tool name -> *jsonschema.Schema
	english  = textmsg.NewPrinter(language.English)
)

func (t *Tool) validate(args json.RawMessage) error {
	v, ok := compiled.Load(t.Name)
	if !ok {
		raw, _ := json.Marshal(t.schema)
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
		if err != nil {
			return market.Internal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(t.Name+".json", doc); err != nil {
			return market.Internal(err)
		}
		sch, err := c.Compile(t.Name + ".json")
		if err != nil {
			return market.Internal(fmt.Errorf("tool %s: input schema: %w", t.Name, err))
		}
		v, _ = compiled.LoadOrStore(t.Name, sch)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return market.Invalid(market.FieldError{Field: "arguments", Message: "must be a JSON object"})
	}
	err = v.(*jsonschema.Schema).Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !asValidation(err, &ve) {
		return market.Invalid(market.FieldError{Field: "arguments", Message: err.Error()})
	}
	var fields []market.FieldError
	for _, leaf := range leaves(ve) {
		// A missing argument is named itself, not the object that lacks it.
		if req, ok := leaf.ErrorKind.(*kind.Required); ok {
			for _, name := range req.Missing {
				fields = append(fields, market.FieldError{Field: strings.Join(append(slices.Clone(leaf.InstanceLocation), name), "."),
					Message: "is required", AsSent: true})
			}
			continue
		}
		field := strings.Join(leaf.InstanceLocation, ".")
		if field == "" {
			field = "arguments"
		}
		fields = append(fields, market.FieldError{Field: field, Message: leaf.ErrorKind.LocalizedString(english), AsSent: true})
	}
	return market.Invalid(fields...)
}

func asValidation(err error, out **jsonschema.ValidationError) bool {
	ve, ok := err.(*jsonschema.ValidationError)
	*out = ve
	return ok
}

// leaves are the innermost causes of a validation error: the facts a
// caller can fix.
func leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// Tools is the whole catalogue, sorted by name. Each area adds its tools
// in its own file (tools_<area>.go).
func (a *API) Tools() []Tool {
	out := a.tools()
	if a.Gate == nil {
		return out
	}
	for i := range out {
		if flag := ToolFlags[out[i].Name]; flag != "" {
			out[i].gate = func(ctx context.Context) error { return a.Gate(ctx, flag) }
		}
	}
	return out
}

// ToolFlags are the feature flags tools answer to: while one is off its
// tools answer FEATURE_DISABLED (CONTRACT.md 14).
var ToolFlags = map[string]string{
	"make_offer": "offers", "counter_offer": "offers", "accept_offer": "offers", "reject_offer": "offers",
	"withdraw_offer": "offers", "get_offer": "offers", "get_offers": "offers",
	"purchase_listing": "agent_purchases", "check_purchase": "agent_purchases",
	"create_listing":      "listing_creation",
	"initiate_onboarding": "registrations",
	"create_webhook":      "webhooks", "list_webhooks": "webhooks", "delete_webhook": "webhooks", "get_webhook_deliveries": "webhooks",
}

func (a *API) tools() []Tool {
	var out []Tool
	for _, group := range [][]Tool{
		a.accountTools(),
		a.buyingTools(), a.offerTools(), a.messageTools(),
		a.orderTools(), a.onboardingTools(), a.eventTools(),
		a.listingTools(),
		a.Extra,
	} {
		out = append(out, group...)
	}
	slices.SortFunc(out, func(x, y Tool) int { return strings.Compare(x.Name, y.Name) })
	return out
}
