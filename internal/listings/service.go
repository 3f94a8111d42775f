package listings

import (
	"context"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/fresh"
	"marketplace/internal/market"
)

// Settings are the live settings the area reads at each use, so an admin's
// change applies to the next listing on every replica (package settings,
// adapted by the app).
type Settings interface {
	// HoldNewSellers: listings of new (unverified) sellers wait for review
	// before they go live.
	HoldNewSellers(ctx context.Context) (bool, error)
	// RestrictedBrands are the brands whose listings are removed pending
	// moderation.
	RestrictedBrands(ctx context.Context) ([]string, error)
	// SuspendOnCounterfeit: a counterfeit delist suspends the seller too.
	SuspendOnCounterfeit(ctx context.Context) (bool, error)
}

// ChangeLog notes what the request running in ctx changed, for its entry in
// the audit log: the entity's audited fields before (nil for a creation) and
// after, and anything more the entry keeps (package audit's Notes, wired by
// the app).
type ChangeLog interface {
	NoteChange(ctx context.Context, before, after any, details map[string]any)
}

// Scheduler enqueues the background generation of a listing inside the
// transaction that creates it, to run after delay (real time, not the
// service clock, which sandbox time travel moves) unless the request
// finished the work first.
type Scheduler interface {
	ScheduleGeneration(ctx context.Context, tx Tx, listingID string, delay time.Duration) error
}

// DefaultBudget is how long a create call waits for generation before it
// answers pending_ai and leaves the work to the job queue.
const DefaultBudget = 5 * time.Second

// Options are the listings service's collaborators.
type Options struct {
	Generator Generator     // required: generator.NewBuiltin, or an AI adapter in front of it
	Settings  Settings      // required for create and update
	Photos    *Photos       // thumbnails for generators that look at images
	Budget    time.Duration // 0: DefaultBudget
	// Packages fills a new listing's missing weight and size from the
	// seller's package defaults; nil: generation alone fills them.
	Packages PackageDefaults
	// Offers keeps a listing's offers in line with it; nil: nothing follows.
	Offers OffersFollow
	// Changes notes the admin's changes for the audit log; nil: not noted.
	Changes ChangeLog
	// Scheduler finishes in the background the generations a create call
	// did not wait for (the job queue); nil: they stay pending_ai.
	Scheduler Scheduler
}

// OffersFollow ends the offers a change to listing l leaves no room for: all
// open ones when l left sale, those at or above a lowered price (the offers
// area's ListingChanged, wired by the app: offers builds on listings, so
// listings cannot call it). It runs in the transaction of every change to a
// listing's price or status, after l is written, whatever made the change
// (the seller on any surface, an admin, moderation, a ban).
type OffersFollow func(ctx context.Context, tx events.Tx, l *Listing) error

// Service is the listings area: the category tree, the listing lifecycle,
// generation, search and watches.
type Service struct {
	store     Store
	clock     market.Clock
	seed      *Taxonomy                    // the built-in tree, seeded into the table
	live      liveTaxonomy                 // the table's tree, cached per config version
	version   fresh.Group[struct{}, int64] // config version reads, shared by concurrent requests
	gen       Generator
	settings  Settings
	photos    *Photos
	budget    time.Duration
	scheduler Scheduler
	packages  PackageDefaults
	offers    OffersFollow
	changes   ChangeLog
}

// NewService builds the listings service; the categories table, seeded
// from the built-in taxonomy, is the category tree. The
// generators live in listings/generator, which builds on this package, so
// the caller hands one in.
func NewService(store Store, clock market.Clock, opts Options) *Service {
	if opts.Generator == nil {
		panic("listings: NewService needs Options.Generator")
	}
	s := &Service{store: store, clock: clock, seed: DefaultTaxonomy(), gen: opts.Generator, settings: opts.Settings,
		photos: opts.Photos, budget: opts.Budget, packages: opts.Packages, offers: opts.Offers, changes: opts.Changes,
		scheduler: opts.Scheduler}
	if s.budget <= 0 {
		s.budget = DefaultBudget
	}
	return s
}

// followed runs the offers hook for l, changed in tx from before: only a
// change of price or status can leave an offer out of line.
func (s *Service) followed(ctx context.Context, tx Tx, before, l *Listing) error {
	if s.offers == nil || before.Price == l.Price && before.Status == l.Status {
		return nil
	}
	return s.offers(ctx, tx, l)
}

// noteChange notes a change for the request's audit entry.
func (s *Service) noteChange(ctx context.Context, before, after any, details map[string]any) {
	if s.changes != nil {
		s.changes.NoteChange(ctx, before, after, details)
	}
}

// SeedCategories makes sure every built-in category exists in the store.
func (s *Service) SeedCategories(ctx context.Context) error {
	return s.store.InTx(ctx, func(tx Tx) error {
		return tx.SeedCategories(ctx, s.seed.All(), s.clock.Now())
	})
}
