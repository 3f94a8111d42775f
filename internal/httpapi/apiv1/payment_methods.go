package apiv1

import (
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
)

// RegisterPayments adds the saved-card routes and the remaining seller
// payout routes. All of them are the human owner's (bearer token).
func (a *API) RegisterPayments(rt *httpapi.Router) {
	p := Prefix
	rt.In("payment_methods").Handle("POST", p+"/payment-methods/setup", httpapi.Bearer, a.setupPaymentMethod)
	rt.In("payment_methods").Handle("POST", p+"/payment-methods/confirm", httpapi.Bearer, a.confirmPaymentMethod)
	rt.In("payment_methods").Handle("GET", p+"/payment-methods", httpapi.Bearer, a.listPaymentMethods)
	rt.In("payment_methods").Handle("PATCH", p+"/payment-methods/{id}/default", httpapi.Bearer, a.defaultPaymentMethod)
	rt.In("payment_methods").Handle("DELETE", p+"/payment-methods/{id}", httpapi.Bearer, a.deletePaymentMethod)

	rt.In("identity_verification", "payouts").Handle("GET", p+"/seller/connect/dashboard", httpapi.Bearer, a.connectDashboard)
	rt.In("identity_verification", "payouts").Handle("POST", p+"/seller/connect/send-link", httpapi.Bearer, a.connectSendLink)
	// The spec spells these paths with "seller/connect" twice.
	rt.In("payment_methods").Handle("POST", p+"/seller/connect/seller/connect/card-setup", httpapi.Bearer, a.setupPaymentMethod)
	rt.In("payment_methods").Handle("POST", p+"/seller/connect/seller/connect/card-save", httpapi.Bearer, a.sellerCardSave)
	rt.In("payment_methods").Handle("GET", p+"/seller/connect/seller/connect/card-status", httpapi.Bearer, a.sellerCardStatus)
}

type setupIntent struct {
	SetupIntentID string `json:"setupIntentId"`
	ClientSecret  string `json:"clientSecret" doc:"For the processor's card form (Stripe Elements)."`
}

type confirmSetupBody struct {
	SetupIntentID string `json:"setupIntentId" required:"true" doc:"From 'POST /payment-methods/setup'."`
	PaymentMethod string `json:"paymentMethod" example:"pm_card_visa" required:"true" doc:"The processor's payment method id, or in sandbox mode a test token."`
}

func (a *API) setupPaymentMethod(w http.ResponseWriter, r *http.Request) error {
	var b struct{}
	if err := decodeOptional(r, &b); err != nil {
		return err
	}
	si, err := a.Payments.SetupIntent(r.Context(), actor(r).Actor)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "setup_intent", si.ID)
	return httpapi.OK(w, r, http.StatusOK, setupIntent{SetupIntentID: si.ID, ClientSecret: si.ClientSecret})
}

// confirmSetup saves the card of a setup intent for confirm (201) and the
// seller's card-save (200).
func (a *API) confirmSetup(w http.ResponseWriter, r *http.Request, status int) error {
	var b confirmSetupBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	m, err := a.PaymentOps().ConfirmSetup(r.Context(), actor(r), b.SetupIntentID, b.PaymentMethod)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "payment_method", m.ID)
	return httpapi.OK(w, r, status, m)
}

func (a *API) confirmPaymentMethod(w http.ResponseWriter, r *http.Request) error {
	return a.confirmSetup(w, r, http.StatusCreated)
}

func (a *API) sellerCardSave(w http.ResponseWriter, r *http.Request) error {
	return a.confirmSetup(w, r, http.StatusOK)
}

func (a *API) listPaymentMethods(w http.ResponseWriter, r *http.Request) error {
	out, err := a.PaymentOps().PaymentMethods(r.Context(), actor(r))
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, httpapi.Meta{"total": len(out)})
}

func (a *API) defaultPaymentMethod(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "payment_method")
	return httpapi.Reply(w, r, http.StatusOK).With(a.PaymentOps().SetDefault(r.Context(), actor(r), id))
}

func (a *API) deletePaymentMethod(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "payment_method")
	if err := a.Payments.DeletePaymentMethod(r.Context(), actor(r).Actor, id); err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, deleted{Deleted: true, ID: id})
}

type cardStatus struct {
	HasCard bool               `json:"hasCard"`
	Card    *api.PaymentMethod `json:"card" doc:"The default card; null when none is saved."`
}

func (a *API) sellerCardStatus(w http.ResponseWriter, r *http.Request) error {
	m, err := a.PaymentOps().CardOnFile(r.Context(), actor(r))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, cardStatus{HasCard: m != nil, Card: m})
}
