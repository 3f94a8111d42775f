package ops

import (
	"slices"
	"strings"

	"marketplace/internal/httpapi"
)

// surfaceCapabilities names what the HTTP surfaces can do: a capability
// is in the manifest when the router serves a route under one of its
// prefixes (a path, or a path and its subtree). Tool areas (Tool.Area)
// join them, so the manifest says what the running server offers rather
// than a list written once.
var surfaceCapabilities = []struct {
	name     string
	prefixes []string
}{
	{"accounts", []string{"/api/v1/auth/register", "/v1/account"}},
	{"agent_keys", []string{"/api/v1/agent-keys", "/v1/auth/keys"}},
	{"agent_onboarding", []string{"/api/v1/onboarding/agent-init"}},
	{"spending_controls", []string{"/api/v1/spending-controls", "/v1/account/spending"}},
	{"identity_verification", []string{"/api/v1/seller/connect"}},
	{"categories", []string{"/api/v1/listings/categories", "/v1/categories"}},
	{"listings", []string{"/api/v1/listings", "/v1/listings"}},
	{"photos", []string{"/api/v1/photos", "/api/v1/listings/photos/upload-urls"}},
	{"search", []string{"/v1/search", "/api/v1/listings"}},
	{"watchlist", []string{"/api/v1/listings/watching/me"}},
	{"offers", []string{"/api/v1/offers", "/v1/offers"}},
	{"purchases", []string{"/api/v1/purchases", "/api/v1/agent/purchase", "/v1/purchase"}},
	{"payment_methods", []string{"/api/v1/payment-methods", "/v1/account/payment-methods"}},
	{"orders", []string{"/api/v1/orders", "/v1/orders"}},
	{"shipping", []string{"/api/v1/shipping", "/api/v1/orders/{id}/ship", "/v1/orders/{id}/ship"}},
	{"messages", []string{"/api/v1/messages", "/v1/messages"}},
	{"disputes", []string{"/api/v1/disputes", "/v1/orders/{id}/dispute"}},
	{"refunds", []string{"/api/v1/purchases/{id}/refund"}},
	{"approvals", []string{"/api/v1/approvals"}},
	{"webhooks", []string{"/api/v1/auth/me/webhook", "/v1/agent/webhooks"}},
	{"events", []string{"/api/v1/events", "/v1/events"}},
	{"seller_dashboard", []string{"/api/v1/seller/dashboard"}},
	{"sandbox", []string{"/v1/sandbox"}},
	{"mcp", []string{"/mcp"}},
	{"openai_tools", []string{"/v1/tools/openai"}},
	{"agent_guides", []string{LLMsPath, SkillPath}},
}

// capabilities are the surface capabilities routes serves, with areas,
// sorted and without repeats.
func capabilities(routes []httpapi.Route, areas []string) []string {
	var out []string
	for _, c := range surfaceCapabilities {
		if servesAny(routes, c.prefixes) {
			out = append(out, c.name)
		}
	}
	for _, a := range areas {
		if a != "" {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func servesAny(routes []httpapi.Route, prefixes []string) bool {
	for _, r := range routes {
		for _, p := range prefixes {
			if r.Pattern == p || strings.HasPrefix(r.Pattern, p+"/") {
				return true
			}
		}
	}
	return false
}
