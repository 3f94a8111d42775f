// Package acp is the Agentic Commerce Protocol binding (spec 2026-04-17,
// CONTRACT.md section 18): checkout sessions under /acp for agents of
// other platforms, over the protocol-neutral sessions of
// internal/checkouts. ACP's wire rules hold here instead of the
// interface's: no envelope, flat errors {type, code, message, param}, an
// API-Version on every request, an Idempotency-Key on every POST, with
// ACP's codes for a missing key, a conflict and a request in flight.
package acp

import (
	"net/http"
	"strconv"

	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/checkouts"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// Version is the ACP version spoken here; SupportedVersions all it accepts.
const Version = "2026-04-17"

var SupportedVersions = []string{Version}

// Prefix is where the binding's routes live.
const Prefix = "/acp"

// Binding serves ACP over the shared services.
type Binding struct {
	Ops     api.Ops
	Sandbox bool // discovery lists delegate_payment only in sandbox mode
	// Vault is the sandbox processor when it is the payment processor: it
	// is then the PSP of delegate_payment. nil with Stripe, whose shared
	// payment tokens the card handler takes instead.
	Vault *payments.Sandbox

	routes *httpapi.Router // the routes' router, kept by Register for the MCP tools (mcp.go)
}

// Surface answers errors in ACP's flat shape.
var Surface = &httpapi.Surface{Prefix: Prefix, Casing: httpapi.Snake, WriteError: writeError}

// Register adds the ACP routes and discovery document to rt.
func (b *Binding) Register(rt *httpapi.Router) {
	rt = rt.Mount(Surface).In("acp")
	buy := rt.Scope(agents.OpBuy)
	b.routes = buy
	rules := httpapi.IdemRules{Required: true, NoWait: true, HeaderOnly: true, Owner: idemOwner}
	post := func(path string, h httpapi.HandlerFunc) {
		buy.Handle("POST", path, httpapi.Platform, versioned(buy.Idempotent("POST "+path, rules, h)))
	}
	post(Prefix+"/checkout_sessions", b.create)
	post(Prefix+"/checkout_sessions/{id}", b.update)
	buy.Handle("GET", Prefix+"/checkout_sessions/{id}", httpapi.Platform, versioned(b.get))
	post(Prefix+"/checkout_sessions/{id}/complete", b.complete)
	post(Prefix+"/checkout_sessions/{id}/cancel", b.cancel)
	if b.Vault != nil {
		post(DelegatePath, b.delegate)
	}
	rt.Handle("GET", DiscoveryPath, httpapi.Public, b.discovery)
}

// idemOwner scopes an ACP idempotency key to the credential and the
// endpoint (the spec's "authenticated identity + endpoint path").
func idemOwner(r *http.Request, p *httpapi.Principal) string {
	return "acp " + credentialOf(p) + " " + r.URL.Path
}

// credentialOf names the caller's credential: its agent key or its
// platform (or, on no ACP route, the person).
func credentialOf(p *httpapi.Principal) string {
	switch {
	case p.Key != nil:
		return "key:" + p.Key.ID
	case p.PlatformID != "":
		return "platform:" + p.PlatformID
	}
	return p.User.ID
}

// versioned echoes the request's Request-Id and Idempotency-Key and
// checks its API-Version before h runs (before a key is claimed, so a
// request of another version uses none up).
func versioned(h httpapi.HandlerFunc) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		echo(w, r)
		v := r.Header.Get("API-Version")
		for _, s := range SupportedVersions {
			if v == s {
				return h(w, r)
			}
		}
		msg := "the API-Version header is required"
		if v != "" {
			msg = "API-Version " + strconv.Quote(v) + " is not supported"
		}
		return market.Invalid(market.FieldError{Field: "API-Version", AsSent: true, Message: msg}).
			WithDetails(map[string]any{"acp": "unsupported_version"})
	}
}

// echo sets the request's Request-Id and Idempotency-Key on the answer.
func echo(w http.ResponseWriter, r *http.Request) {
	for _, h := range []string{"Request-Id", "Idempotency-Key"} {
		if v := r.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
}

func buyerOf(r *http.Request) checkouts.Buyer {
	p := httpapi.PrincipalOf(r)
	return checkouts.Buyer{Actor: p.Actor, User: p.User, Key: p.Key, PlatformID: p.PlatformID}
}

// Error is ACP's flat error.
type Error struct {
	Type              string   `json:"type"`
	Code              string   `json:"code"`
	Message           string   `json:"message"`
	Param             string   `json:"param,omitempty"`
	SupportedVersions []string `json:"supported_versions,omitempty"`
}

// writeError answers e as ACP's flat error, at the status ACP gives it.
func writeError(w http.ResponseWriter, r *http.Request, e *market.Error) {
	status, body := flat(e)
	echo(w, r)
	if s, ok := e.Details["retry_after"].(int64); ok {
		w.Header().Set("Retry-After", strconv.FormatInt(s, 10))
	}
	httpapi.WriteJSON(w, status, body)
}

// flat maps an error to ACP's status, type and code.
func flat(e *market.Error) (int, Error) {
	out := Error{Type: "invalid_request", Code: "invalid", Message: e.Message}
	if len(e.Fields) > 0 {
		out.Param = paramOf(e.Fields[0].Field)
		if len(e.Fields) == 1 || e.Message == "" {
			out.Message = e.Fields[0].Field + " " + e.Fields[0].Message
		}
	}
	switch e.Code {
	case market.CodeValidation:
		switch {
		case e.Details["idempotency"] == "required":
			return http.StatusBadRequest, Error{Type: "invalid_request", Code: "idempotency_key_required",
				Message: "Idempotency-Key header is required on all POST requests"}
		case e.Details["acp"] == "unsupported_version":
			out.Code, out.Param, out.SupportedVersions = "unsupported_api_version", "", SupportedVersions
		case e.Details["acp_code"] != nil:
			out.Code, _ = e.Details["acp_code"].(string)
		}
		return http.StatusBadRequest, out
	case market.CodeDuplicateRequest:
		if e.Details["idempotency"] == "in_flight" {
			out.Code = "idempotency_in_flight"
			return http.StatusConflict, out
		}
		out.Code = "idempotency_conflict"
		return http.StatusUnprocessableEntity, out
	case market.CodeUnauthorized, market.CodeInvalidAgentKey, market.CodeInvalidCredentials:
		out.Code = "unauthorized"
		return http.StatusUnauthorized, out
	case market.CodeAgentFrozen:
		out.Code = "agent_frozen"
		return http.StatusForbidden, out
	case market.CodeAccountSuspended:
		out.Code = "account_suspended"
		return http.StatusForbidden, out
	case market.CodeForbidden, market.CodeInsufficientScope, market.CodeOwnerNotVerified:
		out.Code = map[market.Code]string{market.CodeForbidden: "forbidden", market.CodeInsufficientScope: "insufficient_scope",
			market.CodeOwnerNotVerified: "owner_not_verified"}[e.Code]
		return http.StatusForbidden, out
	case market.CodeNotFound, market.CodeListingNotFound:
		out.Code = "not_found"
		return http.StatusNotFound, out
	case market.CodeInvalidState, market.CodeMethodNotAllowed:
		out.Code = "not_allowed"
		return http.StatusMethodNotAllowed, out
	case market.CodePayloadTooLarge:
		out.Code = "request_too_large"
		return http.StatusRequestEntityTooLarge, out
	case market.CodeRateLimited:
		out.Code = "rate_limit_exceeded"
		return http.StatusTooManyRequests, out
	case market.CodeUnavailable, market.CodeFeatureDisabled:
		out.Type, out.Code = "service_unavailable", "service_unavailable"
		return http.StatusServiceUnavailable, out
	}
	if st := httpapi.Status(e.Code); st < 500 {
		out.Code = "invalid"
		return st, out
	}
	out.Type, out.Code, out.Message = "processing_error", "internal_error", "internal error"
	return http.StatusInternalServerError, out
}
