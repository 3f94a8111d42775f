package apiv1

import (
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
)

// RegisterWebhooks adds the account's own webhook endpoint (bearer only):
// set, read, remove, test, and its delivery log with replay.
func (a *API) RegisterWebhooks(rt *httpapi.Router) {
	rt = rt.In("webhooks")
	p := Prefix + "/auth/me/webhook"
	rt.Handle("PUT", p, httpapi.Bearer, a.putWebhook)
	rt.Handle("GET", p, httpapi.Bearer, a.getWebhook)
	rt.Handle("DELETE", p, httpapi.Bearer, a.deleteWebhook)
	rt.Handle("POST", p+"/test", httpapi.Bearer, a.testWebhook)
	rt.Handle("GET", p+"/deliveries", httpapi.Bearer, a.webhookDeliveries)
	rt.Handle("POST", p+"/deliveries/{id}/retry", httpapi.Bearer, a.retryWebhookDelivery)
}

type putWebhookBody struct {
	URL    string   `json:"url" required:"true" maxLength:"2048" doc:"Where events are POSTed: https in live mode (http or https in the sandbox); never a loopback, private or link-local address unless the service allows them."`
	Events []string `json:"events" doc:"Optional filter: event types, or ['*'] (the default) for every event."`
}

type webhookTest struct {
	DeliveryID string `json:"deliveryId" doc:"The delivery of the 'webhook.test' event; follow it in the delivery log."`
}

// putWebhook is PUT /auth/me/webhook: set the URL; a new secret is made
// and shown, and the endpoint is enabled.
func (a *API) putWebhook(w http.ResponseWriter, r *http.Request) error {
	var b putWebhookBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	v, err := a.WebhookOps().PutAccount(r.Context(), actor(r), b.URL, b.Events)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "webhook", v.ID)
	return httpapi.OK(w, r, http.StatusOK, v)
}

func (a *API) getWebhook(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.WebhookOps().Account(r.Context(), actor(r)))
}

func (a *API) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := a.WebhookOps().DeleteAccount(r.Context(), actor(r))
	if err != nil {
		return err
	}
	httpapi.Entity(r, "webhook", id)
	return httpapi.OK(w, r, http.StatusOK, deleted{Deleted: true, ID: id})
}

func (a *API) testWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := a.WebhookOps().Test(r.Context(), actor(r))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, webhookTest{DeliveryID: id})
}

func (a *API) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	limit, err := api.DeliveryLimit(r.URL.Query().Get("limit"))
	if err != nil {
		return err
	}
	return httpapi.Reply(w, r, http.StatusOK).With(a.WebhookOps().AccountDeliveries(r.Context(), actor(r), limit))
}

func (a *API) retryWebhookDelivery(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "webhook_delivery")
	return httpapi.Reply(w, r, http.StatusOK).With(a.WebhookOps().RetryAccount(r.Context(), actor(r), id))
}
