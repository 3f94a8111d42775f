package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/api"
	"marketplace/internal/checkouts"
	"marketplace/internal/httpapi"
)

// The admin's agent platforms (CONTRACT.md section 18): platforms whose
// agents buy over ACP for guest buyers, each with its secret and the
// signing secret of its order webhooks.

// RegisterAdminPlatforms adds the admin routes of ACP platforms.
func (a *API) RegisterAdminPlatforms(rt *httpapi.Router) {
	rt = rt.In("admin")
	p := Prefix
	rt.Handle("GET", p+"/admin/acp-platforms", httpapi.Admin, a.adminPlatforms)
	rt.Handle("POST", p+"/admin/acp-platforms", httpapi.Admin, a.adminCreatePlatform)
	rt.Handle("DELETE", p+"/admin/acp-platforms/{id}", httpapi.Admin, a.adminDeletePlatform)
	rt.Handle("GET", p+"/admin/acp-platforms/{id}/deliveries", httpapi.Admin, a.adminPlatformDeliveries)
}

// acpPlatform is a connected platform as admins see it.
type acpPlatform struct {
	ID         string    `json:"id" example:"acpp_0f8e7c6a-1b2d-4c3e-9f00-112233445566"`
	Name       string    `json:"name" example:"Example Agents"`
	WebhookURL string    `json:"webhookUrl" format:"uri" doc:"Receives ACP order_create and order_update events for the platform's orders, signed with 'Merchant-Signature'."`
	CreatedAt  time.Time `json:"createdAt"`
}

// acpPlatformCreated is the create answer: the platform and, this once,
// its two secrets.
type acpPlatformCreated struct {
	acpPlatform
	Secret        string `json:"secret" example:"acp_3q2-Jd0cXoYb2mX1vJ8m6w3a3e1Y5a7Yb8cC9dD0eEf" doc:"The platform's credential: 'Authorization: Bearer acp_...' on /acp. Shown only here; kept as a hash."`
	SigningSecret string `json:"signingSecret" example:"whsec_n3Vd8kX0aQ2yZ7bC5eF1gH4jK6mP9rS2tU5wX8zA1bC" doc:"Signs the platform's order webhooks: 'Merchant-Signature: t=<unix>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">', keyed by this string's bytes. Shown only here."`
}

type adminCreatePlatformBody struct {
	Name       string `json:"name" required:"true" minLength:"1" maxLength:"100"`
	WebhookURL string `json:"webhookUrl" required:"true" maxLength:"2048" doc:"Where the platform's order webhooks go: https in live mode, a public address."`
}

func toPlatform(p *checkouts.Platform) acpPlatform {
	return acpPlatform{ID: p.ID, Name: p.Name, WebhookURL: p.WebhookURL, CreatedAt: p.CreatedAt}
}

// adminPlatforms is GET /admin/acp-platforms: the connected platforms,
// oldest first.
func (a *API) adminPlatforms(w http.ResponseWriter, r *http.Request) error {
	ps, err := a.Checkouts.Platforms(r.Context(), actor(r).Actor)
	if err != nil {
		return err
	}
	out := make([]acpPlatform, len(ps))
	for i := range ps {
		out[i] = toPlatform(&ps[i])
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// adminCreatePlatform is POST /admin/acp-platforms {name, webhookUrl}.
func (a *API) adminCreatePlatform(w http.ResponseWriter, r *http.Request) error {
	var b adminCreatePlatformBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	p, err := a.Checkouts.CreatePlatform(r.Context(), actor(r).Actor, checkouts.NewPlatform{Name: b.Name, WebhookURL: b.WebhookURL})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "acp_platform", p.ID)
	return httpapi.OK(w, r, http.StatusCreated, acpPlatformCreated{acpPlatform: toPlatform(&p.Platform), Secret: p.Secret,
		SigningSecret: p.SigningSecret})
}

// adminDeletePlatform is DELETE /admin/acp-platforms/{id}: its secret
// stops working at once; its orders stay.
func (a *API) adminDeletePlatform(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "acp_platform")
	p, err := a.Checkouts.DeletePlatform(r.Context(), actor(r).Actor, id)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toPlatform(p))
}

// adminPlatformDeliveries is GET /admin/acp-platforms/{id}/deliveries: the
// platform's order webhooks, newest first.
func (a *API) adminPlatformDeliveries(w http.ResponseWriter, r *http.Request) error {
	limit, err := api.DeliveryLimit(r.URL.Query().Get("limit"))
	if err != nil {
		return err
	}
	id := httpapi.PathEntity(r, "acp_platform")
	return httpapi.Reply(w, r, http.StatusOK).With(a.PlatformDeliveries(r.Context(), actor(r), id, limit))
}
