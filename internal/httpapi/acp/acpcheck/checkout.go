package acpcheck

import "bytes"

// Definitions from schema.agentic_checkout.json (ACP 2026-04-17), one Go
// variable per $defs entry, $refs followed by referring to the variable.
// Inline sub-objects the schema leaves open (no additionalProperties: false)
// are left open here too.

const versionPattern = `^\d{4}-\d{2}-\d{2}$`

var (
	severityEnum   = enum("info", "low", "medium", "high", "critical")
	resolutionEnum = enum("recoverable", "requires_buyer_input", "requires_buyer_review")
	contentType    = enum("plain", "markdown")
	currencyCode   = pattern(`^[a-z]{3}$`)
)

var variantOption = object(closed, req("name", "value"),
	prop("name", str()),
	prop("value", str()),
)

var weightInfo = object(closed, req("value", "unit"),
	prop("value", number()),
	prop("unit", str(enum("g", "kg", "oz", "lb"))),
)

var dimensionsInfo = object(closed, req("length", "width", "height", "unit"),
	prop("length", number()),
	prop("width", number()),
	prop("height", number()),
	prop("unit", str(enum("cm", "in"))),
)

var discountDetail = object(closed, req("type", "amount"),
	prop("code", str()),
	prop("type", str(enum("percentage", "fixed", "bogo", "volume"))),
	prop("amount", integer()),
	prop("description", str()),
	prop("source", str(enum("coupon", "automatic", "loyalty"))),
)

var address = object(closed, req("name", "line_one", "city", "state", "country", "postal_code"),
	prop("name", str()),
	prop("line_one", str()),
	prop("line_two", str()),
	prop("city", str()),
	prop("state", str()),
	prop("country", str()),
	prop("postal_code", str()),
	prop("company", str()),
)

var affiliateAttributionSource = object(closed, req("type"),
	prop("type", str(enum("url", "platform", "unknown"))),
	prop("url", uri()),
)

// Metadata values are scalars only.
var affiliateAttributionMetadata = object(
	extra(oneOf(str(), number(), boolean())),
)

// AffiliateAttribution is open (no additionalProperties: false) and needs a
// token or a publisher_id.
var affiliateAttribution = object(req("provider"),
	prop("provider", str()),
	prop("token", str()),
	prop("publisher_id", str()),
	prop("campaign_id", str()),
	prop("creative_id", str()),
	prop("sub_id", str()),
	prop("source", affiliateAttributionSource),
	prop("issued_at", dateTime()),
	prop("expires_at", dateTime()),
	prop("metadata", affiliateAttributionMetadata),
	prop("touchpoint", str(enum("first", "last"))),
	func(n *node) { n.anyOf = []*node{requiredOnly("token"), requiredOnly("publisher_id")} },
)

var fulfillmentDetails = object(closed,
	prop("name", str()),
	prop("phone_number", str()),
	prop("email", email()),
	prop("address", address),
)

var companyInfo = object(closed, req("name"),
	prop("name", str()),
	prop("tax_id", str()),
	prop("department", str()),
	prop("cost_center", str()),
)

var loyaltyInfo = object(closed,
	prop("tier", str()),
	prop("points_balance", integer()),
	prop("member_since", dateTime()),
)

var taxExemption = object(closed, req("certificate_id", "certificate_type"),
	prop("certificate_id", str()),
	prop("certificate_type", str(enum("resale", "exempt_organization", "government"))),
	prop("exempt_regions", array(str())),
	prop("expires_at", dateTime()),
)

var buyer = object(closed, req("email"),
	prop("first_name", str()),
	prop("last_name", str()),
	prop("full_name", str()),
	prop("email", email()),
	prop("phone_number", str()),
	prop("customer_id", str()),
	prop("account_type", str(enum("guest", "registered", "business"))),
	prop("authentication_status", str(enum("authenticated", "guest", "requires_signin"))),
	prop("company", companyInfo),
	prop("loyalty", loyaltyInfo),
	prop("tax_exemption", taxExemption),
)

var interventionCapabilities = object(closed,
	prop("supported", array(str(enum("3ds", "biometric", "address_verification")))),
	prop("required", array(str(enum("3ds", "biometric")))),
	prop("enforcement", str(enum("always", "conditional", "optional"))),
	prop("display_context", str(enum("native", "webview", "modal", "redirect"))),
	prop("redirect_context", str(enum("in_app", "external_browser", "none"))),
	prop("max_redirects", integer(minimum(0))),
	prop("max_interaction_depth", integer(minimum(1))),
)

var extensionDeclaration = object(closed, req("name"),
	prop("name", str(pattern(`^[a-z][a-z0-9_-]*(@\d{4}-\d{2}-\d{2})?$|^[a-z][a-z0-9]*(?:\.[a-z][a-z0-9_-]*)+(@\d{4}-\d{2}-\d{2})?$`))),
	prop("extends", array(str(pattern(`^\$\.[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9_]*)*$`)), unique)),
	prop("schema", uri()),
	prop("spec", uri()),
)

// Capabilities.extensions is a strict oneOf: an array of names or an array
// of declarations. An empty array satisfies both and is therefore invalid.
var capabilities = object(closed,
	prop("payment", payment),
	prop("interventions", interventionCapabilities),
	prop("extensions", oneOf(array(str(), unique), array(extensionDeclaration, unique))),
)

var item = object(closed, req("id"),
	prop("id", str()),
	prop("name", str()),
	prop("unit_amount", integer()),
)

var disclosure = object(closed, req("type", "content_type", "content"),
	prop("type", str(enum("disclaimer"))),
	prop("content_type", str(contentType)),
	prop("content", str()),
)

var customAttribute = object(closed, req("display_name", "value"),
	prop("display_name", str()),
	prop("value", str()),
)

var marketplaceSellerDetails = object(closed, req("name"),
	prop("name", str()),
)

var paymentHandler = object(closed,
	req("id", "name", "version", "spec", "requires_delegate_payment", "requires_pci_compliance",
		"psp", "config_schema", "instrument_schemas", "config"),
	prop("id", str()),
	prop("name", str()),
	prop("display_name", str()),
	prop("version", str(pattern(versionPattern))),
	prop("spec", uri()),
	prop("requires_delegate_payment", boolean()),
	prop("requires_pci_compliance", boolean()),
	prop("psp", str()),
	prop("config_schema", uri()),
	prop("instrument_schemas", array(uri())),
	prop("config", object()), // handler-specific, open
	prop("display_order", integer()),
)

var payment = object(closed, req("handlers"),
	prop("handlers", array(paymentHandler)),
)

var lineItem = object(closed, req("id", "item", "quantity", "totals"),
	prop("id", str()),
	prop("item", item),
	prop("quantity", integer(minimum(1))),
	prop("name", str()),
	prop("description", str()),
	prop("images", array(uri())),
	prop("unit_amount", integer()),
	prop("disclosures", array(disclosure)),
	prop("custom_attributes", array(customAttribute)),
	prop("marketplace_seller_details", marketplaceSellerDetails),
	prop("product_id", str()),
	prop("sku", str()),
	prop("variant_id", str()),
	prop("category", str()),
	prop("tags", array(str())),
	prop("weight", weightInfo),
	prop("dimensions", dimensionsInfo),
	prop("availability_status", str(enum("in_stock", "low_stock", "out_of_stock", "backorder", "pre_order"))),
	prop("available_quantity", integer(minimum(0))),
	prop("max_quantity_per_order", integer(minimum(1))),
	prop("fulfillable_on", dateTime()),
	prop("variant_options", array(variantOption)),
	prop("discount_details", array(discountDetail)),
	prop("tax_exempt", boolean()),
	prop("tax_exemption_reason", str()),
	prop("parent_id", str()),
	prop("totals", array(total)),
)

var taxBreakdownItem = object(closed, req("jurisdiction", "rate", "amount"),
	prop("jurisdiction", str()),
	prop("rate", number()),
	prop("amount", integer()),
)

// totalTypes is the Total.type enum.
var totalTypes = []string{"items_base_amount", "items_discount", "subtotal", "discount", "fulfillment",
	"tax", "fee", "gift_wrap", "tip", "store_credit", "total", "amount_refunded"}

var total = object(closed, req("type", "display_text", "amount"),
	prop("type", str(enum(totalTypes...))),
	prop("display_text", str()),
	prop("amount", integer()),
	prop("presentment_amount", integer()),
	prop("description", str()),
	prop("breakdown", array(taxBreakdownItem)),
)

var fulfillmentOptionPickup = object(closed, req("type", "id", "title", "location", "totals"),
	prop("type", str(konst("pickup"))),
	prop("id", str()),
	prop("title", str()),
	prop("description", str()),
	prop("location", object(req("name", "address"),
		prop("name", str()),
		prop("address", address),
		prop("phone", str()),
		prop("instructions", str()),
	)),
	prop("pickup_type", str(enum("in_store", "curbside", "locker"))),
	prop("ready_by", dateTime()),
	prop("pickup_by", dateTime()),
	prop("totals", array(total)),
)

var fulfillmentOptionLocalDelivery = object(closed, req("type", "id", "title", "totals"),
	prop("type", str(konst("local_delivery"))),
	prop("id", str()),
	prop("title", str()),
	prop("description", str()),
	prop("delivery_window", object(req("start", "end"),
		prop("start", dateTime()),
		prop("end", dateTime()),
	)),
	prop("service_area", object(
		prop("radius_miles", number()),
		prop("center_postal_code", str()),
	)),
	prop("totals", array(total)),
)

var fulfillmentOptionShipping = object(closed, req("type", "id", "title", "totals"),
	prop("type", str(konst("shipping"))),
	prop("id", str()),
	prop("title", str()),
	prop("description", str()),
	prop("carrier", str()),
	prop("earliest_delivery_time", dateTime()),
	prop("latest_delivery_time", dateTime()),
	prop("totals", array(total)),
)

var fulfillmentOptionDigital = object(closed, req("type", "id", "title", "totals"),
	prop("type", str(konst("digital"))),
	prop("id", str()),
	prop("title", str()),
	prop("description", str()),
	prop("totals", array(total)),
)

// The four option shapes carry distinct `type` consts, so the oneOf is
// resolved by that property.
var fulfillmentOption = oneOfBy("type",
	fulfillmentOptionShipping, fulfillmentOptionDigital, fulfillmentOptionPickup, fulfillmentOptionLocalDelivery)

var selectedFulfillmentOption = object(closed, req("type", "option_id", "item_ids"),
	prop("type", str(enum("shipping", "digital", "pickup", "local_delivery"))),
	prop("option_id", str()),
	prop("item_ids", array(str())),
)

var fulfillmentGroup = object(closed, req("id", "item_ids", "destination_type"),
	prop("id", str()),
	prop("item_ids", array(str())),
	prop("destination_type", str(enum("shipping", "pickup", "local_delivery", "digital"))),
	prop("fulfillment_details", fulfillmentDetails),
	prop("location_id", str()),
	prop("instructions", str()),
)

var estimatedDelivery = object(closed, req("earliest", "latest"),
	prop("earliest", dateTime()),
	prop("latest", dateTime()),
)

var orderConfirmation = object(closed,
	prop("confirmation_number", str()),
	prop("confirmation_email_sent", boolean()),
	prop("receipt_url", uri()),
	prop("invoice_number", str()),
	prop("order_notes", str()),
)

var supportInfo = object(closed,
	prop("email", email()),
	prop("phone", str()),
	prop("hours", str()),
	prop("help_center_url", uri()),
)

var messageInfo = object(closed, req("type", "content_type", "content"),
	prop("type", str(konst("info"))),
	prop("severity", str(severityEnum)),
	prop("resolution", str(resolutionEnum)),
	prop("param", str()),
	prop("content_type", str(contentType)),
	prop("content", str()),
)

var messageWarning = object(closed, req("type", "code", "content_type", "content"),
	prop("type", str(konst("warning"))),
	prop("code", str(enum("low_stock", "high_demand", "shipping_delay", "price_change", "expiring_promotion",
		"limited_availability", "discount_code_expired", "discount_code_invalid", "discount_code_already_applied",
		"discount_code_combination_disallowed", "discount_code_minimum_not_met", "discount_code_user_not_logged_in",
		"discount_code_user_ineligible", "discount_code_usage_limit_reached"))),
	prop("severity", str(severityEnum)),
	prop("resolution", str(resolutionEnum)),
	prop("param", str()),
	prop("content_type", str(contentType)),
	prop("content", str()),
)

var messageError = object(closed, req("type", "code", "content_type", "content"),
	prop("type", str(konst("error"))),
	prop("code", str(enum("missing", "invalid", "out_of_stock", "payment_declined", "requires_sign_in",
		"requires_3ds", "low_stock", "quantity_exceeded", "coupon_invalid", "coupon_expired", "minimum_not_met",
		"maximum_exceeded", "region_restricted", "age_verification_required", "approval_required", "unsupported",
		"not_found", "conflict", "rate_limited", "expired", "intervention_required"))),
	prop("severity", str(severityEnum)),
	prop("resolution", str(resolutionEnum)),
	prop("param", str()),
	prop("content_type", str(contentType)),
	prop("content", str()),
)

var message = oneOfBy("type", messageInfo, messageWarning, messageError)

var link = object(closed, req("type", "url"),
	prop("type", str(enum("terms_of_use", "privacy_policy", "return_policy", "shipping_policy",
		"contact_us", "about_us", "faq", "support"))),
	prop("title", str()),
	prop("url", uri()),
)

// PaymentData needs either a handler + instrument or a purchase order number.
// instrument and credential are open objects in the schema.
var paymentData = object(closed,
	prop("handler_id", str()),
	prop("instrument", object(req("type", "credential"),
		prop("type", str()),
		prop("credential", object(req("type", "token"),
			prop("type", str()),
			prop("token", str()),
		)),
	)),
	prop("billing_address", address),
	prop("purchase_order_number", str()),
	prop("payment_terms", str(enum("immediate", "net_15", "net_30", "net_60", "net_90"))),
	prop("due_date", dateTime()),
	prop("approval_required", boolean()),
	func(n *node) {
		n.anyOf = []*node{requiredOnly("handler_id", "instrument"), requiredOnly("purchase_order_number")}
	},
)

var protocolVersion = object(closed, req("version"),
	prop("version", str(pattern(versionPattern))),
)

var discountAllocation = object(closed, req("path", "amount"),
	prop("path", str()),
	prop("amount", integer(minimum(0))),
)

var coupon = object(closed, req("id", "name"),
	prop("id", str()),
	prop("name", str()),
	prop("percent_off", number(minimum(0), maximum(100))),
	prop("amount_off", integer(minimum(0))),
	prop("currency", str(currencyCode)),
	prop("duration", str(enum("once", "repeating", "forever"))),
	prop("duration_in_months", integer(minimum(1))),
	prop("max_redemptions", integer(minimum(1))),
	prop("times_redeemed", integer(minimum(0))),
	prop("metadata", object(extra(str()))),
)

var appliedDiscount = object(closed, req("id", "coupon", "amount"),
	prop("id", str()),
	prop("code", str()),
	prop("coupon", coupon),
	prop("amount", integer(minimum(0))),
	prop("automatic", boolean()),
	prop("start", dateTime()),
	prop("end", dateTime()),
	prop("method", str(enum("each", "across"))),
	prop("priority", integer(minimum(1))),
	prop("allocations", array(discountAllocation)),
)

var discountsRequest = object(closed,
	prop("codes", array(str())),
)

var discountsResponse = object(closed,
	prop("codes", array(str())),
	prop("applied", array(appliedDiscount)),
	prop("rejected", array(rejectedDiscount)),
)

var rejectedDiscount = object(closed, req("code", "reason"),
	prop("code", str()),
	prop("reason", str(enum("discount_code_expired", "discount_code_invalid", "discount_code_already_applied",
		"discount_code_combination_disallowed", "discount_code_minimum_not_met", "discount_code_user_not_logged_in",
		"discount_code_user_ineligible", "discount_code_usage_limit_reached"))),
	prop("message", str()),
)

var riskSignals = object(closed,
	prop("ip_address", str()),
	prop("user_agent", str()),
	prop("accept_language", str()),
	prop("session_id", str()),
	prop("device_fingerprint", str()),
)

// Order statuses, fulfillment statuses and event/adjustment types are free
// strings: the spec says unrecognised values must be accepted.
var order = object(closed, req("id", "checkout_session_id", "permalink_url"),
	prop("type", str(konst("order"))),
	prop("id", str()),
	prop("checkout_session_id", str()),
	prop("order_number", str()),
	prop("client_reference_id", str()),
	prop("permalink_url", uri()),
	prop("status", str()),
	prop("estimated_delivery", estimatedDelivery),
	prop("confirmation", orderConfirmation),
	prop("support", supportInfo),
	prop("line_items", array(orderLineItem)),
	prop("fulfillments", array(fulfillment)),
	prop("adjustments", array(adjustment)),
	prop("totals", array(total)),
)

var orderLineItem = object(closed, req("id", "title", "quantity"),
	prop("id", str()),
	prop("title", str()),
	prop("product_id", str()),
	prop("description", str()),
	prop("image_url", uri()),
	prop("url", uri()),
	prop("quantity", orderLineItemQuantity),
	prop("unit_price", integer()),
	prop("subtotal", integer()),
	prop("totals", array(total)),
	prop("status", str()),
)

var orderLineItemQuantity = object(closed, req("ordered", "current"),
	prop("ordered", integer(minimum(1))),
	prop("current", integer(minimum(0))),
	prop("fulfilled", integer(minimum(0))),
)

var lineItemReference = object(closed, req("id", "quantity"),
	prop("id", str()),
	prop("quantity", integer(minimum(1))),
)

var fulfillment = object(closed, req("id", "type"),
	prop("id", str()),
	prop("type", str(enum("shipping", "pickup", "digital"))),
	prop("status", str()),
	prop("line_items", array(lineItemReference)),
	prop("carrier", str()),
	prop("tracking_number", str()),
	prop("tracking_url", uri()),
	prop("destination", address),
	prop("estimated_delivery", estimatedDelivery),
	prop("digital_delivery", object(
		prop("access_url", uri()),
		prop("license_key", str()),
		prop("expires_at", dateTime()),
	)),
	prop("description", str()),
	prop("events", array(fulfillmentEvent)),
)

var fulfillmentEvent = object(closed, req("id", "type", "occurred_at"),
	prop("id", str()),
	prop("type", str()),
	prop("occurred_at", dateTime()),
	prop("description", str()),
	prop("location", str()),
)

var adjustment = object(closed, req("id", "type", "occurred_at", "status"),
	prop("id", str()),
	prop("type", str()),
	prop("occurred_at", dateTime()),
	prop("status", str()),
	prop("line_items", array(lineItemReference)),
	prop("amount", integer()),
	prop("currency", str(currencyCode)),
	prop("description", str()),
	prop("reason", str()),
)

// AuthenticationMetadata itself is open; its sub-objects are closed.
var authenticationMetadata = object(req("acquirer_details", "directory_server"),
	prop("acquirer_details", object(closed,
		req("acquirer_bin", "acquirer_country", "acquirer_merchant_id", "merchant_name"),
		prop("acquirer_bin", str(maxLen(11))),
		prop("acquirer_country", str(minLen(2), maxLen(2))),
		prop("acquirer_merchant_id", str(maxLen(35))),
		prop("merchant_name", str(maxLen(40))),
		prop("requestor_id", str(maxLen(35))),
	)),
	prop("directory_server", str(enum("american_express", "mastercard", "visa"))),
	prop("flow_preference", object(closed, req("type"),
		prop("type", str(enum("challenge", "frictionless"))),
		prop("challenge", object(closed, prop("type", str(enum("mandated", "preferred"))))),
		prop("frictionless", object(closed, prop("type", str(enum("low_risk"))))),
	)),
)

// The schema's if/then: these outcomes carry 3DS details.
var outcomesWithDetails = []string{"authenticated", "informational", "attempt_acknowledged"}

var authenticationResult = object(closed, req("outcome"),
	prop("outcome", str(enum("abandoned", "attempt_acknowledged", "authenticated", "canceled", "denied",
		"informational", "internal_error", "not_supported", "processing_error", "rejected"))),
	prop("outcome_details", object(closed,
		req("three_ds_cryptogram", "electronic_commerce_indicator", "transaction_id", "version"),
		prop("three_ds_cryptogram", str()),
		prop("electronic_commerce_indicator", str(enum("01", "02", "05", "06", "07"))),
		prop("transaction_id", str()),
		prop("version", str()),
	)),
	rule(func(obj map[string]any, path string, c *checker) {
		o, _ := obj["outcome"].(string)
		if _, ok := obj["outcome_details"]; contains(outcomesWithDetails, o) && !ok {
			c.add(member(path, "outcome_details"), "required when outcome is %q", o)
		}
	}),
)

var marketingConsentOption = object(closed, req("channel", "display_text", "privacy_policy_url"),
	prop("channel", str()),
	prop("display_text", str()),
	prop("privacy_policy_url", uri()),
	prop("is_subscribed", boolean()),
)

var marketingConsent = object(closed, req("channel", "opted_in"),
	prop("channel", str()),
	prop("opted_in", boolean()),
)

// sessionStatuses is the CheckoutSession.status enum.
var sessionStatuses = []string{"incomplete", "not_ready_for_payment", "requires_escalation",
	"authentication_required", "ready_for_payment", "pending_approval", "complete_in_progress",
	"completed", "canceled", "in_progress", "expired"}

var checkoutSessionBase = object(closed,
	req("id", "status", "currency", "line_items", "totals", "fulfillment_options", "messages", "links", "capabilities"),
	prop("id", str()),
	prop("protocol", protocolVersion),
	prop("capabilities", capabilities),
	prop("buyer", buyer),
	prop("status", str(enum(sessionStatuses...))),
	prop("currency", str()),
	prop("presentment_currency", str()),
	prop("exchange_rate", number()),
	prop("exchange_rate_timestamp", dateTime()),
	prop("locale", str()),
	prop("timezone", str()),
	prop("line_items", array(lineItem)),
	prop("fulfillment_details", fulfillmentDetails),
	prop("fulfillment_options", array(fulfillmentOption)),
	prop("selected_fulfillment_options", array(selectedFulfillmentOption)),
	prop("fulfillment_groups", array(fulfillmentGroup)),
	prop("totals", array(total)),
	prop("messages", array(message)),
	prop("links", array(link)),
	prop("authentication_metadata", authenticationMetadata),
	prop("created_at", dateTime()),
	prop("updated_at", dateTime()),
	prop("expires_at", dateTime()),
	prop("continue_url", uri()),
	prop("metadata", object()),
	prop("quote_id", str()),
	prop("quote_expires_at", dateTime()),
	prop("discounts", discountsResponse),
	prop("marketing_consent_options", array(marketingConsentOption)),
	prop("order", order),
)

var checkoutSessionWithOrder = allOf(checkoutSessionBase, object(req("order"), prop("order", order)))

var createRequest = object(closed, req("line_items", "currency", "capabilities"),
	prop("buyer", buyer),
	prop("line_items", array(item, minItems(1))),
	prop("currency", str()),
	prop("fulfillment_details", fulfillmentDetails),
	prop("capabilities", capabilities),
	prop("fulfillment_groups", array(fulfillmentGroup)),
	prop("affiliate_attribution", affiliateAttribution),
	prop("coupons", array(str())),
	prop("discounts", discountsRequest),
	prop("locale", str()),
	prop("timezone", str()),
	prop("quote_id", str()),
	prop("metadata", object()),
	prop("order_notes", str(maxLen(5000))),
)

var updateRequest = object(closed,
	prop("buyer", buyer),
	prop("line_items", array(item)),
	prop("fulfillment_details", fulfillmentDetails),
	prop("fulfillment_groups", array(fulfillmentGroup)),
	prop("selected_fulfillment_options", array(selectedFulfillmentOption)),
	prop("coupons", array(str())),
	prop("discounts", discountsRequest),
	prop("order_notes", str(maxLen(5000))),
)

var completeRequest = object(closed, req("payment_data"),
	prop("buyer", buyer),
	prop("payment_data", paymentData),
	prop("authentication_result", authenticationResult),
	prop("affiliate_attribution", affiliateAttribution),
	prop("risk_signals", riskSignals),
	prop("marketing_consents", array(marketingConsent)),
	prop("order_notes", str(maxLen(5000))),
)

// IntentTrace and CancelSessionRequest are open objects in the schema.
var intentTrace = object(req("reason_code"),
	prop("reason_code", str(enum("price_sensitivity", "shipping_cost", "shipping_speed", "product_fit",
		"trust_security", "returns_policy", "payment_options", "comparison", "timing_deferred", "other"))),
	prop("trace_summary", str(maxLen(500))),
	prop("metadata", object(extra(anyType(kString, kNumber, kBoolean)))),
)

var cancelRequest = object(
	prop("intent_trace", intentTrace),
)

var discoveryResponse = object(closed, req("protocol", "api_base_url", "transports", "capabilities"),
	prop("protocol", discoveryProtocol),
	prop("api_base_url", uri()),
	prop("transports", array(str(enum("rest", "mcp")), unique)),
	prop("capabilities", discoveryCapabilities),
)

var discoveryCapabilities = object(closed, req("services"),
	prop("services", array(str(enum("checkout", "orders", "delegate_payment", "carts")), unique)),
	prop("extensions", array(discoveryExtension)),
	prop("intervention_types", array(str(enum("3ds", "biometric", "address_verification")), unique)),
	prop("supported_currencies", array(str(currencyCode), unique)),
	prop("supported_locales", array(str(), unique)),
)

var discoveryProtocol = object(closed, req("name", "version", "supported_versions"),
	prop("name", str(konst("acp"))),
	prop("version", str(pattern(versionPattern))),
	prop("supported_versions", array(str(pattern(versionPattern)), unique)),
	prop("documentation_url", uri()),
)

var discoveryExtension = object(closed, req("name"),
	prop("name", str()),
	prop("spec", uri()),
	prop("schema", uri()),
)

// errorTypes is the checkout Error.type enum.
var errorTypes = []string{"invalid_request", "processing_error", "service_unavailable"}

var checkoutError = object(closed, req("type", "code", "message"),
	prop("type", str(enum(errorTypes...))),
	prop("code", str()),
	prop("message", str()),
	prop("param", str()),
	prop("supported_versions", array(str(pattern(versionPattern)))),
)

// CheckoutSession validates a CheckoutSession response. A session whose status
// is "completed" must also satisfy CheckoutSessionWithOrder (order present).
func CheckoutSession(body []byte) error {
	v, err := decode(body)
	if err != nil {
		return err
	}
	if m, ok := v.(map[string]any); ok && m["status"] == "completed" {
		return checkValue(checkoutSessionWithOrder, v)
	}
	return checkValue(checkoutSessionBase, v)
}

// CreateRequest validates a CheckoutSessionCreateRequest body.
func CreateRequest(body []byte) error { return check(createRequest, body) }

// UpdateRequest validates a CheckoutSessionUpdateRequest body.
func UpdateRequest(body []byte) error { return check(updateRequest, body) }

// CompleteRequest validates a CheckoutSessionCompleteRequest body.
func CompleteRequest(body []byte) error { return check(completeRequest, body) }

// CancelRequest validates a CancelSessionRequest body. The OpenAPI marks the
// cancel request body optional, so an empty (or all-whitespace) body is valid.
func CancelRequest(body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	return check(cancelRequest, body)
}

// Error validates a checkout Error object.
func Error(body []byte) error { return check(checkoutError, body) }

// Discovery validates a DiscoveryResponse.
func Discovery(body []byte) error { return check(discoveryResponse, body) }
