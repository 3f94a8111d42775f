package agentv1

import (
	"context"
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// RegisterWebhooks adds the owner's agent webhook endpoints. They belong
// to the owner: any of the owner's keys (any scope), or the owner's bearer
// token, sees and manages them.
func (a *API) RegisterWebhooks(rt *httpapi.Router) {
	rt = rt.In("webhooks")
	p := Prefix + "/agent/webhooks"
	rt.Handle("POST", p, httpapi.Either, a.createWebhook)
	rt.Handle("GET", p, httpapi.Either, a.listWebhooks)
	rt.Handle("DELETE", p+"/{id}", httpapi.Either, a.deleteWebhook)
	rt.Handle("GET", p+"/{id}/deliveries", httpapi.Either, a.webhookDeliveries)
	rt.Handle("POST", p+"/{id}/deliveries/{deliveryId}/retry", httpapi.Either, a.retryWebhookDelivery)
}

type agentWebhookList struct {
	Webhooks []api.Webhook `json:"webhooks"`
}

type createWebhookBody struct {
	URL    string   `json:"url" required:"true" maxLength:"2048" doc:"Where events are POSTed: https in live mode (http or https in the sandbox); never a loopback, private or link-local address unless the service allows them."`
	Events []string `json:"events" required:"true" doc:"Event types to receive, or ['*'] for every one; an unknown type is a VALIDATION_ERROR."`
}

type deletedWebhook struct {
	Deleted bool   `json:"deleted" enum:"true"`
	ID      string `json:"id"`
}

type webhookDeliveryList struct {
	Deliveries []api.WebhookDelivery `json:"deliveries"`
}

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
func (a *API) createWebhookOf(ctx context.Context, as market.Actor, b *createWebhookBody) (*api.Webhook, error) {
	return a.WebhookOps().CreateAgent(ctx, &api.Caller{Actor: as}, b.URL, b.Events)
}

func (a *API) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.webhooksOf(r.Context(), actor(r)))
}

// webhooksOf is GET /v1/agent/webhooks and the list_webhooks tool.
func (a *API) webhooksOf(ctx context.Context, as market.Actor) (*agentWebhookList, error) {
	es, err := a.WebhookOps().ListAgent(ctx, &api.Caller{Actor: as})
	if err != nil {
		return nil, err
	}
	return &agentWebhookList{Webhooks: es}, nil
}

func (a *API) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "webhook")
	return httpapi.Reply(w, r, http.StatusOK).With(a.deleteWebhookOf(r.Context(), actor(r), id))
}

// deleteWebhookOf is DELETE /v1/agent/webhooks/{id} and the delete_webhook
// tool.
func (a *API) deleteWebhookOf(ctx context.Context, as market.Actor, id string) (*deletedWebhook, error) {
	deletedID, err := a.WebhookOps().DeleteAgent(ctx, &api.Caller{Actor: as}, id)
	if err != nil {
		return nil, err
	}
	return &deletedWebhook{Deleted: true, ID: deletedID}, nil
}

func (a *API) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "webhook")
	limit, err := api.DeliveryLimit(r.URL.Query().Get("limit"))
	if err != nil {
		return err
	}
	return httpapi.Reply(w, r, http.StatusOK).With(a.webhookDeliveriesOf(r.Context(), actor(r), id, limit))
}

// webhookDeliveriesOf is GET /v1/agent/webhooks/{id}/deliveries and the
// get_webhook_deliveries tool.
func (a *API) webhookDeliveriesOf(ctx context.Context, as market.Actor, id string, limit int) (*webhookDeliveryList, error) {
	ds, err := a.WebhookOps().AgentDeliveries(ctx, &api.Caller{Actor: as}, id, limit)
	if err != nil {
		return nil, err
	}
	return &webhookDeliveryList{Deliveries: ds}, nil
}

func (a *API) retryWebhookDelivery(w http.ResponseWriter, r *http.Request) error {
	id, did := r.PathValue("id"), r.PathValue("deliveryId")
	httpapi.Entity(r, "webhook_delivery", did)
	return httpapi.Reply(w, r, http.StatusOK).With(a.WebhookOps().RetryAgent(r.Context(), httpapi.PrincipalOf(r), id, did))
}
