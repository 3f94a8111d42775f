package httpapi

import "marketplace/internal/admin"

// FeatureRoutes are the routes each feature flag switches off (CONTRACT.md
// 14): while a flag is off its routes answer 503 FEATURE_DISABLED with
// details {flag} (Router.Gate). It is the one table: the OpenAPI documents
// derive each gated operation's 503 answer from it. The MCP tools of the
// same features are in agentv1.ToolFlags. Webhooks: the flag stops endpoint
// management (create, change, delete, test, list, retry); deliveries of
// events to endpoints already registered keep going, so no subscriber
// silently loses events.
var FeatureRoutes = map[string]string{
	"POST /api/v1/offers":                          admin.FlagOffers,
	"GET /api/v1/offers/buyer/me":                  admin.FlagOffers,
	"GET /api/v1/offers/seller/me":                 admin.FlagOffers,
	"GET /api/v1/offers/{id}":                      admin.FlagOffers,
	"POST /api/v1/offers/{id}/accept":              admin.FlagOffers,
	"POST /api/v1/offers/{id}/counter":             admin.FlagOffers,
	"POST /api/v1/offers/{id}/reject":              admin.FlagOffers,
	"POST /api/v1/offers/{id}/withdraw":            admin.FlagOffers,
	"POST /api/v1/agent/offers":                    admin.FlagOffers,
	"GET /api/v1/agent/offers/buyer/me":            admin.FlagOffers,
	"GET /api/v1/agent/offers/seller/me":           admin.FlagOffers,
	"GET /api/v1/agent/offers/{id}":                admin.FlagOffers,
	"POST /api/v1/agent/offers/{id}/accept":        admin.FlagOffers,
	"POST /api/v1/agent/offers/{id}/counter":       admin.FlagOffers,
	"POST /api/v1/agent/offers/{id}/reject":        admin.FlagOffers,
	"POST /api/v1/agent/offers/{id}/withdraw":      admin.FlagOffers,
	"GET /api/v1/agent/offers/listing/{listingId}": admin.FlagOffers,
	"POST /v1/offers":                              admin.FlagOffers,
	"GET /v1/offers/{id}":                          admin.FlagOffers,
	"POST /v1/offers/{id}/respond":                 admin.FlagOffers,

	"POST /api/v1/agent/purchase":       admin.FlagAgentPurchases,
	"POST /v1/purchase":                 admin.FlagAgentPurchases,
	"POST /api/v1/agent/purchase/check": admin.FlagAgentPurchases,
	"POST /v1/purchase/check":           admin.FlagAgentPurchases,

	"POST /api/v1/auth/register":         admin.FlagRegistrations,
	"POST /api/v1/onboarding/agent-init": admin.FlagRegistrations,

	"POST /api/v1/listings":       admin.FlagListingCreation,
	"POST /api/v1/agent/listings": admin.FlagListingCreation,
	"POST /v1/listings":           admin.FlagListingCreation,

	"PUT /api/v1/auth/me/webhook":                                admin.FlagWebhooks,
	"GET /api/v1/auth/me/webhook":                                admin.FlagWebhooks,
	"DELETE /api/v1/auth/me/webhook":                             admin.FlagWebhooks,
	"POST /api/v1/auth/me/webhook/test":                          admin.FlagWebhooks,
	"GET /api/v1/auth/me/webhook/deliveries":                     admin.FlagWebhooks,
	"POST /api/v1/auth/me/webhook/deliveries/{id}/retry":         admin.FlagWebhooks,
	"POST /v1/agent/webhooks":                                    admin.FlagWebhooks,
	"GET /v1/agent/webhooks":                                     admin.FlagWebhooks,
	"DELETE /v1/agent/webhooks/{id}":                             admin.FlagWebhooks,
	"GET /v1/agent/webhooks/{id}/deliveries":                     admin.FlagWebhooks,
	"POST /v1/agent/webhooks/{id}/deliveries/{deliveryId}/retry": admin.FlagWebhooks,

	"POST /mcp": admin.FlagMCP,
}
