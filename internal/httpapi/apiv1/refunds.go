package apiv1

import (
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/orders"
)

// RegisterRefunds adds the refund routes: the buyer's request, the
// seller's answer (or own refund), and the order's refund list.
func (a *API) RegisterRefunds(rt *httpapi.Router) {
	rt = rt.In("refunds")
	p := Prefix
	rt.HandleIdempotent("POST", p+"/purchases/{id}/refund", httpapi.Bearer, a.requestRefund)
	rt.HandleIdempotent("POST", p+"/purchases/{id}/refund/seller", httpapi.Bearer, a.respondRefund)
	rt.Handle("GET", p+"/purchases/{id}/refunds", httpapi.Bearer, a.listRefunds)
}

type requestRefundBody struct {
	Reason  string `json:"reason" example:"The lamp arrived with a cracked shade." required:"true" doc:"Why the buyer wants a refund, 1 to 500 characters."`
	Amount  *int64 `json:"amount" example:"2500" doc:"Cents to refund, 1 up to what is refundable; omitted (or null), everything refundable."`
	Message string `json:"message" nullable:"true" doc:"A note to the seller, at most 500 characters."`
}

// requestRefund is POST /purchases/{id}/refund: the buyer asks; 201 with
// the request (status requested).
func (a *API) requestRefund(w http.ResponseWriter, r *http.Request) error {
	var b requestRefundBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := httpapi.PathEntity(r, "order")
	ref, err := a.OrderOps().RequestRefund(r.Context(), actor(r), id, orders.RefundRequestInput{Reason: b.Reason,
		Amount: b.Amount, Message: b.Message})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusCreated, ref)
}

type respondRefundBody struct {
	RefundID string `json:"refundId" nullable:"true" doc:"The request answered; omitted, the order's open request."`
	Action   string `json:"action" enum:"approve,decline" nullable:"true" doc:"For a request; 'approve' when omitted."`
	Amount   *int64 `json:"amount" doc:"Approving: cents to refund, at most the requested amount. A seller's own refund: 1 up to what is refundable; omitted, everything refundable."`
	Reason   string `json:"reason" nullable:"true" doc:"Why (a seller's own refund), at most 500 characters."`
	Message  string `json:"message" nullable:"true" doc:"A note to the buyer (with a decline, why), at most 500 characters."`
}

type refundResult struct {
	Refund api.Refund `json:"refund"`
	Order  api.Order  `json:"order"`
}

// respondRefund is POST /purchases/{id}/refund/seller: the seller approves
// or declines the buyer's request, or refunds on their own; 200 {refund,
// order}.
func (a *API) respondRefund(w http.ResponseWriter, r *http.Request) error {
	var b respondRefundBody
	if err := decodeOptional(r, &b); err != nil {
		return err
	}
	id := httpapi.PathEntity(r, "order")
	ref, o, err := a.OrderOps().RespondRefund(r.Context(), actor(r), id, orders.RefundAnswer{RefundID: b.RefundID,
		Action: b.Action, Amount: b.Amount, Reason: b.Reason, Message: b.Message})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, refundResult{Refund: *ref, Order: *o})
}

// listRefunds is GET /purchases/{id}/refunds: the order's refunds and
// requests, oldest first.
func (a *API) listRefunds(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.OrderOps().Refunds(r.Context(), actor(r), r.PathValue("id")))
}
