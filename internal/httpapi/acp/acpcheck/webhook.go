package acpcheck

// The order webhook exists only in openapi.agentic_checkout_webhook.yaml. Its
// EventDataOrder is the checkout Order plus required type, checkout_session_id,
// permalink_url and status; we reuse the JSON Schema Order (which the bundle
// rules prefer over the OpenAPI copy; it also allows client_reference_id).

// webhookEventTypes are the event types the spec defines. The OpenAPI types
// `type` as a plain string that receivers must accept even when unrecognised;
// we are the sender, so we hold ourselves to the defined values.
var webhookEventTypes = []string{"order_create", "order_update"}

var webhookEvent = object(closed, req("type", "data"),
	prop("type", str(enum(webhookEventTypes...))),
	prop("data", allOf(order, object(req("type", "checkout_session_id", "permalink_url", "status")))),
)

// WebhookEvent validates an order webhook event (order_create / order_update).
func WebhookEvent(body []byte) error { return check(webhookEvent, body) }
