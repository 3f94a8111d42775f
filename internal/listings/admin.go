package listings

import (
	"context"
	"slices"
	"strings"

	"marketplace/internal/accounts"
	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/moderation"
)

// The admin's listing tools (CONTRACT.md sections 6 and 14): list and read
// every listing, change its price, category or status, approve or reject a
// held one, delist one (a counterfeit delist suspends the seller when the
// config says so) and override moderation rejections. Every change notes
// the values before and after for the request's audit entry (ChangeLog).

// ReasonCounterfeit is the delist reason that may suspend the seller.
const ReasonCounterfeit = "counterfeit"

// MaxReasonLen bounds an admin's reason.
const MaxReasonLen = 500

// AdminFilter selects listings for the admin list; zero fields match all.
type AdminFilter struct {
	Status   Status
	SellerID string
	Search   string // a listing id, or a case-insensitive substring of the title or brand
	Limit    int
	Offset   int
}

// AdminTx is what the admin tools need from a transaction beyond Tx.
type AdminTx interface {
	AdminListings(ctx context.Context, f AdminFilter) ([]Listing, int, error)
	UpdateUser(ctx context.Context, u *accounts.User) error
	RejectionByID(ctx context.Context, id string) (*moderation.Rejection, error)
	UpdateRejection(ctx context.Context, r *moderation.Rejection) error
	RecentRejections(ctx context.Context, limit, offset int) ([]moderation.Rejection, int, error)
	RejectionsOfUser(ctx context.Context, userID string, limit, offset int) ([]moderation.Rejection, int, error)
}

// AdminPatch is PATCH /admin/listings/{id}: any of price, category, status.
type AdminPatch struct {
	Price      market.Opt[int64]
	CategoryID market.Opt[string]
	Status     market.Opt[string]
}

// adminStatuses are the statuses an admin may set by PATCH.
var adminStatuses = []Status{StatusActive, StatusHeld, StatusArchived, StatusRemoved}

func adminOnly(actor market.Actor) error {
	if !actor.Admin {
		return market.Errorf(market.CodeForbidden, "admins only")
	}
	return nil
}

func adminTx(tx Tx) AdminTx {
	at, ok := tx.(AdminTx)
	if !ok {
		panic("listings: the store does not serve the admin tools")
	}
	return at
}

// AdminList lists every listing (deleted ones too), newest first.
func (s *Service) AdminList(ctx context.Context, actor market.Actor, f AdminFilter) ([]Listing, int, error) {
	if err := adminOnly(actor); err != nil {
		return nil, 0, err
	}
	var c market.Check
	if f.Status != "" {
		if f.Status == "processing" {
			f.Status = StatusPendingAI
		}
		c.Require(slices.Contains([]Status{StatusPendingAI, StatusActive, StatusHeld, StatusReserved, StatusSold,
			StatusArchived, StatusRemoved, StatusDeleted}, f.Status), "status", "unknown listing status")
	}
	c.Require(len(f.SellerID) <= 100, "sellerId", "must be at most 100 characters")
	f.Search = strings.TrimSpace(f.Search)
	c.Require(len(f.Search) <= 200, "search", "must be at most 200 characters")
	if err := c.Err(); err != nil {
		return nil, 0, err
	}
	return adminTx(s.store.Read()).AdminListings(ctx, f)
}

// AdminGet reads any listing, whatever its status.
func (s *Service) AdminGet(ctx context.Context, actor market.Actor, id string) (*Listing, error) {
	if err := adminOnly(actor); err != nil {
		return nil, err
	}
	l, err := s.store.Read().ListingByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, notFoundListing()
	}
	return l, err
}

// adminChange runs fn on the locked listing inside a transaction and notes
// the change: fn changes l (it may also return extra details for the
// audit entry).
func (s *Service) adminChange(ctx context.Context, actor market.Actor, id string,
	fn func(tx Tx, l *Listing) (map[string]any, error)) (*Listing, error) {
	if err := adminOnly(actor); err != nil {
		return nil, err
	}
	var out *Listing
	err := s.store.InTx(ctx, func(tx Tx) error {
		l, err := tx.ListingByID(ctx, id)
		if market.CodeOf(err) == market.CodeNotFound {
			return notFoundListing()
		}
		if err != nil {
			return err
		}
		before := *l
		extra, err := fn(tx, l)
		if err != nil {
			return err
		}
		out = l
		s.noteChange(ctx, auditView(&before), auditView(l), extra)
		return nil
	})
	return out, err
}

// auditView is what an admin change records of a listing.
func auditView(l *Listing) map[string]any {
	return map[string]any{"status": string(l.Status), "price": l.Price, "categoryId": l.CategoryID}
}

// AdminUpdate changes a listing's price, category or status. Sold,
// reserved, deleted and still-generating listings cannot change
// (INVALID_STATE).
func (s *Service) AdminUpdate(ctx context.Context, actor market.Actor, id string, p AdminPatch) (*Listing, error) {
	var c market.Check
	if p.Price.Set {
		c.Require(!p.Price.Null && p.Price.Value >= 1 && p.Price.Value <= MaxPriceCents, "price",
			"must be a whole number of cents from 1 to 1000000000")
	}
	if err := s.checkCategory(ctx, &c, "categoryId", p.CategoryID); err != nil {
		return nil, err
	}
	if p.Status.Set {
		c.Require(!p.Status.Null && slices.Contains(adminStatuses, Status(p.Status.Value)), "status",
			"must be active, held, archived or removed")
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	return s.adminChange(ctx, actor, id, func(tx Tx, l *Listing) (map[string]any, error) {
		switch l.Status {
		case StatusSold, StatusReserved, StatusDeleted, StatusPendingAI:
			return nil, market.Errorf(market.CodeInvalidState, "a %s listing cannot be changed", l.Status)
		}
		before := *l
		if p.Price.Set {
			l.Price = p.Price.Value
			if l.FloorPrice != nil && *l.FloorPrice > l.Price {
				floor := l.Price
				l.FloorPrice = &floor
			}
		}
		if p.CategoryID.Set {
			l.CategoryID = p.CategoryID.Value
		}
		if p.Status.Set {
			l.Status = Status(p.Status.Value)
		}
		changes := diff(&before, l)
		if len(changes) == 0 && l.Status == before.Status {
			return nil, nil
		}
		l.UpdatedAt = s.clock.Now()
		if err := tx.UpdateListing(ctx, l); err != nil {
			return nil, err
		}
		if err := s.recordAdminChange(ctx, tx, actor, &before, l, changes); err != nil {
			return nil, err
		}
		return nil, s.followed(ctx, tx, &before, l)
	})
}

// recordAdminChange writes the events of an admin change: listing.updated to
// the seller and watchers for what changed, the status included; a listing
// leaving sale tells its watchers it is gone.
func (s *Service) recordAdminChange(ctx context.Context, tx Tx, actor market.Actor, before, after *Listing, changes []string) error {
	if after.Status != before.Status {
		changes = append(changes, "status")
	}
	if len(changes) == 0 {
		return nil
	}
	watchers, err := tx.Watchers(ctx, after.ID)
	if err != nil {
		return err
	}
	to := append([]string{after.SellerID}, watchers...)
	data := snapshot(after, map[string]any{"changes": publicChanges(changes), "price_drop": after.Price < before.Price,
		"previous_status": string(before.Status)})
	if after.Price != before.Price {
		data["previous_price"] = before.Price
	}
	return events.Record(ctx, tx, after.UpdatedAt, actor, "listing.updated", "listing", after.ID, data, to...)
}

// Approve makes a held listing active.
func (s *Service) Approve(ctx context.Context, actor market.Actor, id string) (*Listing, error) {
	return s.adminChange(ctx, actor, id, func(tx Tx, l *Listing) (map[string]any, error) {
		if l.Status != StatusHeld {
			return nil, market.Errorf(market.CodeInvalidState, "only a held listing can be approved; this one is %s", l.Status)
		}
		before := *l
		l.Status, l.UpdatedAt = StatusActive, s.clock.Now()
		if err := tx.UpdateListing(ctx, l); err != nil {
			return nil, err
		}
		return nil, s.recordAdminChange(ctx, tx, actor, &before, l, nil)
	})
}

func checkReason(reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	var c market.Check
	c.Require(reason != "", "reason", "is required")
	c.Require(len(reason) <= MaxReasonLen, "reason", "must be at most 500 characters")
	return reason, c.Err()
}

// Reject removes a held listing.
func (s *Service) Reject(ctx context.Context, actor market.Actor, id, reason string) (*Listing, error) {
	reason, err := checkReason(reason)
	if err != nil {
		return nil, err
	}
	return s.adminChange(ctx, actor, id, func(tx Tx, l *Listing) (map[string]any, error) {
		if l.Status != StatusHeld {
			return nil, market.Errorf(market.CodeInvalidState, "only a held listing can be rejected; this one is %s", l.Status)
		}
		return map[string]any{"reason": reason}, s.remove(ctx, tx, actor, l, reason)
	})
}

// Delist removes an active or held listing. With reason counterfeit the
// seller is suspended too when moderation.suspend_on_counterfeit is true.
func (s *Service) Delist(ctx context.Context, actor market.Actor, id, reason string) (*Listing, error) {
	reason, err := checkReason(reason)
	if err != nil {
		return nil, err
	}
	suspend := false
	if reason == ReasonCounterfeit {
		if suspend, err = s.settings.SuspendOnCounterfeit(ctx); err != nil {
			return nil, err
		}
	}
	return s.adminChange(ctx, actor, id, func(tx Tx, l *Listing) (map[string]any, error) {
		if l.Status != StatusActive && l.Status != StatusHeld {
			return nil, market.Errorf(market.CodeInvalidState, "only an active or held listing can be delisted; this one is %s", l.Status)
		}
		if err := s.remove(ctx, tx, actor, l, reason); err != nil {
			return nil, err
		}
		extra := map[string]any{"reason": reason}
		if !suspend {
			return extra, nil
		}
		seller, err := tx.UserByID(ctx, l.SellerID)
		if err != nil {
			return nil, err
		}
		before := seller.Status
		extra["sellerStatusBefore"] = string(before)
		if seller.Status == accounts.StatusActive {
			seller.Status = accounts.StatusSuspended
			if err := adminTx(tx).UpdateUser(ctx, seller); err != nil {
				return nil, err
			}
		}
		// The one entry of the request says what happened to the seller.
		extra["sellerId"], extra["sellerStatusAfter"] = seller.ID, string(seller.Status)
		return extra, nil
	})
}

// remove takes l off sale by moderation: listing.removed for the seller,
// listing.updated for watchers.
func (s *Service) remove(ctx context.Context, tx Tx, actor market.Actor, l *Listing, reason string) error {
	before := *l
	from := l.Status
	l.Status, l.UpdatedAt = StatusRemoved, s.clock.Now()
	if err := tx.UpdateListing(ctx, l); err != nil {
		return err
	}
	if err := events.Record(ctx, tx, l.UpdatedAt, actor, "listing.removed", "listing", l.ID,
		map[string]any{"reason": reason, "from": string(from)}, l.SellerID); err != nil {
		return err
	}
	if err := GoneForWatchers(ctx, tx, actor, l, from); err != nil {
		return err
	}
	return s.followed(ctx, tx, &before, l)
}

// Rejections lists moderation rejections, newest first.
func (s *Service) Rejections(ctx context.Context, actor market.Actor, limit, offset int) ([]moderation.Rejection, int, error) {
	if err := adminOnly(actor); err != nil {
		return nil, 0, err
	}
	return adminTx(s.store.Read()).RecentRejections(ctx, limit, offset)
}

// RejectionsOfUser lists one seller's rejections, newest first.
func (s *Service) RejectionsOfUser(ctx context.Context, actor market.Actor, userID string, limit, offset int) ([]moderation.Rejection, int, error) {
	if err := adminOnly(actor); err != nil {
		return nil, 0, err
	}
	return adminTx(s.store.Read()).RejectionsOfUser(ctx, userID, limit, offset)
}

// Override lets a rejected listing go live: the rejection is marked
// overridden and its removed listing becomes active. A rejection already
// overridden, or whose listing is no longer removed, is INVALID_STATE.
func (s *Service) Override(ctx context.Context, actor market.Actor, rejectionID string) (*moderation.Rejection, *Listing, error) {
	if err := adminOnly(actor); err != nil {
		return nil, nil, err
	}
	var rej *moderation.Rejection
	var out *Listing
	err := s.store.InTx(ctx, func(tx Tx) error {
		at := adminTx(tx)
		r, err := at.RejectionByID(ctx, rejectionID)
		if err != nil {
			return err
		}
		if r.Status != moderation.RejectionOpen {
			return market.Errorf(market.CodeInvalidState, "this rejection is already %s", r.Status)
		}
		l, err := tx.ListingByID(ctx, r.ListingID)
		if err != nil {
			return err
		}
		if l.Status != StatusRemoved {
			return market.Errorf(market.CodeInvalidState, "the listing is %s, not removed", l.Status)
		}
		before, rejBefore := *l, r.Status
		now := s.clock.Now()
		r.Status, r.ResolvedAt, r.ResolvedBy = moderation.RejectionOverridden, &now, actor.UserID
		if err := at.UpdateRejection(ctx, r); err != nil {
			return err
		}
		l.Status, l.UpdatedAt = StatusActive, now
		if err := tx.UpdateListing(ctx, l); err != nil {
			return err
		}
		if err := s.recordAdminChange(ctx, tx, actor, &before, l, nil); err != nil {
			return err
		}
		rej, out = r, l
		s.noteChange(ctx,
			map[string]any{"status": string(rejBefore), "listing": auditView(&before)},
			map[string]any{"status": string(r.Status), "listing": auditView(l)}, nil)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return rej, out, nil
}
