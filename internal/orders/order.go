// Package orders is where money moves: fees, the purchase path (agent and
// human), spending enforcement at purchase time, purchase approvals, the
// reconciler that repairs a crash between charge and settlement, and the
// read side of orders and their timelines.
package orders

import (
	"context"
	"log/slog"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/messaging"
	"marketplace/internal/offers"
	"marketplace/internal/payments"
)

// Status is where an order stands (CONTRACT.md section 7).
type Status string

const (
	StatusPendingApproval Status = "pending_approval"
	StatusPendingPayment  Status = "pending_payment"
	StatusPaid            Status = "paid"
	StatusPickupReady     Status = "pickup_ready"
	StatusShipped         Status = "shipped"
	StatusDelivered       Status = "delivered"
	StatusCompleted       Status = "completed"
	StatusCancelled       Status = "cancelled"
	StatusRefunded        Status = "refunded"
	StatusDisputed        Status = "disputed"
	StatusExpired         Status = "expired"
)

// AllStatuses lists every status, for filters.
var AllStatuses = []Status{StatusPendingApproval, StatusPendingPayment, StatusPaid, StatusPickupReady, StatusShipped,
	StatusDelivered, StatusCompleted, StatusCancelled, StatusRefunded, StatusDisputed, StatusExpired}

// Channel says who bought: an agent off-session, or a human through the
// hosted payment page.
type Channel string

const (
	ChannelAgent Channel = "agent"
	ChannelHuman Channel = "human"
)

// Fulfillment is how the buyer receives the item.
type Fulfillment string

const (
	FulfillShipping    Fulfillment = "shipping"
	FulfillLocalPickup Fulfillment = "local_pickup"
)

// Order is one purchase of one listing.
type Order struct {
	ID                string
	ListingID         string
	BuyerID           string
	SellerID          string
	BuyerKeyID        string // the agent key that bought; "" for a human
	Channel           Channel
	Status            Status
	ListingTitle      string
	Fees              Fees
	Fulfillment       Fulfillment
	ShippingAddress   *accounts.Address
	Carrier           string
	Service           string
	RateID            string
	EstimatedDays     *int
	EstimatedDelivery *time.Time
	MaxPrice          *int64
	ExpectedPrice     *int64
	OfferID           string
	IdempotencyKey    string // the buyer's key of the purchase that made it
	PaymentMethodID   string
	// PaymentToken is a delegated card token (ACP's delegate_payment) the
	// order is charged with instead of a saved card; CheckoutSessionID the
	// checkout session that made the order, which the token is bound to.
	PaymentToken      string
	CheckoutSessionID string
	Processor         string
	PaymentID         string // the processor's payment id
	AmountRefunded    int64
	FailureCode       string
	ReservedUntil     *time.Time // human checkout: the listing is held until then
	PaidAt            *time.Time
	CancelledAt       *time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time

	ShipmentCarrier string // who carries it: the label's carrier, or the seller's manual entry
	TrackingNumber  string
	LabelCost       int64 // a platform-funded label's cost, cents
	ShippedAt       *time.Time
	DeliveredAt     *time.Time
	PayoutDueAt     *time.Time // the end of the hold period
	PayoutStatus    PayoutStatus
	PayoutAmount    int64 // what the seller is (or was) paid, cents
	TransferID      string
	CompletedAt     *time.Time

	SellerRefunded      int64  // the part of AmountRefunded taken from the seller's payout
	TransferReversed    int64  // taken back from a payout already released
	StatusBeforeDispute Status // where a dispute resolved for the seller returns the order

	// Authorization is an agent order's authorization record, set once
	// when the listing is reserved; nil for human orders and for orders
	// still waiting for approval.
	Authorization *Authorization
}

// PayoutStatus is where the seller's money stands.
type PayoutStatus string

const (
	PayoutNone     PayoutStatus = ""         // not delivered yet
	PayoutPending  PayoutStatus = "pending"  // waiting for the hold to end (or a payout account)
	PayoutFrozen   PayoutStatus = "frozen"   // a dispute holds it
	PayoutReleased PayoutStatus = "released" // transferred
	PayoutVoid     PayoutStatus = "void"     // cancelled or refunded in full: nothing to pay
)

// Approval is a purchase above the owner's approval threshold, waiting for
// the owner (CONTRACT.md section 5).
type Approval struct {
	ID        string
	OrderID   string
	OwnerID   string
	KeyID     string
	Amount    int64
	Status    string // pending, approved, rejected
	Reason    string
	DecidedBy string
	DecidedAt *time.Time
	CreatedAt time.Time
	RequestID string // the purchase call that queued it
}

// Approval statuses.
const (
	ApprovalPending  = "pending"
	ApprovalApproved = "approved"
	ApprovalRejected = "rejected"
)

// OrderFilter selects a page of one user's orders.
type OrderFilter struct {
	UserID   string
	Role     string // buyer, seller, or "" for both
	KeyID    string // only the orders this agent key made ("": any)
	Statuses []Status
	Limit    int
	Offset   int
}

// Tx is what orders needs from a transaction.
type Tx interface {
	events.Tx
	messaging.PostTx // system messages for order events, in the order's transaction
	RefundTx
	DisputeTx
	DashboardTx
	AdminTx
	FinanceTx
	MetricsTx
	payments.Tx
	agents.SpendTx
	offers.PurchaseTx
	KeyByID(ctx context.Context, id string) (*agents.Key, error)
	ListingByID(ctx context.Context, id string) (*listings.Listing, error)
	// MoveListing changes a listing's status from one of from to to, and
	// reports whether it did (false: the listing was not in any of from).
	MoveListing(ctx context.Context, id string, from []listings.Status, to listings.Status, at time.Time) (bool, error)
	Watchers(ctx context.Context, listingID string) ([]string, error)

	CreateOrder(ctx context.Context, o *Order) error
	// UpdateOrder saves o if its status is still from, and reports whether
	// it did.
	UpdateOrder(ctx context.Context, o *Order, from Status) (bool, error)
	DeleteOrder(ctx context.Context, id string) error
	OrderByID(ctx context.Context, id string) (*Order, error)
	// OrdersByID reads several orders at once; unknown ids are left out.
	OrdersByID(ctx context.Context, ids []string) ([]Order, error)
	OrderByPayment(ctx context.Context, paymentID string) (*Order, error)
	LiveOrderOf(ctx context.Context, listingID string) (*Order, error)
	// OrderByIdempotencyKey finds the newest order buyerID made under key
	// since the given time.
	OrderByIdempotencyKey(ctx context.Context, buyerID, key string, since time.Time) (*Order, error)
	Orders(ctx context.Context, f OrderFilter) ([]Order, int, error)
	// StuckOrders lists pending_payment orders last touched before before.
	StuckOrders(ctx context.Context, before time.Time, limit int) ([]Order, error)
	PayoutsDue(ctx context.Context, now time.Time, limit int) ([]Order, error)
	OverdueShipments(ctx context.Context, before time.Time, limit int) ([]Order, error)
	UnrefundedCancellations(ctx context.Context, limit int) ([]Order, error)

	// RecordAuthorization sets an order's authorization record; it is an
	// error if the order already has one (the record is never changed).
	RecordAuthorization(ctx context.Context, orderID string, a *Authorization) error

	RecordSpend(ctx context.Context, userID, keyID, orderID string, amount int64, at time.Time, releasedAt *time.Time) error
	ReleaseSpend(ctx context.Context, orderID string, at time.Time) error
	DeleteSpend(ctx context.Context, orderID string) error

	CreateApproval(ctx context.Context, a *Approval) error
	UpdateApproval(ctx context.Context, a *Approval) error
	ApprovalByID(ctx context.Context, id string) (*Approval, error)
	ApprovalOfOrder(ctx context.Context, orderID string) (*Approval, error)
	Approvals(ctx context.Context, ownerID, status string, limit, offset int) ([]Approval, int, error)
	EventsFor(ctx context.Context, entityType, entityID string) ([]events.Event, error)
}

// Store opens transactions and read handles over orders' Tx.
type Store interface {
	InTx(ctx context.Context, fn func(Tx) error) error
	Read() Tx
}

// ShippingRate is a verified shipping quote.
type ShippingRate struct {
	Carrier       string
	Service       string
	Amount        int64
	EstimatedDays int
	Preferred     bool // the seller's preferred carrier (and service)
}

// Rates verifies the signed rate tokens that shipping quotes hand out.
type Rates interface {
	// VerifyRate returns the rate a token stands for, if it is genuine,
	// unexpired and bound to this listing and zip (else VALIDATION_ERROR
	// naming field).
	VerifyRate(token, listingID, zip, field string, now time.Time) (*ShippingRate, error)
	// LocalPickup says whether the listing may be collected: its shipping
	// type says so, or its seller offers pickup on listings that ship.
	LocalPickup(ctx context.Context, l *listings.Listing) (bool, error)
}

// Offers resolves an accepted offer for a purchase with offerId. The offers
// area implements it.
type Offers interface {
	// AgreedPrice returns the agreed price of an offer the buyer may buy
	// with now (OFFER_NOT_ACCEPTED, OFFER_EXPIRED otherwise).
	AgreedPrice(ctx context.Context, tx Tx, offerID, buyerID, listingID string, now time.Time) (int64, error)
	// Used marks the offer as bought by order.
	Used(ctx context.Context, tx Tx, offerID, orderID string) error
	// ListingSold ends the other open offers on a listing that just sold.
	ListingSold(ctx context.Context, tx Tx, listingID string) error
}

// Settings are the live settings the area reads at each use, so an admin's
// change applies to the next purchase on every replica (CONTRACT.md 3 "read
// at each purchase"; package settings, adapted by the app).
type Settings interface {
	// FeeRates are the fee rates in force.
	FeeRates(ctx context.Context) (FeeRates, error)
	// PurchaseRules are what a purchase reads before its transaction, in
	// one read of the settings.
	PurchaseRules(ctx context.Context) (PurchaseRules, error)
	// PayoutHold is how long a seller's payout is held after delivery.
	PayoutHold(ctx context.Context) (time.Duration, error)
}

// PurchaseRules are the settings a purchase applies.
type PurchaseRules struct {
	Fees FeeRates
	// MaxPurchasesPerHour is the purchase-velocity rule of an agent key
	// (agents.SpendRequest.MaxPurchasesPerHour).
	MaxPurchasesPerHour int64
}

// DefaultPayoutHold is the payout hold of the spec, which applies without
// Settings.
const DefaultPayoutHold = 72 * time.Hour

// ChangeLog notes what the request running in ctx changed, for its entry in
// the audit log: the entity's audited fields before and after, and anything
// more the entry keeps (package audit's Notes, wired by the app).
type ChangeLog interface {
	NoteChange(ctx context.Context, before, after any, details map[string]any)
}

// Options are the collaborators of the service.
type Options struct {
	Settings  Settings  // nil: the spec's defaults
	Changes   ChangeLog // nil: the admin's changes are not noted
	Payments  *payments.Service
	Gateway   payments.Gateway
	Rates     Rates
	Offers    Offers // nil until the offers area exists
	Tracking  TrackingChecker
	Labels    LabelMaker              // platform-funded shipping labels
	Taxonomy  listings.TaxonomySource // the category tree in force, for categoryRestrictions
	PublicURL string
	// BeforeSettle, when set, runs before the settle step (tests fail it to
	// prove the reconciler repairs a crash between charge and settlement).
	BeforeSettle func(ctx context.Context, orderID string) error
	// BeforeCharge, when set, runs just before an off-session purchase's
	// key is re-read and the processor asked (tests hold a purchase there).
	BeforeCharge func(ctx context.Context, orderID, listingID string)
	// OnPaid, when set, runs inside the transaction that settles an
	// order's payment, so what it enqueues (the seller's automatic label)
	// commits with the order or not at all.
	OnPaid func(ctx context.Context, tx Tx, o *Order) error
	Log    *slog.Logger
}

// Service is the orders area.
type Service struct {
	store    Store
	clock    market.Clock
	opts     Options
	charging charging // orders whose charge is in flight here
}

// NewService builds the orders service.
func NewService(store Store, clock market.Clock, opts Options) *Service {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, clock: clock, opts: opts}
}

// ReservationTTL is how long a human checkout holds the listing.
const ReservationTTL = 15 * time.Minute
