package web

import (
	"errors"
	"io"
	"net/http"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// StripeWebhookPath is where Stripe delivers events (a root path: it is
// Stripe's endpoint, not part of either JSON surface).
const StripeWebhookPath = "/webhooks/stripe"

// StripeWebhook receives Stripe's event deliveries. It is served in every
// mode, so that the documents hold in all of them; without a Secret every
// delivery is NOT_FOUND.
type StripeWebhook struct {
	Secret   string            // STRIPE_WEBHOOK_SECRET
	Payments *payments.Service // applies account.updated
	// Events gets payment_intent.* and charge.refunded; nil acknowledges
	// and ignores them.
	Events payments.PaymentEvents
}

// Register adds POST /webhooks/stripe.
func (h *StripeWebhook) Register(rt *httpapi.Router) {
	rt = rt.In("purchases", "payouts")
	rt.Handle("POST", StripeWebhookPath, httpapi.Public, h.receive)
}

func (h *StripeWebhook) receive(w http.ResponseWriter, r *http.Request) error {
	// The signature covers the exact bytes, so the body is read raw.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, httpapi.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return market.Errorf(market.CodePayloadTooLarge, "the request body is larger than 1 MiB")
		}
		return market.Invalid(market.FieldError{Field: "body", Message: "could not be read"})
	}
	hook := payments.StripeWebhook{Secret: h.Secret, Accounts: h.Payments, Events: h.Events}
	d, err := hook.Handle(r.Context(), body, r.Header.Get("Stripe-Signature"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, webhookReceipt{Received: true, EventID: d.EventID, Type: d.Type, Applied: d.Applied})
}

// webhookReceipt acknowledges a delivery; the fields are in the order of the
// map it replaces.
type webhookReceipt struct {
	Applied  bool   `json:"applied" doc:"False when the event was acknowledged and ignored (a type or object not this service's, or payment events with no order area attached)."`
	EventID  string `json:"eventId"`
	Received bool   `json:"received" enum:"true"`
	Type     string `json:"type"`
}
