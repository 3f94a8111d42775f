package apiv1

import (
	"time"

	"marketplace/internal/events"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/moderation"
	"marketplace/internal/orders"
)

type orderListing struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Price int64  `json:"price" doc:"The item price of this order in cents (an offer's agreed price when bought with one)."`
}

type orderFees struct {
	ItemPrice    int64 `json:"itemPrice"`
	ServiceFee   int64 `json:"serviceFee" doc:"The buyer's service fee, 'max(99, round(3.5% x (itemPrice + shippingCost)))' by default (admin config 'fees.*')."`
	ShippingCost int64 `json:"shippingCost"`
	TotalCharged int64 `json:"totalCharged"`
}

type orderShipping struct {
	Carrier       string `json:"carrier"`
	Service       string `json:"service"`
	EstimatedDays *int   `json:"estimatedDays"`
}

// order is Variant A's order. The seller's commission and payout (gross,
// net of refunds, and what refunds took from it) appear to the seller only.
type order struct {
	ID                string         `json:"id"`
	OrderID           string         `json:"orderId" doc:"The same as 'id'."`
	Status            string         `json:"status" ref:"OrderStatus"`
	Role              string         `json:"role,omitempty" enum:"buyer,seller" doc:"The caller's side; absent for an admin who is neither."`
	Channel           string         `json:"channel" enum:"agent,human" doc:"'agent': bought off-session by an agent key; 'human': bought by a person."`
	ListingID         string         `json:"listingId"`
	Listing           orderListing   `json:"listing"`
	BuyerID           string         `json:"buyerId"`
	SellerID          string         `json:"sellerId"`
	Fees              orderFees      `json:"fees"`
	Commission        *int64         `json:"commission,omitempty" doc:"Seller only. The seller's commission, 'round(3% x itemPrice)' by default."`
	SellerPayout      *int64         `json:"sellerPayout,omitempty" doc:"Seller only. What the sale pays the seller before any refund (gross): 'itemPrice - commission + shippingCost', or 'itemPrice - commission' when the platform bought the shipping label. 'payoutAmount' is what is left after refunds."`
	FulfillmentType   string         `json:"fulfillmentType" enum:"shipping,local_pickup"`
	ShippingAddress   *address       `json:"shippingAddress,omitempty" ref:"OrderShippingAddress"`
	Shipping          *orderShipping `json:"shipping,omitempty"`
	EstimatedDelivery *string        `json:"estimatedDelivery" format:"date" doc:"Set when a carrier rate was chosen."`
	OfferID           *string        `json:"offerId"`
	PaymentMethodID   *string        `json:"paymentMethodId,omitempty" doc:"Buyer only, when a saved card paid (off-session purchases)."`
	AmountRefunded    int64          `json:"amountRefunded" minimum:"0"`
	TrackingCarrier   *string        `json:"trackingCarrier" doc:"The carrier the parcel travels with, once shipped (as the seller entered it, or the label's)."`
	TrackingNumber    *string        `json:"trackingNumber" doc:"The parcel's tracking number, once shipped (normalized)."`
	ShippedAt         *time.Time     `json:"shippedAt"`
	DeliveredAt       *time.Time     `json:"deliveredAt" doc:"When the buyer confirmed delivery or pickup (or it was confirmed for them); the hold period starts here."`
	CompletedAt       *time.Time     `json:"completedAt" doc:"When the payout was released and the order completed."`
	PayoutStatus      *string        `json:"payoutStatus,omitempty" enum:"pending,frozen,released,void" doc:"Seller only, once the order was delivered or cancelled: 'pending' (waiting for the hold period to end, or for a verified payout account), 'frozen' (a dispute holds it), 'released' (transferred), 'void' (cancelled or refunded: nothing to pay)."`
	PayoutDueAt       *time.Time     `json:"payoutDueAt,omitempty" doc:"Seller only, once delivered. When the hold period ends and the payout is due ('payouts.hold_hours' after delivery unless an admin changed it)."`
	PayoutAmount      *int64         `json:"payoutAmount,omitempty" minimum:"0" doc:"Seller only. What the seller is, or will be, paid, net of refunds (cents): once released, the transfer less what refunds reversed from it ('transferReversed'); while waiting ('pending', 'frozen'), the payout as it stands; before delivery, 'sellerPayout - sellerRefunded'; 0 for an order cancelled, expired or refunded before the payout."`
	SellerRefunded    *int64         `json:"sellerRefunded,omitempty" minimum:"0" doc:"Seller only. The part of 'amountRefunded' taken from the seller's side (cents): refunds come out of the seller's payout first, then the platform's fees."`
	TransferReversed  *int64         `json:"transferReversed,omitempty" minimum:"0" doc:"Seller only. What the processor has taken back from a payout already released, for refunds made after it (cents); 0 when none."`
	ExpiresAt         *time.Time     `json:"expiresAt,omitempty" doc:"Human checkouts - when the reservation of the listing ends; absent once paid."`
	PaidAt            *time.Time     `json:"paidAt"`
	CancelledAt       *time.Time     `json:"cancelledAt" doc:"When it was cancelled or expired."`
	CreatedAt         time.Time      `json:"createdAt"`
	UpdatedAt         time.Time      `json:"updatedAt"`
	Authorization     *orderAuth     `json:"authorization" doc:"The buyer's side and admins only: what allowed an agent's purchase, written once when the listing was reserved (CONTRACT.md section 15). Null for a human purchase, for a purchase still waiting for (or refused) the owner's approval, and always for the seller."`

	// ContentTrust marks the seller's words (the listing title) to the buyer's agent.
	ContentTrust *httpapi.ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller on the buyer's side: the listing title is the seller's text, untrusted input (CONTRACT section 16)."`
}

// toOrder is o as viewer sees it: the seller's and the buyer's sides by
// viewer's user, and the listing title's contentTrust for the buyer's
// agent keys.
func toOrder(o *orders.Order, viewer market.Actor) order {
	out := order{
		ID: o.ID, OrderID: o.ID, Status: string(o.Status), Role: o.Role(viewer.UserID), Channel: string(o.Channel),
		ListingID: o.ListingID, Listing: orderListing{ID: o.ListingID, Title: o.ListingTitle, Price: o.Fees.ItemPrice},
		BuyerID: o.BuyerID, SellerID: o.SellerID,
		Fees: orderFees{ItemPrice: o.Fees.ItemPrice, ServiceFee: o.Fees.ServiceFee, ShippingCost: o.Fees.ShippingCost,
			TotalCharged: o.Fees.TotalCharged},
		FulfillmentType: string(o.Fulfillment), OfferID: strOrNil(o.OfferID), AmountRefunded: o.AmountRefunded,
		ExpiresAt: o.ReservedUntil, PaidAt: o.PaidAt, CancelledAt: o.CancelledAt, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt,
	}
	out.TrackingCarrier, out.TrackingNumber = strOrNil(o.ShipmentCarrier), strOrNil(o.TrackingNumber)
	out.ShippedAt, out.DeliveredAt, out.CompletedAt = o.ShippedAt, o.DeliveredAt, o.CompletedAt
	if viewer.UserID == o.SellerID {
		c, p := o.Fees.Commission, orders.SellerPayout(o)
		out.Commission, out.SellerPayout = &c, &p
		out.PayoutStatus, out.PayoutDueAt = strOrNil(string(o.PayoutStatus)), o.PayoutDueAt
		net, refunded, reversed := o.NetPayout(), o.SellerRefunded, o.TransferReversed
		out.PayoutAmount, out.SellerRefunded, out.TransferReversed = &net, &refunded, &reversed
	}
	if viewer.UserID == o.BuyerID {
		out.PaymentMethodID = strOrNil(o.PaymentMethodID)
		out.Authorization = toOrderAuth(o.Authorization) // never the seller's to see
	}
	if o.ShippingAddress != nil {
		a := toAddress(*o.ShippingAddress)
		out.ShippingAddress = &a
	}
	if o.Carrier != "" {
		out.Shipping = &orderShipping{Carrier: o.Carrier, Service: o.Service, EstimatedDays: o.EstimatedDays}
	}
	if o.EstimatedDelivery != nil {
		d := o.EstimatedDelivery.Format(time.DateOnly)
		out.EstimatedDelivery = &d
	}
	out.ContentTrust = httpapi.ForeignTrust(viewer, o.SellerID, httpapi.TrustListing,
		moderation.TrustField{Name: "listing.title", Text: o.ListingTitle})
	return out
}

func toOrders(os []orders.Order, viewer market.Actor) []order {
	out := make([]order, len(os))
	for i := range os {
		out[i] = toOrder(&os[i], viewer)
	}
	return out
}

type timelineEvent struct {
	ID        string         `json:"id"`
	Type      string         `json:"type" example:"order.created"`
	ActorType string         `json:"actorType" enum:"user,agent,admin,system"`
	ActorID   *string        `json:"actorId" doc:"The user id, or for agents the key id; null for the system."`
	Data      map[string]any `json:"data" nullable:"true" doc:"Event-specific data (camelCase), e.g. the fees for 'order.created'."`
	CreatedAt time.Time      `json:"createdAt"`
}

func toTimeline(es []events.Event) []timelineEvent {
	out := make([]timelineEvent, len(es))
	for i, e := range es {
		out[i] = timelineEvent{ID: e.ID, Type: e.Type, ActorType: string(e.ActorType), ActorID: strOrNil(e.ActorID),
			Data: e.Data, CreatedAt: e.CreatedAt}
	}
	return out
}

type feeEstimate struct {
	ListingID       string         `json:"listingId"`
	Fees            orderFees      `json:"fees"`
	ItemPrice       int64          `json:"itemPrice"`
	ServiceFee      int64          `json:"serviceFee"`
	ShippingCost    int64          `json:"shippingCost"`
	TotalCharged    int64          `json:"totalCharged"`
	FulfillmentType string         `json:"fulfillmentType" enum:"shipping,local_pickup"`
	Shipping        *orderShipping `json:"shipping,omitempty"`
}

func toFeeEstimate(o *orders.Order) feeEstimate {
	f := o.Fees
	out := feeEstimate{ListingID: o.ListingID,
		Fees:      orderFees{ItemPrice: f.ItemPrice, ServiceFee: f.ServiceFee, ShippingCost: f.ShippingCost, TotalCharged: f.TotalCharged},
		ItemPrice: f.ItemPrice, ServiceFee: f.ServiceFee, ShippingCost: f.ShippingCost, TotalCharged: f.TotalCharged,
		FulfillmentType: string(o.Fulfillment)}
	if o.Carrier != "" {
		out.Shipping = &orderShipping{Carrier: o.Carrier, Service: o.Service, EstimatedDays: o.EstimatedDays}
	}
	return out
}

type approval struct {
	ID        string     `json:"id"`
	Type      string     `json:"type" enum:"purchase_approval"`
	Status    string     `json:"status" enum:"pending,approved,rejected"`
	OrderID   string     `json:"orderId"`
	KeyID     *string    `json:"keyId" doc:"The agent key that asked."`
	Amount    int64      `json:"amount" doc:"The purchase's 'totalCharged' when it was queued, in cents."`
	Reason    *string    `json:"reason" doc:"The rejection reason."`
	Order     *order     `json:"order"`
	DecidedAt *time.Time `json:"decidedAt"`
	CreatedAt time.Time  `json:"createdAt"`
}

func toApproval(v orders.ApprovalView, viewer market.Actor) approval {
	a := v.Approval
	out := approval{ID: a.ID, Type: "purchase_approval", Status: a.Status, OrderID: a.OrderID, KeyID: strOrNil(a.KeyID),
		Amount: a.Amount, Reason: strOrNil(a.Reason), DecidedAt: a.DecidedAt, CreatedAt: a.CreatedAt}
	if v.Order != nil {
		o := toOrder(v.Order, viewer)
		out.Order = &o
	}
	return out
}
