package agents

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/curve25519"
	"golang.org/x/crypto/nacl/box"

	"marketplace/internal/accounts"
	"marketplace/internal/events"
	"marketplace/internal/market"
)

// OnboardingStatus moves pending_human -> human_completing -> kyc_pending ->
// complete; a magic link unused for 24 hours is expired.
type OnboardingStatus string

const (
	OnboardPendingHuman    OnboardingStatus = "pending_human"
	OnboardHumanCompleting OnboardingStatus = "human_completing"
	OnboardKYCPending      OnboardingStatus = "kyc_pending"
	OnboardComplete        OnboardingStatus = "complete"
	OnboardExpired         OnboardingStatus = "expired"
)

// MagicLinkTTL is how long a magic link works.
const MagicLinkTTL = 24 * time.Hour

// Onboarding is an agent-initiated onboarding session.
//
// The agent key made at completion must reach the agent once, but only the
// agent holds the poll secret. So the key is sealed (NaCl anonymous box) to a
// public key derived from the poll secret: at rest it cannot be read without
// the secret, and it is erased once delivered.
type Onboarding struct {
	ID             string
	MagicHash      string // SHA-256 of the magic token
	PollSecretHash string // SHA-256 of the poll secret
	SealPublicKey  string // base64 X25519 public key derived from the poll secret
	Status         OnboardingStatus
	OwnerEmail     string
	OwnerFirstName string
	OwnerLastName  string
	DesiredScope   Scope
	AgentLabel     string
	AgentMetadata  map[string]any
	UserID         string
	KeyID          string
	SealedKey      string // base64 sealed key secret; "" once delivered
	KeyDeliveredAt *time.Time
	ExpiresAt      time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Open reports whether the magic link can still be used.
func (o *Onboarding) open() bool {
	return o.Status == OnboardPendingHuman || o.Status == OnboardHumanCompleting
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// sealKeys derives the X25519 key pair of a poll secret.
func sealKeys(pollSecret string) (pub, priv *[32]byte) {
	priv = new([32]byte)
	*priv = sha256.Sum256([]byte("onboarding-seal:" + pollSecret))
	p, _ := curve25519.X25519(priv[:], curve25519.Basepoint)
	pub = new([32]byte)
	copy(pub[:], p)
	return pub, priv
}

// AgentInitInput is what an agent knows about its owner.
type AgentInitInput struct {
	OwnerEmail     string
	DesiredScope   string
	OwnerFirstName string
	OwnerLastName  string
	AgentLabel     string
	AgentMetadata  map[string]any
	// MagicLink makes the link the caller hands out from the magic token;
	// with a mailer set, the same link is mailed to OwnerEmail.
	MagicLink func(token string) string
}

// Mailer mails the magic link to the owner, inside the transaction that
// creates the session (so the mail exists exactly when the session does).
type Mailer interface {
	MailOnboardingLink(ctx context.Context, tx Tx, o *Onboarding, link string) error
}

// InitResult is a new session with the secrets the agent must keep.
type InitResult struct {
	Session    *Onboarding
	MagicToken string
	PollSecret string
}

// AgentInit starts onboarding for an owner who may not have an account yet.
func (s *Service) AgentInit(ctx context.Context, in AgentInitInput) (*InitResult, error) {
	in.OwnerEmail = accounts.NormalizeEmail(in.OwnerEmail)
	in.AgentLabel = strings.TrimSpace(in.AgentLabel)
	in.OwnerFirstName, in.OwnerLastName = strings.TrimSpace(in.OwnerFirstName), strings.TrimSpace(in.OwnerLastName)
	if in.DesiredScope == "" {
		in.DesiredScope = string(ScopeBuySell)
	}
	if in.AgentLabel == "" {
		in.AgentLabel = "Agent"
	}
	var c market.Check
	c.Require(accounts.ValidEmail(in.OwnerEmail), "owner_email", "must be a valid e-mail address")
	scope, ok := ParseScope(in.DesiredScope)
	c.Require(ok, "desired_scope", "must be one of buy_only, sell_only, buy_sell (or buy, sell)")
	c.Require(utf8.RuneCountInString(in.AgentLabel) <= 100, "agent_label", "must be at most 100 characters")
	c.Require(utf8.RuneCountInString(in.OwnerFirstName) <= 80, "owner_first_name", "must be at most 80 characters")
	c.Require(utf8.RuneCountInString(in.OwnerLastName) <= 80, "owner_last_name", "must be at most 80 characters")
	if err := c.Err(); err != nil {
		return nil, err
	}
	if _, err := s.checkKeyInput(&KeyInput{Label: in.AgentLabel, Scope: string(scope), Metadata: in.AgentMetadata, AcceptedAgentTerms: true}, "agent_metadata"); err != nil {
		return nil, err
	}
	magic, secret := randomToken(), randomToken()
	pub, _ := sealKeys(secret)
	now := s.clock.Now()
	o := &Onboarding{
		ID: market.NewID(), MagicHash: sha(magic), PollSecretHash: sha(secret),
		SealPublicKey: base64.StdEncoding.EncodeToString(pub[:]), Status: OnboardPendingHuman,
		OwnerEmail: in.OwnerEmail, OwnerFirstName: in.OwnerFirstName, OwnerLastName: in.OwnerLastName,
		DesiredScope: scope, AgentLabel: in.AgentLabel, AgentMetadata: in.AgentMetadata,
		ExpiresAt: now.Add(MagicLinkTTL), CreatedAt: now, UpdatedAt: now,
	}
	err := s.store.InTx(ctx, func(tx Tx) error {
		if err := tx.CreateOnboarding(ctx, o); err != nil {
			return err
		}
		if s.mailer != nil && in.MagicLink != nil {
			if err := s.mailer.MailOnboardingLink(ctx, tx, o, in.MagicLink(magic)); err != nil {
				return err
			}
		}
		return events.Record(ctx, tx, now, market.Actor{Type: market.ActorAgent}, "onboarding.started", "onboarding", o.ID, nil)
	})
	if err != nil {
		return nil, err
	}
	return &InitResult{Session: o, MagicToken: magic, PollSecret: secret}, nil
}

// TodoList is what the human has left to do, for the agent to relay.
func (o *Onboarding) TodoList() []string {
	todo := []string{}
	if o.open() || o.Status == OnboardExpired {
		todo = append(todo, "Open the magic link, choose a password and accept the terms of service and the agent terms")
	}
	if o.Status != OnboardComplete {
		todo = append(todo, "Verify your identity with the payment processor (the link is shown after the magic link)")
	}
	if o.DesiredScope.Allows(OpBuy) {
		todo = append(todo, "Add a payment method so your agent can buy")
	}
	return todo
}

// PollResult is a session as its agent sees it; AgentKey is set once.
type PollResult struct {
	Session  *Onboarding
	AgentKey string
}

// Poll returns a session's status. With the right poll secret, the agent key
// is handed over the first time it is asked for after the key exists, and
// never again; without the secret the key never is.
func (s *Service) Poll(ctx context.Context, id, secret string) (*PollResult, error) {
	if !market.ValidID(id) {
		return nil, market.NotFound("onboarding session")
	}
	var out *PollResult
	err := s.store.InTx(ctx, func(tx Tx) error {
		o, err := tx.OnboardingByID(ctx, id)
		if err != nil {
			return err
		}
		if secret != "" && subtle.ConstantTimeCompare([]byte(sha(secret)), []byte(o.PollSecretHash)) != 1 {
			return market.Errorf(market.CodeUnauthorized, "the X-Onboarding-Secret header does not match this session")
		}
		now := s.clock.Now()
		changed := s.refresh(ctx, tx, o, now)
		out = &PollResult{Session: o}
		if secret != "" && o.SealedKey != "" {
			sealed, err := base64.StdEncoding.DecodeString(o.SealedKey)
			if err != nil {
				return market.Internal(err)
			}
			pub, priv := sealKeys(secret)
			plain, ok := box.OpenAnonymous(nil, sealed, pub, priv)
			if !ok {
				return market.Internal(errSeal)
			}
			out.AgentKey = string(plain)
			o.SealedKey, o.KeyDeliveredAt = "", &now
			changed = true
		}
		if changed {
			o.UpdatedAt = now
			return tx.UpdateOnboarding(ctx, o)
		}
		return nil
	})
	return out, err
}

type sealError struct{}

func (sealError) Error() string { return "sealed agent key does not open with the poll secret" }

var errSeal = sealError{}

// refresh brings a session's status up to date: an unused link past its
// expiry is expired; kyc_pending becomes complete once the owner is verified.
func (s *Service) refresh(ctx context.Context, tx Tx, o *Onboarding, now time.Time) bool {
	switch {
	case o.open() && !now.Before(o.ExpiresAt):
		o.Status = OnboardExpired
		return true
	case o.Status == OnboardKYCPending && o.UserID != "":
		if u, err := tx.UserByID(ctx, o.UserID); err == nil && u.IdentityVerified {
			o.Status = OnboardComplete
			return true
		}
	}
	return false
}

// magic finds the open session of a magic token, or says why it is closed.
func (s *Service) magic(ctx context.Context, tx Tx, token string) (*Onboarding, error) {
	if token == "" || len(token) > 128 {
		return nil, market.NotFound("onboarding link")
	}
	o, err := tx.OnboardingByMagicHash(ctx, sha(token))
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.NotFound("onboarding link")
	}
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	if s.refresh(ctx, tx, o, now) {
		o.UpdatedAt = now
		if err := tx.UpdateOnboarding(ctx, o); err != nil {
			return nil, err
		}
	}
	if !o.open() {
		msg := "this onboarding link has already been used"
		if o.Status == OnboardExpired {
			msg = "this onboarding link has expired; ask your agent to start again"
		}
		return o, market.Errorf(market.CodeInvalidState, "%s", msg).WithDetails(map[string]any{"status": string(o.Status)})
	}
	return o, nil
}

// MagicView is what the human sees on opening the link.
type MagicView struct {
	Session       *Onboarding
	AccountExists bool
	MissingFields []string
}

// OpenMagicLink loads a session for the human and marks it human_completing.
func (s *Service) OpenMagicLink(ctx context.Context, token string) (*MagicView, error) {
	var out *MagicView
	var closed error
	err := s.store.InTx(ctx, func(tx Tx) error {
		o, err := s.magic(ctx, tx, token)
		if market.CodeOf(err) == market.CodeInvalidState {
			closed = err // commit the expiry, then answer with it
			return nil
		}
		if err != nil {
			return err
		}
		if o.Status == OnboardPendingHuman {
			o.Status, o.UpdatedAt = OnboardHumanCompleting, s.clock.Now()
			if err := tx.UpdateOnboarding(ctx, o); err != nil {
				return err
			}
		}
		_, uerr := tx.UserByEmail(ctx, o.OwnerEmail)
		exists := uerr == nil
		missing := []string{"password", "acceptedTerms", "acceptedAgentTerms"}
		if !exists && o.OwnerFirstName == "" && o.OwnerLastName == "" {
			missing = append(missing, "displayName")
		}
		out = &MagicView{Session: o, AccountExists: exists, MissingFields: missing}
		return nil
	})
	if err == nil {
		err = closed
	}
	return out, err
}

// CompleteInput is what the human submits through the magic link.
type CompleteInput struct {
	Password           string
	AcceptedTerms      bool
	AcceptedAgentTerms bool
	DisplayName        string
	ClientIP           string // for the login throttle when the account exists
}

// Completed is the result of a completed magic link.
type Completed struct {
	Session *Onboarding
	User    *accounts.User
	Key     *Key
}

// CompleteMagicLink creates the owner (or, when the e-mail already has an
// account, checks its password) and the agent key; the key waits, sealed,
// for the agent's next poll.
func (s *Service) CompleteMagicLink(ctx context.Context, accountsSvc *accounts.Service, token string, in CompleteInput) (*Completed, error) {
	var c market.Check
	c.Require(in.Password != "", "password", "is required")
	c.Require(in.AcceptedTerms, "accepted_terms", "must be true")
	c.Require(in.AcceptedAgentTerms, "accepted_agent_terms", "must be true")
	if err := c.Err(); err != nil {
		return nil, err
	}
	// The password work (argon2, tens of milliseconds) happens before the
	// transaction: check an existing owner's password, or hash a new one.
	pre, err := s.store.Read().OnboardingByMagicHash(ctx, sha(token))
	if market.CodeOf(err) == market.CodeNotFound || token == "" || len(token) > 128 {
		return nil, market.NotFound("onboarding link")
	}
	if err != nil {
		return nil, err
	}
	var newUser *accounts.NewUser
	var existing *accounts.User
	if pre.open() && s.clock.Now().Before(pre.ExpiresAt) {
		if newUser, existing, err = s.prepareOwner(ctx, accountsSvc, pre, in); err != nil {
			return nil, err
		}
	}

	var out *Completed
	var closed error
	complete := func(tx Tx) error {
		o, err := s.magic(ctx, tx, token)
		if market.CodeOf(err) == market.CodeInvalidState {
			closed = err
			return nil
		}
		if err != nil {
			return err
		}
		var u *accounts.User
		switch {
		case newUser != nil:
			// A concurrent registration of the same e-mail ends as EMAIL_TAKEN.
			if u, err = accountsSvc.CreateUserTx(ctx, tx, *newUser); err != nil {
				return err
			}
		case existing != nil:
			if u, err = tx.UserByID(ctx, existing.ID); err != nil {
				return err
			}
		default: // the link opened between the two reads: ask again
			return market.Errorf(market.CodeInvalidState, "the onboarding link changed state; try again")
		}
		if u.Blocked() {
			return market.Errorf(market.CodeAccountSuspended, "this account is suspended")
		}
		owner := market.Actor{Type: market.ActorUser, UserID: u.ID}
		nk, err := s.createKeyTx(ctx, tx, owner, u.ID, o.DesiredScope, KeyInput{
			Label: o.AgentLabel, Scope: string(o.DesiredScope), Metadata: o.AgentMetadata, AcceptedAgentTerms: true,
		})
		if err != nil {
			return err
		}
		pubBytes, err := base64.StdEncoding.DecodeString(o.SealPublicKey)
		if err != nil || len(pubBytes) != 32 {
			return market.Internal(errSeal)
		}
		var pub [32]byte
		copy(pub[:], pubBytes)
		sealed, err := box.SealAnonymous(nil, []byte(nk.Secret), &pub, rand.Reader)
		if err != nil {
			return market.Internal(err)
		}
		now := s.clock.Now()
		o.UserID, o.KeyID, o.SealedKey, o.UpdatedAt = u.ID, nk.ID, base64.StdEncoding.EncodeToString(sealed), now
		o.Status = OnboardKYCPending
		if u.IdentityVerified {
			o.Status = OnboardComplete
		}
		if err := tx.UpdateOnboarding(ctx, o); err != nil {
			return err
		}
		if err := events.Record(ctx, tx, now, owner, "onboarding.completed", "onboarding", o.ID, map[string]any{"key_id": nk.ID}); err != nil {
			return err
		}
		out = &Completed{Session: o, User: u, Key: &nk.Key}
		return nil
	}
	run := func() error { return s.store.InTx(ctx, complete) }
	if newUser != nil {
		err = accounts.RetryDerivedUsername(*newUser, run)
	} else {
		err = run()
	}
	if err == nil {
		err = closed
	}
	return out, err
}

// prepareOwner does the password work of a completion before its
// transaction: it checks an existing owner's password, or validates and
// hashes a new owner's.
func (s *Service) prepareOwner(ctx context.Context, accountsSvc *accounts.Service, o *Onboarding, in CompleteInput) (*accounts.NewUser, *accounts.User, error) {
	existing, err := s.store.Read().UserByEmail(ctx, o.OwnerEmail)
	switch market.CodeOf(err) {
	case "":
		// Checked as a login checks it, throttle included: anyone can start
		// onboarding for any e-mail, so an unthrottled check here would let
		// them guess the owner's password without limit.
		if _, _, err := accountsSvc.Login(ctx, o.OwnerEmail, in.Password, in.ClientIP); err != nil {
			if market.CodeOf(err) == market.CodeInvalidCredentials {
				return nil, nil, market.Errorf(market.CodeInvalidCredentials, "an account with this e-mail exists; give its password")
			}
			return nil, nil, err
		}
		return nil, existing, nil
	case market.CodeNotFound:
		name := strings.TrimSpace(in.DisplayName)
		if name == "" {
			name = strings.TrimSpace(o.OwnerFirstName + " " + o.OwnerLastName)
		}
		if name == "" {
			return nil, nil, market.Invalid(market.FieldError{Field: "display_name", Message: "is required"})
		}
		nu, err := accounts.PrepareUser(accounts.RegisterInput{Email: o.OwnerEmail, Password: in.Password, DisplayName: name, AcceptedTerms: true})
		if err != nil {
			return nil, nil, err
		}
		return &nu, nil, nil
	}
	return nil, nil, err
}

// ExpireOnboarding marks sessions whose magic link went unused for 24 hours
// as expired; the periodic job calls it.
func (s *Service) ExpireOnboarding(ctx context.Context) (int, error) {
	var n int
	err := s.store.InTx(ctx, func(tx Tx) error {
		var err error
		n, err = tx.ExpireOnboardings(ctx, s.clock.Now())
		return err
	})
	return n, err
}
