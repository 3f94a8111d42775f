package apiv1

import (
	"net/http"

	"marketplace/internal/accounts"
	"marketplace/internal/activity"
	"marketplace/internal/admin/users"
	"marketplace/internal/api"
	"marketplace/internal/audit"
	"marketplace/internal/httpapi"
	"marketplace/internal/settings"
)

// Prefix is where Variant A lives.
const Prefix = "/api/v1"

// Surface is Variant A's spelling: camelCase, but for the spending
// details, which CONTRACT.md section 2 spells in snake_case on both
// surfaces.
var Surface = &httpapi.Surface{Prefix: Prefix, Casing: httpapi.Camel, Names: map[string]string{
	"requested_amount": "requested_amount",
	"limit_type":       "limit_type",
}}

// API holds the operations Variant A calls (api.Ops: the services every
// surface shares, in camelCase) and the services of its own routes.
type API struct {
	api.Ops
	Avatars  *accounts.Avatars
	Google   *accounts.GoogleSignIn
	Activity *activity.Service
	Users    *users.Users // the admin's user tools
	Audit    *audit.Log
	Settings *settings.Service
}

// Register adds every Variant A route to rt.
func (a *API) Register(rt *httpapi.Router) {
	rt = rt.Mount(Surface)
	p := Prefix
	// Accounts.
	rt.Handle("POST", p+"/auth/register", httpapi.Public, a.register)
	rt.Handle("POST", p+"/auth/login", httpapi.Public, a.login)
	rt.Handle("GET", p+"/auth/check-username/{username}", httpapi.Public, a.checkUsername)
	rt.Handle("GET", p+"/auth/me", httpapi.Either, a.me)
	rt.Handle("PATCH", p+"/auth/me", httpapi.Bearer, a.updateMe)
	rt.Handle("PUT", p+"/auth/me/address", httpapi.Bearer, a.setShipFrom)
	rt.Handle("POST", p+"/auth/set-password", httpapi.Bearer, a.setPassword)
	rt.Handle("GET", p+"/addresses", httpapi.Bearer, a.listAddresses)
	rt.Handle("POST", p+"/addresses", httpapi.Bearer, a.addAddress)
	rt.Handle("DELETE", p+"/addresses/{id}", httpapi.Bearer, a.deleteAddress)
	rt.Handle("PATCH", p+"/addresses/{id}/default", httpapi.Bearer, a.defaultAddress)
	rt.Handle("GET", p+"/profiles/{username}", httpapi.Public, a.profile)
	a.RegisterAvatars(rt)
	a.RegisterChatLink(rt)
	a.RegisterGoogle(rt)

	// Agent keys and spending controls.
	rt.Handle("POST", p+"/agent-keys", httpapi.Bearer, a.createKey)
	rt.Handle("GET", p+"/agent-keys", httpapi.Bearer, a.listKeys)
	rt.Handle("DELETE", p+"/agent-keys/{id}", httpapi.Bearer, a.revokeKey)
	rt.Handle("PATCH", p+"/agent-keys/{id}/unfreeze", httpapi.Bearer, a.unfreezeKey)
	rt.Handle("PATCH", p+"/agent-keys/{id}/freeze", httpapi.Bearer, a.freezeKey)
	rt.Handle("POST", p+"/admin/users/{userId}/agent-keys/{keyId}/freeze", httpapi.Admin, a.adminFreezeKey)
	rt.Handle("POST", p+"/admin/users/{userId}/agent-keys/{keyId}/revoke", httpapi.Admin, a.adminRevokeKey)
	rt.Handle("GET", p+"/spending-controls", httpapi.Either, a.getSpending)
	rt.Handle("PUT", p+"/spending-controls", httpapi.Bearer, a.putSpending)

	// Payout account (identity verification).
	rt.Handle("POST", p+"/seller/connect", httpapi.Bearer, a.connect)
	rt.Handle("GET", p+"/seller/connect", httpapi.Bearer, a.connectStatus)
	rt.Handle("POST", p+"/seller/connect/refresh", httpapi.Bearer, a.connectRefresh)

	// Listings.
	rt.Handle("GET", p+"/listings/categories", httpapi.Public, a.categories)
	rt.Handle("POST", p+"/listings/photos/upload-urls", httpapi.Either, a.photoUploadURLs)
	rt.Handle("POST", p+"/agent/listings/photos/upload-urls", httpapi.Agent, a.photoUploadURLs)
	rt.HandleBinary("PUT", p+"/photos/uploads/{id}", httpapi.Public, a.uploadPhoto)
	rt.Handle("GET", p+"/photos/{id}", httpapi.Public, a.servePhoto)
	rt.Handle("GET", p+"/photos/{id}/thumbnail", httpapi.Public, a.servePhotoThumbnail)
	rt.Handle("GET", p+"/listings", httpapi.Public, a.search)
	rt.Handle("POST", p+"/listings", httpapi.Either, a.createListing)
	rt.Handle("GET", p+"/listings/{id}", httpapi.Optional, a.getListing)
	rt.Handle("PATCH", p+"/listings/{id}", httpapi.Bearer, a.updateListing)
	rt.Handle("DELETE", p+"/listings/{id}", httpapi.Bearer, a.archiveListing)
	rt.Handle("POST", p+"/listings/{id}/delete", httpapi.Bearer, a.deleteListing)
	rt.Handle("GET", p+"/listings/seller/me", httpapi.Bearer, a.myListings)
	rt.Handle("GET", p+"/profiles/{username}/listings", httpapi.Public, a.profileListings)
	rt.Handle("POST", p+"/agent/listings", httpapi.Agent, a.createListing)
	rt.Handle("GET", p+"/agent/listings/mine", httpapi.Agent, a.myListings)
	rt.Handle("GET", p+"/agent/listings/{id}/detail", httpapi.Agent, a.ownerListing)
	rt.Handle("PATCH", p+"/agent/listings/{id}", httpapi.Agent, a.updateListing)
	rt.Handle("DELETE", p+"/agent/listings/{id}", httpapi.Agent, a.archiveListing)

	// Watches.
	rt.Handle("POST", p+"/listings/{id}/watch", httpapi.Bearer, a.watch)
	rt.Handle("DELETE", p+"/listings/{id}/watch", httpapi.Bearer, a.unwatch)
	rt.Handle("GET", p+"/listings/{id}/watching", httpapi.Bearer, a.watching)
	rt.Handle("GET", p+"/listings/watching/me", httpapi.Bearer, a.watchedListings)
	rt.Handle("POST", p+"/agent/listings/{id}/watch", httpapi.Agent, a.watch)
	rt.Handle("DELETE", p+"/agent/listings/{id}/watch", httpapi.Agent, a.unwatch)
	rt.Handle("GET", p+"/agent/listings/{id}/watching", httpapi.Agent, a.watching)
	rt.Handle("GET", p+"/agent/listings/watching", httpapi.Agent, a.watchedListings)

	// Onboarding.
	rt.Handle("POST", p+"/onboarding/agent-init", httpapi.Public, a.agentInit)
	rt.Handle("GET", p+"/onboarding/status/{id}", httpapi.Public, a.onboardingStatus)
	rt.Handle("GET", p+"/onboarding/complete/{token}", httpapi.Public, a.openMagicLink)
	rt.Handle("POST", p+"/onboarding/complete/{token}", httpapi.Public, a.completeMagicLink)
	rt.Handle("POST", p+"/onboarding/human", httpapi.Public, a.humanOnboarding)

	// Purchases, approvals and orders.
	rt.HandleIdempotent("POST", p+"/agent/purchase", httpapi.Agent, a.agentPurchase)
	rt.Handle("POST", p+"/agent/purchase/fee-estimate", httpapi.Agent, a.feeEstimate)
	rt.Handle("POST", p+"/agent/purchase/check", httpapi.Agent, a.checkPurchase)
	rt.Handle("GET", p+"/agent/purchase/spending-summary", httpapi.Agent, a.spendingSummary)
	rt.HandleIdempotent("POST", p+"/purchases", httpapi.Bearer, a.humanPurchase)
	rt.HandleIdempotent("POST", p+"/purchases/confirm", httpapi.Bearer, a.confirmPurchase)
	rt.Handle("GET", p+"/purchases/buyer", httpapi.Bearer, a.myPurchases)
	rt.Handle("GET", p+"/purchases/seller", httpapi.Bearer, a.mySales)
	rt.Handle("GET", p+"/purchases/{id}", httpapi.Bearer, a.getOrder)
	rt.Handle("GET", p+"/purchases/{id}/events", httpapi.Bearer, a.orderEvents)
	rt.Handle("GET", p+"/orders/{id}", httpapi.Bearer, a.getOrder)
	rt.Handle("GET", p+"/orders/{id}/events", httpapi.Bearer, a.orderEvents)
	rt.Handle("POST", p+"/orders/{id}/shipping/rates", httpapi.Bearer, a.orderShippingRates)
	rt.Handle("GET", p+"/agent/orders", httpapi.Agent, a.listOrders)
	rt.Handle("GET", p+"/agent/orders/{id}", httpapi.Agent, a.getOrder)
	rt.Handle("GET", p+"/agent/orders/{id}/events", httpapi.Agent, a.orderEvents)
	rt.Handle("GET", p+"/approvals", httpapi.Bearer, a.listApprovals)
	rt.HandleIdempotent("POST", p+"/approvals/{id}/approve", httpapi.Bearer, a.approve)
	rt.Handle("POST", p+"/approvals/{id}/reject", httpapi.Bearer, a.reject)
	rt.Handle("GET", p+"/admin/queue", httpapi.Admin, a.adminQueue)
	rt.HandleIdempotent("POST", p+"/admin/queue/{id}/approve", httpapi.Admin, a.adminQueueApprove)
	rt.Handle("POST", p+"/admin/queue/{id}/reject", httpapi.Admin, a.adminQueueReject)
	a.registerAdminListings(rt, p)

	a.RegisterShipping(rt)
	a.RegisterShippingPrefs(rt)
	a.RegisterPayments(rt)
	a.RegisterFulfilment(rt)
	a.RegisterLabels(rt)
	a.RegisterDashboard(rt)
	a.RegisterRefunds(rt)
	a.RegisterDisputes(rt)
	a.RegisterAdminOrders(rt)
	a.RegisterMessages(rt)
	a.RegisterOffers(rt)
	a.RegisterNotifications(rt)
	a.RegisterWebhooks(rt)
	a.RegisterEvents(rt)
	a.RegisterActivity(rt)
	a.RegisterAdminUsers(rt)
	a.RegisterAdminAudit(rt)
	a.RegisterAdminConfig(rt)
	a.RegisterAdminCategories(rt)
}

func actor(r *http.Request) *httpapi.Principal { return httpapi.PrincipalOf(r) }
