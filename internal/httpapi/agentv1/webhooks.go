package agentv1

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/webhooks"
)

// RegisterWebhooks adds the owner's agent webhook endpoints. They belong
// to the owner: any of the owner's keys (any scope), or the owner's bearer
// token, sees and manages them.
func (a *API) RegisterWebhooks(rt *httpapi.Router) {
	p := Prefix + "/agent/webhooks"
	rt.Handle("POST", p, httpapi.Either, a.createWebhook)
	rt.Handle("GET", p, httpapi.Either, a.listWebhooks)
	rt.Handle("DELETE", p+"/{id}", httpapi.Either, a.deleteWebhook)
	rt.Handle("GET", p+"/{id}/deliveries", httpapi.Either, a.webhookDeliveries)
	rt.Handle("POST", p+"/{id}/deliveries/{deliveryId}/retry", httpapi.Either, a.retryWebhookDelivery)
}

// agentWebhook is an agent endpoint as Variant B shows it.
type agentWebhook struct {
	ID             string    `json:"id"`
	URL            string    `json:"url"`
	Events         []string  `json:"events" doc:"The event types sent, or ['*'] for all."`
	Secret         string    `json:"secret,omitempty" doc:"The signing secret ('whsec_' and base64), in the answer that creates the endpoint only."`
	Enabled        bool      `json:"enabled" doc:"False once the endpoint answered 410 Gone."`
	DisabledReason *string   `json:"disabled_reason" doc:"Why it was disabled; null while enabled."`
	CreatedAt      time.Time `json:"created_at"`
}

func toAgentWebhook(e *webhooks.Endpoint, withSecret bool) agentWebhook {
	out := agentWebhook{ID: e.ID, URL: e.URL, Events: e.Events, Enabled: e.Enabled, CreatedAt: e.CreatedAt}
	if e.DisabledReason != "" {
		r := e.DisabledReason
		out.DisabledReason = &r
	}
	if withSecret {
		out.Secret = e.Secret
	}
	return out
}

type agentWebhookList struct {
	Webhooks []agentWebhook `json:"webhooks"`
}

type createWebhookBody struct {
	URL    string   `json:"url" required:"true" maxLength:"2048" doc:"Where events are POSTed: https in live mode (http or https in the sandbox); never a loopback, private or link-local address unless the service allows them."`
	Events []string `json:"events" required:"true" doc:"Event types to receive, or ['*'] for every one; an unknown type is a VALIDATION_ERROR."`
}

type deletedWebhook struct {
	Deleted bool   `json:"deleted" enum:"true"`
	ID      string `json:"id"`
}

type webhookAttempt struct {
	At         time.Time `json:"at"`
	StatusCode *int      `json:"status_code" doc:"The receiver's HTTP status; null when no answer came (refused, timed out)."`
	Error      *string   `json:"error" doc:"Why the attempt failed; null on a 2xx."`
	DurationMs int64     `json:"duration_ms" minimum:"0"`
	Replay     bool      `json:"replay" doc:"True for an attempt asked for with the retry route."`
}

type webhookDelivery struct {
	ID             string           `json:"id"`
	EventID        string           `json:"event_id" doc:"Also the 'webhook-id' header of every attempt."`
	EventType      string           `json:"event_type"`
	Status         string           `json:"status" enum:"pending,delivered,failed"`
	Attempts       int              `json:"attempts" minimum:"0"`
	LastStatusCode *int             `json:"last_status_code"`
	LastError      *string          `json:"last_error"`
	NextAttemptAt  *time.Time       `json:"next_attempt_at" doc:"When the next automatic attempt is due (real time); null once delivered or failed."`
	CreatedAt      time.Time        `json:"created_at"`
	DeliveredAt    *time.Time       `json:"delivered_at"`
	AttemptLog     []webhookAttempt `json:"attempt_log" doc:"Every attempt, oldest first."`
}

type webhookDeliveryList struct {
	Deliveries []webhookDelivery `json:"deliveries"`
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toDelivery(d *webhooks.Delivery) webhookDelivery {
	out := webhookDelivery{ID: d.ID, EventID: d.EventID, EventType: d.EventType, Status: d.Status, Attempts: d.Attempts,
		LastStatusCode: d.LastStatusCode, LastError: optString(d.LastError), NextAttemptAt: d.NextAttemptAt,
		CreatedAt: d.CreatedAt, DeliveredAt: d.DeliveredAt, AttemptLog: make([]webhookAttempt, len(d.History))}
	for i, h := range d.History {
		a := webhookAttempt{At: h.At, Error: optString(h.Error), DurationMs: h.DurationMS, Replay: h.Replay}
		if h.StatusCode != 0 {
			c := h.StatusCode
			a.StatusCode = &c
		}
		out.AttemptLog[i] = a
	}
	return out
}

// webhookEvent is the body every delivery to an agent endpoint POSTs.
type webhookEvent struct {
	ID        string         `json:"id" doc:"The event id, also the 'webhook-id' header: the same on every retry and replay, so receivers can drop duplicates."`
	Type      string         `json:"type" doc:"One of the public event types (CONTRACT section 12)."`
	CreatedAt time.Time      `json:"created_at"`
	Data      map[string]any `json:"data" doc:"The ids involved and a snapshot of the object, keys in snake_case."`
}

const webhookEventDoc = `The JSON body of a webhook delivery. Headers (Standard Webhooks):
'webhook-id' (the event id), 'webhook-timestamp' (Unix seconds of the attempt) and
'webhook-signature' ('v1,' and the base64 HMAC-SHA256 of 'id.timestamp.body', keyed with
the base64-decoded part of the secret after 'whsec_').`

func (a *API) createWebhook(w http.ResponseWriter, r *http.Request) error {
	var b createWebhookBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	out, err := a.createWebhookOf(r.Context(), actor(r), &b)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "webhook", out.ID)
	return httpapi.OK(w, r, http.StatusCreated, out)
}

// createWebhookOf is POST /v1/agent/webhooks and the create_webhook tool.
func (a *API) createWebhookOf(ctx context.Context, as market.Actor, b *createWebhookBody) (*agentWebhook, error) {
	e, err := a.Webhooks.CreateAgent(ctx, as, b.URL, b.Events)
	if err != nil {
		return nil, err
	}
	out := toAgentWebhook(e, true)
	return &out, nil
}

func (a *API) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	out, err := a.webhooksOf(r.Context(), actor(r))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// webhooksOf is GET /v1/agent/webhooks and the list_webhooks tool.
func (a *API) webhooksOf(ctx context.Context, as market.Actor) (*agentWebhookList, error) {
	es, err := a.Webhooks.ListAgent(ctx, as)
	if err != nil {
		return nil, err
	}
	out := agentWebhookList{Webhooks: make([]agentWebhook, len(es))}
	for i := range es {
		out.Webhooks[i] = toAgentWebhook(&es[i], false)
	}
	return &out, nil
}

func (a *API) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	httpapi.Entity(r, "webhook", id)
	out, err := a.deleteWebhookOf(r.Context(), actor(r), id)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// deleteWebhookOf is DELETE /v1/agent/webhooks/{id} and the delete_webhook
// tool.
func (a *API) deleteWebhookOf(ctx context.Context, as market.Actor, id string) (*deletedWebhook, error) {
	e, err := a.Webhooks.DeleteAgent(ctx, as, id)
	if err != nil {
		return nil, err
	}
	return &deletedWebhook{Deleted: true, ID: e.ID}, nil
}

func (a *API) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	httpapi.Entity(r, "webhook", id)
	limit := webhooks.DefaultDeliveryLimit
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > webhooks.MaxDeliveryLimit {
			return market.Invalid(market.FieldError{Field: "limit", Message: "must be a whole number from 1 to 100"})
		}
		limit = n
	}
	out, err := a.webhookDeliveriesOf(r.Context(), actor(r), id, limit)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// webhookDeliveriesOf is GET /v1/agent/webhooks/{id}/deliveries and the
// get_webhook_deliveries tool.
func (a *API) webhookDeliveriesOf(ctx context.Context, as market.Actor, id string, limit int) (*webhookDeliveryList, error) {
	ds, err := a.Webhooks.AgentDeliveries(ctx, as, id, limit)
	if err != nil {
		return nil, err
	}
	out := webhookDeliveryList{Deliveries: make([]webhookDelivery, len(ds))}
	for i := range ds {
		out.Deliveries[i] = toDelivery(&ds[i])
	}
	return &out, nil
}

func (a *API) retryWebhookDelivery(w http.ResponseWriter, r *http.Request) error {
	id, did := r.PathValue("id"), r.PathValue("deliveryId")
	httpapi.Entity(r, "webhook_delivery", did)
	d, err := a.Webhooks.RetryAgent(r.Context(), actor(r), id, did)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toDelivery(d))
}
