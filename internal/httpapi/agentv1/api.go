// Package agentv1 is Variant B of the interface: snake_case JSON under /v1,
// the surface written for agents. Lists answer objects ({addresses: [...]}).
package agentv1

import (
	"context"
	"net/http"

	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/sandbox"
)

// Prefix is where Variant B lives.
const Prefix = "/v1"

// Surface is Variant B's spelling: snake_case, the canonical form, but for
// the fields this surface names otherwise.
var Surface = &httpapi.Surface{Prefix: Prefix, Casing: httpapi.Snake, Names: map[string]string{
	"photo_urls": "photos",
	// Offers: the spec's names for an offer's amounts in request bodies.
	"offer_price":   "amount",
	"counter_price": "counter_amount",
	// The multipart create takes the seller's words as brief_description;
	// the listing's description is what the generator writes from them.
	"POST " + Prefix + "/listings description": "brief_description",
	// Messages are sent as 'message' (the spec's name on this surface).
	"POST " + Prefix + "/messages content": "message",
}}

// API holds the operations Variant B calls (api.Ops: the services every
// surface shares, in snake_case) and what its sandbox routes need.
type API struct {
	api.Ops

	// Sandbox serves the /v1/sandbox helpers (sandbox mode only), which move
	// Clock, reset data through SandboxStore and issue chat-link codes
	// through the shared ChatLinks.
	Sandbox      bool
	Clock        SandboxClock
	SandboxStore sandbox.Store
	// Gate answers FEATURE_DISABLED while a feature flag is off (ToolFlags).
	Gate func(ctx context.Context, flag string) error
	// Extra are tools other bindings define (RawTool), in the catalogue
	// beside ours: app adds ACP's checkout tools.
	Extra []Tool

	router *httpapi.Router // Variant B's routes, for tools that share their idempotency records
}

func actor(r *http.Request) market.Actor { return httpapi.ActorOf(r) }

type createKeyBody struct {
	Label            string         `json:"label" minLength:"1" maxLength:"100" required:"true" doc:"Trimmed; 1 to 100 characters."`
	Scope            string         `json:"scope" enum:"buy,sell,buy_sell,buy_only,sell_only" required:"true" doc:"Variant B names; 'buy_only' and 'sell_only' are accepted too."`
	SpendingControls *api.KeyLimits `json:"spending_controls" ref:"KeyLimitsInput"`
	// The Variant B body does not carry the terms flag; calling this route is
	// taken as accepting the agent terms unless it says false.
	AcceptedAgentTerms *bool `json:"accepted_agent_terms" doc:"Absent or null counts as acceptance; 'false' is refused."`
}

func (a *API) createKey(w http.ResponseWriter, r *http.Request) error {
	var b createKeyBody
	// The key's caps are spelled in snake_case: the body is read through
	// the snake_case twin of its type.
	if err := httpapi.Decode(r, httpapi.Spell(&b, httpapi.Snake)); err != nil {
		return err
	}
	k, err := a.KeyOps().Create(r.Context(), httpapi.PrincipalOf(r), agents.KeyInput{Label: b.Label, Scope: b.Scope,
		Limits: b.SpendingControls.Limits(), AcceptedAgentTerms: b.AcceptedAgentTerms == nil || *b.AcceptedAgentTerms})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "agent_key", k.ID)
	return httpapi.OK(w, r, http.StatusCreated, k)
}

func (a *API) revokeKey(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "agent_key")
	return httpapi.Reply(w, r, http.StatusOK).With(a.KeyOps().Revoke(r.Context(), httpapi.PrincipalOf(r), id))
}

func (a *API) whoami(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.KeyOps().Whoami(r.Context(), httpapi.PrincipalOf(r)))
}

// strOrNil is s, or null when empty.
func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// account is GET /v1/account and the get_account tool.
func (a *API) account(w http.ResponseWriter, r *http.Request) error {
	return httpapi.OK(w, r, http.StatusOK, api.UserOf(httpapi.PrincipalOf(r).User))
}

func (a *API) spending(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.spendingOf(r.Context(), httpapi.PrincipalOf(r)))
}

// spendingOf is GET /v1/account/spending and the get_spending_controls
// tool: the spending status with each figure a field of its own.
func (a *API) spendingOf(ctx context.Context, p *httpapi.Principal) (*api.FlatSpending, error) {
	st, err := a.KeyOps().Spending(ctx, p)
	if err != nil {
		return nil, err
	}
	return st.Flat(), nil
}

func (a *API) addresses(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.addressesOf(r.Context(), httpapi.PrincipalOf(r)))
}

// addressesOf is GET /v1/account/addresses and the get_addresses tool.
func (a *API) addressesOf(ctx context.Context, p *httpapi.Principal) (*addressList, error) {
	out, err := a.AccountOps().Addresses(ctx, p)
	if err != nil {
		return nil, err
	}
	return &addressList{Addresses: out, Total: len(out)}, nil
}

// addressList is Variant B's list of saved addresses: an object.
type addressList struct {
	Addresses []api.Address `json:"addresses"`
	Total     int           `json:"total" minimum:"0"`
}
