package httpapi

import "marketplace/internal/api"

// Content trust belongs to the views (api.ContentTrust); these names stay
// for the wire types not yet moved onto views.
const (
	TrustListing = api.TrustListing
	TrustProfile = api.TrustProfile
	TrustMessage = api.TrustMessage
	TrustOffer   = api.TrustOffer
)

// ContentTrust is api.ContentTrust.
type ContentTrust = api.ContentTrust

// NewTrust is api.NewTrust; ForeignTrust is api.ForeignTrust.
var (
	NewTrust     = api.NewTrust
	ForeignTrust = api.ForeignTrust
)
