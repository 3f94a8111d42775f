package apiv1

import (
	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/apidoc"
)

// This file holds Variant A's two tables: the routes it serves (Register)
// and the schemas its OpenAPI document publishes (Components). A new area
// adds its line to each, here.

// Register adds every Variant A route to rt.
func (a *API) Register(rt *httpapi.Router) {
	rt = rt.Mount(Surface)
	p := Prefix
	// Accounts.
	rt.In("accounts").Handle("POST", p+"/auth/register", httpapi.Public, a.register)
	rt.In("accounts").Handle("POST", p+"/auth/login", httpapi.Public, a.login)
	rt.In("accounts").Handle("GET", p+"/auth/check-username/{username}", httpapi.Public, a.checkUsername)
	rt.In("accounts").Handle("GET", p+"/auth/me", httpapi.Either, a.me)
	rt.In("accounts").Handle("PATCH", p+"/auth/me", httpapi.Bearer, a.updateMe)
	rt.In("shipping").Handle("PUT", p+"/auth/me/address", httpapi.Bearer, a.setShipFrom)
	rt.In("accounts").Handle("POST", p+"/auth/set-password", httpapi.Bearer, a.setPassword)
	rt.In("addresses").Handle("GET", p+"/addresses", httpapi.Bearer, a.listAddresses)
	rt.In("addresses").Handle("POST", p+"/addresses", httpapi.Bearer, a.addAddress)
	rt.In("addresses").Handle("DELETE", p+"/addresses/{id}", httpapi.Bearer, a.deleteAddress)
	rt.In("addresses").Handle("PATCH", p+"/addresses/{id}/default", httpapi.Bearer, a.defaultAddress)
	rt.In("profiles").Handle("GET", p+"/profiles/{username}", httpapi.Public, a.profile)
	a.RegisterAvatars(rt)
	a.RegisterChatLink(rt)
	a.RegisterGoogle(rt)

	// Agent keys and spending controls.
	rt.In("agent_keys").Handle("POST", p+"/agent-keys", httpapi.Bearer, a.createKey)
	rt.In("agent_keys").Handle("GET", p+"/agent-keys", httpapi.Bearer, a.listKeys)
	rt.In("agent_keys").Handle("DELETE", p+"/agent-keys/{id}", httpapi.Bearer, a.revokeKey)
	rt.In("agent_keys").Handle("PATCH", p+"/agent-keys/{id}/unfreeze", httpapi.Bearer, a.unfreezeKey)
	rt.In("agent_keys").Handle("PATCH", p+"/agent-keys/{id}/freeze", httpapi.Bearer, a.freezeKey)
	rt.In("admin").Handle("POST", p+"/admin/users/{userId}/agent-keys/{keyId}/freeze", httpapi.Admin, a.adminFreezeKey)
	rt.In("admin").Handle("POST", p+"/admin/users/{userId}/agent-keys/{keyId}/revoke", httpapi.Admin, a.adminRevokeKey)
	rt.In("spending_controls").Handle("GET", p+"/spending-controls", httpapi.Either, a.getSpending)
	rt.In("spending_controls").Handle("PUT", p+"/spending-controls", httpapi.Bearer, a.putSpending)

	// Payout account (identity verification).
	rt.In("identity_verification", "payouts").Handle("POST", p+"/seller/connect", httpapi.Bearer, a.connect)
	rt.In("identity_verification", "payouts").Handle("GET", p+"/seller/connect", httpapi.Bearer, a.connectStatus)
	rt.In("identity_verification", "payouts").Handle("POST", p+"/seller/connect/refresh", httpapi.Bearer, a.connectRefresh)

	// Listings.
	rt.In("categories").Handle("GET", p+"/listings/categories", httpapi.Public, a.categories)
	rt.In("photos").Scope(agents.OpSell).Handle("POST", p+"/listings/photos/upload-urls", httpapi.Either, a.photoUploadURLs)
	rt.In("photos").Scope(agents.OpSell).Handle("POST", p+"/agent/listings/photos/upload-urls", httpapi.Agent, a.photoUploadURLs)
	rt.In("photos").HandleBinary("PUT", p+"/photos/uploads/{id}", httpapi.Public, a.uploadPhoto)
	rt.In("photos").Handle("GET", p+"/photos/{id}", httpapi.Public, a.servePhoto)
	rt.In("photos").Handle("GET", p+"/photos/{id}/thumbnail", httpapi.Public, a.servePhotoThumbnail)
	rt.In("listings").Handle("GET", p+"/listings", httpapi.Public, a.search)
	rt.In("listings").Scope(agents.OpSell).Handle("POST", p+"/listings", httpapi.Either, a.createListing)
	rt.In("listings").Handle("GET", p+"/listings/{id}", httpapi.Optional, a.getListing)
	rt.In("listings").Scope(agents.OpSell).Handle("PATCH", p+"/listings/{id}", httpapi.Bearer, a.updateListing)
	rt.In("listings").Scope(agents.OpSell).Handle("DELETE", p+"/listings/{id}", httpapi.Bearer, a.archiveListing)
	rt.In("listings").Scope(agents.OpSell).Handle("POST", p+"/listings/{id}/delete", httpapi.Bearer, a.deleteListing)
	rt.In("listings").Scope(agents.OpSell).Handle("GET", p+"/listings/seller/me", httpapi.Bearer, a.myListings)
	rt.In("profiles").Handle("GET", p+"/profiles/{username}/listings", httpapi.Public, a.profileListings)
	rt.In("listings").Scope(agents.OpSell).Handle("POST", p+"/agent/listings", httpapi.Agent, a.createListing)
	rt.In("listings").Scope(agents.OpSell).Handle("GET", p+"/agent/listings/mine", httpapi.Agent, a.myListings)
	rt.In("listings").Handle("GET", p+"/agent/listings/{id}/detail", httpapi.Agent, a.ownerListing)
	rt.In("listings").Scope(agents.OpSell).Handle("PATCH", p+"/agent/listings/{id}", httpapi.Agent, a.updateListing)
	rt.In("listings").Scope(agents.OpSell).Handle("DELETE", p+"/agent/listings/{id}", httpapi.Agent, a.archiveListing)

	// Watches.
	rt.In("watchlist").Scope(agents.OpBuy).Handle("POST", p+"/listings/{id}/watch", httpapi.Bearer, a.watch)
	rt.In("watchlist").Scope(agents.OpBuy).Handle("DELETE", p+"/listings/{id}/watch", httpapi.Bearer, a.unwatch)
	rt.In("watchlist").Scope(agents.OpBuy).Handle("GET", p+"/listings/{id}/watching", httpapi.Bearer, a.watching)
	rt.In("watchlist").Scope(agents.OpBuy).Handle("GET", p+"/listings/watching/me", httpapi.Bearer, a.watchedListings)
	rt.In("watchlist").Scope(agents.OpBuy).Handle("POST", p+"/agent/listings/{id}/watch", httpapi.Agent, a.watch)
	rt.In("watchlist").Scope(agents.OpBuy).Handle("DELETE", p+"/agent/listings/{id}/watch", httpapi.Agent, a.unwatch)
	rt.In("watchlist").Scope(agents.OpBuy).Handle("GET", p+"/agent/listings/{id}/watching", httpapi.Agent, a.watching)
	rt.In("watchlist").Scope(agents.OpBuy).Handle("GET", p+"/agent/listings/watching", httpapi.Agent, a.watchedListings)

	// Onboarding.
	rt.In("agent_onboarding").Handle("POST", p+"/onboarding/agent-init", httpapi.Public, a.agentInit)
	rt.In("agent_onboarding").Handle("GET", p+"/onboarding/status/{id}", httpapi.Public, a.onboardingStatus)
	rt.In("agent_onboarding").Handle("GET", p+"/onboarding/complete/{token}", httpapi.Public, a.openMagicLink)
	rt.In("agent_onboarding").Handle("POST", p+"/onboarding/complete/{token}", httpapi.Public, a.completeMagicLink)
	rt.In("accounts").Handle("POST", p+"/onboarding/human", httpapi.Public, a.humanOnboarding)

	// Purchases, approvals and orders.
	rt.In("purchases").Scope(agents.OpBuy).HandleIdempotent("POST", p+"/agent/purchase", httpapi.Agent, a.agentPurchase)
	rt.In("purchases").Handle("POST", p+"/agent/purchase/fee-estimate", httpapi.Agent, a.feeEstimate)
	rt.In("purchases").Scope(agents.OpBuy).Handle("POST", p+"/agent/purchase/check", httpapi.Agent, a.checkPurchase)
	rt.In("spending_controls").Handle("GET", p+"/agent/purchase/spending-summary", httpapi.Agent, a.spendingSummary)
	rt.In("purchases").HandleIdempotent("POST", p+"/purchases", httpapi.Bearer, a.humanPurchase)
	rt.In("purchases").HandleIdempotent("POST", p+"/purchases/confirm", httpapi.Bearer, a.confirmPurchase)
	rt.In("purchases").Handle("GET", p+"/purchases/buyer", httpapi.Bearer, a.myPurchases)
	rt.In("purchases").Handle("GET", p+"/purchases/seller", httpapi.Bearer, a.mySales)
	rt.In("purchases").Handle("GET", p+"/purchases/{id}", httpapi.Bearer, a.getOrder)
	rt.In("purchases").Handle("GET", p+"/purchases/{id}/events", httpapi.Bearer, a.orderEvents)
	rt.In("orders").Handle("GET", p+"/orders/{id}", httpapi.Bearer, a.getOrder)
	rt.In("orders").Handle("GET", p+"/orders/{id}/events", httpapi.Bearer, a.orderEvents)
	rt.In("shipping").Handle("POST", p+"/orders/{id}/shipping/rates", httpapi.Bearer, a.orderShippingRates)
	rt.In("orders").Handle("GET", p+"/agent/orders", httpapi.Agent, a.listOrders)
	rt.In("orders").Handle("GET", p+"/agent/orders/{id}", httpapi.Agent, a.getOrder)
	rt.In("orders").Handle("GET", p+"/agent/orders/{id}/events", httpapi.Agent, a.orderEvents)
	rt.In("approvals").Handle("GET", p+"/approvals", httpapi.Bearer, a.listApprovals)
	rt.In("approvals").HandleIdempotent("POST", p+"/approvals/{id}/approve", httpapi.Bearer, a.approve)
	rt.In("approvals").Handle("POST", p+"/approvals/{id}/reject", httpapi.Bearer, a.reject)
	rt.In("admin").Handle("GET", p+"/admin/queue", httpapi.Admin, a.adminQueue)
	rt.In("admin").HandleIdempotent("POST", p+"/admin/queue/{id}/approve", httpapi.Admin, a.adminQueueApprove)
	rt.In("admin").Handle("POST", p+"/admin/queue/{id}/reject", httpapi.Admin, a.adminQueueReject)
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
	a.RegisterAdminPlatforms(rt)
}

// The bodies of idempotent routes as published: the router reads the key
// fields (httpapi.IdempotencyKeyBody) before the handler decodes its own.
type (
	purchaseRequest struct {
		purchaseBody
		httpapi.IdempotencyKeyBody
	}
	confirmRequest struct {
		confirmBody
		httpapi.IdempotencyKeyBody
	}
	requestRefundRequest struct {
		requestRefundBody
		httpapi.IdempotencyKeyBody
	}
	respondRefundRequest struct {
		respondRefundBody
		httpapi.IdempotencyKeyBody
	}
)

// purchaseDoc is what the purchase bodies (agent, human, fee estimate) share.
const purchaseDoc = `Give 'shippingAddress' or 'shippingAddressId', not both;
with neither, the buyer's default saved address is used, and none is needed for
'fulfillmentType: local_pickup'.`

// Components are the schemas of the Variant A document made from this
// package's wire types, with the envelopes that carry them.
func Components() []apidoc.Component {
	return []apidoc.Component{
		// Accounts
		{Name: "RegisterInput", Of: registerBody{}, Request: true},
		{Name: "LoginInput", Of: loginBody{}, Request: true},
		{Name: "UpdateMeInput", Of: updateMeBody{}, Request: true},
		{Name: "SetPasswordInput", Of: setPasswordBody{}, Request: true},
		{Name: "User", Of: api.User{}},
		{Name: "Profile", Of: api.Profile{}},
		{Name: "AuthResult", Of: authResult{}},
		{Name: "GoogleStarted", Of: googleStarted{}},
		{Name: "UsernameCheck", Of: usernameCheck{}},
		{Name: "PasswordSet", Of: passwordSet{}},
		{Name: "Deleted", Of: deleted{}},
		{Name: "Address", Of: api.Address{}, Doc: "A saved shipping address.", Fields: map[string]string{
			"id": `required:"true"`, "isDefault": `required:"true"`, "createdAt": `required:"true"`,
		}},
		{Name: "OrderShippingAddress", Of: api.OrderAddress{}, Doc: "Where the order ships; 'id', 'isDefault' and 'createdAt' appear when it was a saved address."},
		{Name: "ShipFromAddress", Of: api.Address{}, Doc: "The seller's ship-from address."},
		{Name: "AddressInput", Of: addressInput{}, Request: true, Doc: `A postal address. Strings are trimmed. 'country' defaults to US and is upper-cased;
for US addresses 'state' must be a US state code (upper-cased) and 'zip' 12345 or
12345-6789; elsewhere 'zip' is 1 to 16 characters and 'state' at most 100.`},
		apidoc.Envelope("UserEnvelope", api.User{}, "Meta"),
		apidoc.Envelope("MeEnvelope", apidoc.OneOf{api.User{}, api.AgentMe{}}, "Meta"),
		apidoc.Envelope("ProfileEnvelope", api.Profile{}, "Meta"),
		apidoc.Envelope("AuthResultEnvelope", authResult{}, "Meta"),
		apidoc.Envelope("GoogleStartedEnvelope", googleStarted{}, "Meta"),
		apidoc.Envelope("UsernameCheckEnvelope", usernameCheck{}, "Meta"),
		apidoc.Envelope("PasswordSetEnvelope", passwordSet{}, "Meta"),
		apidoc.Envelope("DeletedEnvelope", deleted{}, "Meta"),
		apidoc.Envelope("AddressEnvelope", api.Address{}, "Meta"),
		apidoc.Envelope("AddressListEnvelope", []api.Address{}, "ListMeta"),

		// Agent keys and spending
		{Name: "AgentKey", Of: api.AgentKey{}},
		{Name: "NewAgentKey", Of: api.AgentKey{}, Doc: "A new key with its secret (shown once).", Fields: map[string]string{
			"key": `required:"true" pattern:"^mk_(test|live)_[A-Za-z0-9_-]{43}$" doc:"The secret; send it as 'X-Agent-Key'."`,
		}},
		{Name: "CreateAgentKeyInput", Of: createKeyBody{}, Request: true},
		{Name: "FreezeAgentKeyInput", Of: freezeKeyBody{}, Request: true},
		{Name: "KeyLimits", Of: api.KeyLimits{}, Doc: "A key's own caps in cents; null means no cap at this level."},
		{Name: "KeyLimitsInput", Of: api.KeyLimits{}, Request: true, Doc: "A key's own caps in cents (0 to 1000000000); absent or null means no cap.",
			Fields: apidoc.Each(`ref:"NullableCents" nullable:"false"`, "perTransactionLimit", "dailyLimit", "weeklyLimit", "monthlyLimit")},
		{Name: "AgentMe", Of: api.AgentMe{}, Doc: "'GET /auth/me' with an agent key."},
		{Name: "Controls", Of: api.Controls{}, Doc: "The owner's controls, in cents. Defaults 10000 / 50000 / 200000 / 500000, no restrictions, no threshold."},
		{Name: "Spent", Of: api.Spent{}},
		{Name: "Remaining", Of: api.Remaining{}},
		{Name: "SpendingStatus", Of: api.SpendingStatus{}},
		{Name: "UpdateSpendingControlsInput", Of: putSpendingBody{}, Request: true},
		apidoc.Envelope("AgentKeyEnvelope", api.AgentKey{}, "Meta"),
		apidoc.Envelope("NewAgentKeyEnvelope", "NewAgentKey", "Meta"),
		apidoc.Envelope("AgentKeyListEnvelope", []api.AgentKey{}, "ListMeta"),
		apidoc.Envelope("SpendingStatusEnvelope", api.SpendingStatus{}, "Meta"),

		// Payouts
		{Name: "PayoutAccount", Of: api.PayoutAccount{}},
		{Name: "ConnectInput", Of: connectBody{}, Request: true},
		{Name: "PayoutDashboardLink", Of: connectDashboard{}},
		{Name: "PayoutSendLinkInput", Of: sendLinkBody{}, Request: true},
		{Name: "PayoutLinkSent", Of: linkSent{}},
		apidoc.Envelope("PayoutAccountEnvelope", api.PayoutAccount{}, "Meta"),
		apidoc.Envelope("PayoutDashboardLinkEnvelope", connectDashboard{}, "Meta"),
		apidoc.Envelope("PayoutLinkSentEnvelope", linkSent{}, "Meta"),

		// Chat link and avatars
		{Name: "DiscordLink", Of: api.ChatLink{}, Doc: "The chat account linked to a user (CONTRACT section 17)."},
		{Name: "DiscordCodeInput", Of: discordCodeBody{}, Request: true, Doc: "The chat account the chat bot asks a code for."},
		{Name: "DiscordCode", Of: discordCode{}, Doc: "A one-time chat-link code: single use, 15 minutes."},
		{Name: "VerifyDiscordInput", Of: verifyDiscordBody{}, Request: true},
		{Name: "AvatarUploadInput", Of: avatarUploadInput{}, Request: true},
		{Name: "AvatarUploadUrl", Of: avatarUploadURL{}, Doc: "A signed, single-use upload URL for an avatar, and the URL the avatar will have."},
		{Name: "UploadedAvatar", Of: uploadedAvatar{}, Doc: "The stored avatar: a 256-pixel square."},
		apidoc.Envelope("DiscordLinkEnvelope", api.ChatLink{}, "Meta"),
		apidoc.Envelope("DiscordCodeEnvelope", discordCode{}, "Meta"),
		apidoc.Envelope("AvatarUploadUrlEnvelope", avatarUploadURL{}, "Meta"),
		apidoc.Envelope("UploadedAvatarEnvelope", uploadedAvatar{}, "Meta"),

		// Listings, categories, photos, watches
		{Name: "Listing", Of: api.Listing{}, Doc: `A listing. While 'pending_ai' the generated fields are still empty (title and
description '""', price 0 unless the seller gave one, null condition and category).
The seller's view adds 'floorPrice' and 'costBasis' (see 'OwnListing').`},
		{Name: "OwnListing", Of: api.OwnListing{}, Doc: "The seller's view of a listing, with the owner-only fields."},
		{Name: "ListingSeller", Of: api.ListingSeller{}},
		{Name: "CreateListingInput", Of: listingInput{}, Request: true, Fields: map[string]string{
			"photoUrls":   `required:"true" doc:"Photo URLs uploaded here by the caller (for an agent, its owner), in display order, none repeated."`,
			"description": `required:"true" maxLength:"2000" doc:"The brief the AI step works from, 1 to 2000 characters (trimmed)."`,
			"title":       `doc:"1 to 80 characters (trimmed); generated when absent."`,
			"brand":       `doc:"At most 60 characters; generated when absent."`,
			"price":       `nullable:"true" doc:"Cents; absent or null for the AI estimate."`,
			"categoryId":  `doc:"A category id; chosen by the AI step when absent."`,
		}},
		{Name: "UpdateListingInput", Of: listingInput{}, Request: true, Doc: "Only the fields present change; null clears the nullable ones.", Fields: map[string]string{
			"photoUrls":   `doc:"Replaces the photos; uploaded by the seller, none repeated."`,
			"description": `maxLength:"5000" doc:"The full description, 1 to 5000 characters (trimmed)."`,
			"title":       `doc:"1 to 80 characters (trimmed)."`,
			"brand":       `doc:"At most 60 characters; null or empty clears it."`,
			"price":       `doc:"Cents; makes 'priceSource' 'seller'."`,
		}},
		{Name: "Dimensions", Of: api.Dimensions{}, Doc: "Package size in inches."},
		{Name: "ListingDimensionsInput", Of: api.Dimensions{}, Request: true, Doc: "Package size in inches; each side above 0 and at most 108.",
			Fields: apidoc.Each(`minimum:"0" exclusiveMinimum:"true" maximum:"108" required:"true"`, "l", "w", "h")},
		{Name: "Category", Of: api.Category{}},
		{Name: "PhotoUploadUrlsInput", Of: uploadURLsInput{}, Request: true},
		{Name: "PhotoUploadSlot", Of: uploadSlot{}},
		{Name: "UploadedPhoto", Of: uploadedPhoto{}},
		{Name: "WatchState", Of: api.WatchState{}},
		apidoc.Envelope("ListingEnvelope", api.Listing{}, "Meta"),
		apidoc.Envelope("OwnListingEnvelope", api.OwnListing{}, "Meta"),
		apidoc.Envelope("ListingPageEnvelope", []api.Listing{}, "PageMeta"),
		apidoc.Envelope("OwnListingPageEnvelope", []api.OwnListing{}, "PageMeta"),
		apidoc.Envelope("ListingSearchEnvelope", []api.Listing{}, "SearchMeta"),
		apidoc.Envelope("CategoryTreeEnvelope", []api.Category{}, "ListMeta"),
		{Name: "AdminCategory", Of: adminCategory{}, Doc: "A category as admins see it, inactive ones included."},
		{Name: "AdminCreateCategoryInput", Of: adminCreateCategoryBody{}, Request: true},
		{Name: "AdminUpdateCategoryInput", Of: adminUpdateCategoryBody{}, Request: true, Doc: "Give 'name', 'active' or both."},
		apidoc.Envelope("AdminCategoryEnvelope", adminCategory{}, "Meta"),
		apidoc.Envelope("AdminCategoryPageEnvelope", []adminCategory{}, "PageMeta"),
		{Name: "AcpPlatform", Of: acpPlatform{}, Doc: "An agent platform connected for ACP (its secrets are shown only when it is created)."},
		{Name: "AcpPlatformCreated", Of: acpPlatformCreated{}, Doc: "A new agent platform with its secret and signing secret, shown this once."},
		{Name: "AdminCreateAcpPlatformInput", Of: adminCreatePlatformBody{}, Request: true},
		apidoc.Envelope("AcpPlatformEnvelope", acpPlatform{}, "Meta"),
		apidoc.Envelope("AcpPlatformCreatedEnvelope", acpPlatformCreated{}, "Meta"),
		apidoc.Envelope("AcpPlatformListEnvelope", []acpPlatform{}, "Meta"),
		apidoc.Envelope("PhotoUploadSlotsEnvelope", uploadSlots{}, "Meta"),
		apidoc.Envelope("UploadedPhotoEnvelope", uploadedPhoto{}, "Meta"),
		apidoc.Envelope("WatchStateEnvelope", api.WatchState{}, "Meta"),

		// Onboarding
		{Name: "AgentInitInput", Of: agentInitBody{}, Request: true, Doc: "Each field may be spelled camelCase or snake_case; one of 'ownerEmail' and 'owner_email' is required.",
			Extra: map[string]any{"anyOf": apidoc.AnyRequired("ownerEmail", "owner_email")}},
		{Name: "OnboardingInit", Of: api.OnboardingStarted{}},
		{Name: "OnboardingStatus", Of: api.OnboardingStatus{}},
		{Name: "MagicLinkView", Of: magicResponse{}},
		{Name: "Prefilled", Of: prefilled{}},
		{Name: "CompleteOnboardingInput", Of: completeBody{}, Request: true},
		{Name: "OnboardingCompleted", Of: completeResponse{}},
		{Name: "HumanOnboardingInput", Of: humanBody{}, Request: true},
		{Name: "HumanOnboarding", Of: humanResponse{}},
		apidoc.Envelope("OnboardingInitEnvelope", api.OnboardingStarted{}, "Meta"),
		apidoc.Envelope("OnboardingStatusEnvelope", api.OnboardingStatus{}, "Meta"),
		apidoc.Envelope("MagicLinkEnvelope", magicResponse{}, "Meta"),
		apidoc.Envelope("OnboardingCompletedEnvelope", completeResponse{}, "Meta"),
		apidoc.Envelope("HumanOnboardingEnvelope", humanResponse{}, "Meta"),

		// Purchases and orders
		{Name: "AgentPurchaseInput", Of: purchaseRequest{}, Request: true, Doc: "The purchase body; 'listingId' and 'maxPrice' are required. " + purchaseDoc,
			Fields: map[string]string{"listingId": `required:"true"`, "maxPrice": `required:"true"`}},
		{Name: "HumanPurchaseInput", Of: purchaseRequest{}, Request: true, Doc: "The purchase body; 'listingId' is required, 'maxPrice' optional, 'paymentMethodId' ignored (the buyer pays on the page). " + purchaseDoc,
			Fields: map[string]string{"listingId": `required:"true"`}},
		{Name: "PurchaseFeeEstimateInput", Of: purchaseBody{}, Request: true, Doc: "The purchase body ('listingId' required), plus 'buyerZip'; idempotency fields are ignored here. " + purchaseDoc,
			Fields: map[string]string{"listingId": `required:"true"`}},
		{Name: "PurchaseCheckInput", Of: purchaseBody{}, Request: true, Doc: "The purchase body ('listingId' and 'maxPrice' required, as for the purchase); no idempotency key. " + purchaseDoc,
			Fields: map[string]string{"listingId": `required:"true"`, "maxPrice": `required:"true"`,
				"buyerZip": `doc:"Ignored here: the dry run resolves shipping as the purchase does."`}},
		{Name: "PurchaseCheck", Of: api.PurchaseCheck{}, Doc: "What the purchase would do now: its refusal, if any, what it would charge, what is left of the caps, and what would unblock it."},
		{Name: "PurchaseConfirmInput", Of: confirmRequest{}, Request: true},
		{Name: "PurchaseIdempotencyKeyInput", Of: httpapi.IdempotencyKeyBody{}, Request: true, Doc: "Optional; carries only the idempotency key."},
		{Name: "PurchaseCheckout", Of: checkout{}},
		{Name: "PurchaseFeeEstimate", Of: api.FeeEstimate{}, Doc: "What the purchase would charge; the figures appear both in 'fees' and at the top level."},
		{Name: "Order", Of: api.Order{}},
		{Name: "OrderListing", Of: api.OrderListing{}},
		{Name: "OrderFees", Of: api.OrderFees{}, Doc: "Cents. 'totalCharged = itemPrice + serviceFee + shippingCost', always."},
		{Name: "OrderShipping", Of: api.OrderShipping{}, Doc: "The carrier rate chosen at purchase (calculated shipping)."},
		{Name: "OrderEvent", Of: api.TimelineEvent{}},
		{Name: "OrderApproval", Of: approval{}},
		{Name: "ApprovalRejectInput", Of: rejectBody{}, Request: true},
		{Name: "OrderShippingRatesInput", Of: orderRatesBody{}, Request: true},
		apidoc.Envelope("PurchaseCheckoutEnvelope", checkout{}, "Meta"),
		apidoc.Envelope("PurchaseFeeEstimateEnvelope", api.FeeEstimate{}, "Meta"),
		apidoc.Envelope("PurchaseCheckEnvelope", api.PurchaseCheck{}, "Meta"),
		apidoc.Envelope("OrderEnvelope", api.Order{}, "Meta"),
		apidoc.Envelope("OrderPageEnvelope", []api.Order{}, "PageMeta"),
		apidoc.Envelope("OrderEventListEnvelope", []api.TimelineEvent{}, "Meta"),
		apidoc.Envelope("OrderApprovalPageEnvelope", []approval{}, "PageMeta"),
		{Name: "QueueItem", Of: queueItem{}, Doc: "An admin queue item: a purchase approval or a listing review."},
		apidoc.Envelope("QueueItemPageEnvelope", []queueItem{}, "PageMeta"),

		// Payment methods
		{Name: "PaymentMethod", Of: api.PaymentMethod{}},
		{Name: "PaymentSetupIntent", Of: setupIntent{}},
		{Name: "PaymentMethodConfirmInput", Of: confirmSetupBody{}, Request: true},
		{Name: "SellerCardStatus", Of: cardStatus{}},
		apidoc.Envelope("PaymentMethodEnvelope", api.PaymentMethod{}, "Meta"),
		apidoc.Envelope("PaymentMethodListEnvelope", []api.PaymentMethod{}, "ListMeta"),
		apidoc.Envelope("PaymentSetupIntentEnvelope", setupIntent{}, "Meta"),
		apidoc.Envelope("SellerCardStatusEnvelope", cardStatus{}, "Meta"),

		// Fulfilment and labels
		{Name: "FulfilShipInput", Of: shipBody{}, Request: true},
		{Name: "FulfilCancelInput", Of: reasonBody{}, Request: true},
		{Name: "FulfilForceCancelInput", Of: reasonBody{}, Request: true},
		{Name: "FulfilHoldInput", Of: holdBody{}, Request: true, Doc: "Exactly one of 'payoutDueAt' and 'holdHours'; a null counts as absent.",
			// Each alternative types its field, so a null does not count as present.
			Extra: map[string]any{"oneOf": []any{
				apidoc.Schema{"required": []string{"payoutDueAt"}, "properties": apidoc.Schema{"payoutDueAt": apidoc.Schema{"type": "string"}}},
				apidoc.Schema{"required": []string{"holdHours"}, "properties": apidoc.Schema{"holdHours": apidoc.Schema{"type": "integer"}}},
			}}},
		{Name: "FulfilShipment", Of: api.Shipment{}},
		{Name: "LabelInput", Of: labelBody{}, Request: true, Doc: "Narrows the rate; the cheapest matching one is bought, the seller's preferred one first."},
		{Name: "Label", Of: api.Label{}},
		apidoc.Envelope("FulfilShipmentEnvelope", api.Shipment{}, "Meta"),
		apidoc.Envelope("LabelEnvelope", api.Label{}, "Meta"),

		// Shipping
		{Name: "ShippingRatesInput", Of: shippingQuoteBody{}, Request: true, Doc: "'listingId' (or 'listing_id') and 'buyerZip' (or 'buyer_zip', or 'zip') are required.",
			Extra: map[string]any{"allOf": []any{
				apidoc.Schema{"anyOf": apidoc.AnyRequired("listingId", "listing_id")},
				apidoc.Schema{"anyOf": apidoc.AnyRequired("buyerZip", "buyer_zip", "zip")},
			}}},
		{Name: "ShippingEstimateInput", Of: shippingQuoteBody{}, Request: true, Doc: "'buyerZip' (or 'buyer_zip', or 'zip') is required.",
			Extra:  map[string]any{"anyOf": apidoc.AnyRequired("buyerZip", "buyer_zip", "zip")},
			Fields: apidoc.Each(`doc:"Ignored: the path names the listing."`, "listingId", "listing_id")},
		{Name: "ShippingPrefs", Of: shippingPrefs{}, Doc: "A seller's shipping preferences; see 'PUT /auth/me/shipping-prefs'."},
		{Name: "ShippingPackageDefaults", Of: packageDefaults{}, Doc: "The seller's usual parcel."},
		{Name: "ShippingPrefsInput", Of: shippingPrefsBody{}, Request: true, Doc: "Every field is optional; those left out keep their value."},
		apidoc.Envelope("ShippingPrefsEnvelope", shippingPrefs{}, "Meta"),
		// Notification preferences
		{Name: "NotificationPrefs", Of: notificationPrefs{}, Closed: true, Doc: "A user's notification preferences: per category, per channel; see 'PUT /auth/me/notification-prefs'."},
		{Name: "NotificationPrefsInput", Of: notificationPrefsBody{}, Request: true, Closed: true, Doc: "The categories and channels to change; those left out keep their value."},
		apidoc.Envelope("NotificationPrefsEnvelope", notificationPrefs{}, "Meta"),
		apidoc.Envelope("ShippingQuoteEnvelope", httpapi.ShippingQuote{}, "Meta"),

		// Refunds and disputes
		{Name: "Refund", Of: api.Refund{}},
		{Name: "RefundResult", Of: refundResult{}},
		{Name: "RequestRefundInput", Of: requestRefundRequest{}, Request: true},
		{Name: "RespondRefundInput", Of: respondRefundRequest{}, Request: true, Doc: "Every field is optional; a null counts as absent."},
		{Name: "AuditEntry", Of: auditEntry{}},
		apidoc.Envelope("AuditEntryPageEnvelope", []auditEntry{}, "PageMeta"),
		{Name: "ConfigEntry", Of: configEntry{}},
		{Name: "ConfigInput", Of: configBody{}, Request: true},
		{Name: "FeatureFlag", Of: featureFlag{}},
		{Name: "FeatureFlagInput", Of: flagBody{}, Request: true},
		apidoc.Envelope("ConfigEntryEnvelope", configEntry{}, "Meta"),
		apidoc.Envelope("ConfigEntryListEnvelope", []configEntry{}, "Meta"),
		apidoc.Envelope("FeatureFlagEnvelope", featureFlag{}, "Meta"),
		apidoc.Envelope("FeatureFlagListEnvelope", []featureFlag{}, "Meta"),
		{Name: "Dispute", Of: api.Dispute{}},
		{Name: "DisputeDetail", Of: disputeDetail{}},
		{Name: "DisputePayout", Of: disputePayout{}},
		{Name: "CreateDisputeInput", Of: openDisputeBody{}, Request: true},
		{Name: "DisputeRespondInput", Of: respondBody{}, Request: true},
		{Name: "DisputeResolveInput", Of: resolveBody{}, Request: true},
		{Name: "AdminListingPatchInput", Of: adminListingPatch{}, Request: true, Doc: "Every field is optional."},
		{Name: "ModerationReasonInput", Of: moderationReason{}, Request: true},
		{Name: "ModerationRejection", Of: moderationRejection{}},
		{Name: "RejectionOverride", Of: rejectionOverride{}},
		apidoc.Envelope("ModerationRejectionPageEnvelope", []moderationRejection{}, "PageMeta"),
		apidoc.Envelope("RejectionOverrideEnvelope", rejectionOverride{}, "Meta"),
		apidoc.Envelope("RefundEnvelope", api.Refund{}, "Meta"),
		apidoc.Envelope("RefundListEnvelope", []api.Refund{}, "Meta"),
		apidoc.Envelope("RefundResultEnvelope", refundResult{}, "Meta"),
		apidoc.Envelope("DisputeEnvelope", api.Dispute{}, "Meta"),
		apidoc.Envelope("DisputePageEnvelope", []api.Dispute{}, "PageMeta"),
		apidoc.Envelope("DisputeDetailEnvelope", disputeDetail{}, "Meta"),
		// Admin orders, finance and metrics
		{Name: "AdminOrderDetail", Of: adminOrderDetail{}},
		{Name: "AdminShipment", Of: adminShipment{}},
		{Name: "AdminOrderAuthorization", Of: adminOrderAuthorization{}},
		{Name: "AdminOrderKey", Of: adminOrderKey{}},
		{Name: "AdminOrderApproval", Of: adminOrderApproval{}},
		apidoc.Envelope("AdminOrderDetailEnvelope", adminOrderDetail{}, "Meta"),
		{Name: "FinanceSummary", Of: financeSummary{}},
		apidoc.Envelope("FinanceSummaryEnvelope", financeSummary{}, "Meta"),
		{Name: "MetricsActivity", Of: metricsActivity{}},
		{Name: "MetricsActionItems", Of: metricsActionItems{}},
		{Name: "MetricsOverview", Of: metricsOverview{}},
		{Name: "ChannelFigures", Of: channelFigures{}},
		{Name: "AgentVsHuman", Of: agentVsHuman{}},
		apidoc.Envelope("MetricsOverviewEnvelope", metricsOverview{}, "Meta"),
		apidoc.Envelope("AgentVsHumanEnvelope", agentVsHuman{}, "Meta"),

		// Messages
		{Name: "Message", Of: api.Message{}, Doc: "A message in a thread."},
		{Name: "Thread", Of: api.Thread{}, Doc: "A buyer's thread with the seller of one listing, as the caller sees it."},
		{Name: "UnreadCount", Of: api.UnreadCount{}},
		{Name: "SendMessageInput", Of: sendMessageBody{}, Request: true},
		{Name: "ReplyMessageInput", Of: replyMessageBody{}, Request: true},
		apidoc.Envelope("MessageEnvelope", api.Message{}, "Meta"),
		apidoc.Envelope("MessageListEnvelope", []api.Message{}, "Meta"),
		apidoc.Envelope("ThreadPageEnvelope", []api.Thread{}, "ThreadPageMeta"),
		apidoc.Envelope("UnreadCountEnvelope", api.UnreadCount{}, "Meta"),
		// Webhooks
		{Name: "Webhook", Of: api.Webhook{}, Doc: "The account's webhook endpoint."},
		{Name: "WebhookInput", Of: putWebhookBody{}, Request: true},
		{Name: "WebhookDelivery", Of: api.WebhookDelivery{}, Doc: "One event sent to the endpoint, with every attempt."},
		{Name: "WebhookAttempt", Of: api.WebhookAttempt{}},
		{Name: "WebhookEvent", Of: api.WebhookEvent{}, Doc: api.WebhookEventDoc},
		apidoc.Envelope("WebhookEnvelope", api.Webhook{}, "Meta"),
		apidoc.Envelope("WebhookTestEnvelope", webhookTest{}, "Meta"),
		apidoc.Envelope("WebhookDeliveryEnvelope", api.WebhookDelivery{}, "Meta"),
		apidoc.Envelope("WebhookDeliveryListEnvelope", []api.WebhookDelivery{}, "Meta"),
		// Offers
		{Name: "Offer", Of: api.Offer{}},
		{Name: "OfferRound", Of: api.OfferRound{}},
		{Name: "CreateOfferInput", Of: createOfferBody{}, Request: true},
		{Name: "CounterOfferInput", Of: counterOfferBody{}, Request: true},
		{Name: "AnswerOfferInput", Of: answerOfferBody{}, Request: true, Doc: "The body may be left out."},
		apidoc.Envelope("OfferEnvelope", api.Offer{}, "Meta"),
		apidoc.Envelope("OfferPageEnvelope", []api.Offer{}, "PageMeta"),

		// Seller dashboard
		{Name: "SellerDashboard", Of: dashboardOut{}, Closed: true},
		apidoc.Envelope("SellerDashboardEnvelope", dashboardOut{}, "Meta"),

		// Event feed
		{Name: "FeedEvent", Of: api.FeedEvent{}, Doc: "An event of the caller's feed (CONTRACT section 12)."},
		apidoc.Envelope("FeedEventListEnvelope", []api.FeedEvent{}, "FeedMeta"),
		{Name: "PendingAction", Of: pendingAction{}, Doc: "Something waiting for the caller; 'orderId' or 'offerId' names it."},
		{Name: "Activity", Of: activitySummary{}, Doc: "What needs the caller now, and their latest events."},
		apidoc.Envelope("ActivityEnvelope", activitySummary{}, "Meta"),

		// Admin: users
		{Name: "AdminUserDetail", Of: adminUserDetail{}},
		{Name: "AdminProcessor", Of: adminProcessor{}},
		{Name: "AdminPayoutAccount", Of: adminPayoutAccount{}},
		{Name: "AdminUpdateUserInput", Of: adminUpdateUserBody{}, Request: true, Doc: "Every field is optional; those left out keep their value."},
		{Name: "AdminReasonInput", Of: adminReasonBody{}, Request: true},
		apidoc.Envelope("UserPageEnvelope", []api.User{}, "PageMeta"),
		apidoc.Envelope("AdminUserDetailEnvelope", adminUserDetail{}, "Meta"),
	}
}
