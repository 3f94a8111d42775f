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
	Amount            int64      `json:"amount" minimum:"1" doc:"Cents; for a request, the amount asked until it is approved."`
	Status            string     `json:"status" enum:"requested,declined,pending,succeeded"`
	Reason            *string    `json:"reason"`
	Message           *string    `json:"message" doc:"The seller's answer or a note."`
	RequestedBy       *string    `json:"requestedBy" doc:"The user who asked for or made the refund (null for the service's own)."`
	InitiatedBy       string     `json:"initiatedBy" enum:"buyer,seller,admin,dispute"`
	SellerShare       *int64     `json:"sellerShare,omitempty" minimum:"0" doc:"Seller and admins only. The part taken from the seller (0 until booked)."`
	PlatformShare     *int64     `json:"platformShare,omitempty" minimum:"0" doc:"Seller and admins only. The part taken from the platform's fees."`
	ReversedAmount    *int64     `json:"reversedAmount,omitempty" minimum:"0" doc:"Seller and admins only. Taken back from a payout already transferred."`
	ProcessorRefundID *string    `json:"processorRefundId" doc:"The payment processor's refund id, once it took the refund."`
	CreatedAt         time.Time  `json:"createdAt"`
	DecidedAt         *time.Time `json:"decidedAt" doc:"When the request was approved or declined, or the refund made."`
	IssuedAt          *time.Time `json:"issuedAt" doc:"When the processor took the refund."`
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
	RefundID string `json:"refundId" nullable:"true" doc:"The request answered; omitted, the order's open request."`
	Action   string `json:"action" enum:"approve,decline" nullable:"true" doc:"For a request; 'approve' when omitted."`
	Amount   *int64 `json:"amount" doc:"Approving: cents to refund, at most the requested amount. A seller's own refund: 1 up to what is refundable; omitted, everything refundable."`
	Reason   string `json:"reason" nullable:"true" doc:"Why (a seller's own refund), at most 500 characters."`
	Message  string `json:"message" nullable:"true" doc:"A note to the buyer (with a decline, why), at most 500 characters."`
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
	return httpapi.OK(w, r, http.StatusOK, refundResult{Refund: toRefund(ref, o, p), Order: toOrder(o, p.Actor)})
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
