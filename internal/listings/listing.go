package listings

import (
	"context"
	"slices"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/events"
	"marketplace/internal/moderation"
)

// Status is where a listing stands (CONTRACT.md section 6). Variant B shows
// pending_ai as "processing".
type Status string

const (
	StatusPendingAI Status = "pending_ai"
	StatusActive    Status = "active"
	StatusHeld      Status = "held"
	StatusReserved  Status = "reserved"
	StatusSold      Status = "sold"
	StatusArchived  Status = "archived"
	StatusRemoved   Status = "removed"
	StatusDeleted   Status = "deleted"
)

// Conditions a listing can have, best first.
var AllConditions = []string{"new_with_tags", "new_without_tags", "like_new", "good", "fair", "poor"}

// ValidCondition reports whether s is one of AllConditions.
func ValidCondition(s string) bool { return slices.Contains(AllConditions, s) }

// ShippingType says how a buyer receives the item.
type ShippingType string

const (
	ShipFree        ShippingType = "free"
	ShipFlatRate    ShippingType = "flat_rate"
	ShipCalculated  ShippingType = "calculated"
	ShipLocalPickup ShippingType = "local_pickup"
	ShipBoth        ShippingType = "both" // flat rate or pickup
)

// Listing is an item for sale.
type Listing struct {
	ID             string
	SellerID       string
	Status         Status
	Title          string
	Description    string
	Brief          string // what the seller wrote
	Brand          string
	Price          int64 // cents
	PriceSource    string
	Condition      string
	CategoryID     string
	ShippingType   ShippingType
	ShippingCost   *int64 // cents; set for flat_rate and both
	AcceptOffers   bool
	MinOfferAmount *int64
	FloorPrice     *int64 // owner only
	CostBasis      *int64 // owner only
	WeightOz       int
	Dimensions     Dimensions
	PhotoIDs       []string // in display order
	Generator      string   // which generator filled it ("" while pending)
	WatchersCount  int
	CreatedAt      time.Time
	UpdatedAt      time.Time
	SoldAt         *time.Time
}

// Seller is the public face of a listing's seller.
type Seller struct {
	ID          string
	Username    string
	DisplayName string
}

// Visible reports whether anyone may see a listing in this status; the
// others are seen by their seller (and admins) only.
func (s Status) Visible() bool {
	return s == StatusActive || s == StatusReserved || s == StatusSold
}

// PhotoUpload is one presigned upload slot: issued, then filled once by a PUT,
// then attached to at most one listing.
type PhotoUpload struct {
	ID          string
	OwnerID     string
	ExpiresAt   time.Time
	UploadedAt  *time.Time
	ContentType string
	Width       int
	Height      int
	Size        int64
	ListingID   string // "" until attached
	CreatedAt   time.Time
}

// Tx is what listings needs from a transaction.
type Tx interface {
	events.Tx
	moderation.Tx
	Searcher
	UserByID(ctx context.Context, id string) (*accounts.User, error)
	// Sellers finds the public face of each seller id given.
	Sellers(ctx context.Context, ids []string) (map[string]Seller, error)
	CreateListing(ctx context.Context, l *Listing) error
	UpdateListing(ctx context.Context, l *Listing) error
	ListingByID(ctx context.Context, id string) (*Listing, error)
	// ListingWithSeller is ListingByID, without a lock, with the seller's
	// public face (empty when the seller row is missing, as Sellers leaves
	// it out), in one read.
	ListingWithSeller(ctx context.Context, id string) (*Listing, Seller, error)
	ListingsBySeller(ctx context.Context, sellerID string, statuses []Status, limit, offset int) ([]Listing, int, error)

	CreatePhotoUpload(ctx context.Context, p *PhotoUpload) error
	PhotoUploadByID(ctx context.Context, id string) (*PhotoUpload, error)
	MarkPhotoUploaded(ctx context.Context, p *PhotoUpload) error
	AttachPhotos(ctx context.Context, listingID, ownerID string, photoIDs []string) error

	Watch(ctx context.Context, userID, listingID string, at time.Time) (int, error)
	Unwatch(ctx context.Context, userID, listingID string) (int, error)
	Watching(ctx context.Context, userID, listingID string) (bool, int, error)
	WatchedListings(ctx context.Context, userID string, limit, offset int) ([]Listing, int, error)
	Watchers(ctx context.Context, listingID string) ([]string, error)

	// SeedCategories inserts the built-in categories the table lacks and
	// brings the built-in rows' keywords, priors and package defaults up
	// to date (names, parents and switches stay as admins left them); a
	// change bumps the config version.
	SeedCategories(ctx context.Context, cats []Category, at time.Time) error
	// Categories lists every category, inactive ones included.
	Categories(ctx context.Context) ([]Category, error)
	// InsertCategory adds a category; a slug already taken is a
	// VALIDATION_ERROR on slug.
	InsertCategory(ctx context.Context, c *Category) error
	// UpdateCategory stores c's name, path and switch.
	UpdateCategory(ctx context.Context, c *Category) error
	// ConfigVersion is the counter admin changes move (BumpConfigVersion,
	// in the change's transaction); the cached category tree is rebuilt
	// when it moved.
	ConfigVersion(ctx context.Context) (int64, error)
	BumpConfigVersion(ctx context.Context) error
}

// Store opens transactions and read handles over listings' Tx.
type Store interface {
	InTx(ctx context.Context, fn func(Tx) error) error
	Read() Tx
}
