package httpapi

import "marketplace/internal/settings"

// FeatureRoutes are the routes each feature flag switches off (CONTRACT.md
// 14): while a flag is off its routes answer 503 FEATURE_DISABLED with
// details {flag} (Router.Gate). It is the one table: the OpenAPI documents
// derive each gated operation's 503 answer from it. The MCP tools of the
// same features are in agentv1.ToolFlags. Webhooks: the flag stops endpoint
// management (create, change, delete, test, list, retry); deliveries of
// events to endpoints already registered keep going, so no subscriber
// silently loses events.
var FeatureRoutes = map[string]settings.Feature{
	"POST /api/v1/offers":                          settings.FeatureOffers,
	"GET /api/v1/offers/buyer/me":                  settings.FeatureOffers,
	"GET /api/v1/offers/seller/me":                 settings.FeatureOffers,
	"GET /api/v1/offers/{id}":                      settings.FeatureOffers,
	"POST /api/v1/offers/{id}/accept":              settings.FeatureOffers,
	"POST /api/v1/offers/{id}/counter":             settings.FeatureOffers,
	"POST /api/v1/offers/{id}/reject":              settings.FeatureOffers,
	"POST /api/v1/offers/{id}/withdraw":            settings.FeatureOffers,
	"POST /api/v1/agent/offers":                    settings.FeatureOffers,
	"GET /api/v1/agent/offers/buyer/me":            settings.FeatureOffers,
	"GET /api/v1/agent/offers/seller/me":           settings.FeatureOffers,
	"GET /api/v1/agent/offers/{id}":                settings.FeatureOffers,
	"POST /api/v1/agent/offers/{id}/accept":        settings.FeatureOffers,
	"POST /api/v1/agent/offers/{id}/counter":       settings.FeatureOffers,
	"POST /api/v1/agent/offers/{id}/reject":        settings.FeatureOffers,
	"POST /api/v1/agent/offers/{id}/withdraw":      settings.FeatureOffers,
	"GET /api/v1/agent/offers/listing/{listingId}": settings.FeatureOffers,
	"POST /v1/offers":                              settings.FeatureOffers,
	"GET /v1/offers/{id}":                          settings.FeatureOffers,
	"POST /v1/offers/{id}/respond":                 settings.FeatureOffers,

	"POST /api/v1/agent/purchase":       settings.FeatureAgentPurchases,
	"POST /v1/purchase":                 settings.FeatureAgentPurchases,
	"POST /api/v1/agent/purchase/check": settings.FeatureAgentPurchases,
	"POST /v1/purchase/check":           settings.FeatureAgentPurchases,

	"POST /api/v1/auth/register":         settings.FeatureRegistrations,
	"POST /api/v1/onboarding/agent-init": settings.FeatureRegistrations,

	"POST /api/v1/listings":       settings.FeatureListingCreation,
	"POST /api/v1/agent/listings": settings.FeatureListingCreation,
	"POST /v1/listings":           settings.FeatureListingCreation,

	"PUT /api/v1/auth/me/webhook":                                settings.FeatureWebhooks,
	"GET /api/v1/auth/me/webhook":                                settings.FeatureWebhooks,
	"DELETE /api/v1/auth/me/webhook":                             settings.FeatureWebhooks,
	"POST /api/v1/auth/me/webhook/test":                          settings.FeatureWebhooks,
	"GET /api/v1/auth/me/webhook/deliveries":                     settings.FeatureWebhooks,
	"POST /api/v1/auth/me/webhook/deliveries/{id}/retry":         settings.FeatureWebhooks,
	"POST /v1/agent/webhooks":                                    settings.FeatureWebhooks,
	"GET /v1/agent/webhooks":                                     settings.FeatureWebhooks,
	"DELETE /v1/agent/webhooks/{id}":                             settings.FeatureWebhooks,
	"GET /v1/agent/webhooks/{id}/deliveries":                     settings.FeatureWebhooks,
	"POST /v1/agent/webhooks/{id}/deliveries/{deliveryId}/retry": settings.FeatureWebhooks,

	"POST /mcp": settings.FeatureMCP,
}
