// Package api holds the operations every surface offers, each written
// once, and the views they answer: one struct per resource, built with the
// viewer's rules (seller-only fields, the authorization record, content
// trust) in one place. The surfaces (Variant A, Variant B, the MCP tools,
// and the pages and checkout protocols to come) keep only what really
// differs: routes, the request shapes the interface gives them, casing and
// error wrapping. A view carries Variant A's camelCase json names;
// httpapi.Spell spells it in snake_case for Variant B and the tools.
//
// The package knows no HTTP: it sits on the domain areas, below the HTTP
// core (TestLayering).
package api

import (
	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/market"
)

// Caller is the authenticated party of an operation: a human (User), or an
// agent key (Key) acting for its owner (User).
type Caller struct {
	Actor market.Actor
	User  *accounts.User // the human, or the agent's owner
	Key   *agents.Key    // set for agents
	// PlatformID is the agent platform calling with its own credential
	// (ACP): no User, no Key.
	PlatformID string
}

// Allow refuses, with INSUFFICIENT_SCOPE, an agent whose key's scope does
// not allow op (a route's, httpapi.Router.Scope, or a tool's); a caller
// without a key, and agents.OpRead, pass.
func (c *Caller) Allow(op agents.Op) error {
	if op == agents.OpRead || c == nil || c.Key == nil {
		return nil
	}
	return agents.Require(c.Actor, c.Key.Scope, op)
}

// strOrNil is s, or nil for "": a field the view shows as null.
func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// viewOf turns a service's answer (a domain value, or an error) into its
// view made by of.
func viewOf[D, V any](of func(*D) *V) func(*D, error) (*V, error) {
	return func(d *D, err error) (*V, error) {
		if err != nil {
			return nil, err
		}
		return of(d), nil
	}
}
