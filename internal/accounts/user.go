// Package accounts holds people: users, their passwords and tokens,
// profiles, ship-from and saved shipping addresses.
package accounts

import (
	"context"
	"time"

	"marketplace/internal/events"
)

// Role gates the admin surface.
type Role string

const (
	RoleUser  Role = "user"
	RoleAdmin Role = "admin"
	// RoleGuest is a buyer an agent platform brought, known only by an
	// e-mail: no password, no sign-in, no public profile. The person may
	// register the same e-mail later and claim the guest's orders.
	RoleGuest Role = "guest"
	// RolePlatform is the account of an agent platform connected for ACP:
	// it owns the platform's webhook endpoint and never signs in.
	RolePlatform Role = "platform"
)

// Status is active, or suspended/banned (refused on every call).
type Status string

const (
	StatusActive    Status = "active"
	StatusSuspended Status = "suspended"
	StatusBanned    Status = "banned"
)

// TrustTier selects rate-limit tiers; verification lifts new to verified.
type TrustTier string

const (
	TierNew      TrustTier = "new"
	TierVerified TrustTier = "verified"
	TierTrusted  TrustTier = "trusted"
	TierPartner  TrustTier = "partner"
)

var tierRank = map[TrustTier]int{TierNew: 0, TierVerified: 1, TierTrusted: 2, TierPartner: 3}

// AtLeast returns the higher of t and min.
func (t TrustTier) AtLeast(min TrustTier) TrustTier {
	if tierRank[t] < tierRank[min] {
		return min
	}
	return t
}

// User is a human account; agents act for one.
type User struct {
	ID               string
	Email            string // lower case
	Username         string // lower case
	DisplayName      string
	AvatarURL        string
	PasswordHash     string // "" for accounts without a password yet
	Role             Role
	Status           Status
	TrustTier        TrustTier
	IdentityVerified bool
	ShipFrom         *Address
	Discord          *DiscordLink // the linked chat account, or nil
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// Blocked reports whether the account is refused on every call.
func (u *User) Blocked() bool { return u.Status != StatusActive }

// IsAdmin reports whether the user may use the admin surface.
func (u *User) IsAdmin() bool { return u.Role == RoleAdmin }

// IsGuest reports whether the user is a guest buyer (RoleGuest).
func (u *User) IsGuest() bool { return u.Role == RoleGuest }

// Address is a postal address: a saved shipping address, or the seller's
// ship-from address (which has no ID).
type Address struct {
	ID        string
	UserID    string
	Name      string
	Line1     string
	Line2     string
	City      string
	State     string
	Zip       string
	Country   string
	Phone     string
	IsDefault bool
	CreatedAt time.Time
}

// Tx is what accounts needs from a transaction.
type Tx interface {
	events.Tx
	CreateUser(ctx context.Context, u *User) error
	UpdateUser(ctx context.Context, u *User) error
	UserByID(ctx context.Context, id string) (*User, error)
	// UserByEmail finds an account (never a guest) by e-mail.
	UserByEmail(ctx context.Context, email string) (*User, error)
	// GuestByEmail finds the guest buyer of an e-mail.
	GuestByEmail(ctx context.Context, email string) (*User, error)
	UserByUsername(ctx context.Context, username string) (*User, error)
	// LockUser serialises changes to one account's addresses.
	LockUser(ctx context.Context, userID string) error
	Addresses(ctx context.Context, userID string) ([]Address, error)
	CreateAddress(ctx context.Context, a *Address) error
	DeleteAddress(ctx context.Context, userID, id string) error
	SetDefaultAddress(ctx context.Context, userID, id string) error

	// The chat link (discord.go). SetDiscordLink writes only the link
	// (nil removes it), so a profile change racing it loses nothing; a chat
	// account another user holds is INVALID_STATE.
	UserByDiscordID(ctx context.Context, discordUserID string) (*User, error)
	SetDiscordLink(ctx context.Context, userID string, link *DiscordLink, updatedAt time.Time) error
	CreateDiscordCode(ctx context.Context, c *DiscordCode) error
	// DiscordCodeByHash finds a code, locking it inside a transaction.
	DiscordCodeByHash(ctx context.Context, hash string) (*DiscordCode, error)
	// UseDiscordCode marks an unused code used; false when it was used
	// already.
	UseDiscordCode(ctx context.Context, hash string, at time.Time) (bool, error)
	// DeleteDiscordCodes removes the codes of discordUserID and every code
	// that expired before cutoff.
	DeleteDiscordCodes(ctx context.Context, discordUserID string, cutoff time.Time) error

	// Avatar uploads (avatar.go).
	CreateAvatarUpload(ctx context.Context, a *AvatarUpload) error
	// AvatarUploadByID finds an upload slot, locking it inside a
	// transaction.
	AvatarUploadByID(ctx context.Context, id string) (*AvatarUpload, error)
	// MarkAvatarUploaded fills a slot once (INVALID_STATE when used).
	MarkAvatarUploaded(ctx context.Context, a *AvatarUpload) error

	// Google sign-in: linked identities and the flows under way.
	IdentityBySubject(ctx context.Context, provider, subject string) (*Identity, error)
	IdentityOfUser(ctx context.Context, provider, userID string) (*Identity, error)
	// CreateIdentity refuses a subject linked already, or a user linked
	// to the provider already, with AlreadyLinked.
	CreateIdentity(ctx context.Context, id *Identity) error
	CreateOIDCState(ctx context.Context, st *OIDCState) error
	// TakeOIDCState deletes the state and returns it (NOT_FOUND when it
	// is not there): only one callback ever gets it.
	TakeOIDCState(ctx context.Context, id string) (*OIDCState, error)
	DeleteExpiredOIDCStates(ctx context.Context, now time.Time) error

	// Console sessions (session.go).
	SessionTx
}

// Store opens transactions and read handles over accounts' Tx.
type Store interface {
	InTx(ctx context.Context, fn func(Tx) error) error
	Read() Tx
}
