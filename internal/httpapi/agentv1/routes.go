package agentv1

import (
	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/apidoc"
)

// This file holds Variant B's two tables: the routes it serves (Register)
// and the schemas its OpenAPI document publishes (Components). A new area
// adds its line to each, here.

// Register adds every Variant B route to rt.
func (a *API) Register(rt *httpapi.Router) {
	rt = rt.Mount(Surface)
	p := Prefix
	rt.In("agent_keys").Handle("POST", p+"/auth/keys", httpapi.Bearer, a.createKey)
	rt.In("accounts").Handle("GET", p+"/auth/whoami", httpapi.Agent, a.whoami)
	rt.In("agent_keys").Handle("DELETE", p+"/auth/keys/{id}", httpapi.Bearer, a.revokeKey)
	rt.In("accounts").Handle("GET", p+"/account", httpapi.Either, a.account)
	rt.In("spending_controls").Handle("GET", p+"/account/spending", httpapi.Either, a.spending)
	rt.In("addresses").Handle("GET", p+"/account/addresses", httpapi.Either, a.addresses)
	rt.In("categories").Handle("GET", p+"/categories", httpapi.Either, a.categories)
	rt.In("search").Handle("GET", p+"/search", httpapi.Either, a.search)
	rt.In("search").Handle("GET", p+"/search/similar/{id}", httpapi.Either, a.similar)
	rt.In("search").Handle("GET", p+"/search/price-check", httpapi.Either, a.priceCheck)
	rt.In("listings").Scope(agents.OpSell).Handle("POST", p+"/listings", httpapi.Either, a.createListing)
	rt.In("listings").Scope(agents.OpSell).Handle("GET", p+"/listings/mine", httpapi.Either, a.myListings)
	rt.In("listings").Handle("GET", p+"/listings/{id}", httpapi.Either, a.getListing)
	rt.In("listings").Scope(agents.OpSell).Handle("PATCH", p+"/listings/{id}", httpapi.Either, a.updateListing)
	rt.In("listings").Scope(agents.OpSell).Handle("DELETE", p+"/listings/{id}", httpapi.Either, a.archiveListing)

	a.RegisterShipping(rt)
	a.RegisterPayments(rt)
	a.RegisterOrders(rt)
	a.RegisterDisputes(rt)
	a.RegisterMessages(rt)
	a.RegisterOffers(rt)
	a.RegisterWebhooks(rt)
	a.RegisterEvents(rt)
	a.RegisterToolsOpenAI(rt)
	if a.Sandbox {
		a.RegisterSandbox(rt, a.Clock)
		a.RegisterOutbox(rt)
	}
}

// purchaseRequest is the purchase body as published: the router reads the
// idempotency key fields before the handler decodes purchaseBody.
type purchaseRequest struct {
	purchaseBody
	httpapi.IdempotencyKeyBody
}

// Components are the schemas of the Variant B document made from this
// package's wire types, with the envelopes that carry them.
func Components() []apidoc.Component {
	return []apidoc.Component{
		// Account, keys, spending
		{Name: "Account", Of: httpapi.SnakeOf(api.User{}), Fields: map[string]string{
			"discord":      `doc:"The linked chat account, or null."`,
			"password_set": `doc:"False for an account made by Google sign-in that has not set a password yet."`,
		}},
		{Name: "Whoami", Of: httpapi.SnakeOf(api.Whoami{})},
		{Name: "Address", Of: httpapi.SnakeOf(api.Address{}), Fields: map[string]string{
			"id": `required:"true"`, "is_default": `required:"true"`, "created_at": `required:"true"`,
		}},
		{Name: "AddressList", Of: httpapi.SnakeOf(addressList{})},
		{Name: "AgentKey", Of: httpapi.SnakeOf(api.AgentKey{})},
		{Name: "NewAgentKey", Of: httpapi.SnakeOf(api.AgentKey{}), Doc: "A new key with its secret (shown once).", Fields: map[string]string{
			"key": `required:"true" pattern:"^mk_(test|live)_[A-Za-z0-9_-]{43}$" doc:"The secret; send it as 'X-Agent-Key'."`,
		}},
		{Name: "CreateKeyInput", Of: createKeyBody{}, Request: true},
		{Name: "KeyLimits", Of: httpapi.SnakeOf(api.KeyLimits{}), Doc: "A key's own caps in cents; null means no cap at this level."},
		{Name: "KeyLimitsInput", Of: httpapi.SnakeOf(api.KeyLimits{}), Request: true, Doc: "The key's own caps in cents (0 to 1000000000); absent or null means no cap.",
			Fields: apidoc.Each(`ref:"NullableCents" nullable:"false"`, "per_transaction_limit", "daily_limit", "weekly_limit", "monthly_limit")},
		{Name: "Spending", Of: httpapi.SnakeOf(api.FlatSpending{})},
		apidoc.Envelope("AccountEnvelope", httpapi.SnakeOf(api.User{}), "Meta"),
		apidoc.Envelope("WhoamiEnvelope", httpapi.SnakeOf(api.Whoami{}), "Meta"),
		{Name: "OpenAITools", Of: openAITools{}, Doc: "The tool catalogue in OpenAI's function-calling format."},
		apidoc.Envelope("OpenAIToolsEnvelope", openAITools{}, "Meta"),
		apidoc.Envelope("AddressListEnvelope", httpapi.SnakeOf(addressList{}), "Meta"),
		apidoc.Envelope("AgentKeyEnvelope", httpapi.SnakeOf(api.AgentKey{}), "Meta"),
		apidoc.Envelope("NewAgentKeyEnvelope", "NewAgentKey", "Meta"),
		apidoc.Envelope("SpendingEnvelope", httpapi.SnakeOf(api.FlatSpending{}), "Meta"),

		// Listings, categories, search
		{Name: "Listing", Of: httpapi.SnakeOf(api.Listing{}), Doc: `A listing. While 'processing' the generated fields are still empty (title and
description '""', price 0 unless the seller gave one, null condition and category).
The seller's view adds 'floor_price', 'cost_basis' and 'brief_description' (see
'OwnListing').`},
		{Name: "OwnListing", Of: httpapi.SnakeOf(api.OwnListing{}), Doc: "The seller's view of a listing, with the owner-only fields."},
		{Name: "ListingPage", Of: listingList{}},
		{Name: "UpdateListingInput", Of: updateInput{}, Request: true, Doc: "The JSON update body. Only the fields present change; null clears the nullable ones."},
		{Name: "Dimensions", Of: api.Dimensions{}, Doc: "Package size in inches."},
		{Name: "ListingDimensionsInput", Of: api.Dimensions{}, Request: true, Doc: "Package size in inches; each side above 0 and at most 108.",
			Fields: apidoc.Each(`minimum:"0" exclusiveMinimum:"true" maximum:"108" required:"true"`, "l", "w", "h")},
		{Name: "Category", Of: httpapi.SnakeOf(api.Category{})},
		{Name: "SearchResult", Of: searchResult{}},
		{Name: "SimilarListings", Of: searchResult{}, Fields: map[string]string{
			"cursor": `doc:"Always null; similar listings come in one page."`,
			"total":  `doc:"The number of listings returned."`,
		}},
		{Name: "PriceCheck", Of: priceCheck{}},
		{Name: "RecentSale", Of: sale{}},
		apidoc.Envelope("ListingEnvelope", httpapi.SnakeOf(api.Listing{}), "Meta"),
		apidoc.Envelope("OwnListingEnvelope", httpapi.SnakeOf(api.OwnListing{}), "Meta"),
		apidoc.Envelope("OwnListingPageEnvelope", listingList{}, "Meta"),
		apidoc.Envelope("CategoryTreeEnvelope", httpapi.SnakeOf(categoryTree{}), "Meta"),
		apidoc.Envelope("SearchResultEnvelope", searchResult{}, "Meta"),
		apidoc.Envelope("SimilarListingsEnvelope", "SimilarListings", "Meta"),
		apidoc.Envelope("PriceCheckEnvelope", priceCheck{}, "Meta"),

		// Purchases and orders
		{Name: "PurchaseInput", Of: purchaseRequest{}, Request: true, Doc: `'listing_id' is required, and 'max_price' for agents. Give 'shipping_address' or
'shipping_address_id', not both.`},
		{Name: "PurchaseAddress", Of: shipTo{}, Request: true, Doc: `A postal address. Strings are trimmed; 'line1' (at most 200 characters), 'city' (at
most 100) and 'zip' are required; 'line2' at most 200, 'name' 80, 'phone' 32.
'country' is a two-letter ISO code, US by default; for US addresses 'state' must be a
US state code and 'zip' 12345 or 12345-6789, elsewhere 'zip' is at most 16 characters
and 'state' at most 100.`},
		{Name: "PurchaseCheckInput", Of: purchaseBody{}, Request: true, Doc: `The purchase body ('listing_id' and 'max_price' required, as for an agent's purchase); no idempotency key.`,
			Fields: map[string]string{"max_price": `required:"true"`}},
		{Name: "PurchaseCheck", Of: httpapi.SnakeOf(api.PurchaseCheck{}), Doc: "What the purchase would do now: its refusal, if any, what it would charge, what is left of the caps, and what would unblock it."},
		apidoc.Envelope("PurchaseCheckEnvelope", httpapi.SnakeOf(api.PurchaseCheck{}), "Meta"),
		{Name: "OrderShippingAddress", Of: httpapi.SnakeOf(api.OrderAddress{}), Doc: "Where the order ships; 'id', 'is_default' and 'created_at' appear when it was a saved address."},
		{Name: "Order", Of: httpapi.SnakeOf(api.Order{})},
		{Name: "OrderFees", Of: httpapi.SnakeOf(api.OrderFees{}), Doc: "Cents. 'total_charged = item_price + service_fee + shipping_cost', always."},
		{Name: "OrderListing", Of: httpapi.SnakeOf(api.OrderListing{})},
		{Name: "OrderShipping", Of: httpapi.SnakeOf(api.OrderShipping{}), Doc: "The carrier rate chosen at purchase (calculated shipping)."},
		{Name: "OrderPage", Of: httpapi.SnakeOf(orderPage{})},
		{Name: "OrderShipInput", Of: shipBody{}, Request: true},
		{Name: "PaymentMethod", Of: httpapi.SnakeOf(api.PaymentMethod{})},
		{Name: "PaymentMethodList", Of: httpapi.SnakeOf(paymentMethodList{})},
		{Name: "ShippingEstimateInput", Of: shippingEstimateBody{}, Request: true, Doc: "'zip' (or 'buyer_zip') is required.",
			Extra: map[string]any{"anyOf": apidoc.AnyRequired("zip", "buyer_zip")}},
		apidoc.Envelope("OrderEnvelope", httpapi.SnakeOf(api.Order{}), "Meta"),
		apidoc.Envelope("OrderPageEnvelope", httpapi.SnakeOf(orderPage{}), "Meta"),
		apidoc.Envelope("PaymentMethodListEnvelope", httpapi.SnakeOf(paymentMethodList{}), "Meta"),
		apidoc.Envelope("ShippingQuoteEnvelope", httpapi.ShippingQuote{}, "Meta"),

		// Messages
		// The structured fields' keys are as sent: 'orderId' on both surfaces.
		{Name: "Message", Of: httpapi.SnakeOf(api.Message{}), Doc: "A message in a thread.", Fields: map[string]string{
			"structured_fields": `doc:"Machine-readable data sent with the message, as sent; system messages carry 'event' and 'orderId'."`}},
		{Name: "Thread", Of: httpapi.SnakeOf(api.Thread{}), Doc: "A buyer's thread with the seller of one listing, as the caller sees it."},
		{Name: "ListingThread", Of: httpapi.SnakeOf(listingThread{}), Doc: "The caller's thread on a listing, with its messages."},
		{Name: "ListingThreads", Of: httpapi.SnakeOf(listingThreads{}), Doc: "Every thread on the seller's listing."},
		{Name: "MessageInput", Of: postMessageBody{}, Request: true},
		apidoc.Envelope("MessageEnvelope", httpapi.SnakeOf(api.Message{}), "Meta"),
		apidoc.Envelope("ListingMessagesEnvelope", apidoc.OneOf{httpapi.SnakeOf(listingThread{}), httpapi.SnakeOf(listingThreads{})}, "Meta"),

		// Disputes
		{Name: "Dispute", Of: httpapi.SnakeOf(api.Dispute{})},
		{Name: "DisputeInput", Of: disputeBody{}, Request: true},
		apidoc.Envelope("DisputeEnvelope", httpapi.SnakeOf(api.Dispute{}), "Meta"),

		// Offers
		{Name: "Offer", Of: httpapi.SnakeOf(api.Offer{})},
		{Name: "OfferRound", Of: httpapi.SnakeOf(api.OfferRound{})},
		{Name: "CreateOfferInput", Of: createOfferBody{}, Request: true},
		{Name: "RespondOfferInput", Of: respondOfferBody{}, Request: true},
		apidoc.Envelope("OfferEnvelope", httpapi.SnakeOf(api.Offer{}), "Meta"),

		// Webhooks
		// An agent endpoint is made by POST, never PUT; its events' data is in
		// snake_case, and the test event is the account endpoint's alone.
		{Name: "AgentWebhook", Of: httpapi.SnakeOf(api.Webhook{}), Doc: "One of the owner's agent webhook endpoints.", Fields: map[string]string{
			"secret":  `doc:"The signing secret ('whsec_' and base64), in the answer that creates the endpoint only."`,
			"enabled": `doc:"False once the endpoint answered 410 Gone."`}},
		{Name: "AgentWebhookList", Of: httpapi.SnakeOf(agentWebhookList{})},
		{Name: "AgentWebhookInput", Of: createWebhookBody{}, Request: true},
		{Name: "DeletedWebhook", Of: deletedWebhook{}},
		{Name: "WebhookDelivery", Of: httpapi.SnakeOf(api.WebhookDelivery{}), Doc: "One event sent to the endpoint, with every attempt."},
		{Name: "WebhookAttempt", Of: httpapi.SnakeOf(api.WebhookAttempt{})},
		{Name: "WebhookDeliveryList", Of: httpapi.SnakeOf(webhookDeliveryList{})},
		{Name: "WebhookEvent", Of: httpapi.SnakeOf(api.WebhookEvent{}), Doc: api.WebhookEventDoc, Fields: map[string]string{
			"type": `doc:"One of the public event types (CONTRACT section 12)."`,
			"data": `doc:"The ids involved and a snapshot of the object, keys in snake_case."`}},
		apidoc.Envelope("AgentWebhookEnvelope", httpapi.SnakeOf(api.Webhook{}), "Meta"),
		apidoc.Envelope("AgentWebhookListEnvelope", httpapi.SnakeOf(agentWebhookList{}), "Meta"),
		apidoc.Envelope("DeletedWebhookEnvelope", deletedWebhook{}, "Meta"),
		apidoc.Envelope("WebhookDeliveryEnvelope", httpapi.SnakeOf(api.WebhookDelivery{}), "Meta"),
		apidoc.Envelope("WebhookDeliveryListEnvelope", httpapi.SnakeOf(webhookDeliveryList{}), "Meta"),

		// Sandbox
		{Name: "SandboxReset", Of: cleared{}},
		{Name: "SandboxTimeAdvance", Of: advanced{}},
		apidoc.Envelope("SandboxResetEnvelope", cleared{}, "Meta"),
		{Name: "DiscordLink", Of: httpapi.SnakeOf(api.ChatLink{}), Doc: "The chat account linked to a user (CONTRACT section 17)."},
		{Name: "SandboxDiscordCodeInput", Of: sandboxDiscordBody{}, Request: true, Doc: "The chat account to make a code for."},
		{Name: "SandboxDiscordCode", Of: sandboxDiscordCode{}, Doc: "A one-time chat-link code: single use, 15 minutes."},
		apidoc.Envelope("SandboxDiscordCodeEnvelope", sandboxDiscordCode{}, "Meta"),
		apidoc.Envelope("SandboxTimeAdvanceEnvelope", advanced{}, "Meta"),
		{Name: "OutboxMail", Of: outboxMail{}, Doc: "A mail the service sent or kept."},
		{Name: "Outbox", Of: outboxList{}},
		apidoc.Envelope("OutboxEnvelope", outboxList{}, "Meta"),

		// Event feed
		{Name: "FeedEvent", Of: httpapi.SnakeOf(api.FeedEvent{}), Doc: "An event of the caller's feed (CONTRACT section 12).",
			Fields: map[string]string{"data": `doc:"The ids involved and a snapshot of the object, in snake_case. Read with an agent key, text in it another party wrote (a listing's title and brand, an offer's message, a message's content, a cancelling seller's reason) comes with 'content_trust' {untrusted: true, source (listing, message or offer), flags, fields} beside it (CONTRACT section 16); the owner's own text, and any text read with a bearer token, has none."`}},
		{Name: "EventPage", Of: httpapi.SnakeOf(eventPage{}), Doc: "A page of the caller's event feed."},
		apidoc.Envelope("EventPageEnvelope", httpapi.SnakeOf(eventPage{}), "Meta"),
	}
}
