package api

import (
	"context"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// Refund is a refund, or a buyer's request for one. How it is split
// between the seller and the platform is shown to the seller and admins
// only.
type Refund struct {
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

// RefundOf is r, a refund of order o, as viewer sees it: the split to o's
// seller and admins only.
func RefundOf(r *orders.Refund, o *orders.Order, viewer market.Actor) *Refund {
	out := &Refund{ID: r.ID, OrderID: r.OrderID, Amount: r.Amount, Status: string(r.Status), Reason: strOrNil(r.Reason),
		Message: strOrNil(r.Message), RequestedBy: strOrNil(r.RequestedBy), InitiatedBy: r.InitiatedBy,
		ProcessorRefundID: strOrNil(r.ProcessorRefundID), CreatedAt: r.CreatedAt, DecidedAt: r.DecidedAt, IssuedAt: r.IssuedAt}
	if viewer.UserID == o.SellerID || viewer.Admin {
		seller, platform, reversed := r.SellerShare, r.PlatformShare, r.ReversedAmount
		out.SellerShare, out.PlatformShare, out.ReversedAmount = &seller, &platform, &reversed
	}
	return out
}

// RefundsOf are an order's refunds as viewer sees them.
func RefundsOf(rs []orders.Refund, o *orders.Order, viewer market.Actor) []Refund {
	out := make([]Refund, len(rs))
	for i := range rs {
		out[i] = *RefundOf(&rs[i], o, viewer)
	}
	return out
}

// RequestRefund is the buyer's request for a refund; no money moves until
// the seller approves.
func (x Orders) RequestRefund(ctx context.Context, c *Caller, orderID string, in orders.RefundRequestInput) (*Refund, error) {
	r, o, err := x.Service.RequestRefund(ctx, c.Actor, orderID, in)
	if err != nil {
		return nil, err
	}
	return RefundOf(r, o, c.Actor), nil
}

// RespondRefund is the seller's answer to a request, or own refund: the
// refund and the order after it.
func (x Orders) RespondRefund(ctx context.Context, c *Caller, orderID string, in orders.RefundAnswer) (*Refund, *Order, error) {
	r, o, err := x.Service.RespondRefund(ctx, c.Actor, orderID, in)
	if err != nil {
		return nil, nil, err
	}
	return RefundOf(r, o, c.Actor), OrderOf(o, c.Actor), nil
}

// Refunds are an order's refunds and requests, oldest first.
func (x Orders) Refunds(ctx context.Context, c *Caller, orderID string) ([]Refund, error) {
	o, rs, err := x.Service.Refunds(ctx, c.Actor, orderID)
	if err != nil {
		return nil, err
	}
	return RefundsOf(rs, o, c.Actor), nil
}
