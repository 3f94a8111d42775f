package payments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/stripe/stripe-go/v85"

	"marketplace/internal/market"
)

// StripeSignatureTolerance is how old a delivery's signed timestamp may be;
// older ones are refused as possible replays (Stripe's own default).
const StripeSignatureTolerance = 5 * time.Minute

// StripeWebhook verifies Stripe's event deliveries and applies them:
// account.updated to payout accounts, payment_intent.* and charge.refunded
// to PaymentEvents. Stripe delivers at least once and in no set order, so
// applying an event twice, or an old one after a newer one, must change
// nothing; PaymentEvents implementations must hold to that too.
type StripeWebhook struct {
	Secret   string   // the endpoint's signing secret (whsec_...)
	Accounts *Service // payout accounts (account.updated)
	// Events gets the payment events; nil acknowledges and ignores them.
	Events PaymentEvents
}

// StripeDelivery is what became of one delivery.
type StripeDelivery struct {
	EventID string
	Type    string
	Applied bool // false: acknowledged and ignored (a type or object not ours)
}

// stripeEvent is the part of an event this service reads. The object is
// decoded by type, whatever API version the endpoint is pinned to.
type stripeEvent struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Data struct {
		Object json.RawMessage `json:"object"`
	} `json:"data"`
}

// Handle verifies a delivery's Stripe-Signature header and applies its
// event. A bad, missing or stale signature, or a body that is not an
// event, is VALIDATION_ERROR; a webhook without a secret is NOT_FOUND (the
// endpoint is not configured here).
func (h *StripeWebhook) Handle(ctx context.Context, payload []byte, signature string) (*StripeDelivery, error) {
	if h.Secret == "" {
		return nil, market.Errorf(market.CodeNotFound, "Stripe webhooks are not configured on this service")
	}
	if err := stripe.ValidatePayload(payload, signature, h.Secret, stripe.WithTolerance(StripeSignatureTolerance)); err != nil {
		return nil, market.Invalid(market.FieldError{Field: "Stripe-Signature", Message: signatureProblem(err)})
	}
	var ev stripeEvent
	if err := json.Unmarshal(payload, &ev); err != nil || ev.ID == "" || ev.Type == "" || !jsonObject(ev.Data.Object) {
		return nil, market.Invalid(market.FieldError{Field: "body", Message: "must be a Stripe event with id, type and data.object"})
	}
	d := &StripeDelivery{EventID: ev.ID, Type: ev.Type}
	var err error
	switch ev.Type {
	case "account.updated":
		d.Applied, err = h.accountUpdated(ctx, ev.Data.Object)
	case "payment_intent.succeeded", "payment_intent.payment_failed", "payment_intent.canceled", "payment_intent.requires_action":
		d.Applied, err = h.paymentUpdated(ctx, ev.Data.Object)
	case "charge.refunded":
		d.Applied, err = h.chargeRefunded(ctx, ev.Data.Object)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

func jsonObject(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && b[0] == '{'
}

func signatureProblem(err error) string {
	switch {
	case errors.Is(err, stripe.ErrWebhookNotSigned):
		return "is missing"
	case errors.Is(err, stripe.ErrWebhookTooOld):
		return "is older than 5 minutes"
	case errors.Is(err, stripe.ErrWebhookInvalidHeader):
		return "is not a Stripe signature header (t=...,v1=...)"
	}
	return "does not match the body"
}

func badObject(what string) error {
	return market.Invalid(market.FieldError{Field: "data.object", Message: "must be " + what})
}

func (h *StripeWebhook) accountUpdated(ctx context.Context, raw json.RawMessage) (bool, error) {
	var a stripe.Account
	if err := json.Unmarshal(raw, &a); err != nil || a.ID == "" {
		return false, badObject("an account")
	}
	if h.Accounts == nil {
		return false, nil
	}
	return h.Accounts.AccountUpdated(ctx, AccountUpdate{ExternalID: a.ID,
		ChargesEnabled: a.ChargesEnabled, PayoutsEnabled: a.PayoutsEnabled, DetailsSubmitted: a.DetailsSubmitted})
}

func (h *StripeWebhook) paymentUpdated(ctx context.Context, raw json.RawMessage) (bool, error) {
	var pi stripe.PaymentIntent
	if err := json.Unmarshal(raw, &pi); err != nil || pi.ID == "" {
		return false, badObject("a payment intent")
	}
	if h.Events == nil {
		return false, nil
	}
	return applied(h.Events.PaymentUpdated(ctx, paymentOf(&pi)))
}

func (h *StripeWebhook) chargeRefunded(ctx context.Context, raw json.RawMessage) (bool, error) {
	var c stripe.Charge
	if err := json.Unmarshal(raw, &c); err != nil || c.ID == "" {
		return false, badObject("a charge")
	}
	// Charges made outside payment intents are none of this service's.
	if h.Events == nil || c.PaymentIntent == nil || c.PaymentIntent.ID == "" {
		return false, nil
	}
	return applied(h.Events.PaymentRefunded(ctx, c.PaymentIntent.ID, c.AmountRefunded))
}

// applied reads PaymentEvents' answer: NOT_FOUND means a payment this
// service did not make, acknowledged so that Stripe stops delivering it.
func applied(err error) (bool, error) {
	if market.CodeOf(err) == market.CodeNotFound {
		return false, nil
	}
	return err == nil, err
}
