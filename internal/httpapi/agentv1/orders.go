package agentv1

import (
	"context"
	"net/http"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/moderation"
	"marketplace/internal/orders"
)

// RegisterOrders adds the purchase and order routes of Variant B.
func (a *API) RegisterOrders(rt *httpapi.Router) {
	p := Prefix
	a.router = rt
	rt.HandleIdempotent("POST", p+"/purchase", httpapi.Either, a.purchase)
	rt.Handle("POST", p+"/purchase/check", httpapi.Agent, a.checkPurchase)
	rt.Handle("GET", p+"/orders", httpapi.Either, a.listOrders)
	rt.Handle("GET", p+"/orders/{id}", httpapi.Either, a.getOrder)
	rt.Handle("POST", p+"/orders/{id}/ship", httpapi.Either, a.ship)
}

type shipBody struct {
	Carrier        string `json:"carrier" example:"ups" required:"true" doc:"'usps', 'ups', 'fedex' or 'dhl', in any case; kept on the order as sent."`
	TrackingNumber string `json:"tracking_number" example:"1Z999AA10123456784" required:"true" doc:"The carrier's tracking number; spaces and dashes are ignored."`
}

// ship is POST /v1/orders/{id}/ship {carrier, tracking_number}: the seller
// marks a paid order shipped.
func (a *API) ship(w http.ResponseWriter, r *http.Request) error {
	if err := httpapi.RequireScope(r, agents.OpSell); err != nil {
		return err
	}
	var b shipBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := r.PathValue("id")
	httpapi.Entity(r, "order", id)
	out, err := a.shipOf(r.Context(), httpapi.PrincipalOf(r), id, &b)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// shipOf is POST /v1/orders/{id}/ship and the create_shipment tool with a
// carrier and tracking number.
func (a *API) shipOf(ctx context.Context, p *httpapi.Principal, id string, b *shipBody) (*order, error) {
	o, err := a.Orders.Ship(ctx, p.Actor, id, orders.Shipment{Carrier: b.Carrier, TrackingNumber: b.TrackingNumber})
	if err != nil {
		return nil, err
	}
	out := toOrder(o, p.Actor)
	return &out, nil
}

// shipTo is a postal address in a request or an order.
type shipTo struct {
	Name    string `json:"name"`
	Line1   string `json:"line1"`
	Line2   string `json:"line2"`
	City    string `json:"city"`
	State   string `json:"state"`
	Zip     string `json:"zip"`
	Country string `json:"country" doc:"ISO 3166-1 alpha-2, upper case."`
	Phone   string `json:"phone"`
}

func toShipTo(a accounts.Address) shipTo {
	return shipTo{Name: a.Name, Line1: a.Line1, Line2: a.Line2, City: a.City, State: a.State, Zip: a.Zip,
		Country: a.Country, Phone: a.Phone}
}

// purchaseBody is Variant B's purchase: the spec's fields plus the
// address, offer and payment method fields of Variant A in snake_case.
type purchaseBody struct {
	ListingID            string  `json:"listing_id" format:"uuid" required:"true"`
	MaxPrice             *int64  `json:"max_price" minimum:"1" maximum:"1000000000" doc:"The most, in cents, the item may cost (before fees and shipping). Required for agents."`
	ExpectedPrice        *int64  `json:"expected_price" minimum:"0" maximum:"1000000000" doc:"The item price the caller saw; any other current price is 'PRICE_CHANGED'."`
	ShippingMethod       string  `json:"shipping_method" enum:",carrier,flat_rate,free,local_pickup" doc:"'local_pickup' collects the item (as 'fulfillment_type: local_pickup'); the other values ship."`
	SelectedShippingCost *int64  `json:"selected_shipping_cost" minimum:"0" maximum:"1000000000" doc:"The shipping cost the caller expects, in cents; must equal the resolved shipping cost."`
	CarrierRateID        string  `json:"carrier_rate_id" maxLength:"2048" doc:"The 'rate_id' of a shipping quote for this listing and the address's ZIP code; required for calculated shipping."`
	SelectedCarrier      string  `json:"selected_carrier" doc:"Must match the quoted rate's carrier when sent."`
	SelectedService      string  `json:"selected_service" doc:"Must match the quoted rate's service when sent."`
	ShippingAddress      *shipTo `json:"shipping_address"`
	ShippingAddressID    string  `json:"shipping_address_id" doc:"The id of one of the buyer's saved addresses."`
	FulfillmentType      string  `json:"fulfillment_type" enum:",shipping,local_pickup"`
	OfferID              string  `json:"offer_id" doc:"An accepted offer of the buyer's on this listing."`
	PaymentMethodID      string  `json:"payment_method_id" doc:"A saved card of the buyer's; the default card otherwise."`
}

func (b *purchaseBody) input() (orders.PurchaseInput, error) {
	in := orders.PurchaseInput{ListingID: b.ListingID, MaxPrice: b.MaxPrice, ExpectedPrice: b.ExpectedPrice,
		SelectedShippingCost: b.SelectedShippingCost, ShippingRateID: b.CarrierRateID, RateField: "carrier_rate_id",
		ShippingAddressID: b.ShippingAddressID, Fulfillment: b.FulfillmentType, OfferID: b.OfferID,
		PaymentMethodID: b.PaymentMethodID, SelectedCarrier: b.SelectedCarrier, SelectedService: b.SelectedService}
	switch b.ShippingMethod {
	case "", "carrier", "flat_rate", "free":
	case "local_pickup":
		if in.Fulfillment == "" {
			in.Fulfillment = string(orders.FulfillLocalPickup)
		}
	default:
		return in, market.Invalid(market.FieldError{Field: "shipping_method", Message: "must be carrier or local_pickup"})
	}
	if a := b.ShippingAddress; a != nil {
		in.ShippingAddress = &accounts.Address{Name: a.Name, Line1: a.Line1, Line2: a.Line2, City: a.City, State: a.State,
			Zip: a.Zip, Country: a.Country, Phone: a.Phone}
	}
	return in, nil
}

// purchase is POST /v1/purchase.
func (a *API) purchase(w http.ResponseWriter, r *http.Request) error {
	if err := httpapi.RequireScope(r, agents.OpBuy); err != nil {
		return err
	}
	var b purchaseBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	o, err := a.purchaseOf(r.Context(), httpapi.PrincipalOf(r), &b)
	if o != nil {
		httpapi.Entity(r, "order", o.ID)
	}
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusCreated, o)
}

// purchaseOf is POST /v1/purchase and the purchase_listing tool: the
// order, or with APPROVAL_REQUIRED the order queued for the owner. The
// idempotency key, if any, is in ctx.
func (a *API) purchaseOf(ctx context.Context, p *httpapi.Principal, b *purchaseBody) (*order, error) {
	in, err := b.input()
	if err != nil {
		return nil, err
	}
	in.RequestID = httpapi.RequestID(ctx)
	o, err := a.Orders.Purchase(ctx, orders.Buyer{Actor: p.Actor, User: p.User, Key: p.Key}, in)
	if o == nil {
		return nil, err
	}
	out := toOrder(o, p.Actor)
	return &out, err
}

type orderFees struct {
	ItemPrice    int64 `json:"item_price"`
	ServiceFee   int64 `json:"service_fee" doc:"'max(99, round(3.5% x (item_price + shipping_cost)))' by default."`
	ShippingCost int64 `json:"shipping_cost"`
	TotalCharged int64 `json:"total_charged"`
}

type orderListing struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Price int64  `json:"price" doc:"The item price of this order in cents."`
}

// order is Variant B's order; commission and payout go to the seller only.
type order struct {
	ID                string       `json:"id"`
	OrderID           string       `json:"order_id" doc:"The same as 'id'."`
	Status            string       `json:"status" ref:"OrderStatus"`
	Role              string       `json:"role,omitempty" enum:"buyer,seller" doc:"The caller's side; absent for an admin who is neither."`
	Channel           string       `json:"channel" enum:"agent,human"`
	ListingID         string       `json:"listing_id"`
	Listing           orderListing `json:"listing"`
	BuyerID           string       `json:"buyer_id"`
	SellerID          string       `json:"seller_id"`
	Fees              orderFees    `json:"fees"`
	Commission        *int64       `json:"commission,omitempty" doc:"Seller only. 'round(3% x item_price)' by default."`
	SellerPayout      *int64       `json:"seller_payout,omitempty" doc:"Seller only. What the seller is paid: 'item_price - commission + shipping_cost', or 'item_price - commission' when the platform bought the shipping label."`
	FulfillmentType   string       `json:"fulfillment_type" enum:"shipping,local_pickup"`
	ShippingAddress   *shipTo      `json:"shipping_address,omitempty" ref:"OrderShippingAddress"`
	Carrier           *string      `json:"carrier" doc:"The carrier of the rate chosen at purchase (calculated shipping)."`
	Service           *string      `json:"service"`
	EstimatedDays     *int         `json:"estimated_days"`
	EstimatedDelivery *string      `json:"estimated_delivery" format:"date"`
	OfferID           *string      `json:"offer_id"`
	AmountRefunded    int64        `json:"amount_refunded" minimum:"0"`
	TrackingCarrier   *string      `json:"tracking_carrier" doc:"The carrier the parcel travels with, once shipped (as the seller entered it, or the label's)."`
	TrackingNumber    *string      `json:"tracking_number" doc:"The parcel's tracking number, once shipped (normalized)."`
	ShippedAt         *time.Time   `json:"shipped_at"`
	DeliveredAt       *time.Time   `json:"delivered_at" doc:"When the buyer confirmed delivery or pickup (or it was confirmed for them); the hold period starts here."`
	CompletedAt       *time.Time   `json:"completed_at" doc:"When the payout was released and the order completed."`
	PayoutStatus      *string      `json:"payout_status,omitempty" enum:"pending,frozen,released,void" doc:"Seller only, once the order was delivered or cancelled: 'pending' (waiting for the hold period to end, or for a verified payout account), 'frozen' (a dispute holds it), 'released' (transferred), 'void' (cancelled or refunded: nothing to pay)."`
	PayoutDueAt       *time.Time   `json:"payout_due_at,omitempty" doc:"Seller only, once delivered. When the hold period ends and the payout is due ('payouts.hold_hours' after delivery unless an admin changed it)."`
	ExpiresAt         *time.Time   `json:"expires_at,omitempty" doc:"Human checkouts - when the reservation of the listing ends; absent once paid."`
	PaidAt            *time.Time   `json:"paid_at"`
	CancelledAt       *time.Time   `json:"cancelled_at"`
	CreatedAt         time.Time    `json:"created_at"`
	UpdatedAt         time.Time    `json:"updated_at"`
	Authorization     *orderAuth   `json:"authorization" doc:"The buyer's side only: what allowed an agent's purchase, written once when the listing was reserved (CONTRACT.md section 15). Null for a human purchase, for a purchase still waiting for (or refused) the owner's approval, and always for the seller."`

	// ContentTrust marks the seller's words (the listing title) to the buyer's agent.
	ContentTrust *httpapi.ContentTrust `json:"content_trust,omitempty" doc:"To an agent key's caller on the buyer's side: the listing title is the seller's text, untrusted input (CONTRACT section 16)."`
}

// orderAuth is an agent order's authorization record.
type orderAuth struct {
	KeyID           string             `json:"key_id"`
	KeyPrefix       string             `json:"key_prefix"`
	KeyLabel        string             `json:"key_label"`
	Scope           string             `json:"scope" enum:"buy,sell,buy_sell" doc:"The key's scope at the time."`
	MaxPrice        *int64             `json:"max_price"`
	ExpectedPrice   *int64             `json:"expected_price"`
	OfferID         *string            `json:"offer_id"`
	IdempotencyKey  *string            `json:"idempotency_key"`
	Limits          checkCaps          `json:"limits" doc:"The caps in force, the tighter of the owner's and the key's own; null where none."`
	RemainingBefore checkCaps          `json:"remaining_before" doc:"What was left of each cap just before this purchase."`
	Approval        *orderAuthApproval `json:"approval" doc:"The owner's decision when the purchase waited for approval; null otherwise."`
	RequestID       *string            `json:"request_id" doc:"The request id of the purchase call (meta.request_id of its answer)."`
	CreatedAt       time.Time          `json:"created_at"`
}

type orderAuthApproval struct {
	ID        string    `json:"id"`
	DecidedBy string    `json:"decided_by" doc:"Who approved: the owner's user id (or an admin's)."`
	DecidedAt time.Time `json:"decided_at"`
}

func toOrderAuth(a *orders.Authorization) *orderAuth {
	if a == nil {
		return nil
	}
	caps := func(c orders.Caps) checkCaps {
		return checkCaps{PerTransaction: c.PerTransaction, Daily: c.Daily, Weekly: c.Weekly, Monthly: c.Monthly}
	}
	out := &orderAuth{KeyID: a.KeyID, KeyPrefix: a.KeyPrefix, KeyLabel: a.KeyLabel, Scope: agents.Scope(a.Scope).Short(),
		MaxPrice: a.MaxPrice, ExpectedPrice: a.ExpectedPrice, OfferID: strPtr(a.OfferID), IdempotencyKey: strPtr(a.IdempotencyKey),
		Limits: caps(a.Limits), RemainingBefore: caps(a.RemainingBefore), RequestID: strPtr(a.RequestID), CreatedAt: a.CreatedAt}
	if ap := a.Approval; ap != nil {
		out.Approval = &orderAuthApproval{ID: ap.ID, DecidedBy: ap.DecidedBy, DecidedAt: ap.DecidedAt}
	}
	return out
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// toOrder is o as viewer sees it: the seller's and the buyer's sides by
// viewer's user, and the listing title's content_trust for the buyer's
// agent keys.
func toOrder(o *orders.Order, viewer market.Actor) order {
	f := o.Fees
	out := order{ID: o.ID, OrderID: o.ID, Status: string(o.Status), Role: o.Role(viewer.UserID), Channel: string(o.Channel),
		ListingID: o.ListingID, Listing: orderListing{ID: o.ListingID, Title: o.ListingTitle, Price: f.ItemPrice},
		BuyerID: o.BuyerID, SellerID: o.SellerID,
		Fees:            orderFees{ItemPrice: f.ItemPrice, ServiceFee: f.ServiceFee, ShippingCost: f.ShippingCost, TotalCharged: f.TotalCharged},
		FulfillmentType: string(o.Fulfillment), Carrier: strPtr(o.Carrier), Service: strPtr(o.Service),
		EstimatedDays: o.EstimatedDays, OfferID: strPtr(o.OfferID), AmountRefunded: o.AmountRefunded, ExpiresAt: o.ReservedUntil,
		PaidAt: o.PaidAt, CancelledAt: o.CancelledAt, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
	out.TrackingCarrier, out.TrackingNumber = strPtr(o.ShipmentCarrier), strPtr(o.TrackingNumber)
	out.ShippedAt, out.DeliveredAt, out.CompletedAt = o.ShippedAt, o.DeliveredAt, o.CompletedAt
	if viewer.UserID == o.SellerID {
		c, p := f.Commission, orders.SellerPayout(o)
		out.Commission, out.SellerPayout = &c, &p
		out.PayoutStatus, out.PayoutDueAt = strPtr(string(o.PayoutStatus)), o.PayoutDueAt
	}
	if viewer.UserID == o.BuyerID { // never the seller's to see
		out.Authorization = toOrderAuth(o.Authorization)
	}
	if o.ShippingAddress != nil {
		a := toShipTo(*o.ShippingAddress)
		out.ShippingAddress = &a
	}
	if o.EstimatedDelivery != nil {
		d := o.EstimatedDelivery.Format(time.DateOnly)
		out.EstimatedDelivery = &d
	}
	out.ContentTrust = httpapi.ForeignTrust(viewer, o.SellerID, httpapi.TrustListing,
		moderation.TrustField{Name: "listing.title", Text: o.ListingTitle})
	return out
}

// listOrders is GET /v1/orders: {orders, total}.
func (a *API) listOrders(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	out, err := a.ordersOf(r.Context(), httpapi.PrincipalOf(r), q.Get("role"), q.Get("status"), limit, offset)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// ordersOf is GET /v1/orders and the get_orders tool.
func (a *API) ordersOf(ctx context.Context, p *httpapi.Principal, role, status string, limit, offset int) (*orderPage, error) {
	os, total, err := a.Orders.List(ctx, p.Actor, role, status, limit, offset)
	if err != nil {
		return nil, err
	}
	out := make([]order, len(os))
	for i := range os {
		out[i] = toOrder(&os[i], p.Actor)
	}
	return &orderPage{Orders: out, Total: total, Limit: limit, Offset: offset}, nil
}

// orderPage's fields are in the order of the map it replaces.
type orderPage struct {
	Limit  int     `json:"limit" minimum:"1" maximum:"100"`
	Offset int     `json:"offset" minimum:"0"`
	Orders []order `json:"orders"`
	Total  int     `json:"total" minimum:"0" doc:"Matches over all pages."`
}

// getOrder is GET /v1/orders/{id}.
func (a *API) getOrder(w http.ResponseWriter, r *http.Request) error {
	out, err := a.orderOf(r.Context(), httpapi.PrincipalOf(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// orderOf is GET /v1/orders/{id} and the get_order_detail tool.
func (a *API) orderOf(ctx context.Context, p *httpapi.Principal, id string) (*order, error) {
	o, err := a.Orders.Get(ctx, p.Actor, id)
	if err != nil {
		return nil, err
	}
	out := toOrder(o, p.Actor)
	return &out, nil
}

// purchaseCheck is POST /v1/purchase/check's answer and the check_purchase
// tool's: what the purchase would do now (CONTRACT.md section 15).
type purchaseCheck struct {
	Allowed      bool              `json:"allowed" doc:"True when the purchase would go through now (charge permitting: a declined card is never predicted)."`
	Code         *string           `json:"code" doc:"The error the purchase would answer now; null when allowed. 'APPROVAL_REQUIRED' when it would wait for the owner. 'PAYMENT_FAILED', 'SCA_REQUIRED' and 'DUPLICATE_REQUEST' are never predicted."`
	Message      *string           `json:"message" doc:"The purchase's message for 'code'; null when allowed."`
	Details      map[string]any    `json:"details" nullable:"true" doc:"The purchase's error details for 'code' (as its error envelope spells them); null when allowed or when it has none."`
	ItemPrice    *int64            `json:"item_price" doc:"Null when the checks stopped before the price and shipping were known."`
	ShippingCost *int64            `json:"shipping_cost"`
	ServiceFee   *int64            `json:"service_fee"`
	TotalCharged *int64            `json:"total_charged" doc:"What the purchase would charge, the amount the caps are checked against."`
	Remaining    checkCaps         `json:"remaining" doc:"What is left now, before this purchase, of each cap: the tighter of the owner's and the key's own; null where there is no cap."`
	Unblock      []checkUnblocking `json:"unblock" doc:"What would change the answer; empty when allowed."`
}

type checkCaps struct {
	PerTransaction *int64 `json:"per_transaction" doc:"The per-purchase cap (it does not wear down)."`
	Daily          *int64 `json:"daily"`
	Weekly         *int64 `json:"weekly"`
	Monthly        *int64 `json:"monthly"`
}

type checkUnblocking struct {
	Action    string     `json:"action" enum:"raise_limit,wait_for_reset,request_approval,ask_owner,add_payment_method,verify_identity,raise_max_price,update_expected_price,quote_shipping,choose_another_listing,retry_later,make_offer" doc:"What to do; 'raise_limit', 'request_approval', 'ask_owner', 'add_payment_method' and 'verify_identity' are the owner's to do."`
	Detail    string     `json:"detail"`
	LimitType *string    `json:"limit_type,omitempty" enum:"per_transaction,daily,weekly,monthly,approval_threshold" doc:"The cap concerned (raise_limit, request_approval)."`
	Level     *string    `json:"level,omitempty" enum:"owner,key" doc:"Whose cap: the owner's spending controls, or the key's own caps."`
	Amount    *int64     `json:"amount,omitempty" doc:"Cents the cap (or max_price) would have to rise by."`
	Until     *time.Time `json:"until,omitempty" doc:"wait_for_reset: when every spending window at fault has reset (UTC calendar day, ISO week, month)."`
}

// checkRoute is the route whose error spellings a dry run's details use.
const checkRoute = "POST " + Prefix + "/purchase"

func toPurchaseCheck(r *orders.CheckResult) *purchaseCheck {
	out := &purchaseCheck{Allowed: r.Allowed(), Unblock: make([]checkUnblocking, len(r.Unblock)),
		Remaining: checkCaps{PerTransaction: r.Remaining.PerTransaction, Daily: r.Remaining.Daily,
			Weekly: r.Remaining.Weekly, Monthly: r.Remaining.Monthly}}
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
		out.Unblock[i] = checkUnblocking{Action: u.Action, Detail: u.Detail, LimitType: strPtr(u.LimitType),
			Level: strPtr(u.Level), Amount: u.Amount, Until: u.Until}
	}
	return out
}

// purchaseCheck is POST /v1/purchase/check: the purchase dry run.
func (a *API) checkPurchase(w http.ResponseWriter, r *http.Request) error {
	if err := httpapi.RequireScope(r, agents.OpBuy); err != nil {
		return err
	}
	var b purchaseBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	out, err := a.checkOf(r.Context(), httpapi.PrincipalOf(r), &b)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// checkOf is POST /v1/purchase/check and the check_purchase tool.
func (a *API) checkOf(ctx context.Context, p *httpapi.Principal, b *purchaseBody) (*purchaseCheck, error) {
	in, err := b.input()
	if err != nil {
		return nil, err
	}
	res, err := a.Orders.Check(ctx, orders.Buyer{Actor: p.Actor, User: p.User, Key: p.Key}, in)
	if err != nil {
		return nil, err
	}
	return toPurchaseCheck(res), nil
}
