// Package payments is the seam to the payment processor. This file covers
// payout accounts (the seller side, where owners verify their identity);
// the sandbox processor stands in for the processor's hosted onboarding.
package payments

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/events"
	"marketplace/internal/market"
)

// AccountStatus is pending until the owner finishes onboarding, then verified.
type AccountStatus string

const (
	AccountPending  AccountStatus = "pending"
	AccountVerified AccountStatus = "verified"
)

// PayoutAccount is an owner's account with the processor.
type PayoutAccount struct {
	ID              string
	UserID          string
	Processor       string // "sandbox" or "stripe"
	ExternalID      string // the processor's account id
	Status          AccountStatus
	PayoutsEnabled  bool
	OnboardingToken string // secret in the sandbox onboarding URL
	Country         string
	BusinessType    string
	CreatedAt       time.Time
	UpdatedAt       time.Time
	VerifiedAt      *time.Time
}

// Requirements lists what the processor still needs from the owner.
func (a *PayoutAccount) Requirements() []string {
	if a.Status == AccountVerified {
		return []string{}
	}
	return []string{"identity_verification", "external_account"}
}

// Processor creates payout accounts and hands out onboarding links.
type Processor interface {
	Name() string
	CreateAccount(ctx context.Context, u *accounts.User, country, businessType string) (externalID string, err error)
	OnboardingURL(ctx context.Context, a *PayoutAccount) (string, error)
}

// Tx is what payments needs from a transaction.
type Tx interface {
	accounts.Tx
	PayoutAccountOf(ctx context.Context, userID string) (*PayoutAccount, error)
	PayoutAccountByToken(ctx context.Context, token string) (*PayoutAccount, error)
	CreatePayoutAccount(ctx context.Context, a *PayoutAccount) error
	UpdatePayoutAccount(ctx context.Context, a *PayoutAccount) error
}

// Store opens transactions and read handles over payments' Tx.
type Store interface {
	InTx(ctx context.Context, fn func(Tx) error) error
	Read() Tx
}

// Service is the payments area.
type Service struct {
	store     Store
	clock     market.Clock
	processor Processor
}

// NewService builds the payments service.
func NewService(store Store, clock market.Clock, p Processor) *Service {
	return &Service{store: store, clock: clock, processor: p}
}

// ConnectInput creates a payout account.
type ConnectInput struct {
	Country      string // ISO code, default US
	BusinessType string // individual (default) or company
}

// AccountView is a payout account with a fresh onboarding link (none once
// verified).
type AccountView struct {
	Account       *PayoutAccount
	OnboardingURL string
}

// Connect creates the caller's payout account, or returns the existing one.
func (s *Service) Connect(ctx context.Context, actor market.Actor, in ConnectInput) (*AccountView, error) {
	in.Country = strings.ToUpper(strings.TrimSpace(in.Country))
	if in.Country == "" {
		in.Country = "US"
	}
	if in.BusinessType == "" {
		in.BusinessType = "individual"
	}
	var c market.Check
	c.Require(len(in.Country) == 2 && strings.Trim(in.Country, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "", "country", "must be a two-letter ISO country code")
	c.Require(in.BusinessType == "individual" || in.BusinessType == "company", "businessType", "must be individual or company")
	if err := c.Err(); err != nil {
		return nil, err
	}
	var a *PayoutAccount
	err := s.store.InTx(ctx, func(tx Tx) error {
		var err error
		a, err = tx.PayoutAccountOf(ctx, actor.UserID)
		if market.CodeOf(err) != market.CodeNotFound {
			return err
		}
		// No account yet: take the owner's lock and look again, so that
		// concurrent first connects make one account (the unique index
		// would otherwise fail all but one as internal errors). The lock is
		// taken only on this path, where no payout row exists to be locked
		// in the other order by a completing onboarding.
		if err := tx.LockUser(ctx, actor.UserID); err != nil {
			return err
		}
		a, err = tx.PayoutAccountOf(ctx, actor.UserID)
		if market.CodeOf(err) != market.CodeNotFound {
			return err
		}
		u, err := tx.UserByID(ctx, actor.UserID)
		if err != nil {
			return err
		}
		ext, err := s.processor.CreateAccount(ctx, u, in.Country, in.BusinessType)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		a = &PayoutAccount{
			ID: market.NewID(), UserID: u.ID, Processor: s.processor.Name(), ExternalID: ext, Status: AccountPending,
			OnboardingToken: newToken(), Country: in.Country, BusinessType: in.BusinessType, CreatedAt: now, UpdatedAt: now,
		}
		if u.IdentityVerified {
			a.Status, a.PayoutsEnabled, a.VerifiedAt = AccountVerified, true, &now
		}
		if err := tx.CreatePayoutAccount(ctx, a); err != nil {
			return err
		}
		return events.Record(ctx, tx, now, actor, "payout_account.created", "payout_account", a.ID, nil)
	})
	if err != nil {
		return nil, err
	}
	return s.view(ctx, a)
}

// Account returns the caller's payout account.
func (s *Service) Account(ctx context.Context, actor market.Actor) (*AccountView, error) {
	a, err := s.store.Read().PayoutAccountOf(ctx, actor.UserID)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.Errorf(market.CodeNotFound, "no payout account yet; POST /seller/connect creates one")
	}
	if err != nil {
		return nil, err
	}
	return s.view(ctx, a)
}

// Refresh issues a new onboarding link; the old one stops working.
func (s *Service) Refresh(ctx context.Context, actor market.Actor) (*AccountView, error) {
	var a *PayoutAccount
	err := s.store.InTx(ctx, func(tx Tx) error {
		var err error
		a, err = tx.PayoutAccountOf(ctx, actor.UserID)
		if market.CodeOf(err) == market.CodeNotFound {
			return market.Errorf(market.CodeNotFound, "no payout account yet; POST /seller/connect creates one")
		}
		if err != nil {
			return err
		}
		if a.Status == AccountVerified {
			return nil
		}
		a.OnboardingToken, a.UpdatedAt = newToken(), s.clock.Now()
		return tx.UpdatePayoutAccount(ctx, a)
	})
	if err != nil {
		return nil, err
	}
	return s.view(ctx, a)
}

func (s *Service) view(ctx context.Context, a *PayoutAccount) (*AccountView, error) {
	v := &AccountView{Account: a}
	if a.Status != AccountVerified {
		u, err := s.processor.OnboardingURL(ctx, a)
		if err != nil {
			return nil, err
		}
		v.OnboardingURL = u
	}
	return v, nil
}

// PendingOnboarding returns the account behind a sandbox onboarding token.
func (s *Service) PendingOnboarding(ctx context.Context, token string) (*PayoutAccount, error) {
	if !wellFormedToken(token) {
		return nil, market.NotFound("onboarding link")
	}
	a, err := s.store.Read().PayoutAccountByToken(ctx, token)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.NotFound("onboarding link")
	}
	return a, err
}

// CompleteOnboarding marks the account behind an onboarding token verified,
// and its owner identity-verified. It stands for the processor's hosted
// onboarding finishing (sandbox) or its account.updated webhook (live).
func (s *Service) CompleteOnboarding(ctx context.Context, token string) (*PayoutAccount, error) {
	if !wellFormedToken(token) {
		return nil, market.NotFound("onboarding link")
	}
	var a *PayoutAccount
	err := s.store.InTx(ctx, func(tx Tx) error {
		var err error
		a, err = tx.PayoutAccountByToken(ctx, token)
		if market.CodeOf(err) == market.CodeNotFound {
			return market.NotFound("onboarding link")
		}
		if err != nil {
			return err
		}
		return s.verifyTx(ctx, tx, a)
	})
	return a, err
}

func (s *Service) verifyTx(ctx context.Context, tx Tx, a *PayoutAccount) error {
	now := s.clock.Now()
	if a.Status != AccountVerified {
		a.Status, a.PayoutsEnabled, a.VerifiedAt, a.UpdatedAt = AccountVerified, true, &now, now
		if err := tx.UpdatePayoutAccount(ctx, a); err != nil {
			return err
		}
		if err := events.Record(ctx, tx, now, market.System, "payout_account.verified", "payout_account", a.ID, nil); err != nil {
			return err
		}
	}
	_, err := accounts.MarkVerified(ctx, tx, now, a.UserID)
	return err
}

// wellFormedToken reports whether token could be one newToken made. Anything
// else is refused before the database sees it: PostgreSQL rejects text with
// a NUL byte, which would otherwise surface as an internal error.
func wellFormedToken(token string) bool {
	if token == "" || len(token) > 128 {
		return false
	}
	for _, r := range token {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func newToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Sandbox is the processor of sandbox mode: accounts are local, and the
// onboarding link is a page of this service that verifies at once.
type Sandbox struct {
	PublicURL string
}

// Name identifies the processor.
func (Sandbox) Name() string { return "sandbox" }

// CreateAccount makes a sandbox account id.
func (Sandbox) CreateAccount(context.Context, *accounts.User, string, string) (string, error) {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "acct_sandbox_" + hex.EncodeToString(b), nil
}

// OnboardingURL is the sandbox onboarding page for a.
func (p Sandbox) OnboardingURL(_ context.Context, a *PayoutAccount) (string, error) {
	return p.PublicURL + SandboxOnboardingPath + a.OnboardingToken, nil
}

// SandboxOnboardingPath is where the sandbox onboarding page is served.
const SandboxOnboardingPath = "/sandbox/connect/onboarding/"
