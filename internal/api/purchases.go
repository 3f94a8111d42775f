package api

import (
	"context"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// Caps are cents per spending cap; null where there is no cap.
type Caps struct {
	PerTransaction *int64 `json:"perTransaction" doc:"The per-purchase cap (it does not wear down)."`
	Daily          *int64 `json:"daily"`
	Weekly         *int64 `json:"weekly"`
	Monthly        *int64 `json:"monthly"`
}

func capsOf(c orders.Caps) Caps {
	return Caps{PerTransaction: c.PerTransaction, Daily: c.Daily, Weekly: c.Weekly, Monthly: c.Monthly}
}

// OrderAuth is an agent order's authorization record (CONTRACT.md section
// 15). The key's scope is spelled as each surface names scopes.
type OrderAuth struct {
	KeyID           string             `json:"keyId"`
	KeyPrefix       string             `json:"keyPrefix"`
	KeyLabel        string             `json:"keyLabel"`
	Scope           string             `json:"scope" ref:"Scope" snake:"-" doc:"The key's scope at the time."`
	ShortScope      string             `json:"-" ref:"Scope" snake:"scope" doc:"The key's scope at the time."`
	MaxPrice        *int64             `json:"maxPrice"`
	ExpectedPrice   *int64             `json:"expectedPrice"`
	OfferID         *string            `json:"offerId"`
	IdempotencyKey  *string            `json:"idempotencyKey"`
	Limits          Caps               `json:"limits" doc:"The caps in force, the tighter of the owner's and the key's own; null where none."`
	RemainingBefore Caps               `json:"remainingBefore" doc:"What was left of each cap just before this purchase."`
	Approval        *OrderAuthApproval `json:"approval" doc:"The owner's decision when the purchase waited for approval; null otherwise."`
	RequestID       *string            `json:"requestId" doc:"The request id of the purchase call (meta.requestId of its answer)."`
	CreatedAt       time.Time          `json:"createdAt"`
}

// OrderAuthApproval is the owner's decision on a purchase that waited.
type OrderAuthApproval struct {
	ID        string    `json:"id"`
	DecidedBy string    `json:"decidedBy" doc:"Who approved: the owner's user id (or an admin's)."`
	DecidedAt time.Time `json:"decidedAt"`
}

// OrderAuthOf is the record a, nil for none. Who may see it is the order's
// rule (SeesAuthorization).
func OrderAuthOf(a *orders.Authorization) *OrderAuth {
	if a == nil {
		return nil
	}
	out := &OrderAuth{KeyID: a.KeyID, KeyPrefix: a.KeyPrefix, KeyLabel: a.KeyLabel, Scope: a.Scope,
		ShortScope: agents.Scope(a.Scope).Short(), MaxPrice: a.MaxPrice, ExpectedPrice: a.ExpectedPrice,
		OfferID: strOrNil(a.OfferID), IdempotencyKey: strOrNil(a.IdempotencyKey), Limits: capsOf(a.Limits),
		RemainingBefore: capsOf(a.RemainingBefore), RequestID: strOrNil(a.RequestID), CreatedAt: a.CreatedAt}
	if ap := a.Approval; ap != nil {
		out.Approval = &OrderAuthApproval{ID: ap.ID, DecidedBy: ap.DecidedBy, DecidedAt: ap.DecidedAt}
	}
	return out
}

// PurchaseCheck is the purchase dry run's answer: what the purchase would
// do now (CONTRACT.md section 15).
type PurchaseCheck struct {
	Allowed      bool           `json:"allowed" doc:"True when the purchase would go through now (charge permitting: a declined card is never predicted)."`
	Code         *string        `json:"code" doc:"The error code the purchase would answer now (see 'ErrorCode'); null when allowed. 'APPROVAL_REQUIRED' when it would wait for the owner. 'PAYMENT_FAILED', 'SCA_REQUIRED' and 'DUPLICATE_REQUEST' are never predicted."`
	Message      *string        `json:"message" doc:"The purchase's message for 'code'; null when allowed."`
	Details      map[string]any `json:"details" nullable:"true" doc:"The purchase's error details for 'code', spelled as its error envelope spells them; null when allowed or when it has none."`
	ItemPrice    *int64         `json:"itemPrice" doc:"Null when the checks stopped before the price and shipping were known."`
	ShippingCost *int64         `json:"shippingCost"`
	ServiceFee   *int64         `json:"serviceFee"`
	TotalCharged *int64         `json:"totalCharged" doc:"What the purchase would charge, the amount the caps are checked against."`
	Remaining    Caps           `json:"remaining" doc:"What is left now, before this purchase, of each cap: the tighter of the owner's and the key's own; null where there is no cap."`
	Unblock      []CheckUnblock `json:"unblock" doc:"What would change the answer; empty when allowed."`
}

// CheckUnblock is one thing that would change a dry run's answer.
type CheckUnblock struct {
	Action    string     `json:"action" enum:"raise_limit,wait_for_reset,request_approval,ask_owner,add_payment_method,verify_identity,raise_max_price,update_expected_price,quote_shipping,choose_another_listing,retry_later,make_offer" doc:"What to do; 'raise_limit', 'request_approval', 'ask_owner', 'add_payment_method' and 'verify_identity' are the owner's to do."`
	Detail    string     `json:"detail"`
	LimitType *string    `json:"limitType,omitempty" enum:"per_transaction,daily,weekly,monthly,approval_threshold" doc:"The cap concerned (raise_limit, request_approval)."`
	Level     *string    `json:"level,omitempty" enum:"owner,key" doc:"Whose cap: the owner's spending controls, or the key's own caps."`
	Amount    *int64     `json:"amount,omitempty" doc:"Cents the cap (or maxPrice) would have to rise by."`
	Until     *time.Time `json:"until,omitempty" doc:"wait_for_reset: when every spending window at fault has reset (UTC calendar day, ISO week, month)."`
}

// ErrorDetails spells a refusal's details as a surface's error envelope
// does for its purchase route.
type ErrorDetails func(*market.Error) map[string]any

// PurchaseCheckOf is the dry run r, its refusal's details spelled by
// details.
func PurchaseCheckOf(r *orders.CheckResult, details ErrorDetails) *PurchaseCheck {
	out := &PurchaseCheck{Allowed: r.Allowed(), Remaining: capsOf(r.Remaining), Unblock: make([]CheckUnblock, len(r.Unblock))}
	if e := r.Refusal; e != nil {
		code, msg := string(e.Code), e.Message
		out.Code, out.Message = &code, &msg
		if d := details(e); len(d) > 0 { // as the envelope, which leaves empty details out
			out.Details = d
		}
	}
	if f := r.Fees; f != nil {
		out.ItemPrice, out.ShippingCost, out.ServiceFee, out.TotalCharged = &f.ItemPrice, &f.ShippingCost, &f.ServiceFee, &f.TotalCharged
	}
	for i, u := range r.Unblock {
		out.Unblock[i] = CheckUnblock{Action: u.Action, Detail: u.Detail, LimitType: strOrNil(u.LimitType),
			Level: strOrNil(u.Level), Amount: u.Amount, Until: u.Until}
	}
	return out
}

// FeeEstimate is what a purchase would charge now.
type FeeEstimate struct {
	ListingID       string         `json:"listingId"`
	Fees            OrderFees      `json:"fees"`
	ItemPrice       int64          `json:"itemPrice"`
	ServiceFee      int64          `json:"serviceFee"`
	ShippingCost    int64          `json:"shippingCost"`
	TotalCharged    int64          `json:"totalCharged"`
	FulfillmentType string         `json:"fulfillmentType" enum:"shipping,local_pickup"`
	Shipping        *OrderShipping `json:"shipping,omitempty"`
}

// FeeEstimateOf is the estimate of the order a purchase would make.
func FeeEstimateOf(o *orders.Order) *FeeEstimate {
	f := o.Fees
	return &FeeEstimate{ListingID: o.ListingID, Fees: orderFeesOf(f), ItemPrice: f.ItemPrice, ServiceFee: f.ServiceFee,
		ShippingCost: f.ShippingCost, TotalCharged: f.TotalCharged, FulfillmentType: string(o.Fulfillment),
		Shipping: orderShippingOf(o)}
}

func buyerOf(c *Caller) orders.Buyer {
	return orders.Buyer{Actor: c.Actor, User: c.User, Key: c.Key}
}

// Purchase buys a listing off-session with a saved card. With
// APPROVAL_REQUIRED the order queued for the owner comes with the error;
// the idempotency and crash-resume guarantees are the service's and the
// idempotency layer's around the route.
func (x Orders) Purchase(ctx context.Context, c *Caller, in orders.PurchaseInput) (*Order, error) {
	o, err := x.Service.Purchase(ctx, buyerOf(c), in)
	if o == nil {
		return nil, err
	}
	return OrderOf(o, c.Actor), err
}

// Check is the purchase's dry run: nothing is reserved or charged.
func (x Orders) Check(ctx context.Context, c *Caller, in orders.PurchaseInput, details ErrorDetails) (*PurchaseCheck, error) {
	r, err := x.Service.Check(ctx, buyerOf(c), in)
	if err != nil {
		return nil, err
	}
	return PurchaseCheckOf(r, details), nil
}

// Estimate is what the purchase would charge now.
func (x Orders) Estimate(ctx context.Context, c *Caller, in orders.PurchaseInput) (*FeeEstimate, error) {
	o, err := x.Service.Estimate(ctx, buyerOf(c), in)
	if err != nil {
		return nil, err
	}
	return FeeEstimateOf(o), nil
}

// StartCheckout is a human purchase: the listing is reserved for the
// hosted payment; the answer is the checkout and the caller's view of its
// order.
func (x Orders) StartCheckout(ctx context.Context, c *Caller, in orders.PurchaseInput) (*orders.Checkout, *Order, error) {
	ck, err := x.Service.StartCheckout(ctx, buyerOf(c), in)
	if err != nil {
		return nil, nil, err
	}
	return ck, OrderOf(ck.Order, c.Actor), nil
}

// Confirm checks a human checkout's payment and marks the order paid.
func (x Orders) Confirm(ctx context.Context, c *Caller, id string) (*Order, error) {
	return orderView(c)(x.Service.Confirm(ctx, c.Actor, id))
}

// Approve is the owner's (or an admin's) approval of a queued purchase:
// every check runs again and it is charged.
func (x Orders) Approve(ctx context.Context, c *Caller, approvalID string) (*Order, error) {
	return orderView(c)(x.Service.Approve(ctx, c.Actor, approvalID))
}

// Reject cancels a queued purchase.
func (x Orders) Reject(ctx context.Context, c *Caller, approvalID, reason string) (*Order, error) {
	return orderView(c)(x.Service.Reject(ctx, c.Actor, approvalID, reason))
}
