package accounts

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/ratelimit"
)

// Login throttling: failed or not, attempts count against the account and
// the address; a success clears the account's count.
var (
	loginPerAccount = ratelimit.Limit{Max: 10, Window: 15 * time.Minute}
	loginPerAddress = ratelimit.Limit{Max: 50, Window: 15 * time.Minute}
)

// Service is the accounts area.
type Service struct {
	store   Store
	clock   market.Clock
	tokens  *Tokens
	limiter ratelimit.Limiter
	avatars *Avatars // what a profile's avatarUrl may name
}

// NewService builds the accounts service. avatars is the avatar service
// whose uploads a profile's avatarUrl may point at; without one (nil), only
// clearing the avatar is possible.
func NewService(store Store, clock market.Clock, tokens *Tokens, limiter ratelimit.Limiter, avatars *Avatars) *Service {
	return &Service{store: store, clock: clock, tokens: tokens, limiter: limiter, avatars: avatars}
}

// Tokens returns the token issuer.
func (s *Service) Tokens() *Tokens { return s.tokens }

// RegisterInput is what a person gives to open an account.
type RegisterInput struct {
	Email         string
	Password      string
	DisplayName   string
	Username      string // optional; derived from the e-mail when empty
	AcceptedTerms bool
}

// NewUser is a validated account with its password already hashed, ready
// to insert inside a transaction (hashing takes tens of milliseconds and must
// not hold a transaction open).
type NewUser struct {
	Email        string
	Username     string
	DisplayName  string
	PasswordHash string
}

// Register opens an account and signs the person in.
func (s *Service) Register(ctx context.Context, in RegisterInput) (*User, Token, error) {
	nu, err := PrepareUser(in)
	if err != nil {
		return nil, Token{}, err
	}
	var u *User
	err = RetryDerivedUsername(nu, func() error {
		return s.store.InTx(ctx, func(tx Tx) error {
			u, err = s.CreateUserTx(ctx, tx, nu)
			return err
		})
	})
	if err != nil {
		return nil, Token{}, err
	}
	tok, err := s.tokens.Issue(u)
	return u, tok, err
}

// PrepareUser validates a registration and hashes its password.
func PrepareUser(in RegisterInput) (NewUser, error) {
	in.Email = NormalizeEmail(in.Email)
	in.Username = NormalizeUsername(in.Username)
	in.DisplayName = strings.TrimSpace(in.DisplayName)
	var c market.Check
	c.Require(ValidEmail(in.Email), "email", "must be a valid e-mail address")
	checkPassword(&c, "password", in.Password)
	checkDisplayName(&c, "display_name", in.DisplayName)
	if in.Username != "" {
		c.Require(ValidUsername(in.Username), "username", "must be 3 to 30 characters: a-z, 0-9, _ . - (starting and ending with a letter or digit)")
	}
	c.Require(in.AcceptedTerms, "accepted_terms", "must be true")
	if err := c.Err(); err != nil {
		return NewUser{}, err
	}
	hash, err := HashPassword(in.Password)
	if err != nil {
		return NewUser{}, market.Internal(err)
	}
	return NewUser{Email: in.Email, Username: in.Username, DisplayName: in.DisplayName, PasswordHash: hash}, nil
}

// CreateUserTx creates a prepared user in tx.
func (s *Service) CreateUserTx(ctx context.Context, tx Tx, nu NewUser) (*User, error) {
	if nu.Username == "" {
		var err error
		if nu.Username, err = s.freeUsername(ctx, tx, nu.Email); err != nil {
			return nil, err
		}
	}
	now := s.clock.Now()
	u := &User{
		ID: market.NewID(), Email: nu.Email, Username: nu.Username, DisplayName: nu.DisplayName,
		PasswordHash: nu.PasswordHash, Role: RoleUser, Status: StatusActive, TrustTier: TierNew,
		CreatedAt: now, UpdatedAt: now,
	}
	if err := tx.CreateUser(ctx, u); err != nil {
		return nil, err
	}
	if err := events.Record(ctx, tx, now, market.Actor{Type: market.ActorUser, UserID: u.ID}, "user.registered", "user", u.ID, nil); err != nil {
		return nil, err
	}
	return u, nil
}

// RetryDerivedUsername runs create (a transaction that creates nu) again,
// up to four times in all, while it fails with USERNAME_TAKEN on a username
// derived from the e-mail: a registration that committed after this one
// looked took it, and the next look sees it and picks a suffixed one. A
// username the person chose is never retried.
func RetryDerivedUsername(nu NewUser, create func() error) error {
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		err = create()
		if nu.Username != "" || market.CodeOf(err) != market.CodeUsernameTaken {
			break
		}
	}
	return err
}

// freeUsername derives an unused username from an e-mail's local part.
func (s *Service) freeUsername(ctx context.Context, tx Tx, email string) (string, error) {
	base := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			return r
		}
		return -1
	}, email[:strings.IndexByte(email, '@')])
	if len(base) > 20 {
		base = base[:20]
	}
	// Trim after cutting: the cut can leave a separator at the end, and a
	// username must start and end with a letter or digit.
	base = strings.Trim(base, "_.-")
	for len(base) < 3 {
		base += "0"
	}
	for i := 0; i < 8; i++ {
		cand := base
		if i > 0 {
			cand = base + "-" + randomHex(3)
		}
		if _, err := tx.UserByUsername(ctx, cand); market.CodeOf(err) == market.CodeNotFound {
			return cand, nil
		} else if err != nil {
			return "", err
		}
	}
	return base + "-" + randomHex(6), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Login checks an e-mail and password. An unknown e-mail and a wrong
// password look the same, in answer and in time.
func (s *Service) Login(ctx context.Context, email, password, ip string) (*User, Token, error) {
	email = NormalizeEmail(email)
	var c market.Check
	c.Require(email != "", "email", "is required")
	c.Require(password != "", "password", "is required")
	c.Require(len(password) <= MaxPasswordLen, "password", "must be at most 256 bytes")
	if err := c.Err(); err != nil {
		return nil, Token{}, err
	}
	if err := s.throttle(ctx, "login:addr:"+ip, loginPerAddress); err != nil {
		return nil, Token{}, err
	}
	if err := s.throttle(ctx, "login:acct:"+email, loginPerAccount); err != nil {
		return nil, Token{}, err
	}
	u, err := s.store.Read().UserByEmail(ctx, email)
	if err != nil && market.CodeOf(err) != market.CodeNotFound {
		return nil, Token{}, err
	}
	if u == nil || u.PasswordHash == "" {
		CheckPassword(dummyHash, password)
		return nil, Token{}, market.Errorf(market.CodeInvalidCredentials, "e-mail or password is wrong")
	}
	if !CheckPassword(u.PasswordHash, password) {
		return nil, Token{}, market.Errorf(market.CodeInvalidCredentials, "e-mail or password is wrong")
	}
	if u.Blocked() {
		return nil, Token{}, suspended()
	}
	_ = s.limiter.Reset(ctx, "login:acct:"+email)
	tok, err := s.tokens.Issue(u)
	return u, tok, err
}

func (s *Service) throttle(ctx context.Context, key string, l ratelimit.Limit) error {
	return throttleAttempts(ctx, s.limiter, key, l, "too many login attempts; try again later")
}

// throttleAttempts counts one attempt against key: RATE_LIMITED with
// message and details {retry_after} once l is spent.
func throttleAttempts(ctx context.Context, limiter ratelimit.Limiter, key string, l ratelimit.Limit, message string) error {
	d, err := limiter.Allow(ctx, key, l)
	if err != nil {
		return market.Internal(err)
	}
	if !d.Allowed {
		secs := int64(d.RetryAfter.Round(time.Second) / time.Second)
		if secs < 1 {
			secs = 1
		}
		return market.Errorf(market.CodeRateLimited, "%s", message).
			WithDetails(map[string]any{"retry_after": secs})
	}
	return nil
}

func suspended() *market.Error {
	return market.Errorf(market.CodeAccountSuspended, "this account is suspended")
}

// Authenticate resolves a bearer token to its active user.
func (s *Service) Authenticate(ctx context.Context, token string) (*User, error) {
	id, err := s.tokens.Subject(token)
	if err != nil {
		return nil, market.Errorf(market.CodeUnauthorized, "the bearer token is invalid or expired")
	}
	u, err := s.store.Read().UserByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.Errorf(market.CodeUnauthorized, "the bearer token is invalid or expired")
	}
	if err != nil {
		return nil, err
	}
	if u.Blocked() {
		return nil, suspended()
	}
	return u, nil
}

// User returns a user by id.
func (s *Service) User(ctx context.Context, id string) (*User, error) {
	return s.store.Read().UserByID(ctx, id)
}

// UsernameCheck is the answer to "may I take this username?".
type UsernameCheck struct {
	Username  string
	Available bool
	Reason    string // "invalid" or "taken" when not available
}

// CheckUsername says whether a username is free and well-formed.
func (s *Service) CheckUsername(ctx context.Context, username string) (UsernameCheck, error) {
	n := NormalizeUsername(username)
	out := UsernameCheck{Username: n}
	if !ValidUsername(n) {
		out.Reason = "invalid"
		return out, nil
	}
	_, err := s.store.Read().UserByUsername(ctx, n)
	switch market.CodeOf(err) {
	case market.CodeNotFound:
		out.Available = true
	case "":
		out.Reason = "taken"
	default:
		return out, err
	}
	return out, nil
}

// ProfileUpdate changes the fields that are set.
type ProfileUpdate struct {
	DisplayName *string
	Username    *string
	AvatarURL   *string
}

// UpdateProfile changes the caller's display name, username or avatar. An
// avatar URL must be one of the caller's completed avatar uploads
// (Avatars.UploadedBy); "" removes the avatar.
func (s *Service) UpdateProfile(ctx context.Context, actor market.Actor, upd ProfileUpdate) (*User, error) {
	var c market.Check
	if upd.DisplayName != nil {
		*upd.DisplayName = strings.TrimSpace(*upd.DisplayName)
		checkDisplayName(&c, "display_name", *upd.DisplayName)
	}
	if upd.Username != nil {
		*upd.Username = NormalizeUsername(*upd.Username)
		c.Require(ValidUsername(*upd.Username), "username", "must be 3 to 30 characters: a-z, 0-9, _ . - (starting and ending with a letter or digit)")
	}
	if upd.AvatarURL != nil {
		*upd.AvatarURL = strings.TrimSpace(*upd.AvatarURL)
		if *upd.AvatarURL != "" {
			ok, err := s.avatars.UploadedBy(ctx, actor.UserID, *upd.AvatarURL)
			if err != nil {
				return nil, err
			}
			c.Require(ok, "avatar_url", "must be the avatarUrl of an avatar you uploaded here "+
				"(POST /auth/me/avatar-upload-url, then PUT the image to its uploadUrl)")
		}
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	return s.updateUser(ctx, actor, "user.updated", func(u *User) {
		if upd.DisplayName != nil {
			u.DisplayName = *upd.DisplayName
		}
		if upd.Username != nil {
			u.Username = *upd.Username
		}
		if upd.AvatarURL != nil {
			u.AvatarURL = *upd.AvatarURL
		}
	})
}

func (s *Service) updateUser(ctx context.Context, actor market.Actor, event string, change func(*User)) (*User, error) {
	var u *User
	err := s.store.InTx(ctx, func(tx Tx) error {
		var err error
		if u, err = tx.UserByID(ctx, actor.UserID); err != nil {
			return err
		}
		change(u)
		u.UpdatedAt = s.clock.Now()
		if err := tx.UpdateUser(ctx, u); err != nil {
			return err
		}
		return events.Record(ctx, tx, u.UpdatedAt, actor, event, "user", u.ID, nil)
	})
	return u, err
}

// SetShipFrom sets the seller's ship-from address.
func (s *Service) SetShipFrom(ctx context.Context, actor market.Actor, a Address) (*User, error) {
	var c market.Check
	CheckAddress(&c, "", &a)
	if err := c.Err(); err != nil {
		return nil, err
	}
	a.ID, a.UserID, a.IsDefault = "", actor.UserID, false
	return s.updateUser(ctx, actor, "user.ship_from_updated", func(u *User) {
		a.CreatedAt = s.clock.Now()
		u.ShipFrom = &a
	})
}

// SetPassword sets or changes the caller's password. An account that has a
// password must give it.
func (s *Service) SetPassword(ctx context.Context, actor market.Actor, current, next string) error {
	var c market.Check
	checkPassword(&c, "new_password", next)
	if err := c.Err(); err != nil {
		return err
	}
	u, err := s.store.Read().UserByID(ctx, actor.UserID)
	if err != nil {
		return err
	}
	// Both argon2 steps run before the transaction, which must stay short.
	if u.PasswordHash != "" && !CheckPassword(u.PasswordHash, current) {
		return market.Errorf(market.CodeInvalidCredentials, "the current password is wrong")
	}
	hash, err := HashPassword(next)
	if err != nil {
		return market.Internal(err)
	}
	return s.store.InTx(ctx, func(tx Tx) error {
		u, err := tx.UserByID(ctx, actor.UserID)
		if err != nil {
			return err
		}
		u.PasswordHash, u.UpdatedAt = hash, s.clock.Now()
		if err := tx.UpdateUser(ctx, u); err != nil {
			return err
		}
		// A new password ends every console session (CONTRACT.md section 20).
		if err := tx.DeleteUserSessions(ctx, u.ID, realNow()); err != nil {
			return err
		}
		return events.Record(ctx, tx, u.UpdatedAt, actor, "user.password_set", "user", u.ID, nil)
	})
}

// Profile is a user's public face, looked up by username.
func (s *Service) Profile(ctx context.Context, username string) (*User, error) {
	n := NormalizeUsername(username)
	if !ValidUsername(n) {
		return nil, market.NotFound("profile")
	}
	u, err := s.store.Read().UserByUsername(ctx, n)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.NotFound("profile")
	}
	if err != nil {
		return nil, err
	}
	if u.Status == StatusBanned {
		return nil, market.NotFound("profile")
	}
	return u, nil
}

// EnsureAdmin makes sure the account with email exists with role admin; a
// new one gets password.
func (s *Service) EnsureAdmin(ctx context.Context, email, password string) error {
	// Only a new account takes the password (validated and hashed before the
	// transaction); an existing one keeps its own.
	var nu *NewUser
	if _, err := s.store.Read().UserByEmail(ctx, NormalizeEmail(email)); market.CodeOf(err) == market.CodeNotFound {
		prepared, err := PrepareUser(RegisterInput{Email: email, Password: password, DisplayName: "Administrator", AcceptedTerms: true})
		if err != nil {
			return err
		}
		nu = &prepared
	} else if err != nil {
		return err
	}
	return s.store.InTx(ctx, func(tx Tx) error {
		u, err := tx.UserByEmail(ctx, NormalizeEmail(email))
		if market.CodeOf(err) == market.CodeNotFound && nu != nil {
			u, err = s.CreateUserTx(ctx, tx, *nu)
		}
		if err != nil {
			return err
		}
		if u.Role == RoleAdmin && u.Status == StatusActive {
			return nil
		}
		u.Role, u.Status, u.UpdatedAt = RoleAdmin, StatusActive, s.clock.Now()
		if err := tx.UpdateUser(ctx, u); err != nil {
			return err
		}
		return events.Record(ctx, tx, u.UpdatedAt, market.System, "user.role_changed", "user", u.ID, map[string]any{"role": "admin"})
	})
}

// MarkVerified records that the owner's identity is verified with the
// payment processor: identityVerified and at least trust tier verified.
func MarkVerified(ctx context.Context, tx Tx, now time.Time, userID string) (*User, error) {
	u, err := tx.UserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	if u.IdentityVerified && u.TrustTier != TierNew {
		return u, nil
	}
	u.IdentityVerified, u.TrustTier, u.UpdatedAt = true, u.TrustTier.AtLeast(TierVerified), now
	if err := tx.UpdateUser(ctx, u); err != nil {
		return nil, err
	}
	return u, events.Record(ctx, tx, now, market.System, "user.identity_verified", "user", u.ID, nil)
}
