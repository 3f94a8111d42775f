// Package apiv1 is Variant A of the interface: camelCase JSON under
// /api/v1. It holds the wire types and their converters from domain types,
// and handlers that decode, call one service method and encode.
package apiv1

import (
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/httpapi"
	"marketplace/internal/payments"
)

type user struct {
	ID               string    `json:"id"`
	Email            string    `json:"email" format:"email"`
	Username         string    `json:"username"`
	DisplayName      string    `json:"displayName"`
	AvatarURL        *string   `json:"avatarUrl"`
	Discord          *chatLink `json:"discord" doc:"The linked chat account, or null (POST /auth/discord/verify links one)."`
	Role             string    `json:"role" ref:"Role"`
	Status           string    `json:"status" ref:"UserStatus"`
	TrustTier        string    `json:"trustTier" ref:"TrustTier"`
	IdentityVerified bool      `json:"identityVerified"`
	PasswordSet      bool      `json:"passwordSet" doc:"False for an account made by Google sign-in that has not set a password yet (POST /auth/set-password); password login needs one."`
	ShipFromAddress  *address  `json:"shipFromAddress" ref:"ShipFromAddress"`
	CreatedAt        time.Time `json:"createdAt"`
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toUser(u *accounts.User) user {
	out := user{ID: u.ID, Email: u.Email, Username: u.Username, DisplayName: u.DisplayName, AvatarURL: strOrNil(u.AvatarURL),
		Role: string(u.Role), Status: string(u.Status), TrustTier: string(u.TrustTier), IdentityVerified: u.IdentityVerified,
		PasswordSet: u.PasswordHash != "", CreatedAt: u.CreatedAt, Discord: toChatLink(u.Discord)}
	if u.ShipFrom != nil {
		a := toAddress(*u.ShipFrom)
		out.ShipFromAddress = &a
	}
	return out
}

type profile struct {
	ID               string    `json:"id"`
	Username         string    `json:"username"`
	DisplayName      string    `json:"displayName"`
	AvatarURL        *string   `json:"avatarUrl"`
	TrustTier        string    `json:"trustTier" ref:"TrustTier"`
	IdentityVerified bool      `json:"identityVerified"`
	CreatedAt        time.Time `json:"createdAt"`
	// ContentTrust is set by the profile route for an agent's caller.
	ContentTrust *httpapi.ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller, on another user: the display name is untrusted input (CONTRACT section 16)."`
}

func toProfile(u *accounts.User) profile {
	return profile{ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, AvatarURL: strOrNil(u.AvatarURL),
		TrustTier: string(u.TrustTier), IdentityVerified: u.IdentityVerified, CreatedAt: u.CreatedAt}
}

type authResult struct {
	User        user      `json:"user"`
	AccessToken string    `json:"accessToken" doc:"A bearer token (JWT)."`
	ExpiresAt   time.Time `json:"expiresAt"`
}

type address struct {
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

func toAddress(a accounts.Address) address {
	out := address{ID: a.ID, Name: a.Name, Line1: a.Line1, Line2: a.Line2, City: a.City, State: a.State, Zip: a.Zip,
		Country: a.Country, Phone: a.Phone}
	if a.ID != "" {
		d, c := a.IsDefault, a.CreatedAt
		out.IsDefault, out.CreatedAt = &d, &c
	}
	return out
}

// addressInput is an address in a request body.
type addressInput struct {
	Name      string `json:"name" maxLength:"80"`
	Line1     string `json:"line1" minLength:"1" maxLength:"200" required:"true"`
	Line2     string `json:"line2" maxLength:"200"`
	City      string `json:"city" minLength:"1" maxLength:"100" required:"true"`
	State     string `json:"state" maxLength:"100"`
	Zip       string `json:"zip" minLength:"1" maxLength:"16" required:"true"`
	Country   string `json:"country" pattern:"^([A-Za-z]{2})?$"`
	Phone     string `json:"phone" maxLength:"32"`
	IsDefault bool   `json:"isDefault" doc:"'POST /addresses' only: make this the default."`
}

func (a addressInput) domain() accounts.Address {
	return accounts.Address{Name: a.Name, Line1: a.Line1, Line2: a.Line2, City: a.City, State: a.State, Zip: a.Zip,
		Country: a.Country, Phone: a.Phone}
}

type limits struct {
	PerTransactionLimit *int64 `json:"perTransactionLimit"`
	DailyLimit          *int64 `json:"dailyLimit"`
	WeeklyLimit         *int64 `json:"weeklyLimit"`
	MonthlyLimit        *int64 `json:"monthlyLimit"`
}

func (l *limits) domain() agents.Limits {
	if l == nil {
		return agents.Limits{}
	}
	return agents.Limits{PerTransaction: l.PerTransactionLimit, Daily: l.DailyLimit, Weekly: l.WeeklyLimit, Monthly: l.MonthlyLimit}
}

func toLimits(l agents.Limits) *limits {
	if l.Empty() {
		return nil
	}
	return &limits{PerTransactionLimit: l.PerTransaction, DailyLimit: l.Daily, WeeklyLimit: l.Weekly, MonthlyLimit: l.Monthly}
}

type agentKey struct {
	ID               string         `json:"id"`
	Key              string         `json:"key,omitempty" doc:"The secret, in the answer that creates the key only (see 'NewAgentKey')."`
	KeyPrefix        string         `json:"keyPrefix" doc:"The first characters of the secret, to tell keys apart."`
	Label            string         `json:"label"`
	Scope            string         `json:"scope" ref:"Scope"`
	Status           string         `json:"status" ref:"KeyStatus"`
	SpendingControls *limits        `json:"spendingControls" doc:"The key's own caps, or null when it has none."`
	Metadata         map[string]any `json:"metadata,omitempty" doc:"Free-form metadata given at creation; absent when none."`
	CreatedAt        time.Time      `json:"createdAt"`
	LastUsedAt       *time.Time     `json:"lastUsedAt" doc:"Updated at most once a minute."`
	FrozenAt         *time.Time     `json:"frozenAt"`
	FrozenReason     *string        `json:"frozenReason" enum:"owner,admin,rate_limit_abuse,purchase_velocity" doc:"Why the key is frozen: the owner's freeze, an admin's, the rate-limit abuse rule or the purchase-velocity rule; null unless frozen."`
	RevokedAt        *time.Time     `json:"revokedAt"`
}

func toKey(k *agents.Key) agentKey {
	return agentKey{ID: k.ID, KeyPrefix: k.Prefix, Label: k.Label, Scope: string(k.Scope), Status: string(k.Status),
		SpendingControls: toLimits(k.Limits), Metadata: k.Metadata, CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt,
		FrozenAt: k.FrozenAt, FrozenReason: frozenReason(k), RevokedAt: k.RevokedAt}
}

func frozenReason(k *agents.Key) *string {
	if k.Status != agents.KeyFrozen || k.FrozenReason == "" {
		return nil
	}
	r := string(k.FrozenReason)
	return &r
}

type controls struct {
	PerTransactionLimit  int64    `json:"perTransactionLimit"`
	DailyLimit           int64    `json:"dailyLimit"`
	WeeklyLimit          int64    `json:"weeklyLimit"`
	MonthlyLimit         int64    `json:"monthlyLimit"`
	CategoryRestrictions []string `json:"categoryRestrictions" doc:"Blocked category ids or slugs."`
	ApprovalThreshold    *int64   `json:"approvalThreshold"`
}

func toControls(c agents.Controls) controls {
	return controls{PerTransactionLimit: c.PerTransaction, DailyLimit: c.Daily, WeeklyLimit: c.Weekly, MonthlyLimit: c.Monthly,
		CategoryRestrictions: c.CategoryRestrictions, ApprovalThreshold: c.ApprovalThreshold}
}

type spent struct {
	Today     int64 `json:"today"`
	ThisWeek  int64 `json:"thisWeek"`
	ThisMonth int64 `json:"thisMonth"`
}

type remaining struct {
	Daily   int64 `json:"daily" minimum:"0"`
	Weekly  int64 `json:"weekly" minimum:"0"`
	Monthly int64 `json:"monthly" minimum:"0"`
}

type spendingStatus struct {
	Controls  controls  `json:"controls"`
	KeyLimits *limits   `json:"keyLimits,omitempty"`
	Spent     spent     `json:"spent"`
	Remaining remaining `json:"remaining"`
	// ReservedForOffers is held by open offers of the owner's agents.
	ReservedForOffers int64 `json:"reservedForOffers" minimum:"0" doc:"Cents the owner's agents' open offers hold of the caps: each offer's committed amount plus the buyer's fee, counted as if bought now; 'remaining' already leaves it out."`
}

func toSpending(s *agents.SpendingStatus) spendingStatus {
	out := spendingStatus{Controls: toControls(s.Controls), ReservedForOffers: s.ReservedForOffers,
		Spent:     spent{Today: s.Spent.Today, ThisWeek: s.Spent.ThisWeek, ThisMonth: s.Spent.ThisMonth},
		Remaining: remaining{Daily: s.Remaining.Daily, Weekly: s.Remaining.Weekly, Monthly: s.Remaining.Monthly}}
	if s.KeyLimits != nil {
		out.KeyLimits = toLimits(*s.KeyLimits)
	}
	return out
}

// agentMe is GET /auth/me as an agent sees it.
type agentMe struct {
	UserID           string    `json:"userId"`
	Email            string    `json:"email" format:"email"`
	Username         string    `json:"username"`
	DisplayName      string    `json:"displayName"`
	TrustTier        string    `json:"trustTier" ref:"TrustTier"`
	IdentityVerified bool      `json:"identityVerified"`
	KeyID            string    `json:"keyId"`
	Label            string    `json:"label"`
	Scope            string    `json:"scope" ref:"Scope"`
	SpendingControls controls  `json:"spendingControls"`
	KeyLimits        *limits   `json:"keyLimits"`
	Remaining        remaining `json:"remaining"`
}

type payoutAccount struct {
	AccountID      string     `json:"accountId" doc:"The processor's account id."`
	Status         string     `json:"status" ref:"PayoutAccountStatus"`
	OnboardingURL  *string    `json:"onboardingUrl" doc:"Where the owner verifies their identity; null once verified."`
	PayoutsEnabled bool       `json:"payoutsEnabled"`
	Requirements   []string   `json:"requirements" doc:"What the processor still needs; empty once verified."`
	Country        string     `json:"country"`
	BusinessType   string     `json:"businessType" enum:"individual,company"`
	CreatedAt      time.Time  `json:"createdAt"`
	VerifiedAt     *time.Time `json:"verifiedAt"`
}

func toPayout(v *payments.AccountView) payoutAccount {
	a := v.Account
	return payoutAccount{AccountID: a.ExternalID, Status: string(a.Status), OnboardingURL: strOrNil(v.OnboardingURL),
		PayoutsEnabled: a.PayoutsEnabled, Requirements: a.Requirements(), Country: a.Country, BusinessType: a.BusinessType,
		CreatedAt: a.CreatedAt, VerifiedAt: a.VerifiedAt}
}
