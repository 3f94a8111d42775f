package accounts

import (
	"context"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// MaxAddresses bounds the saved shipping addresses of one account.
const MaxAddresses = 20

// Addresses lists the caller's saved shipping addresses, default first.
func (s *Service) Addresses(ctx context.Context, actor market.Actor) ([]Address, error) {
	return s.store.Read().Addresses(ctx, actor.UserID)
}

// AddAddress saves a shipping address. The first one becomes the default.
func (s *Service) AddAddress(ctx context.Context, actor market.Actor, a Address, makeDefault bool) (*Address, error) {
	var c market.Check
	CheckAddress(&c, "", &a)
	if err := c.Err(); err != nil {
		return nil, err
	}
	err := s.store.InTx(ctx, func(tx Tx) error {
		// Concurrent adds must not pass the limit together, nor each make
		// itself the first (default) address.
		if err := tx.LockUser(ctx, actor.UserID); err != nil {
			return err
		}
		existing, err := tx.Addresses(ctx, actor.UserID)
		if err != nil {
			return err
		}
		if len(existing) >= MaxAddresses {
			return market.Errorf(market.CodeValidation, "at most %d saved addresses", MaxAddresses)
		}
		a.ID, a.UserID, a.CreatedAt = market.NewID(), actor.UserID, s.clock.Now()
		a.IsDefault = false
		if err := tx.CreateAddress(ctx, &a); err != nil {
			return err
		}
		if makeDefault || len(existing) == 0 {
			if err := tx.SetDefaultAddress(ctx, actor.UserID, a.ID); err != nil {
				return err
			}
			a.IsDefault = true
		}
		return events.Record(ctx, tx, a.CreatedAt, actor, "address.created", "address", a.ID, nil)
	})
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// DeleteAddress removes one of the caller's addresses. When it was the
// default, the newest remaining one becomes the default.
func (s *Service) DeleteAddress(ctx context.Context, actor market.Actor, id string) error {
	if !market.ValidID(id) {
		return market.NotFound("address")
	}
	return s.store.InTx(ctx, func(tx Tx) error {
		if err := tx.LockUser(ctx, actor.UserID); err != nil {
			return err
		}
		list, err := tx.Addresses(ctx, actor.UserID)
		if err != nil {
			return err
		}
		var wasDefault, found bool
		for _, a := range list {
			if a.ID == id {
				found, wasDefault = true, a.IsDefault
			}
		}
		if !found {
			return market.NotFound("address")
		}
		if err := tx.DeleteAddress(ctx, actor.UserID, id); err != nil {
			return err
		}
		if wasDefault {
			for _, a := range list {
				if a.ID != id {
					if err := tx.SetDefaultAddress(ctx, actor.UserID, a.ID); err != nil {
						return err
					}
					break
				}
			}
		}
		return events.Record(ctx, tx, s.clock.Now(), actor, "address.deleted", "address", id, nil)
	})
}

// SetDefaultAddress makes one of the caller's addresses the default.
func (s *Service) SetDefaultAddress(ctx context.Context, actor market.Actor, id string) (*Address, error) {
	if !market.ValidID(id) {
		return nil, market.NotFound("address")
	}
	var out *Address
	err := s.store.InTx(ctx, func(tx Tx) error {
		if err := tx.LockUser(ctx, actor.UserID); err != nil {
			return err
		}
		if err := tx.SetDefaultAddress(ctx, actor.UserID, id); err != nil {
			return err
		}
		list, err := tx.Addresses(ctx, actor.UserID)
		if err != nil {
			return err
		}
		for i := range list {
			if list[i].ID == id {
				out = &list[i]
			}
		}
		return events.Record(ctx, tx, s.clock.Now(), actor, "address.default_set", "address", id, nil)
	})
	return out, err
}
