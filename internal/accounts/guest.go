package accounts

import (
	"context"
	"strings"
	"time"

	"marketplace/internal/market"
)

// Guest is the guest buyer of an e-mail (RoleGuest), made on its first
// purchase: the buyer of orders an agent platform places for a person
// without an account here. The orders' e-mails reach the address; the
// person can never sign in as the guest.
func (s *Service) Guest(ctx context.Context, email, name string) (*User, error) {
	email = NormalizeEmail(email)
	if !ValidEmail(email) {
		return nil, market.Invalid(market.FieldError{Field: "email", Message: "must be a valid e-mail address"})
	}
	if u, err := s.store.Read().GuestByEmail(ctx, email); market.CodeOf(err) != market.CodeNotFound {
		return u, err
	}
	name = strings.TrimSpace(name)
	if len(name) > 100 || name == "" {
		name = email[:strings.IndexByte(email, '@')]
	}
	var u *User
	err := s.store.InTx(ctx, func(tx Tx) error {
		now := s.clock.Now()
		u = &User{ID: market.NewID(), Email: email, Username: "guest-" + randomHex(8), DisplayName: name,
			Role: RoleGuest, Status: StatusActive, TrustTier: TierNew, CreatedAt: now, UpdatedAt: now}
		return tx.CreateUser(ctx, u)
	})
	if market.CodeOf(err) == market.CodeEmailTaken {
		// Another purchase made the guest first.
		return s.store.Read().GuestByEmail(ctx, email)
	}
	return u, err
}

// PlatformAccount is the account of an agent platform (RolePlatform), to
// insert with the platform: it owns the platform's webhook endpoint and
// never signs in. Its e-mail is no one's.
func PlatformAccount(platformID, name string, now time.Time) *User {
	return &User{ID: market.NewID(), Email: platformID + "@platforms.invalid", Username: "platform-" + randomHex(6),
		DisplayName: name, Role: RolePlatform, Status: StatusActive, TrustTier: TierNew, CreatedAt: now, UpdatedAt: now}
}
