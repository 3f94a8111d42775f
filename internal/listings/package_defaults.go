package listings

import "context"

// PackageDefaults finds a seller's usual parcel, the packageDefaults of
// their shipping preferences; ok is false when they set none. The shipping
// area implements it.
type PackageDefaults interface {
	PackageDefaults(ctx context.Context, sellerID string) (weightOz int, d Dimensions, ok bool, err error)
}

// packageDefaults fills the weight and the size a new listing leaves out
// from the seller's package defaults. It runs at create, before generation,
// which fills what is still missing from its draft (the category's typical
// parcel): the seller's own parcel is the better guess for quotes and
// labels.
func (s *Service) packageDefaults(ctx context.Context, l *Listing) error {
	if s.packages == nil || l.WeightOz != 0 && l.Dimensions != (Dimensions{}) {
		return nil
	}
	w, d, ok, err := s.packages.PackageDefaults(ctx, l.SellerID)
	if err != nil || !ok {
		return err
	}
	if l.WeightOz == 0 {
		l.WeightOz = w
	}
	if l.Dimensions == (Dimensions{}) {
		l.Dimensions = d
	}
	return nil
}
