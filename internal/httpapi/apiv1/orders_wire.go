package apiv1

import (
	"time"

	"marketplace/internal/events"
	"marketplace/internal/orders"
)

type orderListing struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Price int64  `json:"price"`
}

type orderFees struct {
	ItemPrice    int64 `json:"itemPrice"`
	ServiceFee   int64 `json:"serviceFee"`
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
	OrderID           string         `json:"orderId"`
	Status            string         `json:"status"`
	Role              string         `json:"role,omitempty"`
	Channel           string         `json:"channel"`
	ListingID         string         `json:"listingId"`
	Listing           orderListing   `json:"listing"`
	BuyerID           string         `json:"buyerId"`
	SellerID          string         `json:"sellerId"`
	Fees              orderFees      `json:"fees"`
	Commission        *int64         `json:"commission,omitempty"`
	SellerPayout      *int64         `json:"sellerPayout,omitempty"`
	FulfillmentType   string         `json:"fulfillmentType"`
	ShippingAddress   *address       `json:"shippingAddress,omitempty"`
	Shipping          *orderShipping `json:"shipping,omitempty"`
	EstimatedDelivery *string        `json:"estimatedDelivery"`
	OfferID           *string        `json:"offerId"`
	PaymentMethodID   *string        `json:"paymentMethodId,omitempty"`
	AmountRefunded    int64          `json:"amountRefunded"`
	TrackingCarrier   *string        `json:"trackingCarrier"`
	TrackingNumber    *string        `json:"trackingNumber"`
	ShippedAt         *time.Time     `json:"shippedAt"`
	DeliveredAt       *time.Time     `json:"deliveredAt"`
	CompletedAt       *time.Time     `json:"completedAt"`
	PayoutStatus      *string        `json:"payoutStatus,omitempty"`
	PayoutDueAt       *time.Time     `json:"payoutDueAt,omitempty"`
	PayoutAmount      *int64         `json:"payoutAmount,omitempty"`
	SellerRefunded    *int64         `json:"sellerRefunded,omitempty"`
	TransferReversed  *int64         `json:"transferReversed,omitempty"`
	ExpiresAt         *time.Time     `json:"expiresAt,omitempty"`
	PaidAt            *time.Time     `json:"paidAt"`
	CancelledAt       *time.Time     `json:"cancelledAt"`
	CreatedAt         time.Time      `json:"createdAt"`
	UpdatedAt         time.Time      `json:"updatedAt"`
}

func toOrder(o *orders.Order, viewer string) order {
	out := order{
		ID: o.ID, OrderID: o.ID, Status: string(o.Status), Role: o.Role(viewer), Channel: string(o.Channel),
		ListingID: o.ListingID, Listing: orderListing{ID: o.ListingID, Title: o.ListingTitle, Price: o.Fees.ItemPrice},
		BuyerID: o.BuyerID, SellerID: o.SellerID,
		Fees: orderFees{ItemPrice: o.Fees.ItemPrice, ServiceFee: o.Fees.ServiceFee, ShippingCost: o.Fees.ShippingCost,
			TotalCharged: o.Fees.TotalCharged},
		FulfillmentType: string(o.Fulfillment), OfferID: strOrNil(o.OfferID), AmountRefunded: o.AmountRefunded,
		ExpiresAt: o.ReservedUntil, PaidAt: o.PaidAt, CancelledAt: o.CancelledAt, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt,
	}
	out.TrackingCarrier, out.TrackingNumber = strOrNil(o.ShipmentCarrier), strOrNil(o.TrackingNumber)
	out.ShippedAt, out.DeliveredAt, out.CompletedAt = o.ShippedAt, o.DeliveredAt, o.CompletedAt
	if viewer == o.SellerID {
		c, p := o.Fees.Commission, orders.SellerPayout(o)
		out.Commission, out.SellerPayout = &c, &p
		out.PayoutStatus, out.PayoutDueAt = strOrNil(string(o.PayoutStatus)), o.PayoutDueAt
		net, refunded, reversed := o.NetPayout(), o.SellerRefunded, o.TransferReversed
		out.PayoutAmount, out.SellerRefunded, out.TransferReversed = &net, &refunded, &reversed
	}
	if viewer == o.BuyerID {
		out.PaymentMethodID = strOrNil(o.PaymentMethodID)
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
	return out
}

func toOrders(os []orders.Order, viewer string) []order {
	out := make([]order, len(os))
	for i := range os {
		out[i] = toOrder(&os[i], viewer)
	}
	return out
}

type timelineEvent struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	ActorType string         `json:"actorType"`
	ActorID   *string        `json:"actorId"`
	Data      map[string]any `json:"data"`
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
	FulfillmentType string         `json:"fulfillmentType"`
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
	Type      string     `json:"type"`
	Status    string     `json:"status"`
	OrderID   string     `json:"orderId"`
	KeyID     *string    `json:"keyId"`
	Amount    int64      `json:"amount"`
	Reason    *string    `json:"reason"`
	Order     *order     `json:"order"`
	DecidedAt *time.Time `json:"decidedAt"`
	CreatedAt time.Time  `json:"createdAt"`
}

func toApproval(v orders.ApprovalView, viewer string) approval {
	a := v.Approval
	out := approval{ID: a.ID, Type: "purchase_approval", Status: a.Status, OrderID: a.OrderID, KeyID: strOrNil(a.KeyID),
		Amount: a.Amount, Reason: strOrNil(a.Reason), DecidedAt: a.DecidedAt, CreatedAt: a.CreatedAt}
	if v.Order != nil {
		o := toOrder(v.Order, viewer)
		out.Order = &o
	}
	return out
}
