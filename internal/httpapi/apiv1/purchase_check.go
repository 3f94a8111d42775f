package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/httpapi"
	"marketplace/internal/orders"
)

// purchaseCheck is POST /agent/purchase/check's answer: what the purchase
// would do now (CONTRACT.md section 15).
type purchaseCheck struct {
	Allowed      bool            `json:"allowed" doc:"True when the purchase would go through now (charge permitting: a declined card is never predicted)."`
	Code         *string         `json:"code" doc:"The error code the purchase would answer now (see 'ErrorCode'); null when allowed. 'APPROVAL_REQUIRED' when it would wait for the owner. 'PAYMENT_FAILED', 'SCA_REQUIRED' and 'DUPLICATE_REQUEST' are never predicted."`
	Message      *string         `json:"message" doc:"The purchase's message for 'code'; null when allowed."`
	Details      map[string]any  `json:"details" nullable:"true" doc:"The purchase's error details for 'code', spelled as its error envelope spells them; null when allowed or when it has none."`
	ItemPrice    *int64          `json:"itemPrice" doc:"Null when the checks stopped before the price and shipping were known."`
	ShippingCost *int64          `json:"shippingCost"`
	ServiceFee   *int64          `json:"serviceFee"`
	TotalCharged *int64          `json:"totalCharged" doc:"What the purchase would charge, the amount the caps are checked against."`
	Remaining    capFigures      `json:"remaining" doc:"What is left now, before this purchase, of each cap: the tighter of the owner's and the key's own; null where there is no cap."`
	Unblock      []checkUnblocks `json:"unblock" doc:"What would change the answer; empty when allowed."`
}

// capFigures are cents per spending cap; null where there is no cap.
type capFigures struct {
	PerTransaction *int64 `json:"perTransaction" doc:"The per-purchase cap (it does not wear down)."`
	Daily          *int64 `json:"daily"`
	Weekly         *int64 `json:"weekly"`
	Monthly        *int64 `json:"monthly"`
}

func toCapFigures(c orders.Caps) capFigures {
	return capFigures{PerTransaction: c.PerTransaction, Daily: c.Daily, Weekly: c.Weekly, Monthly: c.Monthly}
}

type checkUnblocks struct {
	Action    string     `json:"action" enum:"raise_limit,wait_for_reset,request_approval,ask_owner,add_payment_method,verify_identity,raise_max_price,update_expected_price,quote_shipping,choose_another_listing,retry_later,make_offer" doc:"What to do; 'raise_limit', 'request_approval', 'ask_owner', 'add_payment_method' and 'verify_identity' are the owner's to do."`
	Detail    string     `json:"detail"`
	LimitType *string    `json:"limitType,omitempty" enum:"per_transaction,daily,weekly,monthly,approval_threshold" doc:"The cap concerned (raise_limit, request_approval)."`
	Level     *string    `json:"level,omitempty" enum:"owner,key" doc:"Whose cap: the owner's spending controls, or the key's own caps."`
	Amount    *int64     `json:"amount,omitempty" doc:"Cents the cap (or maxPrice) would have to rise by."`
	Until     *time.Time `json:"until,omitempty" doc:"wait_for_reset: when every spending window at fault has reset (UTC calendar day, ISO week, month)."`
}

// checkRoute is the route whose error spellings a dry run's details use.
const checkRoute = "POST " + Prefix + "/agent/purchase"

func toPurchaseCheck(r *orders.CheckResult) purchaseCheck {
	out := purchaseCheck{Allowed: r.Allowed(), Remaining: toCapFigures(r.Remaining), Unblock: make([]checkUnblocks, len(r.Unblock))}
	if e := r.Refusal; e != nil {
		code, msg := string(e.Code), e.Message
		out.Code, out.Message = &code, &msg
		if d := Surface.Details(checkRoute, e); len(d) > 0 { // as the envelope, which leaves empty details out
			out.Details = d
		}
	}
	if f := r.Fees; f != nil {
		out.ItemPrice, out.ShippingCost, out.ServiceFee, out.TotalCharged = &f.ItemPrice, &f.ShippingCost, &f.ServiceFee, &f.TotalCharged
	}
	for i, u := range r.Unblock {
		out.Unblock[i] = checkUnblocks{Action: u.Action, Detail: u.Detail, LimitType: strOrNil(u.LimitType),
			Level: strOrNil(u.Level), Amount: u.Amount, Until: u.Until}
	}
	return out
}

// checkPurchase is POST /agent/purchase/check: the purchase dry run. A
// refusal the purchase would give is the answer's code (200); the call's own
// refusals (credentials, scope, a body that is not JSON) are errors as on
// the purchase route.
func (a *API) checkPurchase(w http.ResponseWriter, r *http.Request) error {
	if err := httpapi.RequireScope(r, agents.OpBuy); err != nil {
		return err
	}
	var b purchaseBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	res, err := a.Orders.Check(r.Context(), buyer(r), b.input())
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toPurchaseCheck(res))
}

// orderAuth is an agent order's authorization record (CONTRACT.md 15).
type orderAuth struct {
	KeyID           string             `json:"keyId"`
	KeyPrefix       string             `json:"keyPrefix"`
	KeyLabel        string             `json:"keyLabel"`
	Scope           string             `json:"scope" ref:"Scope" doc:"The key's scope at the time."`
	MaxPrice        *int64             `json:"maxPrice"`
	ExpectedPrice   *int64             `json:"expectedPrice"`
	OfferID         *string            `json:"offerId"`
	IdempotencyKey  *string            `json:"idempotencyKey"`
	Limits          capFigures         `json:"limits" doc:"The caps in force, the tighter of the owner's and the key's own; null where none."`
	RemainingBefore capFigures         `json:"remainingBefore" doc:"What was left of each cap just before this purchase."`
	Approval        *orderAuthApproval `json:"approval" doc:"The owner's decision when the purchase waited for approval; null otherwise."`
	RequestID       *string            `json:"requestId" doc:"The request id of the purchase call (meta.requestId of its answer)."`
	CreatedAt       time.Time          `json:"createdAt"`
}

type orderAuthApproval struct {
	ID        string    `json:"id"`
	DecidedBy string    `json:"decidedBy" doc:"Who approved: the owner's user id (or an admin's)."`
	DecidedAt time.Time `json:"decidedAt"`
}

func toOrderAuth(a *orders.Authorization) *orderAuth {
	if a == nil {
		return nil
	}
	out := &orderAuth{KeyID: a.KeyID, KeyPrefix: a.KeyPrefix, KeyLabel: a.KeyLabel, Scope: a.Scope, MaxPrice: a.MaxPrice,
		ExpectedPrice: a.ExpectedPrice, OfferID: strOrNil(a.OfferID), IdempotencyKey: strOrNil(a.IdempotencyKey),
		Limits: toCapFigures(a.Limits), RemainingBefore: toCapFigures(a.RemainingBefore), RequestID: strOrNil(a.RequestID),
		CreatedAt: a.CreatedAt}
	if ap := a.Approval; ap != nil {
		out.Approval = &orderAuthApproval{ID: ap.ID, DecidedBy: ap.DecidedBy, DecidedAt: ap.DecidedAt}
	}
	return out
}
