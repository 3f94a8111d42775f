package api

import (
	"context"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/moderation"
	"marketplace/internal/orders"
	"marketplace/internal/shipping"
)

// OrderListing is the listing an order bought, as it was bought.
type OrderListing struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Price int64  `json:"price" doc:"The item price of this order in cents (an offer's agreed price when bought with one)."`
}

// OrderFees are an order's amounts in cents.
type OrderFees struct {
	ItemPrice    int64 `json:"itemPrice"`
	ServiceFee   int64 `json:"serviceFee" doc:"The buyer's service fee, 'max(99, round(3.5% x (itemPrice + shippingCost)))' by default (admin config 'fees.*')."`
	ShippingCost int64 `json:"shippingCost"`
	TotalCharged int64 `json:"totalCharged"`
}

func orderFeesOf(f orders.Fees) OrderFees {
	return OrderFees{ItemPrice: f.ItemPrice, ServiceFee: f.ServiceFee, ShippingCost: f.ShippingCost, TotalCharged: f.TotalCharged}
}

// OrderShipping is the carrier rate chosen at purchase.
type OrderShipping struct {
	Carrier       string `json:"carrier"`
	Service       string `json:"service"`
	EstimatedDays *int   `json:"estimatedDays"`
}

// orderShippingOf is o's chosen rate, nil when none was (flat, free or
// pickup).
func orderShippingOf(o *orders.Order) *OrderShipping {
	if o.Carrier == "" {
		return nil
	}
	return &OrderShipping{Carrier: o.Carrier, Service: o.Service, EstimatedDays: o.EstimatedDays}
}

// OrderAddress is where an order ships: an Address, with the saved
// address's id, default mark and creation time when it was one.
type OrderAddress = Address

// Order is an order as its viewer sees it (CONTRACT.md section 7). The
// seller's commission and payout (gross, net of refunds, and what refunds
// took from it) appear to the seller only; the authorization record to the
// buyer's side and admins only.
type Order struct {
	ID              string         `json:"id"`
	OrderID         string         `json:"orderId" doc:"The same as 'id'."`
	Status          string         `json:"status" ref:"OrderStatus"`
	Role            string         `json:"role,omitempty" enum:"buyer,seller" doc:"The caller's side; absent for an admin who is neither."`
	Channel         string         `json:"channel" enum:"agent,human" doc:"'agent': bought off-session by an agent key; 'human': bought by a person."`
	ListingID       string         `json:"listingId"`
	Listing         OrderListing   `json:"listing"`
	BuyerID         string         `json:"buyerId"`
	SellerID        string         `json:"sellerId"`
	Fees            OrderFees      `json:"fees"`
	Commission      *int64         `json:"commission,omitempty" doc:"Seller only. The seller's commission, 'round(3% x itemPrice)' by default."`
	SellerPayout    *int64         `json:"sellerPayout,omitempty" doc:"Seller only. What the sale pays the seller before any refund (gross): 'itemPrice - commission + shippingCost', or 'itemPrice - commission' when the platform bought the shipping label. 'payoutAmount' is what is left after refunds."`
	FulfillmentType string         `json:"fulfillmentType" enum:"shipping,local_pickup"`
	ShippingAddress *OrderAddress  `json:"shippingAddress,omitempty" ref:"OrderShippingAddress"`
	Shipping        *OrderShipping `json:"shipping,omitempty"`
	// Variant B spells the rate chosen at purchase flat as well.
	Carrier           *string    `json:"-" snake:"carrier" doc:"The carrier of the rate chosen at purchase (calculated shipping)."`
	Service           *string    `json:"-" snake:"service"`
	EstimatedDays     *int       `json:"-" snake:"estimated_days"`
	EstimatedDelivery *string    `json:"estimatedDelivery" format:"date" doc:"Set when a carrier rate was chosen."`
	OfferID           *string    `json:"offerId"`
	PaymentMethodID   *string    `json:"paymentMethodId,omitempty" doc:"Buyer only, when a saved card paid (off-session purchases)."`
	AmountRefunded    int64      `json:"amountRefunded" minimum:"0"`
	TrackingCarrier   *string    `json:"trackingCarrier" doc:"The carrier the parcel travels with, once shipped (as the seller entered it, or the label's)."`
	TrackingNumber    *string    `json:"trackingNumber" doc:"The parcel's tracking number, once shipped (normalized)."`
	ShippedAt         *time.Time `json:"shippedAt"`
	DeliveredAt       *time.Time `json:"deliveredAt" doc:"When the buyer confirmed delivery or pickup (or it was confirmed for them); the hold period starts here."`
	CompletedAt       *time.Time `json:"completedAt" doc:"When the payout was released and the order completed."`
	PayoutStatus      *string    `json:"payoutStatus,omitempty" enum:"pending,frozen,released,void" doc:"Seller only, once the order was delivered or cancelled: 'pending' (waiting for the hold period to end, or for a verified payout account), 'frozen' (a dispute holds it), 'released' (transferred), 'void' (cancelled or refunded: nothing to pay)."`
	PayoutDueAt       *time.Time `json:"payoutDueAt,omitempty" doc:"Seller only, once delivered. When the hold period ends and the payout is due ('payouts.hold_hours' after delivery unless an admin changed it)."`
	PayoutAmount      *int64     `json:"payoutAmount,omitempty" minimum:"0" doc:"Seller only. What the seller is, or will be, paid, net of refunds (cents): once released, the transfer less what refunds reversed from it ('transferReversed'); while waiting ('pending', 'frozen'), the payout as it stands; before delivery, 'sellerPayout - sellerRefunded'; 0 for an order cancelled, expired or refunded before the payout."`
	SellerRefunded    *int64     `json:"sellerRefunded,omitempty" minimum:"0" doc:"Seller only. The part of 'amountRefunded' taken from the seller's side (cents): refunds come out of the seller's payout first, then the platform's fees."`
	TransferReversed  *int64     `json:"transferReversed,omitempty" minimum:"0" doc:"Seller only. What the processor has taken back from a payout already released, for refunds made after it (cents); 0 when none."`
	ExpiresAt         *time.Time `json:"expiresAt,omitempty" doc:"Human checkouts - when the reservation of the listing ends; absent once paid."`
	PaidAt            *time.Time `json:"paidAt"`
	CancelledAt       *time.Time `json:"cancelledAt" doc:"When it was cancelled or expired."`
	CreatedAt         time.Time  `json:"createdAt"`
	UpdatedAt         time.Time  `json:"updatedAt"`
	Authorization     *OrderAuth `json:"authorization" doc:"The buyer's side and admins only: what allowed an agent's purchase, written once when the listing was reserved (CONTRACT.md section 15). Null for a human purchase, for a purchase still waiting for (or refused) the owner's approval, and always for the seller."`

	// ContentTrust marks the seller's words (the listing title) to the buyer's agent.
	ContentTrust *ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller on the buyer's side: the listing title is the seller's text, untrusted input (CONTRACT section 16)."`
}

// OrderOf is o as viewer sees it: the seller's side (commission, payout)
// to the seller, the saved card to the buyer, the authorization record by
// SeesAuthorization, and the listing title's contentTrust to the buyer's
// agent keys.
func OrderOf(o *orders.Order, viewer market.Actor) *Order {
	out := &Order{
		ID: o.ID, OrderID: o.ID, Status: string(o.Status), Role: o.Role(viewer.UserID), Channel: string(o.Channel),
		ListingID: o.ListingID, Listing: OrderListing{ID: o.ListingID, Title: o.ListingTitle, Price: o.Fees.ItemPrice},
		BuyerID: o.BuyerID, SellerID: o.SellerID, Fees: orderFeesOf(o.Fees),
		FulfillmentType: string(o.Fulfillment), ShippingAddress: AddressOf(o.ShippingAddress), Shipping: orderShippingOf(o),
		Carrier: strOrNil(o.Carrier), Service: strOrNil(o.Service), EstimatedDays: o.EstimatedDays,
		EstimatedDelivery: dateOrNil(o.EstimatedDelivery), OfferID: strOrNil(o.OfferID), AmountRefunded: o.AmountRefunded,
		TrackingCarrier: strOrNil(o.ShipmentCarrier), TrackingNumber: strOrNil(o.TrackingNumber),
		ShippedAt: o.ShippedAt, DeliveredAt: o.DeliveredAt, CompletedAt: o.CompletedAt,
		ExpiresAt: o.ReservedUntil, PaidAt: o.PaidAt, CancelledAt: o.CancelledAt, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt,
	}
	if viewer.UserID == o.SellerID {
		c, p := o.Fees.Commission, orders.SellerPayout(o)
		out.Commission, out.SellerPayout = &c, &p
		out.PayoutStatus, out.PayoutDueAt = strOrNil(string(o.PayoutStatus)), o.PayoutDueAt
		net, refunded, reversed := o.NetPayout(), o.SellerRefunded, o.TransferReversed
		out.PayoutAmount, out.SellerRefunded, out.TransferReversed = &net, &refunded, &reversed
	}
	if viewer.UserID == o.BuyerID {
		out.PaymentMethodID = strOrNil(o.PaymentMethodID)
	}
	if SeesAuthorization(o, viewer) {
		out.Authorization = OrderAuthOf(o.Authorization)
	}
	out.ContentTrust = ForeignTrust(viewer, o.SellerID, TrustListing,
		moderation.TrustField{Name: "listing.title", Text: o.ListingTitle})
	return out
}

// SeesAuthorization reports whether viewer is shown o's authorization
// record: its buyer (the owner, and the owner's agent keys) and admins,
// never its seller (CONTRACT.md section 15).
func SeesAuthorization(o *orders.Order, viewer market.Actor) bool {
	if viewer.UserID == o.SellerID {
		return false
	}
	return viewer.UserID == o.BuyerID || viewer.Admin
}

// AdminOrderOf is o as the admin's order routes show it: the seller's side
// (commission, payout) and the authorization record, no role (an admin is
// neither party) and no contentTrust (admins are humans).
func AdminOrderOf(o *orders.Order) *Order {
	out := OrderOf(o, market.Actor{Type: market.ActorUser, UserID: o.SellerID})
	out.Role, out.Authorization = "", OrderAuthOf(o.Authorization)
	return out
}

// dateOrNil is t's calendar date, or nil.
func dateOrNil(t *time.Time) *string {
	if t == nil {
		return nil
	}
	d := t.Format(time.DateOnly)
	return &d
}

// TimelineEvent is an entry of an order's timeline. Its data is a map the
// view cannot respell, so it carries both spellings (events.Spell) and
// each surface shows its own.
type TimelineEvent struct {
	ID        string         `json:"id"`
	Type      string         `json:"type" example:"order.created"`
	ActorType string         `json:"actorType" enum:"user,agent,admin,system"`
	ActorID   *string        `json:"actorId" doc:"The user id, or for agents the key id; null for the system."`
	Data      map[string]any `json:"data" nullable:"true" snake:"-" doc:"Event-specific data (camelCase), e.g. the fees for 'order.created'."`
	SnakeData map[string]any `json:"-" snake:"data" doc:"Event-specific data (snake_case), e.g. the fees for 'order.created'."`
	CreatedAt time.Time      `json:"createdAt"`
}

// TimelineOf is an order's events as its timeline shows them.
func TimelineOf(es []events.Event) []TimelineEvent {
	out := make([]TimelineEvent, len(es))
	for i := range es {
		e := &es[i]
		out[i] = TimelineEvent{ID: e.ID, Type: e.Type, ActorType: string(e.ActorType), ActorID: strOrNil(e.ActorID),
			Data: events.Spell(e.Data, false), SnakeData: events.Payload(e, true)["data"].(map[string]any), CreatedAt: e.CreatedAt}
	}
	return out
}

// Orders are the operations on orders, from the purchase to the payout,
// refunds included. Shipping quotes an order's rates; PublicURL is where
// the service is reached (a label's PDF is served there).
type Orders struct {
	Service   *orders.Service
	Shipping  *shipping.Service
	PublicURL string
}

// orderView turns a service's answer into c's view of it.
func orderView(c *Caller) func(*orders.Order, error) (*Order, error) {
	return func(o *orders.Order, err error) (*Order, error) {
		if err != nil {
			return nil, err
		}
		return OrderOf(o, c.Actor), nil
	}
}

// Get reads one order of the caller's (as buyer or seller), or any for an
// admin.
func (x Orders) Get(ctx context.Context, c *Caller, id string) (*Order, error) {
	return orderView(c)(x.Service.Get(ctx, c.Actor, id))
}

// List is a page of the caller's orders (role "buyer", "seller" or "" for
// both; status "" for any), newest first, and how many there are in all.
func (x Orders) List(ctx context.Context, c *Caller, role, status string, limit, offset int) ([]Order, int, error) {
	os, total, err := x.Service.List(ctx, c.Actor, role, status, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	return ordersOf(os, c.Actor), total, nil
}

// KeyOrders is a page of the orders one of the caller's keys made, with
// their authorization records.
func (x Orders) KeyOrders(ctx context.Context, c *Caller, keyID string, limit, offset int) ([]Order, int, error) {
	os, total, err := x.Service.KeyOrders(ctx, c.Actor, keyID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	return ordersOf(os, c.Actor), total, nil
}

func ordersOf(os []orders.Order, viewer market.Actor) []Order {
	out := make([]Order, len(os))
	for i := range os {
		out[i] = *OrderOf(&os[i], viewer)
	}
	return out
}

// Events is an order's timeline, oldest first.
func (x Orders) Events(ctx context.Context, c *Caller, id string) ([]TimelineEvent, error) {
	es, err := x.Service.Events(ctx, c.Actor, id)
	if err != nil {
		return nil, err
	}
	return TimelineOf(es), nil
}

// OrderOps are the order operations (purchases, fulfilment, refunds).
func (o Ops) OrderOps() Orders {
	return Orders{Service: o.Orders, Shipping: o.Shipping, PublicURL: o.PublicURL}
}
