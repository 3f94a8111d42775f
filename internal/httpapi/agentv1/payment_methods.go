package agentv1

import (
	"context"
	"net/http"
	"time"

	"marketplace/internal/httpapi"
)

// RegisterPayments adds the saved-card route: agents read their owner's
// cards; saving and removing them is the owner's (Variant A).
func (a *API) RegisterPayments(rt *httpapi.Router) {
	rt.Handle("GET", Prefix+"/account/payment-methods", httpapi.Either, a.paymentMethods)
}

type paymentMethod struct {
	ID        string    `json:"id"`
	Type      string    `json:"type" enum:"card"`
	Brand     string    `json:"brand" example:"visa"`
	Last4     string    `json:"last4" example:"4242"`
	ExpMonth  int       `json:"exp_month" minimum:"1" maximum:"12"`
	ExpYear   int       `json:"exp_year"`
	IsDefault bool      `json:"is_default"`
	CreatedAt time.Time `json:"created_at"`
}

func (a *API) paymentMethods(w http.ResponseWriter, r *http.Request) error {
	out, err := a.paymentMethodsOf(r.Context(), httpapi.PrincipalOf(r))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// paymentMethodsOf is GET /v1/account/payment-methods and the
// get_payment_methods tool.
func (a *API) paymentMethodsOf(ctx context.Context, p *httpapi.Principal) (*paymentMethodList, error) {
	list, err := a.Payments.PaymentMethods(ctx, p.Actor)
	if err != nil {
		return nil, err
	}
	out := make([]paymentMethod, len(list))
	for i, m := range list {
		out[i] = paymentMethod{ID: m.ID, Type: "card", Brand: m.Brand, Last4: m.Last4, ExpMonth: m.ExpMonth,
			ExpYear: m.ExpYear, IsDefault: m.IsDefault, CreatedAt: m.CreatedAt}
	}
	return &paymentMethodList{PaymentMethods: out, Total: len(out)}, nil
}

type paymentMethodList struct {
	PaymentMethods []paymentMethod `json:"payment_methods"`
	Total          int             `json:"total" minimum:"0"`
}
