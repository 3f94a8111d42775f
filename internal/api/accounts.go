package api

import (
	"context"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/moderation"
)

// ChatLink is the chat account linked to a user (CONTRACT.md section 17).
type ChatLink struct {
	DiscordUserID   string    `json:"discordUserId" doc:"The chat account's user id (a Discord snowflake)."`
	DiscordUsername string    `json:"discordUsername" doc:"The chat account's name when the code was issued."`
	LinkedAt        time.Time `json:"linkedAt"`
}

// ChatLinkOf is l as shown; nil when no chat account is linked.
func ChatLinkOf(l *accounts.DiscordLink) *ChatLink {
	if l == nil {
		return nil
	}
	return &ChatLink{DiscordUserID: l.DiscordUserID, DiscordUsername: l.DiscordUsername, LinkedAt: l.LinkedAt}
}

// User is an account as its owner sees it. Variant B repeats the id as
// user_id and leaves the ship-from address out.
type User struct {
	ID               string    `json:"id"`
	UserID           string    `json:"-" snake:"user_id"`
	Email            string    `json:"email" format:"email"`
	Username         string    `json:"username"`
	DisplayName      string    `json:"displayName"`
	AvatarURL        *string   `json:"avatarUrl"`
	Discord          *ChatLink `json:"discord" doc:"The linked chat account, or null (POST /auth/discord/verify links one)."`
	Role             string    `json:"role" ref:"Role"`
	Status           string    `json:"status" ref:"UserStatus"`
	TrustTier        string    `json:"trustTier" ref:"TrustTier"`
	IdentityVerified bool      `json:"identityVerified"`
	PasswordSet      bool      `json:"passwordSet" doc:"False for an account made by Google sign-in that has not set a password yet (POST /auth/set-password); password login needs one."`
	ShipFromAddress  *Address  `json:"shipFromAddress" snake:"-" ref:"ShipFromAddress"`
	CreatedAt        time.Time `json:"createdAt"`
}

// UserOf is u as its owner sees it.
func UserOf(u *accounts.User) *User {
	out := &User{ID: u.ID, UserID: u.ID, Email: u.Email, Username: u.Username, DisplayName: u.DisplayName,
		AvatarURL: strOrNil(u.AvatarURL), Role: string(u.Role), Status: string(u.Status), TrustTier: string(u.TrustTier),
		IdentityVerified: u.IdentityVerified, PasswordSet: u.PasswordHash != "", CreatedAt: u.CreatedAt,
		Discord: ChatLinkOf(u.Discord)}
	if u.ShipFrom != nil {
		out.ShipFromAddress = AddressOf(u.ShipFrom)
	}
	return out
}

// Profile is a user's public profile.
type Profile struct {
	ID               string    `json:"id"`
	Username         string    `json:"username"`
	DisplayName      string    `json:"displayName"`
	AvatarURL        *string   `json:"avatarUrl"`
	TrustTier        string    `json:"trustTier" ref:"TrustTier"`
	IdentityVerified bool      `json:"identityVerified"`
	CreatedAt        time.Time `json:"createdAt"`
	// ContentTrust marks the display name another user chose.
	ContentTrust *ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller, on another user: the display name is untrusted input (CONTRACT section 16)."`
}

// ProfileOf is u's profile as viewer sees it on a surface of casing c: to
// an agent key's caller, another user's display name is foreign text.
func ProfileOf(u *accounts.User, viewer market.Actor, c Casing) *Profile {
	name := "displayName"
	if c == Snake {
		name = "display_name"
	}
	return &Profile{ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, AvatarURL: strOrNil(u.AvatarURL),
		TrustTier: string(u.TrustTier), IdentityVerified: u.IdentityVerified, CreatedAt: u.CreatedAt,
		ContentTrust: ForeignTrust(viewer, u.ID, TrustProfile, moderation.TrustField{Name: name, Text: u.DisplayName})}
}

// Address is a postal address: a saved address (with its id, default mark
// and creation time), a seller's ship-from address or where an order ships
// (without them unless it was a saved address).
type Address struct {
	ID        string     `json:"id,omitempty"`
	Name      string     `json:"name"`
	Line1     string     `json:"line1"`
	Line2     string     `json:"line2"`
	City      string     `json:"city"`
	State     string     `json:"state"`
	Zip       string     `json:"zip"`
	Country   string     `json:"country" doc:"ISO 3166-1 alpha-2, upper case."`
	Phone     string     `json:"phone"`
	IsDefault *bool      `json:"isDefault,omitempty"`
	CreatedAt *time.Time `json:"createdAt,omitempty"`
}

// AddressOf is a as shown; nil for none.
func AddressOf(a *accounts.Address) *Address {
	if a == nil {
		return nil
	}
	out := &Address{ID: a.ID, Name: a.Name, Line1: a.Line1, Line2: a.Line2, City: a.City, State: a.State, Zip: a.Zip,
		Country: a.Country, Phone: a.Phone}
	if a.ID != "" {
		d, c := a.IsDefault, a.CreatedAt
		out.IsDefault, out.CreatedAt = &d, &c
	}
	return out
}

// Accounts are the operations on the caller's account and addresses, and
// on public profiles, for a surface of casing Casing.
type Accounts struct {
	Service *accounts.Service
	Casing  Casing
}

// UpdateProfile changes the caller's display name, username or avatar.
func (x Accounts) UpdateProfile(ctx context.Context, c *Caller, upd accounts.ProfileUpdate) (*User, error) {
	return viewOf(UserOf)(x.Service.UpdateProfile(ctx, c.Actor, upd))
}

// SetShipFrom sets the seller's ship-from address.
func (x Accounts) SetShipFrom(ctx context.Context, c *Caller, a accounts.Address) (*User, error) {
	return viewOf(UserOf)(x.Service.SetShipFrom(ctx, c.Actor, a))
}

// Addresses are the caller's saved addresses (for an agent, its owner's).
func (x Accounts) Addresses(ctx context.Context, c *Caller) ([]Address, error) {
	list, err := x.Service.Addresses(ctx, c.Actor)
	if err != nil {
		return nil, err
	}
	out := make([]Address, len(list))
	for i := range list {
		out[i] = *AddressOf(&list[i])
	}
	return out, nil
}

// AddAddress saves an address, the default one if makeDefault.
func (x Accounts) AddAddress(ctx context.Context, c *Caller, a accounts.Address, makeDefault bool) (*Address, error) {
	return viewOf(AddressOf)(x.Service.AddAddress(ctx, c.Actor, a, makeDefault))
}

// SetDefaultAddress makes a saved address the default.
func (x Accounts) SetDefaultAddress(ctx context.Context, c *Caller, id string) (*Address, error) {
	return viewOf(AddressOf)(x.Service.SetDefaultAddress(ctx, c.Actor, id))
}

// Profile is a user's public profile, as the caller (nil: anonymous) sees
// it.
func (x Accounts) Profile(ctx context.Context, c *Caller, username string) (*Profile, error) {
	u, err := x.Service.Profile(ctx, username)
	if err != nil {
		return nil, err
	}
	return ProfileOf(u, viewerOf(c), x.Casing), nil
}

// AccountOps are the account operations.
func (o Ops) AccountOps() Accounts { return Accounts{Service: o.Accounts, Casing: o.Casing} }
