// Package checkouts is the checkout session: an outside agent's cart of
// one listing, priced, given a destination and a fulfillment option, and
// completed into an order through the purchase path (orders.Service), so
// caps, approvals, fees, the charge, idempotency and crash recovery are
// the purchase's own. It knows no protocol: the Agentic Commerce Protocol
// binding (internal/httpapi/acp) maps its sessions, statuses and messages
// to ACP's wire shapes, and another checkout protocol can be one more
// binding over the same sessions (CONTRACT.md section 18).
//
// An open session holds nothing: the listing stays on sale until a
// complete takes it. What a session shows (line items, totals, options,
// messages, status) is worked out when it is read, from the listing and
// the purchase's estimate as they are then.
package checkouts

import (
	"context"
	"strconv"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
)

// Lifetime is how long a session lives after its last update.
const Lifetime = 30 * time.Minute

// State is what has happened to a session; its Status for a reader is
// worked out from it and the cart (Status).
type State string

const (
	StateOpen State = "open"
	// StateCompleting: a complete reserved the listing and its charge is
	// under way (or its process died: a retry finishes it, through the
	// purchase's idempotency key Attempt names).
	StateCompleting      State = "completing"
	StatePendingApproval State = "pending_approval" // complete waits for the owner
	StateCompleted       State = "completed"
	StateCanceled        State = "canceled"
)

// Session is a checkout session as stored.
type Session struct {
	ID string // cs_...
	// Who opened it: an agent key (KeyID, UserID its owner) or an agent
	// platform (PlatformID) whose buyer is a guest known by e-mail.
	KeyID      string
	PlatformID string
	UserID     string

	Buyer       *Contact
	Items       []Item       // as asked; a session sells one item (Check)
	Destination *Destination // where it goes; nil until given
	Options     []Option     // quoted for Destination
	Selected    []Selection
	// SeenPrice is the item price the buyer was last shown: a price change
	// after it is told (an info message) and the charge waits until the
	// buyer has seen the new one.
	SeenPrice int64
	Currency  string

	State State
	// Attempt counts completes whose charge was declined: each attempt
	// purchases under a key of its own (PurchaseKey).
	Attempt    int
	OrderID    string // the order made (or queued for approval)
	ApprovalID string
	Payment    *PaymentChoice // what complete was asked to charge
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// PurchaseKey is the idempotency key of the session's current purchase
// attempt: a retried complete finds the order the first run made.
func (s *Session) PurchaseKey() string { return s.ID + "/" + strconv.Itoa(s.Attempt) }

// ExpiresAt is when an open session ends: Lifetime after its last update.
func (s *Session) ExpiresAt() time.Time { return s.UpdatedAt.Add(Lifetime) }

// Contact is the buyer as the agent names them.
type Contact struct {
	FirstName string `json:"first_name,omitempty"`
	LastName  string `json:"last_name,omitempty"`
	FullName  string `json:"full_name,omitempty"`
	Email     string `json:"email,omitempty"`
	Phone     string `json:"phone,omitempty"`
}

// Name is the contact's name in one line.
func (c *Contact) Name() string {
	if c == nil {
		return ""
	}
	if c.FullName != "" {
		return c.FullName
	}
	if c.FirstName != "" && c.LastName != "" {
		return c.FirstName + " " + c.LastName
	}
	return c.FirstName + c.LastName
}

// Item is one line of the cart as asked: a listing, and how many times
// it was asked for (an item named twice is a quantity of 2).
type Item struct {
	ID        string `json:"id"` // the line item's id, li_...
	ListingID string `json:"listing_id"`
	Quantity  int    `json:"quantity"`
}

// Destination is where the order goes and who receives it.
type Destination struct {
	Name    string           `json:"name,omitempty"`
	Phone   string           `json:"phone,omitempty"`
	Email   string           `json:"email,omitempty"`
	Address accounts.Address `json:"address"`
}

// Fulfillment is how an option gets the item to the buyer.
type Fulfillment string

const (
	FulfillShipping Fulfillment = "shipping"
	FulfillPickup   Fulfillment = "pickup"
)

// Option is one way to fulfil the session's item, quoted for its
// destination. Its ID stays the same while the session quotes the same
// carrier and service.
type Option struct {
	ID      string      `json:"id"`
	Kind    Fulfillment `json:"kind"`
	Carrier string      `json:"carrier,omitempty"`
	Service string      `json:"service,omitempty"`
	Amount  int64       `json:"amount"`
	Days    int         `json:"days,omitempty"`
	// RateID is the signed shipping rate the purchase redeems.
	RateID string `json:"rate_id,omitempty"`
}

// Selection is an option chosen for some of the line items.
type Selection struct {
	OptionID string   `json:"option_id"`
	ItemIDs  []string `json:"item_ids"`
}

// PaymentChoice is what a complete asked to charge: the handler, and the
// credential's token where the handler takes one.
type PaymentChoice struct {
	Handler string `json:"handler"`
	Token   string `json:"token,omitempty"`
}

// Tx is what the checkouts area needs of a store transaction.
type Tx interface {
	CreateCheckout(ctx context.Context, s *Session) error
	// CheckoutByID finds a session, locking it inside a transaction.
	CheckoutByID(ctx context.Context, id string) (*Session, error)
	UpdateCheckout(ctx context.Context, s *Session) error
}

// Store opens transactions and read handles over checkouts' Tx.
type Store interface {
	InTx(ctx context.Context, fn func(Tx) error) error
	Read() Tx
}

// LineItemID is the id of the line item that buys a listing.
func LineItemID(listingID string) string { return "li_" + listingID }

// NewID is a new session id.
func NewID() string { return "cs_" + market.NewID() }

// ValidID reports whether id is shaped like a session id.
func ValidID(id string) bool {
	return len(id) > 3 && id[:3] == "cs_" && market.ValidID(id[3:])
}
