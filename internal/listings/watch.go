package listings

import (
	"context"

	"marketplace/internal/market"
)

// WatchState is a caller's watch on a listing: {watching, watchersCount}.
type WatchState struct {
	Watching      bool
	WatchersCount int
}

// Watch starts watching a listing anyone may see; watching twice is fine.
func (s *Service) Watch(ctx context.Context, actor market.Actor, id string) (WatchState, error) {
	var out WatchState
	err := s.store.InTx(ctx, func(tx Tx) error {
		l, err := s.visible(ctx, tx, actor, id)
		if err != nil {
			return err
		}
		n, err := tx.Watch(ctx, actor.UserID, l.ID, s.clock.Now())
		out = WatchState{Watching: true, WatchersCount: n}
		return err
	})
	return out, err
}

// Unwatch stops watching; unwatching a listing not watched is fine.
func (s *Service) Unwatch(ctx context.Context, actor market.Actor, id string) (WatchState, error) {
	var out WatchState
	err := s.store.InTx(ctx, func(tx Tx) error {
		l, err := s.visible(ctx, tx, actor, id)
		if err != nil {
			return err
		}
		n, err := tx.Unwatch(ctx, actor.UserID, l.ID)
		out = WatchState{Watching: false, WatchersCount: n}
		return err
	})
	return out, err
}

// Watching reports the caller's watch on a listing.
func (s *Service) Watching(ctx context.Context, actor market.Actor, id string) (WatchState, error) {
	tx := s.store.Read()
	l, err := s.visible(ctx, tx, actor, id)
	if err != nil {
		return WatchState{}, err
	}
	w, n, err := tx.Watching(ctx, actor.UserID, l.ID)
	return WatchState{Watching: w, WatchersCount: n}, err
}

// Watched lists what the caller watches, most recently watched first.
func (s *Service) Watched(ctx context.Context, actor market.Actor, limit, offset int) ([]Listing, int, error) {
	return s.store.Read().WatchedListings(ctx, actor.UserID, limit, offset)
}

// visible finds a listing the actor may see, as Get does.
func (s *Service) visible(ctx context.Context, tx Tx, actor market.Actor, id string) (*Listing, error) {
	if !market.ValidID(id) {
		return nil, notFoundListing()
	}
	l, err := tx.ListingByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if hidden(l, actor) {
		return nil, notFoundListing()
	}
	return l, nil
}

// hidden reports whether actor may not see l: deleted listings are gone for
// everyone, the other invisible ones show to their seller and admins only.
func hidden(l *Listing, actor market.Actor) bool {
	return !l.Status.Visible() && (l.Status == StatusDeleted || (l.SellerID != actor.UserID && !actor.Admin))
}
