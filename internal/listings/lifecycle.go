package listings

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/moderation"
)

// Limits on what a seller writes.
const (
	MaxPhotos         = 12
	MaxBriefLen       = 2000 // characters of the short description
	MaxDescriptionLen = 5000
	MaxTitleLen       = 80
	MaxBrandLen       = 60
	MaxPriceCents     = MaxEstimateCents
	MaxWeightOz       = 2400 // 150 lb
	MaxDimensionIn    = 108
)

// Input is what a seller gives on create or update. A field left unset is
// not given: on create generation fills it, on update it stays as it is.
// Null clears the optional money fields (minOfferAmount, floorPrice,
// costBasis, shippingCost).
type Input struct {
	Brief          market.Opt[string] // create: the short description generation works from
	Description    market.Opt[string] // update: the full description
	PhotoIDs       market.Opt[[]string]
	Title          market.Opt[string]
	Brand          market.Opt[string]
	Price          market.Opt[int64]
	Condition      market.Opt[string]
	CategoryID     market.Opt[string]
	ShippingType   market.Opt[string]
	ShippingCost   market.Opt[int64]
	AcceptOffers   market.Opt[bool]
	MinOfferAmount market.Opt[int64]
	FloorPrice     market.Opt[int64]
	CostBasis      market.Opt[int64]
	WeightOz       market.Opt[int]
	Dimensions     market.Opt[Dimensions]
}

// Restricted is the error of a create or update that names a restricted
// brand: the listing was kept, removed, with a rejection on record.
func restricted(l *Listing, r *moderation.Rejection) error {
	return market.Errorf(market.CodeListingRestricted, "listings of %s are not allowed on this marketplace", r.Brand).
		WithDetails(map[string]any{"listing_id": l.ID, "reason": r.Reason, "brand": r.Brand, "rejection_id": r.ID})
}

// Create makes a listing from the seller's photos and brief. Generation
// fills what the seller left out; when it finishes within the budget the
// listing comes back active (or held), else pending_ai with the job queue
// finishing it. A brief naming a restricted brand is kept as removed and
// answers LISTING_RESTRICTED.
func (s *Service) Create(ctx context.Context, actor market.Actor, in Input) (*Listing, error) {
	if err := s.checkInput(ctx, in, true); err != nil {
		return nil, err
	}
	now := s.clock.Now()
	l := &Listing{ID: market.NewID(), SellerID: actor.UserID, Status: StatusPendingAI, Brief: strings.TrimSpace(in.Brief.Value),
		ShippingType: ShipFree, AcceptOffers: true, PhotoIDs: in.PhotoIDs.Value, CreatedAt: now, UpdatedAt: now}
	if in.Price.Set && !in.Price.Null {
		l.PriceSource = "seller"
	}
	apply(l, in)
	if err := checkListing(l); err != nil {
		return nil, err
	}
	if err := s.packageDefaults(ctx, l); err != nil {
		return nil, err
	}
	matcher, err := s.brands(ctx)
	if err != nil {
		return nil, err
	}
	rejection := s.screen(matcher, l, now, true)

	err = s.store.InTx(ctx, func(tx Tx) error {
		seller, err := tx.UserByID(ctx, actor.UserID)
		if err != nil {
			return err
		}
		if actor.IsAgent() && !seller.IdentityVerified {
			return market.Errorf(market.CodeOwnerNotVerified, "the agent's owner must verify their identity before listing")
		}
		if rejection != nil {
			l.Status = StatusRemoved
			if l.Title == "" {
				l.Title = ClipTitle(l.Brief)
			}
			l.Description = l.Brief
		}
		if err := tx.CreateListing(ctx, l); err != nil {
			return err
		}
		if err := tx.AttachPhotos(ctx, l.ID, actor.UserID, l.PhotoIDs); err != nil {
			return err
		}
		if err := events.Record(ctx, tx, now, actor, "listing.created", "listing", l.ID, snapshot(l, nil), l.SellerID); err != nil {
			return err
		}
		if rejection != nil {
			return s.reject(ctx, tx, actor, l, rejection)
		}
		if s.scheduler != nil {
			return s.scheduler.ScheduleGeneration(ctx, tx, l.ID, 2*s.budget)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rejection != nil {
		return nil, restricted(l, rejection)
	}

	gctx, cancel := context.WithTimeout(ctx, s.budget)
	defer cancel()
	done, err := s.Generate(gctx, l.ID)
	if err != nil {
		if market.CodeOf(err) == market.CodeListingRestricted {
			return nil, err
		}
		// The job queue finishes it; the seller sees pending_ai.
		return l, nil
	}
	return done, nil
}

// reject records a rejection and its event for a listing kept as removed.
func (s *Service) reject(ctx context.Context, tx Tx, actor market.Actor, l *Listing, r *moderation.Rejection) error {
	if err := tx.CreateRejection(ctx, r); err != nil {
		return err
	}
	return events.Record(ctx, tx, r.CreatedAt, actor, "listing.removed", "listing", l.ID,
		map[string]any{"reason": r.Reason, "brand": r.Brand, "rejection_id": r.ID})
}

// brands compiles the configured restricted brands.
func (s *Service) brands(ctx context.Context) (*moderation.BrandMatcher, error) {
	list, err := s.settings.RestrictedBrands(ctx)
	if err != nil {
		return nil, err
	}
	return moderation.NewBrandMatcher(list), nil
}

// screen checks a listing's words against the restricted brands: the
// title, the description, the brand and, with withBrief (before
// generation, which writes from it), the seller's brief.
func (s *Service) screen(m *moderation.BrandMatcher, l *Listing, now time.Time, withBrief bool) *moderation.Rejection {
	fields := []struct{ name, text string }{{"title", l.Title}, {"description", l.Description}, {"brand", l.Brand}}
	if withBrief {
		fields = append(fields, struct{ name, text string }{"description", l.Brief})
	}
	for _, f := range fields {
		if brand, ok := m.Match(f.text); ok {
			return &moderation.Rejection{ID: market.NewID(), ListingID: l.ID, UserID: l.SellerID,
				Reason: moderation.ReasonRestrictedBrand, Brand: brand, Field: f.name, Status: moderation.RejectionOpen,
				CreatedAt: now}
		}
	}
	return nil
}

// Get returns a listing as the caller may see it: anyone sees active,
// reserved and sold listings; the seller (and admins) see the rest, deleted
// ones aside.
func (s *Service) Get(ctx context.Context, actor market.Actor, id string) (*Listing, error) {
	return s.visible(ctx, s.store.Read(), actor, id)
}

// GetWithSeller is Get with the seller's public face (Sellers), read in the
// same statement: the public listing read, one query instead of two.
func (s *Service) GetWithSeller(ctx context.Context, actor market.Actor, id string) (*Listing, Seller, error) {
	if !market.ValidID(id) {
		return nil, Seller{}, notFoundListing()
	}
	l, seller, err := s.store.Read().ListingWithSeller(ctx, id)
	if err != nil {
		return nil, Seller{}, err
	}
	if hidden(l, actor) {
		return nil, Seller{}, notFoundListing()
	}
	return l, seller, nil
}

// Owned returns a listing of the actor's, for owner views: FORBIDDEN when it
// is someone else's.
func (s *Service) Owned(ctx context.Context, actor market.Actor, id string) (*Listing, error) {
	return s.owned(ctx, s.store.Read(), actor, id)
}

// owned finds (inside a transaction, locks) a listing the actor may see,
// refusing it with FORBIDDEN unless it is the actor's.
func (s *Service) owned(ctx context.Context, tx Tx, actor market.Actor, id string) (*Listing, error) {
	l, err := s.visible(ctx, tx, actor, id)
	if err != nil {
		return nil, err
	}
	if l.SellerID != actor.UserID {
		return nil, market.Errorf(market.CodeForbidden, "this listing is not yours")
	}
	return l, nil
}

func notFoundListing() error { return market.Errorf(market.CodeListingNotFound, "listing not found") }

// Update changes the fields the seller gives. Sold, reserved, removed and
// still-generating listings cannot change (INVALID_STATE). A change naming a
// restricted brand removes the listing and answers LISTING_RESTRICTED.
// Watchers get a listing.updated event naming what changed.
func (s *Service) Update(ctx context.Context, actor market.Actor, id string, in Input) (*Listing, error) {
	if err := s.checkInput(ctx, in, false); err != nil {
		return nil, err
	}
	return s.moderated(ctx, func(tx Tx, m *moderation.BrandMatcher) (*Listing, *moderation.Rejection, error) {
		l, err := s.owned(ctx, tx, actor, id)
		if err != nil {
			return nil, nil, err
		}
		switch l.Status {
		case StatusActive, StatusHeld, StatusArchived:
		default:
			return nil, nil, market.Errorf(market.CodeInvalidState, "a %s listing cannot be changed", l.Status)
		}
		before := *l
		apply(l, in)
		if in.Price.Set {
			l.PriceSource = "seller"
		}
		if err := checkListing(l); err != nil {
			return nil, nil, err
		}
		changes := diff(&before, l)
		if len(changes) == 0 {
			return l, nil, nil
		}
		l.UpdatedAt = s.clock.Now()
		rejection := s.screen(m, l, l.UpdatedAt, false)
		if rejection != nil {
			l.Status = StatusRemoved
		}
		if in.PhotoIDs.Set {
			if err := tx.AttachPhotos(ctx, l.ID, actor.UserID, l.PhotoIDs); err != nil {
				return nil, nil, err
			}
		}
		if err := tx.UpdateListing(ctx, l); err != nil {
			return nil, nil, err
		}
		if rejection != nil {
			if err := s.reject(ctx, tx, actor, l, rejection); err != nil {
				return nil, nil, err
			}
			if err := GoneForWatchers(ctx, tx, actor, l, before.Status); err != nil {
				return nil, nil, err
			}
		} else if err := s.recordUpdate(ctx, tx, actor, &before, l, changes); err != nil {
			return nil, nil, err
		}
		return l, rejection, s.followed(ctx, tx, &before, l)
	})
}

// moderated runs fn in a transaction with the restricted-brand matcher.
// fn returns the listing and, when it named a restricted brand, the
// rejection it recorded: the change commits either way (the listing is kept,
// removed) and the call answers LISTING_RESTRICTED.
func (s *Service) moderated(ctx context.Context,
	fn func(tx Tx, m *moderation.BrandMatcher) (*Listing, *moderation.Rejection, error)) (*Listing, error) {
	m, err := s.brands(ctx)
	if err != nil {
		return nil, err
	}
	var out *Listing
	var rejection *moderation.Rejection
	err = s.store.InTx(ctx, func(tx Tx) error {
		var err error
		out, rejection, err = fn(tx, m)
		return err
	})
	if err != nil {
		return nil, err
	}
	if rejection != nil {
		return nil, restricted(out, rejection)
	}
	return out, nil
}

// recordUpdate writes listing.updated with what changed, for the seller
// and every watcher (CONTRACT.md section 12). A change only the seller may
// see (the floor price, the cost basis) goes to the seller alone, and is
// not named when public fields changed with it.
func (s *Service) recordUpdate(ctx context.Context, tx Tx, actor market.Actor, before, after *Listing, changes []string) error {
	to, shown := []string{after.SellerID}, changes
	if public := publicChanges(changes); len(public) > 0 {
		watchers, err := tx.Watchers(ctx, after.ID)
		if err != nil {
			return err
		}
		to, shown = append(to, watchers...), public
	}
	data := snapshot(after, map[string]any{"changes": shown, "price_drop": after.Price < before.Price})
	if after.Price != before.Price {
		data["previous_price"] = before.Price
	}
	return events.Record(ctx, tx, after.UpdatedAt, actor, "listing.updated", "listing", after.ID, data, to...)
}

// diff names the public fields that differ.
func diff(a, b *Listing) []string {
	var out []string
	add := func(name string, changed bool) {
		if changed {
			out = append(out, name)
		}
	}
	add("title", a.Title != b.Title)
	add("description", a.Description != b.Description)
	add("brand", a.Brand != b.Brand)
	add("price", a.Price != b.Price)
	add("condition", a.Condition != b.Condition)
	add("categoryId", a.CategoryID != b.CategoryID)
	add("shippingType", a.ShippingType != b.ShippingType)
	add("shippingCost", !eqPtr(a.ShippingCost, b.ShippingCost))
	add("acceptOffers", a.AcceptOffers != b.AcceptOffers)
	add("minOfferAmount", !eqPtr(a.MinOfferAmount, b.MinOfferAmount))
	add("floorPrice", !eqPtr(a.FloorPrice, b.FloorPrice))
	add("costBasis", !eqPtr(a.CostBasis, b.CostBasis))
	add("weightOz", a.WeightOz != b.WeightOz)
	add("dimensions", a.Dimensions != b.Dimensions)
	add("photos", !slices.Equal(a.PhotoIDs, b.PhotoIDs))
	return out
}

func eqPtr(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// Archive takes a listing off sale (DELETE): sold and reserved listings
// cannot go (INVALID_STATE); archiving twice is fine.
func (s *Service) Archive(ctx context.Context, actor market.Actor, id string) (*Listing, error) {
	return s.retire(ctx, actor, id, StatusArchived, "listing.archived")
}

// Delete soft-deletes a listing: it is gone from every view.
func (s *Service) Delete(ctx context.Context, actor market.Actor, id string) (*Listing, error) {
	return s.retire(ctx, actor, id, StatusDeleted, "listing.deleted")
}

func (s *Service) retire(ctx context.Context, actor market.Actor, id string, to Status, event string) (*Listing, error) {
	var out *Listing
	err := s.store.InTx(ctx, func(tx Tx) error {
		l, err := s.owned(ctx, tx, actor, id)
		if err != nil {
			return err
		}
		out = l
		switch l.Status {
		case to:
			return nil
		case StatusSold, StatusReserved:
			return market.Errorf(market.CodeInvalidState, "a %s listing cannot be removed", l.Status)
		case StatusRemoved, StatusPendingAI:
			// A removed listing leaves moderation only by an admin; a
			// generating one is archived once it is complete.
			if to == StatusArchived {
				return market.Errorf(market.CodeInvalidState, "a %s listing cannot be archived", l.Status)
			}
		}
		before := *l
		l.Status, l.UpdatedAt = to, s.clock.Now()
		if err := tx.UpdateListing(ctx, l); err != nil {
			return err
		}
		if err := events.Record(ctx, tx, l.UpdatedAt, actor, event, "listing", l.ID, map[string]any{"from": string(before.Status)}); err != nil {
			return err
		}
		if err := GoneForWatchers(ctx, tx, actor, l, before.Status); err != nil {
			return err
		}
		return s.followed(ctx, tx, &before, l)
	})
	return out, err
}

// WatchersTx is what telling a listing's watchers needs.
type WatchersTx interface {
	events.Tx
	Watchers(ctx context.Context, listingID string) ([]string, error)
}

// GoneForWatchers tells l's watchers that it is gone from sale (it was
// from): archived, deleted, removed by moderation or with a banned seller.
func GoneForWatchers(ctx context.Context, tx WatchersTx, actor market.Actor, l *Listing, from Status) error {
	watchers, err := tx.Watchers(ctx, l.ID)
	if err != nil || len(watchers) == 0 {
		return err
	}
	return events.Record(ctx, tx, l.UpdatedAt, actor, "listing.updated", "listing", l.ID,
		snapshot(l, map[string]any{"changes": []string{"status"}, "previous_status": string(from)}), watchers...)
}

// ListOwn lists the actor's listings, newest first, optionally in one
// status; deleted ones never show.
func (s *Service) ListOwn(ctx context.Context, actor market.Actor, status string, limit, offset int) ([]Listing, int, error) {
	statuses := []Status{StatusPendingAI, StatusActive, StatusHeld, StatusReserved, StatusSold, StatusArchived, StatusRemoved}
	if status != "" {
		st := Status(status)
		if status == "processing" {
			st = StatusPendingAI
		}
		if !slices.Contains(statuses, st) {
			return nil, 0, market.Invalid(market.FieldError{Field: "status", Message: "unknown listing status"})
		}
		statuses = []Status{st}
	}
	return s.store.Read().ListingsBySeller(ctx, actor.UserID, statuses, limit, offset)
}

// ListPublic lists a seller's active listings, newest first.
func (s *Service) ListPublic(ctx context.Context, sellerID string, limit, offset int) ([]Listing, int, error) {
	return s.store.Read().ListingsBySeller(ctx, sellerID, []Status{StatusActive}, limit, offset)
}

// Sellers finds the public face of the sellers of ls.
func (s *Service) Sellers(ctx context.Context, ls ...Listing) (map[string]Seller, error) {
	var ids []string
	for _, l := range ls {
		if !slices.Contains(ids, l.SellerID) {
			ids = append(ids, l.SellerID)
		}
	}
	return s.store.Read().Sellers(ctx, ids)
}

// apply copies the given fields of in onto l.
func apply(l *Listing, in Input) {
	setStr := func(dst *string, o market.Opt[string]) {
		if o.Set {
			*dst = strings.TrimSpace(o.Value)
		}
	}
	setMoney := func(dst **int64, o market.Opt[int64]) {
		if o.Set {
			*dst = o.Ptr()
		}
	}
	setStr(&l.Title, in.Title)
	setStr(&l.Description, in.Description)
	setStr(&l.Brand, in.Brand)
	setStr(&l.Condition, in.Condition)
	setStr(&l.CategoryID, in.CategoryID)
	if in.Price.Set && !in.Price.Null {
		l.Price = in.Price.Value
	}
	if in.ShippingType.Set && !in.ShippingType.Null {
		l.ShippingType = ShippingType(in.ShippingType.Value)
	}
	setMoney(&l.ShippingCost, in.ShippingCost)
	setMoney(&l.MinOfferAmount, in.MinOfferAmount)
	setMoney(&l.FloorPrice, in.FloorPrice)
	setMoney(&l.CostBasis, in.CostBasis)
	if in.AcceptOffers.Set && !in.AcceptOffers.Null {
		l.AcceptOffers = in.AcceptOffers.Value
	}
	if in.WeightOz.Set && !in.WeightOz.Null {
		l.WeightOz = in.WeightOz.Value
	}
	if in.Dimensions.Set && !in.Dimensions.Null {
		l.Dimensions = in.Dimensions.Value
	}
	if in.PhotoIDs.Set && !in.PhotoIDs.Null {
		l.PhotoIDs = in.PhotoIDs.Value
	}
	// Shipping cost belongs to flat rates only.
	if l.ShippingType != ShipFlatRate && l.ShippingType != ShipBoth && l.ShippingCost != nil && *l.ShippingCost == 0 {
		l.ShippingCost = nil
	}
}

// checkInput validates each given field on its own.
func (s *Service) checkInput(ctx context.Context, in Input, create bool) error {
	var c market.Check
	text := func(field string, o market.Opt[string], max int, required bool) {
		if !o.Set {
			c.Require(!required, field, "is required")
			return
		}
		v := strings.TrimSpace(o.Value)
		switch {
		case o.Null || (v == "" && required):
			c.Add(field, "must not be empty")
		case utf8.RuneCountInString(v) > max:
			c.Add(field, "is too long")
		case !utf8.ValidString(v):
			c.Add(field, "must be valid UTF-8")
		}
	}
	money := func(field string, o market.Opt[int64], min int64, nullable bool) {
		switch {
		case !o.Set:
		case o.Null:
			c.Require(nullable, field, "must not be null")
		case o.Value < min || o.Value > MaxPriceCents:
			c.Add(field, "must be a whole number of cents from "+strconv.FormatInt(min, 10)+" to "+strconv.FormatInt(MaxPriceCents, 10))
		}
	}
	if create {
		text("description", in.Brief, MaxBriefLen, true)
	} else if in.Description.Set {
		text("description", in.Description, MaxDescriptionLen, true)
	}
	if in.Title.Set {
		text("title", in.Title, MaxTitleLen, true)
	}
	if in.Brand.Set && !in.Brand.Null {
		text("brand", in.Brand, MaxBrandLen, false)
	}
	money("price", in.Price, 1, create)
	if create && !in.Price.Set {
		c.Require(!in.MinOfferAmount.Set, "min_offer_amount", "needs a price: give one, or set this after the listing is generated")
		c.Require(!in.FloorPrice.Set, "floor_price", "needs a price: give one, or set this after the listing is generated")
	}
	money("shipping_cost", in.ShippingCost, 0, true)
	money("min_offer_amount", in.MinOfferAmount, 1, true)
	money("floor_price", in.FloorPrice, 0, true)
	money("cost_basis", in.CostBasis, 0, true)
	if in.Condition.Set && (in.Condition.Null || !ValidCondition(in.Condition.Value)) {
		c.Add("condition", "must be one of "+strings.Join(AllConditions, ", "))
	}
	if in.ShippingType.Set && (in.ShippingType.Null || !validShipping(in.ShippingType.Value)) {
		c.Add("shipping_type", "must be one of free, flat_rate, calculated, local_pickup, both")
	}
	if in.AcceptOffers.Set && in.AcceptOffers.Null {
		c.Add("accept_offers", "must be true or false")
	}
	if in.WeightOz.Set && (in.WeightOz.Null || in.WeightOz.Value < 1 || in.WeightOz.Value > MaxWeightOz) {
		c.Add("weight_oz", "must be from 1 to "+strconv.Itoa(MaxWeightOz)+" ounces")
	}
	if in.Dimensions.Set {
		d := in.Dimensions.Value
		ok := !in.Dimensions.Null
		for _, v := range []float64{d.L, d.W, d.H} {
			ok = ok && v > 0 && v <= MaxDimensionIn
		}
		c.Require(ok, "dimensions", "l, w and h must each be above 0 and at most "+strconv.Itoa(MaxDimensionIn)+" inches")
	}
	switch {
	case create && !in.PhotoIDs.Set:
		c.Add("photo_urls", "is required: 1 to 12 uploaded photo URLs")
	case in.PhotoIDs.Set && (in.PhotoIDs.Null || len(in.PhotoIDs.Value) < 1 || len(in.PhotoIDs.Value) > MaxPhotos):
		c.Add("photo_urls", "must hold 1 to 12 uploaded photo URLs")
	case in.PhotoIDs.Set && hasDuplicate(in.PhotoIDs.Value):
		c.Add("photo_urls", "must not repeat a photo")
	}
	if err := s.checkCategory(ctx, &c, "category_id", in.CategoryID); err != nil {
		return err
	}
	return c.Err()
}

// checkListing validates the fields that depend on each other.
func checkListing(l *Listing) error {
	var c market.Check
	if l.ShippingType == ShipFlatRate || l.ShippingType == ShipBoth {
		c.Require(l.ShippingCost != nil, "shipping_cost", "is required for flat_rate and both shipping")
	} else {
		c.Require(l.ShippingCost == nil, "shipping_cost", "applies only to flat_rate and both shipping")
	}
	if l.PriceSource == "seller" || l.Price > 0 {
		c.Require(l.MinOfferAmount == nil || *l.MinOfferAmount <= l.Price, "min_offer_amount", "must not be above the price")
		c.Require(l.FloorPrice == nil || *l.FloorPrice <= l.Price, "floor_price", "must not be above the price")
	}
	return c.Err()
}

func validShipping(s string) bool {
	switch ShippingType(s) {
	case ShipFree, ShipFlatRate, ShipCalculated, ShipLocalPickup, ShipBoth:
		return true
	}
	return false
}

func hasDuplicate(ids []string) bool {
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			return true
		}
		seen[id] = true
	}
	return false
}
