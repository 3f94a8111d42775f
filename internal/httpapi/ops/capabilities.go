package ops

import (
	"slices"
	"strings"

	"marketplace/internal/httpapi"
)

// The manifest's capabilities are the areas of the service this server
// offers: an area is named when the router serves a route of it or the tool
// catalogue has a tool of it (Tool.Area), so the manifest says what the
// running server offers rather than a list written once.
//
// routeAreas gives every route its area: the areas of the longest prefix
// of its pattern (a prefix is a path, or a path and its subtree). It must
// cover every route the router serves and every area must be served:
// TestRouteAreas (internal/app) fails for a route of no area, an area no
// route serves, a prefix that matches no route and a tool area not here.
// There is no catch-all, so a new route is given its area on purpose.
var routeAreas = []struct {
	prefix string
	areas  []string
}{
	// The service itself.
	{"/", []string{"discovery"}},
	{"/api/v1/", []string{"discovery"}},
	{"/api/v1/manifest", []string{"discovery"}},
	{"/api/v1/openapi.json", []string{"discovery"}},
	{"/v1/openapi.json", []string{"discovery"}},
	{"/health", []string{"health"}},
	{"/api/v1/health", []string{"health"}},
	{LLMsPath, []string{"agent_guides"}},
	{SkillPath, []string{"agent_guides"}},
	{"/mcp", []string{"mcp"}},
	{"/v1/tools/openai", []string{"openai_tools"}},
	{"/v1/sandbox", []string{"sandbox"}},

	// People, keys and what they own.
	{"/api/v1/auth", []string{"accounts"}},
	{"/api/v1/onboarding/human", []string{"accounts"}},
	{"/v1/account", []string{"accounts"}},
	{"/v1/auth/whoami", []string{"accounts"}},
	// Google sign-in, the chat link and avatars are parts of the account;
	// the first two answer FEATURE_DISABLED until configured.
	{"/api/v1/integrations/discord", []string{"accounts"}},
	{"/api/v1/avatars", []string{"accounts"}},
	{"/api/v1/profiles", []string{"profiles"}},
	{"/api/v1/auth/me/activity", []string{"activity"}},
	{"/api/v1/auth/me/notification-prefs", []string{"notifications"}},
	{"/api/v1/addresses", []string{"addresses"}},
	{"/v1/account/addresses", []string{"addresses"}},
	{"/api/v1/agent-keys", []string{"agent_keys"}},
	{"/v1/auth/keys", []string{"agent_keys"}},
	{"/api/v1/onboarding", []string{"agent_onboarding"}},
	{"/api/v1/spending-controls", []string{"spending_controls"}},
	{"/v1/account/spending", []string{"spending_controls"}},
	{"/api/v1/agent/purchase/spending-summary", []string{"spending_controls"}},
	{"/api/v1/payment-methods", []string{"payment_methods"}},
	{"/v1/account/payment-methods", []string{"payment_methods"}},
	// The seller's payout account: the processor's onboarding verifies the
	// seller's identity and opens the payouts.
	{"/api/v1/seller/connect", []string{"identity_verification", "payouts"}},
	{"/sandbox/connect", []string{"identity_verification", "payouts"}},
	{"/api/v1/seller/connect/seller/connect", []string{"payment_methods"}}, // the seller's card on file
	{"/api/v1/seller/dashboard", []string{"seller_dashboard", "payouts"}},

	// Selling and finding.
	{"/api/v1/listings", []string{"listings"}},
	{"/v1/listings", []string{"listings"}},
	{"/api/v1/agent/listings", []string{"listings"}},
	{"/api/v1/listings/categories", []string{"categories"}},
	{"/v1/categories", []string{"categories"}},
	{"/api/v1/photos", []string{"photos"}},
	{"/api/v1/listings/photos/upload-urls", []string{"photos"}},
	{"/api/v1/agent/listings/photos/upload-urls", []string{"photos"}},
	{"/v1/search", []string{"search"}},
	{"/api/v1/listings/watching/me", []string{"watchlist"}},
	{"/api/v1/listings/{id}/watch", []string{"watchlist"}},
	{"/api/v1/listings/{id}/watching", []string{"watchlist"}},
	{"/api/v1/agent/listings/watching", []string{"watchlist"}},
	{"/api/v1/agent/listings/{id}/watch", []string{"watchlist"}},
	{"/api/v1/agent/listings/{id}/watching", []string{"watchlist"}},
	{"/api/v1/offers", []string{"offers"}},
	{"/v1/offers", []string{"offers"}},
	{"/api/v1/agent/offers", []string{"offers"}},
	{"/api/v1/messages", []string{"messages"}},
	{"/v1/messages", []string{"messages"}},
	{"/api/v1/agent/messages", []string{"messages"}},

	// Buying and after.
	{"/api/v1/purchases", []string{"purchases"}},
	{"/api/v1/agent/purchase", []string{"purchases"}},
	{"/v1/purchase", []string{"purchases"}},
	{"/checkout", []string{"purchases"}},
	{"/api/v1/config/stripe-publishable-key", []string{"purchases"}},
	{"/webhooks/stripe", []string{"purchases", "payouts"}}, // the processor's news of charges, refunds and accounts
	{"/api/v1/approvals", []string{"approvals"}},
	{"/api/v1/purchases/{id}/refund", []string{"refunds"}},
	{"/api/v1/purchases/{id}/refunds", []string{"refunds"}},
	{"/api/v1/orders", []string{"orders"}},
	{"/v1/orders", []string{"orders"}},
	{"/api/v1/agent/orders", []string{"orders"}},
	{"/api/v1/shipping", []string{"shipping"}},
	{"/api/v1/auth/me/address", []string{"shipping"}}, // the ship-from address
	{"/api/v1/auth/me/shipping-prefs", []string{"shipping"}},
	{"/api/v1/listings/{id}/shipping-estimate", []string{"shipping"}},
	{"/v1/listings/{id}/shipping-estimate", []string{"shipping"}},
	{"/api/v1/orders/{id}/ship", []string{"shipping"}},
	{"/api/v1/orders/{id}/shipping", []string{"shipping"}},
	{"/v1/orders/{id}/ship", []string{"shipping"}},
	{"/api/v1/agent/orders/{id}/ship", []string{"shipping"}},
	{"/api/v1/agent/orders/{id}/shipping", []string{"shipping"}},
	{"/api/v1/disputes", []string{"disputes"}},
	{"/v1/orders/{id}/dispute", []string{"disputes"}},

	// Keeping up.
	{"/api/v1/events", []string{"events"}},
	{"/v1/events", []string{"events"}},
	{"/api/v1/auth/me/webhook", []string{"webhooks"}},
	{"/v1/agent/webhooks", []string{"webhooks"}},

	// The back office.
	{"/api/v1/admin", []string{"admin"}},
}

// under reports whether pattern is prefix or in its subtree; a prefix that
// ends in "/" (a surface's root, "/" or "/api/v1/") covers itself only.
func under(pattern, prefix string) bool {
	if strings.HasSuffix(prefix, "/") {
		return pattern == prefix
	}
	return pattern == prefix || strings.HasPrefix(pattern, prefix+"/")
}

// RoutePrefix is the routeAreas prefix that gives pattern its areas: the
// longest that covers it; "" when none does.
func RoutePrefix(pattern string) string {
	best := ""
	for _, e := range routeAreas {
		if under(pattern, e.prefix) && len(e.prefix) > len(best) {
			best = e.prefix
		}
	}
	return best
}

// RouteAreas are the areas of the route with this pattern; nil when none
// covers it.
func RouteAreas(pattern string) []string {
	p := RoutePrefix(pattern)
	for _, e := range routeAreas {
		if e.prefix == p && p != "" {
			return e.areas
		}
	}
	return nil
}

// Areas lists every area the service knows, sorted.
func Areas() []string {
	var out []string
	for _, e := range routeAreas {
		out = append(out, e.areas...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// AreaPrefixes lists every prefix of the table, for the test that each
// still covers a route.
func AreaPrefixes() []string {
	out := make([]string, len(routeAreas))
	for i, e := range routeAreas {
		out[i] = e.prefix
	}
	return out
}

// capabilities are the areas of routes and of the tool areas, sorted and
// without repeats.
func capabilities(routes []httpapi.Route, toolAreas []string) []string {
	var out []string
	for _, r := range routes {
		out = append(out, RouteAreas(r.Pattern)...)
	}
	for _, a := range toolAreas {
		if a != "" {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
