package api

import (
	"context"
	"strconv"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/webhooks"
)

// Webhook is a webhook endpoint: the account's (Variant A) or one of the
// owner's agent endpoints (Variant B, which shows no 'updatedAt').
type Webhook struct {
	ID             string    `json:"id"`
	URL            string    `json:"url"`
	Secret         string    `json:"secret,omitempty" doc:"The signing secret ('whsec_' and base64), in the answer to PUT only: every PUT makes a new one."`
	Events         []string  `json:"events" doc:"The event types sent, or ['*'] for all."`
	Enabled        bool      `json:"enabled" doc:"False once the endpoint answered 410 Gone; a PUT enables it again."`
	DisabledReason *string   `json:"disabledReason" doc:"Why it was disabled; null while enabled."`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt" snake:"-"`
}

// WebhookOf is e as its owner sees it: the signing secret only in the
// answer that made it (created), never again.
func WebhookOf(e *webhooks.Endpoint, created bool) *Webhook {
	out := &Webhook{ID: e.ID, URL: e.URL, Events: e.Events, Enabled: e.Enabled, DisabledReason: strOrNil(e.DisabledReason),
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
	if created {
		out.Secret = e.Secret
	}
	return out
}

// WebhookAttempt is one try at a delivery.
type WebhookAttempt struct {
	At         time.Time `json:"at"`
	StatusCode *int      `json:"statusCode" doc:"The receiver's HTTP status; null when no answer came (refused, timed out)."`
	Error      *string   `json:"error" doc:"Why the attempt failed; null on a 2xx."`
	DurationMs int64     `json:"durationMs" minimum:"0"`
	Replay     bool      `json:"replay" doc:"True for an attempt asked for with the retry route."`
}

// WebhookDelivery is one event sent to an endpoint, with every attempt.
type WebhookDelivery struct {
	ID             string           `json:"id"`
	EventID        string           `json:"eventId" doc:"Also the 'webhook-id' header of every attempt."`
	EventType      string           `json:"eventType"`
	Status         string           `json:"status" enum:"pending,delivered,failed"`
	Attempts       int              `json:"attempts" minimum:"0"`
	LastStatusCode *int             `json:"lastStatusCode"`
	LastError      *string          `json:"lastError"`
	NextAttemptAt  *time.Time       `json:"nextAttemptAt" doc:"When the next automatic attempt is due (real time); null once delivered or failed."`
	CreatedAt      time.Time        `json:"createdAt"`
	DeliveredAt    *time.Time       `json:"deliveredAt"`
	AttemptLog     []WebhookAttempt `json:"attemptLog" doc:"Every attempt, oldest first."`
}

// DeliveryOf is d as its endpoint's owner sees it.
func DeliveryOf(d *webhooks.Delivery) *WebhookDelivery {
	out := &WebhookDelivery{ID: d.ID, EventID: d.EventID, EventType: d.EventType, Status: d.Status, Attempts: d.Attempts,
		LastStatusCode: d.LastStatusCode, LastError: strOrNil(d.LastError), NextAttemptAt: d.NextAttemptAt,
		CreatedAt: d.CreatedAt, DeliveredAt: d.DeliveredAt, AttemptLog: make([]WebhookAttempt, len(d.History))}
	for i, h := range d.History {
		a := WebhookAttempt{At: h.At, Error: strOrNil(h.Error), DurationMs: h.DurationMS, Replay: h.Replay}
		if h.StatusCode != 0 {
			c := h.StatusCode
			a.StatusCode = &c
		}
		out.AttemptLog[i] = a
	}
	return out
}

// WebhookEvent is the body every delivery POSTs; it is published, never
// built (the sender writes the event's payload).
type WebhookEvent struct {
	ID        string         `json:"id" doc:"The event id, also the 'webhook-id' header: the same on every retry and replay, so receivers can drop duplicates."`
	Type      string         `json:"type" doc:"One of the public event types (CONTRACT section 12), or 'webhook.test'."`
	CreatedAt time.Time      `json:"createdAt"`
	Data      map[string]any `json:"data" doc:"The ids involved and a snapshot of the object."`
}

// WebhookEventDoc describes WebhookEvent, with the headers of a delivery.
const WebhookEventDoc = `The JSON body of a webhook delivery. Headers (Standard Webhooks):
'webhook-id' (the event id), 'webhook-timestamp' (Unix seconds of the attempt) and
'webhook-signature' ('v1,' and the base64 HMAC-SHA256 of 'id.timestamp.body', keyed with
the base64-decoded part of the secret after 'whsec_').`

// DeliveryLimit reads a delivery log's limit as a query gives it: "" is
// the default page, else a whole number from 1 to the maximum.
func DeliveryLimit(v string) (int, error) {
	if v == "" {
		return webhooks.DefaultDeliveryLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > webhooks.MaxDeliveryLimit {
		return 0, market.Invalid(market.FieldError{Field: "limit", Message: "must be a whole number from 1 to " + strconv.Itoa(webhooks.MaxDeliveryLimit)})
	}
	return n, nil
}

// Webhooks are the operations on webhook endpoints: the account's own
// (one per account) and the owner's agent endpoints.
type Webhooks struct{ Service *webhooks.Service }

// PutAccount sets the account's endpoint, with a new secret, shown in
// this answer alone.
func (x Webhooks) PutAccount(ctx context.Context, c *Caller, url string, events []string) (*Webhook, error) {
	return webhookView(true)(x.Service.PutAccount(ctx, c.Actor, url, events))
}

// Account reads the account's endpoint.
func (x Webhooks) Account(ctx context.Context, c *Caller) (*Webhook, error) {
	return webhookView(false)(x.Service.Account(ctx, c.Actor))
}

// DeleteAccount removes the account's endpoint, answering its id.
func (x Webhooks) DeleteAccount(ctx context.Context, c *Caller) (string, error) {
	e, err := x.Service.DeleteAccount(ctx, c.Actor)
	if err != nil {
		return "", err
	}
	return e.ID, nil
}

// Test sends a 'webhook.test' event to the account's endpoint, answering
// the delivery's id.
func (x Webhooks) Test(ctx context.Context, c *Caller) (string, error) {
	d, err := x.Service.Test(ctx, c.Actor)
	if err != nil {
		return "", err
	}
	return d.ID, nil
}

// AccountDeliveries are the newest deliveries to the account's endpoint.
func (x Webhooks) AccountDeliveries(ctx context.Context, c *Caller, limit int) ([]WebhookDelivery, error) {
	return deliveries(x.Service.AccountDeliveries(ctx, c.Actor, limit))
}

// RetryAccount replays a delivery to the account's endpoint.
func (x Webhooks) RetryAccount(ctx context.Context, c *Caller, deliveryID string) (*WebhookDelivery, error) {
	return deliveryView(x.Service.RetryAccount(ctx, c.Actor, deliveryID))
}

// CreateAgent registers an agent endpoint of the owner's, its secret shown
// in this answer alone.
func (x Webhooks) CreateAgent(ctx context.Context, c *Caller, url string, events []string) (*Webhook, error) {
	return webhookView(true)(x.Service.CreateAgent(ctx, c.Actor, url, events))
}

// ListAgent lists the owner's agent endpoints, without their secrets.
func (x Webhooks) ListAgent(ctx context.Context, c *Caller) ([]Webhook, error) {
	es, err := x.Service.ListAgent(ctx, c.Actor)
	if err != nil {
		return nil, err
	}
	out := make([]Webhook, len(es))
	for i := range es {
		out[i] = *WebhookOf(&es[i], false)
	}
	return out, nil
}

// DeleteAgent removes one of the owner's agent endpoints, answering its
// id.
func (x Webhooks) DeleteAgent(ctx context.Context, c *Caller, id string) (string, error) {
	e, err := x.Service.DeleteAgent(ctx, c.Actor, id)
	if err != nil {
		return "", err
	}
	return e.ID, nil
}

// AgentDeliveries are the newest deliveries to one of the owner's agent
// endpoints.
func (x Webhooks) AgentDeliveries(ctx context.Context, c *Caller, id string, limit int) ([]WebhookDelivery, error) {
	return deliveries(x.Service.AgentDeliveries(ctx, c.Actor, id, limit))
}

// RetryAgent replays a delivery to one of the owner's agent endpoints.
func (x Webhooks) RetryAgent(ctx context.Context, c *Caller, id, deliveryID string) (*WebhookDelivery, error) {
	return deliveryView(x.Service.RetryAgent(ctx, c.Actor, id, deliveryID))
}

func webhookView(created bool) func(*webhooks.Endpoint, error) (*Webhook, error) {
	return func(e *webhooks.Endpoint, err error) (*Webhook, error) {
		if err != nil {
			return nil, err
		}
		return WebhookOf(e, created), nil
	}
}

func deliveryView(d *webhooks.Delivery, err error) (*WebhookDelivery, error) {
	if err != nil {
		return nil, err
	}
	return DeliveryOf(d), nil
}

func deliveries(ds []webhooks.Delivery, err error) ([]WebhookDelivery, error) {
	if err != nil {
		return nil, err
	}
	out := make([]WebhookDelivery, len(ds))
	for i := range ds {
		out[i] = *DeliveryOf(&ds[i])
	}
	return out, nil
}

// WebhookOps are the webhook endpoint operations.
func (o Ops) WebhookOps() Webhooks { return Webhooks{Service: o.Webhooks} }

// PlatformDeliveries are the newest deliveries to a connected agent
// platform's endpoint (admins only).
func (o Ops) PlatformDeliveries(ctx context.Context, c *Caller, platformID string, limit int) ([]WebhookDelivery, error) {
	p, err := o.Checkouts.AdminPlatform(ctx, c.Actor, platformID)
	if err != nil {
		return nil, err
	}
	return deliveries(o.Webhooks.PlatformDeliveries(ctx, p.EndpointID, limit))
}
