package app

import (
	"context"

	"marketplace/internal/listings"
	"marketplace/internal/shipping"
)

// sellerPackages hands the listings area a seller's package defaults from
// their shipping preferences, to fill what a new listing leaves out.
type sellerPackages struct{ s *shipping.Service }

func (p sellerPackages) PackageDefaults(ctx context.Context, sellerID string) (int, listings.Dimensions, bool, error) {
	prefs, err := p.s.Prefs(ctx, sellerID)
	if err != nil || prefs.Package == nil {
		return 0, listings.Dimensions{}, false, err
	}
	return prefs.Package.WeightOz, prefs.Package.Dimensions, true, nil
}
