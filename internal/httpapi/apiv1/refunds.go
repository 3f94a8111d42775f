package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/orders"
)

// RegisterRefunds adds the refund routes: the buyer's request, the
// seller's answer (or own refund), and the order's refund list.
func (a *API) RegisterRefunds(rt *httpapi.Router) {
	p := Prefix
	rt.HandleIdempotent("POST", p+"/purchases/{id}/refund", httpapi.Bearer, a.requestRefund)
	rt.HandleIdempotent("POST", p+"/purchases/{id}/refund/seller", httpapi.Bearer, a.respondRefund)
	rt.Handle("GET", p+"/purchases/{id}/refunds", httpapi.Bearer, a.listRefunds)
}

// refund is Variant A's refund record. How it is split between the seller
// and the platform is shown to the seller and admins only.
type refund struct {
	ID                string     `json:"id"`
	OrderID           string     `json:"orderId"`
	Amount            int64      `json:"amount"`
	Status            string     `json:"status"`
	Reason            *string    `json:"reason"`
	Message           *string    `json:"message"`
	RequestedBy       *string    `json:"requestedBy"`
	InitiatedBy       string     `json:"initiatedBy"`
	SellerShare       *int64     `json:"sellerShare,omitempty"`
	PlatformShare     *int64     `json:"platformShare,omitempty"`
	ReversedAmount    *int64     `json:"reversedAmount,omitempty"`
	ProcessorRefundID *string    `json:"processorRefundId"`
	CreatedAt         time.Time  `json:"createdAt"`
	DecidedAt         *time.Time `json:"decidedAt"`
	IssuedAt          *time.Time `json:"issuedAt"`
}

func toRefund(r *orders.Refund, o *orders.Order, p *httpapi.Principal) refund {
	out := refund{ID: r.ID, OrderID: r.OrderID, Amount: r.Amount, Status: string(r.Status), Reason: strOrNil(r.Reason),
		Message: strOrNil(r.Message), RequestedBy: strOrNil(r.RequestedBy), InitiatedBy: r.InitiatedBy,
		ProcessorRefundID: strOrNil(r.ProcessorRefundID), CreatedAt: r.CreatedAt, DecidedAt: r.DecidedAt, IssuedAt: r.IssuedAt}
	if p.User.ID == o.SellerID || p.Actor.Admin {
		seller, platform, reversed := r.SellerShare, r.PlatformShare, r.ReversedAmount
		out.SellerShare, out.PlatformShare, out.ReversedAmount = &seller, &platform, &reversed
	}
	return out
}

type requestRefundBody struct {
	Reason  string `json:"reason"`
	Amount  *int64 `json:"amount"`
	Message string `json:"message"`
}

// requestRefund is POST /purchases/{id}/refund: the buyer asks; 201 with
// the request (status requested).
func (a *API) requestRefund(w http.ResponseWriter, r *http.Request) error {
	var b requestRefundBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := r.PathValue("id")
	httpapi.Entity(r, "order", id)
	p := actor(r)
	ref, o, err := a.Orders.RequestRefund(r.Context(), p.Actor, id, orders.RefundRequestInput{Reason: b.Reason, Amount: b.Amount,
		Message: b.Message})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusCreated, toRefund(ref, o, p))
}

type respondRefundBody struct {
	RefundID string `json:"refundId"`
	Action   string `json:"action"`
	Amount   *int64 `json:"amount"`
	Reason   string `json:"reason"`
	Message  string `json:"message"`
}

type refundResult struct {
	Refund refund `json:"refund"`
	Order  order  `json:"order"`
}

// respondRefund is POST /purchases/{id}/refund/seller: the seller approves
// or declines the buyer's request, or refunds on their own; 200 {refund,
// order}.
func (a *API) respondRefund(w http.ResponseWriter, r *http.Request) error {
	var b respondRefundBody
	if err := decodeOptional(r, &b); err != nil {
		return err
	}
	id := r.PathValue("id")
	httpapi.Entity(r, "order", id)
	p := actor(r)
	ref, o, err := a.Orders.RespondRefund(r.Context(), p.Actor, id, orders.RefundAnswer{RefundID: b.RefundID, Action: b.Action,
		Amount: b.Amount, Reason: b.Reason, Message: b.Message})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, refundResult{Refund: toRefund(ref, o, p), Order: toOrder(o, p.User.ID)})
}

// listRefunds is GET /purchases/{id}/refunds: the order's refunds and
// requests, oldest first.
func (a *API) listRefunds(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	p := actor(r)
	o, rs, err := a.Orders.Refunds(r.Context(), p.Actor, id)
	if err != nil {
		return err
	}
	out := make([]refund, len(rs))
	for i := range rs {
		out[i] = toRefund(&rs[i], o, p)
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}
