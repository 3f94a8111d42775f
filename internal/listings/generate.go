package listings

import (
	"context"

	"marketplace/internal/accounts"
	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/moderation"
)

// Generate runs generation for a pending listing and applies the draft to
// every field the seller left out. A listing no longer pending (another
// run finished it, or it was removed) comes back as it is, so create and
// the job queue may both try. A draft naming a restricted brand removes the
// listing and answers LISTING_RESTRICTED.
func (s *Service) Generate(ctx context.Context, id string) (*Listing, error) {
	l, err := s.store.Read().ListingByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if l.Status != StatusPendingAI {
		return l, nil
	}
	tax, err := s.UsableTaxonomy(ctx)
	if err != nil {
		return nil, err
	}
	// The generator picks among the categories in use now; a seller's
	// category switched off since the create is left to it to replace.
	brief := Brief{Description: l.Brief, Condition: l.Condition, Taxonomy: tax}
	if c, ok := s.CategoryByID(ctx, l.CategoryID); ok {
		brief.Category = c.Slug
	}
	if l.PriceSource == "seller" {
		p := l.Price
		brief.Price = &p
	}
	if s.photos != nil {
		brief.Images = s.photos.Thumbnails(ctx, l.PhotoIDs, maxGeneratorImages)
	}
	draft, err := s.gen.Generate(ctx, brief)
	if err != nil {
		return nil, market.Internal(err)
	}
	hold, err := s.settings.HoldNewSellers(ctx)
	if err != nil {
		return nil, err
	}
	return s.moderated(ctx, func(tx Tx, m *moderation.BrandMatcher) (*Listing, *moderation.Rejection, error) {
		l, err := tx.ListingByID(ctx, id)
		if err != nil || l.Status != StatusPendingAI {
			return l, nil, err
		}
		fill(l, draft, tax)
		l.UpdatedAt = s.clock.Now()
		rejection := s.screen(m, l, l.UpdatedAt, false) // the brief was screened at create
		seller, err := tx.UserByID(ctx, l.SellerID)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case rejection != nil:
			l.Status = StatusRemoved
		case hold && seller.TrustTier == accounts.TierNew:
			l.Status = StatusHeld
		default:
			l.Status = StatusActive
		}
		if err := tx.UpdateListing(ctx, l); err != nil {
			return nil, nil, err
		}
		if err := events.Record(ctx, tx, l.UpdatedAt, market.System, "listing.ai_complete", "listing", l.ID,
			snapshot(l, map[string]any{"generator": l.Generator}), l.SellerID); err != nil {
			return nil, nil, err
		}
		if rejection != nil {
			return l, rejection, s.reject(ctx, tx, market.System, l, rejection)
		}
		return l, nil, nil
	})
}

// maxGeneratorImages is how many photos a generator is shown.
const maxGeneratorImages = 4

// fill copies a draft into the fields the seller left out; the draft's
// category is taken only when it is in tax, the tree in use.
func fill(l *Listing, d Draft, tax *Taxonomy) {
	if l.Title == "" {
		l.Title = d.Title
	}
	if l.Description == "" {
		l.Description = d.Description
	}
	if l.Brand == "" {
		l.Brand = d.Brand
	}
	if l.Condition == "" {
		l.Condition = d.Condition
	}
	if l.CategoryID == "" && tax != nil {
		if c, ok := tax.BySlug(d.CategorySlug); ok {
			l.CategoryID = c.ID
		}
	}
	if l.PriceSource != "seller" {
		l.Price, l.PriceSource = d.Price, "ai"
	}
	if l.WeightOz == 0 {
		l.WeightOz = d.WeightOz
	}
	if l.Dimensions == (Dimensions{}) {
		l.Dimensions = d.Dimensions
	}
	l.Generator = d.Generator
}
