package moderation

import (
	"context"
	"time"
)

// RejectionStatus says where a rejection stands.
type RejectionStatus string

const (
	RejectionOpen       RejectionStatus = "open"       // the listing stays removed
	RejectionOverridden RejectionStatus = "overridden" // an admin let the listing go live
)

// ReasonRestrictedBrand is the reason recorded when a listing names a
// restricted luxury brand.
const ReasonRestrictedBrand = "restricted_brand"

// Rejection records why moderation refused a listing at create or update.
type Rejection struct {
	ID         string
	ListingID  string
	UserID     string // the seller
	Reason     string
	Brand      string // the configured spelling of the matched brand
	Field      string // where it was found: title, description or brand
	Status     RejectionStatus
	CreatedAt  time.Time
	ResolvedAt *time.Time
	ResolvedBy string
}

// Tx is what recording rejections needs from a transaction.
type Tx interface {
	CreateRejection(ctx context.Context, r *Rejection) error
	RejectionsByUser(ctx context.Context, userID string) ([]Rejection, error)
}
