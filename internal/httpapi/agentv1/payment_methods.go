package agentv1

import (
	"context"
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
)

// RegisterPayments adds the saved-card route: agents read their owner's
// cards; saving and removing them is the owner's (Variant A).
func (a *API) RegisterPayments(rt *httpapi.Router) {
	rt = rt.In("payment_methods")
	rt.Handle("GET", Prefix+"/account/payment-methods", httpapi.Either, a.paymentMethods)
}

func (a *API) paymentMethods(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.paymentMethodsOf(r.Context(), httpapi.PrincipalOf(r)))
}

// paymentMethodsOf is GET /v1/account/payment-methods and the
// get_payment_methods tool.
func (a *API) paymentMethodsOf(ctx context.Context, p *httpapi.Principal) (*paymentMethodList, error) {
	out, err := a.PaymentOps().PaymentMethods(ctx, p)
	if err != nil {
		return nil, err
	}
	return &paymentMethodList{PaymentMethods: out, Total: len(out)}, nil
}

// paymentMethodList is Variant B's list of saved cards: an object.
type paymentMethodList struct {
	PaymentMethods []api.PaymentMethod `json:"payment_methods"`
	Total          int                 `json:"total" minimum:"0"`
}
