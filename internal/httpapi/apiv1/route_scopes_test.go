package apiv1_test

import (
	"net/http"
	"regexp"
	"slices"
	"testing"

	"marketplace/internal/agents"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

// TestRouteScopes walks every route that declares a key scope (Router.Scope)
// on both surfaces: an agent key of the other scope is refused with 403
// INSUFFICIENT_SCOPE before anything else is looked at, so a body that is
// not JSON and an id that names nothing make no difference, and the same
// key passes the scope check of a route of its own scope. It also holds
// the scopes a test of the services relies on in place: selling, the
// purchase and watching each ask for theirs.
func TestRouteScopes(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("Scopes")
		keys := map[agents.Op]*testkit.Key{
			agents.OpBuy:  s.NewKey(owner, "sell_only"), // refused on buy routes
			agents.OpSell: s.NewKey(owner, "buy_only"),  // refused on sell routes
		}
		param := regexp.MustCompile(`\{[^}]+\}`)
		scoped := map[string]agents.Op{}
		for _, rt := range s.App.Router.Routes() {
			if rt.Scope == agents.OpRead || (rt.Auth != httpapi.Agent && rt.Auth != httpapi.Either) {
				continue
			}
			if slices.Contains(rt.Areas, "acp") {
				continue // ACP's flat errors: acp.TestACPAuthorization asks its routes with a sell_only key
			}
			scoped[rt.Method+" "+rt.Pattern] = rt.Scope
			path := param.ReplaceAllString(rt.Pattern, market.NewID())
			var body any
			if rt.Method != http.MethodGet && rt.Method != http.MethodDelete {
				body = "{not json"
			}
			s.Do(rt.Method, path, body, keys[rt.Scope].Auth()).Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
		}
		for route, op := range map[string]agents.Op{
			"POST /api/v1/agent/listings":              agents.OpSell,
			"PATCH /v1/listings/{id}":                  agents.OpSell,
			"POST /api/v1/agent/orders/{id}/ship":      agents.OpSell,
			"POST /v1/orders/{id}/ship":                agents.OpSell,
			"POST /api/v1/agent/purchase":              agents.OpBuy,
			"POST /v1/purchase":                        agents.OpBuy,
			"POST /v1/purchase/check":                  agents.OpBuy,
			"POST /api/v1/agent/listings/{id}/watch":   agents.OpBuy,
			"POST /api/v1/agent/orders/{id}/delivered": agents.OpBuy,
			"POST /v1/orders/{id}/dispute":             agents.OpBuy,
		} {
			if scoped[route] != op {
				t.Errorf("%s: scope %v, want %v", route, scoped[route], op)
			}
		}
		// A key of the route's own scope gets past the check: here to the
		// body, which is not JSON.
		s.Do("POST", "/api/v1/agent/purchase/check", "{not json", keys[agents.OpSell].Auth()).
			Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
	})
}
