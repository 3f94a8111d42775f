package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/payments"
)

// RegisterPayments adds the saved-card routes and the remaining seller
// payout routes. All of them are the human owner's (bearer token).
func (a *API) RegisterPayments(rt *httpapi.Router) {
	p := Prefix
	rt.Handle("POST", p+"/payment-methods/setup", httpapi.Bearer, a.setupPaymentMethod)
	rt.Handle("POST", p+"/payment-methods/confirm", httpapi.Bearer, a.confirmPaymentMethod)
	rt.Handle("GET", p+"/payment-methods", httpapi.Bearer, a.listPaymentMethods)
	rt.Handle("PATCH", p+"/payment-methods/{id}/default", httpapi.Bearer, a.defaultPaymentMethod)
	rt.Handle("DELETE", p+"/payment-methods/{id}", httpapi.Bearer, a.deletePaymentMethod)

	rt.Handle("GET", p+"/seller/connect/dashboard", httpapi.Bearer, a.connectDashboard)
	rt.Handle("POST", p+"/seller/connect/send-link", httpapi.Bearer, a.connectSendLink)
	// The spec spells these paths with "seller/connect" twice.
	rt.Handle("POST", p+"/seller/connect/seller/connect/card-setup", httpapi.Bearer, a.setupPaymentMethod)
	rt.Handle("POST", p+"/seller/connect/seller/connect/card-save", httpapi.Bearer, a.sellerCardSave)
	rt.Handle("GET", p+"/seller/connect/seller/connect/card-status", httpapi.Bearer, a.sellerCardStatus)
}

type paymentMethod struct {
	ID        string    `json:"id" doc:"This service's id of the saved card (send it as 'paymentMethodId')."`
	Type      string    `json:"type" enum:"card"`
	Brand     string    `json:"brand" example:"visa" doc:"visa, mastercard, amex, discover, ..."`
	Last4     string    `json:"last4" example:"4242"`
	ExpMonth  int       `json:"expMonth" minimum:"1" maximum:"12"`
	ExpYear   int       `json:"expYear"`
	IsDefault bool      `json:"isDefault"`
	CreatedAt time.Time `json:"createdAt"`
}

func toPaymentMethod(m *payments.PaymentMethod) paymentMethod {
	return paymentMethod{ID: m.ID, Type: "card", Brand: m.Brand, Last4: m.Last4, ExpMonth: m.ExpMonth, ExpYear: m.ExpYear,
		IsDefault: m.IsDefault, CreatedAt: m.CreatedAt}
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
	m, err := a.Payments.ConfirmSetup(r.Context(), actor(r).Actor, b.SetupIntentID, b.PaymentMethod)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "payment_method", m.ID)
	return httpapi.OK(w, r, status, toPaymentMethod(m))
}

func (a *API) confirmPaymentMethod(w http.ResponseWriter, r *http.Request) error {
	return a.confirmSetup(w, r, http.StatusCreated)
}

func (a *API) sellerCardSave(w http.ResponseWriter, r *http.Request) error {
	return a.confirmSetup(w, r, http.StatusOK)
}

func (a *API) listPaymentMethods(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Payments.PaymentMethods(r.Context(), actor(r).Actor)
	if err != nil {
		return err
	}
	out := make([]paymentMethod, len(list))
	for i := range list {
		out[i] = toPaymentMethod(&list[i])
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, httpapi.Meta{"total": len(out)})
}

func (a *API) defaultPaymentMethod(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	httpapi.Entity(r, "payment_method", id)
	m, err := a.Payments.SetDefaultPaymentMethod(r.Context(), actor(r).Actor, id)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toPaymentMethod(m))
}

func (a *API) deletePaymentMethod(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	httpapi.Entity(r, "payment_method", id)
	if err := a.Payments.DeletePaymentMethod(r.Context(), actor(r).Actor, id); err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, deleted{Deleted: true, ID: id})
}

type cardStatus struct {
	HasCard bool           `json:"hasCard"`
	Card    *paymentMethod `json:"card" doc:"The default card; null when none is saved."`
}

func (a *API) sellerCardStatus(w http.ResponseWriter, r *http.Request) error {
	m, err := a.Payments.CardOnFile(r.Context(), actor(r).Actor)
	if err != nil {
		return err
	}
	out := cardStatus{HasCard: m != nil}
	if m != nil {
		pm := toPaymentMethod(m)
		out.Card = &pm
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}
