// Package payments is the seam to the payment processor. This file covers
// payout accounts (the seller side, where owners verify their identity);
// the sandbox processor stands in for the processor's hosted onboarding.
package payments

import (
	"context"
	"crypto/rand"
	"encoding/base64"
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
	PayoutAccountByExternalID(ctx context.Context, externalID string) (*PayoutAccount, error)

	// Saved cards (payment_method.go).
	PaymentCustomer(ctx context.Context, userID string) (string, error)
	// InsertPaymentCustomer records a user's customer unless one is
	// recorded, and reports whether it did.
	InsertPaymentCustomer(ctx context.Context, userID, processor, customerID string, at time.Time) (bool, error)
	CreateSetupRecord(ctx context.Context, r *SetupRecord) error
	SetupRecord(ctx context.Context, id string) (*SetupRecord, error)
	UpdateSetupRecord(ctx context.Context, r *SetupRecord) error
	PaymentMethods(ctx context.Context, userID string) ([]PaymentMethod, error)
	PaymentMethodByID(ctx context.Context, id string) (*PaymentMethod, error)
	DefaultPaymentMethod(ctx context.Context, userID string) (*PaymentMethod, error)
	CreatePaymentMethod(ctx context.Context, m *PaymentMethod) error
	DeletePaymentMethod(ctx context.Context, userID, id string) error
	SetDefaultPaymentMethod(ctx context.Context, userID, id string) error
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
	gateway   Gateway
	mailer    Mailer // the e-mail channel of SendLink (nil: recorded only)
}

// Mailer mails a payout onboarding link inside the transaction that
// records the sending.
type Mailer interface {
	MailPayoutLink(ctx context.Context, tx Tx, userID, to, link string) error
}

// NewService builds the payments service on a processor's two sides:
// payout accounts (p) and money (g); the sandbox is both. m makes SendLink
// e-mail the link (nil: the link is recorded only).
func NewService(store Store, clock market.Clock, p Processor, g Gateway, m Mailer) *Service {
	return &Service{store: store, clock: clock, processor: p, gateway: g, mailer: m}
}

// Gateway is the processor's money side, for the orders area.
func (s *Service) Gateway() Gateway { return s.gateway }

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
	c.Require(in.BusinessType == "individual" || in.BusinessType == "company", "business_type", "must be individual or company")
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

// wellFormedToken reports whether token could be one newToken made, or a
// processor's id (cus_..., pm_..., pi_...). Anything else is refused before
// the database sees it: PostgreSQL rejects text with a NUL byte, which would
// otherwise surface as an internal error.
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

// DashboardLinker is a Processor that hands out login links to its seller
// dashboard (the sandbox does; with Stripe, an Express login link).
type DashboardLinker interface {
	DashboardURL(ctx context.Context, a *PayoutAccount) (string, error)
}

// Dashboard returns a login link to the processor's seller dashboard for the
// caller's payout account. The account must be verified first, as with the
// processor's own dashboards.
func (s *Service) Dashboard(ctx context.Context, actor market.Actor) (string, *PayoutAccount, error) {
	a, err := s.store.Read().PayoutAccountOf(ctx, actor.UserID)
	if market.CodeOf(err) == market.CodeNotFound {
		return "", nil, market.Errorf(market.CodeNotFound, "no payout account yet; POST /seller/connect creates one")
	}
	if err != nil {
		return "", nil, err
	}
	if a.Status != AccountVerified {
		return "", nil, market.Errorf(market.CodeInvalidState, "the seller dashboard opens once onboarding is complete; finish it at the onboarding link").
			WithDetails(map[string]any{"status": string(a.Status)})
	}
	l, ok := s.processor.(DashboardLinker)
	if !ok {
		return "", nil, market.Errorf(market.CodeInvalidState, "the %s processor has no seller dashboard", s.processor.Name())
	}
	u, err := l.DashboardURL(ctx, a)
	if err != nil {
		return "", nil, err
	}
	return u, a, nil
}

// LinkChannel is how an onboarding link is sent.
type LinkChannel string

const (
	LinkByEmail LinkChannel = "email"
	LinkBySMS   LinkChannel = "sms"
)

// LinkSent says where an onboarding link went.
type LinkSent struct {
	Channel LinkChannel
	To      string
	URL     string
}

// SendLink sends the onboarding link of the caller's payout account to the
// human owner: by e-mail (to the account's address unless to is given) or by
// text message (to the default shipping address's phone unless given). The
// message is recorded as a payout_account.onboarding_link_sent event; an
// e-mail is mailed (the Mailer, in the same transaction), while a text
// message is only recorded: no SMS gateway is wired.
func (s *Service) SendLink(ctx context.Context, actor market.Actor, channel LinkChannel, to string) (*LinkSent, error) {
	to = strings.TrimSpace(to)
	var c market.Check
	switch channel {
	case LinkByEmail:
		to = accounts.NormalizeEmail(to)
		c.Require(to == "" || accounts.ValidEmail(to), "to", "must be an e-mail address")
	case LinkBySMS:
		if to != "" {
			var ok bool
			to, ok = normalizePhone(to)
			c.Require(ok, "to", "must be a phone number (7 to 15 digits, optionally with a leading +)")
		}
	default:
		c.Add("channel", "must be email or sms")
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	a, err := s.store.Read().PayoutAccountOf(ctx, actor.UserID)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.Errorf(market.CodeNotFound, "no payout account yet; POST /seller/connect creates one")
	}
	if err != nil {
		return nil, err
	}
	if a.Status == AccountVerified {
		return nil, market.Errorf(market.CodeInvalidState, "the payout account is already verified; there is no onboarding link to send")
	}
	url, err := s.processor.OnboardingURL(ctx, a)
	if err != nil {
		return nil, err
	}
	out := &LinkSent{Channel: channel, To: to, URL: url}
	err = s.store.InTx(ctx, func(tx Tx) error {
		if out.To == "" {
			to, err := s.recipient(ctx, tx, actor.UserID, channel)
			if err != nil {
				return err
			}
			out.To = to
		}
		if channel == LinkByEmail && s.mailer != nil {
			if err := s.mailer.MailPayoutLink(ctx, tx, actor.UserID, out.To, url); err != nil {
				return err
			}
		}
		return events.Record(ctx, tx, s.clock.Now(), actor, "payout_account.onboarding_link_sent", "payout_account", a.ID,
			map[string]any{"channel": string(channel), "to": out.To, "url": url})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// recipient is where a link goes when the caller named no recipient.
func (s *Service) recipient(ctx context.Context, tx Tx, userID string, channel LinkChannel) (string, error) {
	if channel == LinkByEmail {
		u, err := tx.UserByID(ctx, userID)
		if err != nil {
			return "", err
		}
		return u.Email, nil
	}
	list, err := tx.Addresses(ctx, userID)
	if err != nil {
		return "", err
	}
	for _, ad := range list { // default first
		if p, ok := normalizePhone(ad.Phone); ok {
			return p, nil
		}
	}
	return "", market.Invalid(market.FieldError{Field: "to", Message: "is required: no saved address has a phone number"})
}

// normalizePhone keeps the digits of a phone number (and a leading +),
// allowing the usual separators.
func normalizePhone(s string) (string, bool) {
	s = strings.TrimSpace(s)
	var b strings.Builder
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '+' && i == 0:
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '(' || r == ')' || r == '.':
		default:
			return "", false
		}
	}
	out := b.String()
	n := len(strings.TrimPrefix(out, "+"))
	return out, n >= 7 && n <= 15
}

// SellerDashboard is what the sandbox seller dashboard shows.
type SellerDashboard struct {
	Account   *PayoutAccount
	Transfers []SandboxTransfer // newest first
	Total     int64             // transferred, less reversals
	ExpiresAt time.Time         // of the link
}

// SandboxDashboard resolves a sandbox dashboard link. Links of another
// processor, unknown and expired links are NOT_FOUND.
func (s *Service) SandboxDashboard(ctx context.Context, token string) (*SellerDashboard, error) {
	sb, ok := s.processor.(*Sandbox)
	if !ok {
		return nil, market.NotFound("dashboard link")
	}
	l, err := sb.DashboardLink(ctx, token)
	if err != nil {
		return nil, err
	}
	a, err := s.store.Read().PayoutAccountByExternalID(ctx, l.AccountID)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.NotFound("dashboard link")
	}
	if err != nil {
		return nil, err
	}
	ts, err := sb.TransfersTo(ctx, a.ExternalID)
	if err != nil {
		return nil, err
	}
	d := &SellerDashboard{Account: a, Transfers: ts, ExpiresAt: l.ExpiresAt}
	for _, t := range ts {
		d.Total += t.Amount - t.Reversed
	}
	return d, nil
}
