package apiv1

import (
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/payments"
)

type connectBody struct {
	Country      string `json:"country" pattern:"^([A-Za-z]{2})?$" doc:"ISO 3166-1 alpha-2 (default US)."`
	BusinessType string `json:"businessType" enum:",individual,company" doc:"Default individual."`
}

// decodeOptional reads a body that may be empty.
func decodeOptional(r *http.Request, dst any) error {
	if r.ContentLength == 0 {
		return nil
	}
	return httpapi.Decode(r, dst)
}

func (a *API) connect(w http.ResponseWriter, r *http.Request) error {
	var b connectBody
	if err := decodeOptional(r, &b); err != nil {
		return err
	}
	v, err := a.Payments.Connect(r.Context(), actor(r).Actor, payments.ConnectInput{Country: b.Country, BusinessType: b.BusinessType})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "payout_account", v.Account.ID)
	return httpapi.OK(w, r, http.StatusOK, api.PayoutAccountOf(v))
}

func (a *API) connectStatus(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.PaymentOps().PayoutAccount(r.Context(), actor(r)))
}

func (a *API) connectRefresh(w http.ResponseWriter, r *http.Request) error {
	var b connectBody
	if err := decodeOptional(r, &b); err != nil {
		return err
	}
	v, err := a.Payments.Refresh(r.Context(), actor(r).Actor)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "payout_account", v.Account.ID)
	return httpapi.OK(w, r, http.StatusOK, api.PayoutAccountOf(v))
}

type connectDashboard struct {
	URL       string `json:"url" doc:"The login link; open it in a browser."`
	AccountID string `json:"accountId" doc:"The processor's account id."`
}

func (a *API) connectDashboard(w http.ResponseWriter, r *http.Request) error {
	url, acct, err := a.Payments.Dashboard(r.Context(), actor(r).Actor)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, connectDashboard{URL: url, AccountID: acct.ExternalID})
}

type sendLinkBody struct {
	Channel string `json:"channel" example:"email" required:"true" doc:"email or sms."`
	To      string `json:"to" doc:"An e-mail address (email) or phone number (sms); default as described."`
}

type linkSent struct {
	Sent    bool   `json:"sent" enum:"true"`
	Channel string `json:"channel" enum:"email,sms"`
	To      string `json:"to"`
}

func (a *API) connectSendLink(w http.ResponseWriter, r *http.Request) error {
	var b sendLinkBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	s, err := a.Payments.SendLink(r.Context(), actor(r).Actor, payments.LinkChannel(b.Channel), b.To)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, linkSent{Sent: true, Channel: string(s.Channel), To: s.To})
}
