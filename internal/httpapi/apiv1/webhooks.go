package apiv1

import (
	"net/http"
	"strconv"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/webhooks"
)

// RegisterWebhooks adds the account's own webhook endpoint (bearer only):
// set, read, remove, test, and its delivery log with replay.
func (a *API) RegisterWebhooks(rt *httpapi.Router) {
	p := Prefix + "/auth/me/webhook"
	rt.Handle("PUT", p, httpapi.Bearer, a.putWebhook)
	rt.Handle("GET", p, httpapi.Bearer, a.getWebhook)
	rt.Handle("DELETE", p, httpapi.Bearer, a.deleteWebhook)
	rt.Handle("POST", p+"/test", httpapi.Bearer, a.testWebhook)
	rt.Handle("GET", p+"/deliveries", httpapi.Bearer, a.webhookDeliveries)
	rt.Handle("POST", p+"/deliveries/{id}/retry", httpapi.Bearer, a.retryWebhookDelivery)
}

// webhook is the account's endpoint as Variant A shows it.
type webhook struct {
	ID             string    `json:"id"`
	URL            string    `json:"url"`
	Secret         string    `json:"secret,omitempty" doc:"The signing secret ('whsec_' and base64), in the answer to PUT only: every PUT makes a new one."`
	Events         []string  `json:"events" doc:"The event types sent, or ['*'] for all."`
	Enabled        bool      `json:"enabled" doc:"False once the endpoint answered 410 Gone; a PUT enables it again."`
	DisabledReason *string   `json:"disabledReason" doc:"Why it was disabled; null while enabled."`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

func toWebhook(e *webhooks.Endpoint, withSecret bool) webhook {
	out := webhook{ID: e.ID, URL: e.URL, Events: e.Events, Enabled: e.Enabled, DisabledReason: strOrNil(e.DisabledReason),
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
	if withSecret {
		out.Secret = e.Secret
	}
	return out
}

type putWebhookBody struct {
	URL    string   `json:"url" required:"true" maxLength:"2048" doc:"Where events are POSTed: https in live mode (http or https in the sandbox); never a loopback, private or link-local address unless the service allows them."`
	Events []string `json:"events" doc:"Optional filter: event types, or ['*'] (the default) for every event."`
}

type webhookTest struct {
	DeliveryID string `json:"deliveryId" doc:"The delivery of the 'webhook.test' event; follow it in the delivery log."`
}

// webhookAttempt is one try at a delivery.
type webhookAttempt struct {
	At         time.Time `json:"at"`
	StatusCode *int      `json:"statusCode" doc:"The receiver's HTTP status; null when no answer came (refused, timed out)."`
	Error      *string   `json:"error" doc:"Why the attempt failed; null on a 2xx."`
	DurationMs int64     `json:"durationMs" minimum:"0"`
	Replay     bool      `json:"replay" doc:"True for an attempt asked for with the retry route."`
}

// webhookDelivery is one event sent to the endpoint.
type webhookDelivery struct {
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
	AttemptLog     []webhookAttempt `json:"attemptLog" doc:"Every attempt, oldest first."`
}

func intOrNil(p *int) *int { return p }

func toDelivery(d *webhooks.Delivery) webhookDelivery {
	out := webhookDelivery{ID: d.ID, EventID: d.EventID, EventType: d.EventType, Status: d.Status, Attempts: d.Attempts,
		LastStatusCode: intOrNil(d.LastStatusCode), LastError: strOrNil(d.LastError), NextAttemptAt: d.NextAttemptAt,
		CreatedAt: d.CreatedAt, DeliveredAt: d.DeliveredAt, AttemptLog: make([]webhookAttempt, len(d.History))}
	for i, h := range d.History {
		a := webhookAttempt{At: h.At, Error: strOrNil(h.Error), DurationMs: h.DurationMS, Replay: h.Replay}
		if h.StatusCode != 0 {
			c := h.StatusCode
			a.StatusCode = &c
		}
		out.AttemptLog[i] = a
	}
	return out
}

// deliveryLimit reads ?limit= (1..100, default 50).
func deliveryLimit(r *http.Request) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return webhooks.DefaultDeliveryLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > webhooks.MaxDeliveryLimit {
		return 0, market.Invalid(market.FieldError{Field: "limit", Message: "must be a whole number from 1 to 100"})
	}
	return n, nil
}

// putWebhook is PUT /auth/me/webhook: set the URL; a new secret is made
// and shown, and the endpoint is enabled.
func (a *API) putWebhook(w http.ResponseWriter, r *http.Request) error {
	var b putWebhookBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	e, err := a.Webhooks.PutAccount(r.Context(), actor(r).Actor, b.URL, b.Events)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "webhook", e.ID)
	return httpapi.OK(w, r, http.StatusOK, toWebhook(e, true))
}

func (a *API) getWebhook(w http.ResponseWriter, r *http.Request) error {
	e, err := a.Webhooks.Account(r.Context(), actor(r).Actor)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toWebhook(e, false))
}

func (a *API) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	e, err := a.Webhooks.DeleteAccount(r.Context(), actor(r).Actor)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "webhook", e.ID)
	return httpapi.OK(w, r, http.StatusOK, deleted{Deleted: true, ID: e.ID})
}

func (a *API) testWebhook(w http.ResponseWriter, r *http.Request) error {
	d, err := a.Webhooks.Test(r.Context(), actor(r).Actor)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, webhookTest{DeliveryID: d.ID})
}

func (a *API) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	limit, err := deliveryLimit(r)
	if err != nil {
		return err
	}
	ds, err := a.Webhooks.AccountDeliveries(r.Context(), actor(r).Actor, limit)
	if err != nil {
		return err
	}
	out := make([]webhookDelivery, len(ds))
	for i := range ds {
		out[i] = toDelivery(&ds[i])
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

func (a *API) retryWebhookDelivery(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	httpapi.Entity(r, "webhook_delivery", id)
	d, err := a.Webhooks.RetryAccount(r.Context(), actor(r).Actor, id)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toDelivery(d))
}

// webhookEvent is the body every delivery POSTs (published for the
// callbacks of PUT /auth/me/webhook).
type webhookEvent struct {
	ID        string         `json:"id" doc:"The event id, also the 'webhook-id' header: the same on every retry and replay, so receivers can drop duplicates."`
	Type      string         `json:"type" doc:"One of the public event types (CONTRACT section 12), or 'webhook.test'."`
	CreatedAt time.Time      `json:"createdAt"`
	Data      map[string]any `json:"data" doc:"The ids involved and a snapshot of the object."`
}

const webhookEventDoc = `The JSON body of a webhook delivery. Headers (Standard Webhooks):
'webhook-id' (the event id), 'webhook-timestamp' (Unix seconds of the attempt) and
'webhook-signature' ('v1,' and the base64 HMAC-SHA256 of 'id.timestamp.body', keyed with
the base64-decoded part of the secret after 'whsec_').`
