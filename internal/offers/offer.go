// Package offers is price negotiation on a listing (CONTRACT.md section 8):
// a buyer offers, the parties counter in rounds, the party asked accepts or
// rejects, and an accepted offer is bought at its agreed price through the
// one purchase path (reached through Purchaser, which the app wires to
// orders). An agent buyer's open offers hold part of its owner's spending
// caps (Reserved), which agents.CheckSpend counts.
//
// offers imports no orders: orders imports offers (its Tx embeds PurchaseTx,
// the part of an offer a purchase reads and marks).
package offers

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
	"marketplace/internal/payments"
)

// Status is where an offer stands.
type Status string

const (
	StatusPending   Status = "pending"
	StatusCountered Status = "countered"
	StatusAccepted  Status = "accepted"
	StatusRejected  Status = "rejected"
	StatusWithdrawn Status = "withdrawn"
	StatusExpired   Status = "expired"
)

// AllStatuses lists every status, for documents and filters.
var AllStatuses = []Status{StatusPending, StatusCountered, StatusAccepted, StatusRejected, StatusWithdrawn, StatusExpired}

// Party is a side of the negotiation.
type Party string

const (
	Buyer  Party = "buyer"
	Seller Party = "seller"
)

// RoundTTL is how long a round waits for its answer, and how long an
// accepted offer may be bought with offerId.
const RoundTTL = 48 * time.Hour

// MaxAmount bounds every amount (ten million in currency units), as the
// purchase path does.
const MaxAmount int64 = 1_000_000_000

// MaxMessage is the longest offer message.
const MaxMessage = 1000

// Round is one amount put on the table.
type Round struct {
	Round       int       `json:"round"`
	By          Party     `json:"by"`
	Amount      int64     `json:"amount"`
	Message     string    `json:"message"`
	SentByAgent bool      `json:"sentByAgent"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Offer is one buyer's negotiation over one listing.
type Offer struct {
	ID           string
	ListingID    string
	BuyerID      string
	BuyerKeyID   string // the agent key that made the buyer's last commitment; "" for the human
	SellerID     string
	Status       Status
	OfferPrice   int64  // the buyer's first amount
	CounterPrice *int64 // the latest counter, by either party
	CurrentPrice int64  // the amount on the table
	AgreedPrice  *int64
	Message      string // the latest round's message
	Round        int
	MaxRounds    int
	Awaiting     Party // "" once the offer is decided
	ExpiresAt    time.Time
	AutoPurchase bool
	// PaymentMethodID and ShippingAddressID are what the automatic purchase
	// uses; "" for the buyer's defaults.
	PaymentMethodID   string
	ShippingAddressID string
	OrderID           string
	// Reserved is what the offer holds of the agent buyer's caps: the
	// buyer's committed amount plus the buyer's fee; 0 otherwise.
	Reserved    int64
	SentByAgent bool // the offer was made by an agent key
	Rounds      []Round
	CreatedAt   time.Time
	UpdatedAt   time.Time

	// The seller's private figures, filled for the seller's views only.
	FloorPrice *int64
	CostBasis  *int64
}

// Open reports whether the offer still binds anyone: waiting for an answer,
// or accepted and not bought yet.
func (o *Offer) Open() bool {
	return o.Status == StatusPending || o.Status == StatusCountered || o.Status == StatusAccepted && o.OrderID == ""
}

// Role is the user's side of the offer, or "".
func (o *Offer) Role(userID string) Party {
	switch userID {
	case o.BuyerID:
		return Buyer
	case o.SellerID:
		return Seller
	}
	return ""
}

// Filter selects a page of one user's offers.
type Filter struct {
	UserID string
	Role   Party
	Status Status // "" for every status
	Limit  int
	Offset int
}

// PurchaseTx is the part of the offers store the purchase path uses inside
// its own transaction (orders.Tx embeds it).
type PurchaseTx interface {
	events.Tx
	// OfferByID reads an offer, locking it inside a transaction.
	OfferByID(ctx context.Context, id string) (*Offer, error)
	// UpdateOffer writes every mutable field of o. An update that would
	// make a second open offer of one buyer on one listing answers
	// ACTIVE_OFFER_EXISTS.
	UpdateOffer(ctx context.Context, o *Offer) error
	// OpenOffersOn lists the open offers on a listing.
	OpenOffersOn(ctx context.Context, listingID string) ([]Offer, error)
}

// Tx is what the offers area needs from a transaction.
type Tx interface {
	PurchaseTx
	agents.SpendTx
	messaging.PostTx // rounds are posted into the buyer's thread
	ListingByID(ctx context.Context, id string) (*listings.Listing, error)
	// Addresses and PaymentMethodByID check what an offer names for its
	// automatic purchase.
	Addresses(ctx context.Context, userID string) ([]accounts.Address, error)
	PaymentMethodByID(ctx context.Context, id string) (*payments.PaymentMethod, error)
	// CreateOffer inserts o; a second open offer of one buyer on one
	// listing answers ACTIVE_OFFER_EXISTS.
	CreateOffer(ctx context.Context, o *Offer) error
	// OpenOfferOf finds the buyer's open offer on a listing.
	OpenOfferOf(ctx context.Context, buyerID, listingID string) (*Offer, error)
	// Offers lists a page of offers, newest first, with the total.
	Offers(ctx context.Context, f Filter) ([]Offer, int, error)
	// DueOffers lists open offers whose time ran out by now.
	DueOffers(ctx context.Context, now time.Time, limit int) ([]Offer, error)
}

// Store opens transactions and read handles over offers' Tx.
type Store interface {
	InTx(ctx context.Context, fn func(Tx) error) error
	Read() Tx
}

// Caller is who acts: a human, or an agent key and its owner.
type Caller struct {
	Actor market.Actor
	User  *accounts.User // the human, or the agent's owner
	Key   *agents.Key    // set for agents
}

// Purchaser buys an offer through the purchase path: the buyer (the agent
// key, when BuyerKeyID is set) buys the listing at the agreed price (or the
// list price, when that is lower) with the offer's payment method and
// address, or the buyer's defaults. accept runs first inside the purchase's
// transaction, before the purchase locks anything (it takes the listing's
// lock, then the offer's), and makes the offer accepted: the acceptance
// commits with the purchase's reservation of the listing, or not at all.
// Its error ends the purchase with nothing done.
type Purchaser interface {
	BuyOffer(ctx context.Context, o *Offer, accept func(ctx context.Context, tx Tx) error) (orderID string, err error)
}

// Fees gives the rule of what the buyer would be charged in all for an item
// price and a shipping cost (CONTRACT.md section 3), at the rates in force.
// It is read before a transaction opens, never inside one: a read on another
// connection while holding locks could starve the pool under load.
type Fees interface {
	BuyerTotals(ctx context.Context) (func(itemPrice, shippingCost int64) int64, error)
}

// Settings are the live settings the area reads at each use (package
// settings, adapted by the app).
type Settings interface {
	// MaxRounds is the most amounts that may be put on the table in one
	// negotiation.
	MaxRounds(ctx context.Context) (int, error)
}

// DefaultMaxRounds applies without Settings.
const DefaultMaxRounds = 5

// Options are the collaborators of the service.
type Options struct {
	Settings  Settings  // nil: DefaultMaxRounds
	Purchaser Purchaser // nil: accepted offers wait for a purchase with offerId
	Fees      Fees      // nil: the reservation is the amount alone
	// Taxonomy is the category tree for owners' categoryRestrictions; nil:
	// a restriction matches a listing's category id only.
	Taxonomy listings.TaxonomySource
	// OnRound, when set, runs inside the transaction of every create,
	// counter, accept and reject, after the round is posted into the
	// buyer's thread, with the round just made (for accept: the agreed
	// amount by the answering party; for reject: amount 0; Round is the
	// offer's round).
	OnRound func(ctx context.Context, tx Tx, o *Offer, r Round) error
	Log     *slog.Logger
}

// Service is the offers area.
type Service struct {
	store Store
	clock market.Clock
	opts  Options
}

// NewService builds the offers service.
func NewService(store Store, clock market.Clock, opts Options) *Service {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, clock: clock, opts: opts}
}
