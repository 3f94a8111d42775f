package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// Google sign-in (CONTRACT.md section 17): OpenID Connect's authorization
// code flow with PKCE, state and nonce. The provider's side (discovery,
// the token endpoint, the ID token's signature, issuer, audience and
// expiry) is an OpenIDProvider; the rules of who is signed in, who is made
// and what is linked are here.

// ProviderGoogle names Google in linked identities.
const ProviderGoogle = "google"

// FlagGoogleSignIn is the flag FEATURE_DISABLED names while Google sign-in
// is not configured (no client id).
const FlagGoogleSignIn = "google_sign_in"

// GoogleStateTTL is how long a started sign-in may take to come back.
const GoogleStateTTL = 10 * time.Minute

// MaxReturnToLen bounds the returnTo path.
const MaxReturnToLen = 2048

// OpenIDProvider is the identity provider as the sign-in flow sees it.
type OpenIDProvider interface {
	// AuthCodeURL is where to send the person: the provider's consent
	// screen, asked for the openid, email and profile scopes with state,
	// nonce and the S256 challenge of verifier.
	AuthCodeURL(ctx context.Context, state, nonce, verifier string) (string, error)
	// Exchange redeems code with the PKCE verifier and returns the claims
	// of the ID token it got, whose signature (the provider's keys),
	// issuer, audience and expiry it has checked. The nonce and
	// email_verified are the caller's to check.
	//
	// Both fail with ErrProviderUnavailable when the provider cannot be
	// reached (its discovery document); any other error is a refusal.
	Exchange(ctx context.Context, code, verifier string) (*IDClaims, error)
}

// ErrProviderUnavailable marks an OpenIDProvider's failure to reach the
// provider at all: SERVICE_UNAVAILABLE, not a refusal.
var ErrProviderUnavailable = errors.New("the OpenID provider cannot be reached")

// IDClaims are what sign-in reads from a verified ID token.
type IDClaims struct {
	Subject       string
	Email         string
	EmailVerified bool
	Name          string
	Nonce         string
}

// OIDCState is a sign-in started and waiting for its callback, in the
// database so any replica can finish it. The state value itself is never
// stored, only its hash.
type OIDCState struct {
	ID         string // hex SHA-256 of the state value
	Nonce      string
	Verifier   string // the PKCE code verifier
	ReturnTo   string
	LinkUserID string // the signed-in owner linking their account; "" to sign in
	CreatedAt  time.Time
	ExpiresAt  time.Time
}

// Identity links an account at an identity provider, named by its subject
// (never by its e-mail, which can change hands), to one user.
type Identity struct {
	Provider  string
	Subject   string
	UserID    string
	Email     string // as the provider gave it when linked
	CreatedAt time.Time
}

// GoogleSignIn runs the flow. A nil provider means not configured: both
// steps answer FEATURE_DISABLED.
type GoogleSignIn struct {
	accounts *Service
	provider OpenIDProvider
	// now is real time: a sign-in's ten minutes, like tokens, must not
	// move with the sandbox clock.
	now func() time.Time
	log *slog.Logger
}

// NewGoogleSignIn builds the flow on s; provider nil leaves it switched
// off.
func NewGoogleSignIn(s *Service, provider OpenIDProvider, now func() time.Time, log *slog.Logger) *GoogleSignIn {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &GoogleSignIn{accounts: s, provider: provider, now: now, log: log}
}

// Enabled reports whether Google sign-in is configured.
func (g *GoogleSignIn) Enabled() bool { return g.enabled() == nil }

func (g *GoogleSignIn) enabled() error {
	if g == nil || g.provider == nil {
		return market.Errorf(market.CodeFeatureDisabled, "Google sign-in is not configured on this service").
			WithDetails(map[string]any{"flag": FlagGoogleSignIn})
	}
	return nil
}

// GoogleStart is a request to start signing in (or linking).
type GoogleStart struct {
	ReturnTo string // a path on this service; "" is "/"
	Link     bool   // link the caller's account instead of signing in
}

// Started is where to send the person, and until when the flow may come
// back.
type Started struct {
	URL       string
	ExpiresAt time.Time
}

// Start checks the request, records the flow's state, nonce and PKCE
// verifier and returns the provider's address. Linking needs the owner
// signed in with a bearer token (actor is a human user); signing in needs
// nobody.
func (g *GoogleSignIn) Start(ctx context.Context, actor market.Actor, in GoogleStart) (*Started, error) {
	if err := g.enabled(); err != nil {
		return nil, err
	}
	returnTo, err := CheckReturnTo(in.ReturnTo)
	if err != nil {
		return nil, err
	}
	st := &OIDCState{Nonce: randomToken(24), Verifier: randomToken(32), ReturnTo: returnTo}
	if in.Link {
		switch {
		case actor.UserID == "":
			return nil, market.Errorf(market.CodeUnauthorized, "linking a Google account needs the owner's bearer token")
		case actor.Type == market.ActorAgent:
			return nil, market.Errorf(market.CodeForbidden, "agents cannot link accounts; the owner must use a bearer token")
		}
		// Fail early on what the callback would refuse anyway.
		_, err := g.accounts.store.Read().IdentityOfUser(ctx, ProviderGoogle, actor.UserID)
		if err == nil {
			return nil, alreadyLinkedOwner()
		}
		if market.CodeOf(err) != market.CodeNotFound {
			return nil, err
		}
		st.LinkUserID = actor.UserID
	}
	state := randomToken(32)
	addr, err := g.provider.AuthCodeURL(ctx, state, st.Nonce, st.Verifier)
	if err != nil {
		return nil, g.providerError("start", err)
	}
	now := g.now().UTC()
	st.ID, st.CreatedAt, st.ExpiresAt = stateID(state), now, now.Add(GoogleStateTTL)
	err = g.accounts.store.InTx(ctx, func(tx Tx) error {
		// Flows never finished would pile up; each start sweeps them.
		if err := tx.DeleteExpiredOIDCStates(ctx, now); err != nil {
			return err
		}
		return tx.CreateOIDCState(ctx, st)
	})
	if err != nil {
		return nil, err
	}
	return &Started{URL: addr, ExpiresAt: st.ExpiresAt}, nil
}

// GoogleCallback is what the provider sends back.
type GoogleCallback struct {
	State string
	Code  string
	Error string // the provider's refusal (access_denied, ...)
}

// SignedIn is a finished flow: the user, a token, and where to go.
type SignedIn struct {
	User     *User
	Token    Token
	ReturnTo string
}

// Finish checks the callback and signs the person in. Every failed check
// is UNAUTHORIZED and signs no one in; the state is spent by its first
// callback whatever follows.
func (g *GoogleSignIn) Finish(ctx context.Context, cb GoogleCallback) (*SignedIn, error) {
	if err := g.enabled(); err != nil {
		return nil, err
	}
	if cb.State == "" {
		return nil, refused("the state is missing")
	}
	var st *OIDCState
	err := g.accounts.store.InTx(ctx, func(tx Tx) error {
		var err error
		st, err = tx.TakeOIDCState(ctx, stateID(cb.State))
		return err
	})
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, refused("the state is unknown or was used already")
	}
	if err != nil {
		return nil, err
	}
	if !g.now().Before(st.ExpiresAt) {
		return nil, refused("the sign-in took longer than 10 minutes; start again")
	}
	if cb.Error != "" {
		return nil, refused("the provider did not sign the person in")
	}
	if cb.Code == "" {
		return nil, refused("the authorization code is missing")
	}
	claims, err := g.provider.Exchange(ctx, cb.Code, st.Verifier)
	if err != nil {
		return nil, g.providerError("callback", err)
	}
	if subtle.ConstantTimeCompare([]byte(claims.Nonce), []byte(st.Nonce)) != 1 {
		return nil, refused("the ID token's nonce does not match this sign-in")
	}
	email := NormalizeEmail(claims.Email)
	switch {
	case claims.Subject == "":
		return nil, refused("the ID token names no subject")
	case !claims.EmailVerified:
		return nil, refused("the Google account's e-mail address is not verified")
	case !ValidEmail(email):
		return nil, refused("the ID token carries no usable e-mail address")
	}
	id := Identity{Provider: ProviderGoogle, Subject: claims.Subject, Email: email}
	var out *SignedIn
	if st.LinkUserID != "" {
		out, err = g.link(ctx, st.LinkUserID, id)
	} else {
		out, err = g.signIn(ctx, id, claims.Name)
	}
	if err != nil {
		return nil, err
	}
	if out.Token, err = g.accounts.tokens.Issue(out.User); err != nil {
		return nil, market.Internal(err)
	}
	out.ReturnTo = st.ReturnTo
	return out, nil
}

// signIn signs in the user linked to id's subject, or makes a new account
// when no account has its e-mail. An account that has the e-mail and is not
// linked is never handed over: whoever controls a Google account with the
// same address has not proven they own this one (EMAIL_TAKEN; its owner
// links it signed in).
func (g *GoogleSignIn) signIn(ctx context.Context, id Identity, name string) (*SignedIn, error) {
	nu := NewUser{Email: id.Email, DisplayName: displayNameFrom(name, id.Email)}
	var out *SignedIn
	raced := false
	attempt := func() error {
		return g.accounts.store.InTx(ctx, func(tx Tx) error {
			out = nil
			// signInLinked signs in the user linked to the subject, if any.
			signInLinked := func() (bool, error) {
				linked, err := tx.IdentityBySubject(ctx, id.Provider, id.Subject)
				if market.CodeOf(err) == market.CodeNotFound {
					return false, nil
				}
				if err != nil {
					return false, err
				}
				u, err := tx.UserByID(ctx, linked.UserID)
				if err != nil {
					return false, err
				}
				if u.Blocked() {
					return false, suspended()
				}
				out = &SignedIn{User: u}
				return true, nil
			}
			if done, err := signInLinked(); done || err != nil {
				return err
			}
			if _, err := tx.UserByEmail(ctx, id.Email); err == nil {
				// Asked again: on PostgreSQL each statement sees what
				// committed before it, so the account a callback for the
				// same person made meanwhile shows now, with its link.
				if done, err := signInLinked(); done || err != nil {
					return err
				}
				return market.Errorf(market.CodeEmailTaken, "an account with this e-mail already exists; sign in to it with its password, then link Google with GET /auth/google?link=true")
			} else if market.CodeOf(err) != market.CodeNotFound {
				return err
			}
			u, err := g.accounts.CreateUserTx(ctx, tx, nu)
			if err == nil {
				id.UserID, id.CreatedAt = u.ID, u.CreatedAt
				err = tx.CreateIdentity(ctx, &id)
			}
			if c := market.CodeOf(err); c == market.CodeEmailTaken || c == market.CodeInvalidState {
				raced = true
			}
			if err != nil {
				return err
			}
			if err := events.Record(ctx, tx, u.CreatedAt, market.Actor{Type: market.ActorUser, UserID: u.ID},
				"user.google_linked", "user", u.ID, nil); err != nil {
				return err
			}
			out = &SignedIn{User: u}
			return nil
		})
	}
	err := RetryDerivedUsername(nu, attempt)
	// Two callbacks for one new Google account at once: the one that lost
	// the race for the e-mail or the subject finds the other's account
	// (linked) when it looks again.
	if raced {
		err = RetryDerivedUsername(nu, attempt)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// link links id to the signed-in owner who started the flow. One Google
// account links to one user, and one user to one Google account.
func (g *GoogleSignIn) link(ctx context.Context, userID string, id Identity) (*SignedIn, error) {
	var out *SignedIn
	err := g.accounts.store.InTx(ctx, func(tx Tx) error {
		u, err := tx.UserByID(ctx, userID)
		if market.CodeOf(err) == market.CodeNotFound {
			return refused("the account that started linking no longer exists")
		}
		if err != nil {
			return err
		}
		if u.Blocked() {
			return suspended()
		}
		out = &SignedIn{User: u}
		linked, err := tx.IdentityBySubject(ctx, id.Provider, id.Subject)
		switch {
		case err == nil && linked.UserID == u.ID:
			return nil // linked already: nothing to do
		case err == nil:
			return alreadyLinkedSubject()
		case market.CodeOf(err) != market.CodeNotFound:
			return err
		}
		now := g.accounts.clock.Now()
		id.UserID, id.CreatedAt = u.ID, now
		if err := tx.CreateIdentity(ctx, &id); err != nil {
			return err
		}
		return events.Record(ctx, tx, now, market.Actor{Type: market.ActorUser, UserID: u.ID}, "user.google_linked", "user", u.ID, nil)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// alreadyLinkedSubject and alreadyLinkedOwner are the store's answers to
// the two unique rules of linked identities, too.
func alreadyLinkedSubject() *market.Error {
	return market.Errorf(market.CodeInvalidState, "this Google account is already linked to another account here")
}

func alreadyLinkedOwner() *market.Error {
	return market.Errorf(market.CodeInvalidState, "this account is already linked to a Google account")
}

// AlreadyLinked is the error of an identity that breaks one of the two
// rules: subject true for a subject linked to someone else.
func AlreadyLinked(subject bool) *market.Error {
	if subject {
		return alreadyLinkedSubject()
	}
	return alreadyLinkedOwner()
}

func refused(why string) *market.Error {
	return market.Errorf(market.CodeUnauthorized, "Google sign-in failed: %s", why)
}

// providerError is SERVICE_UNAVAILABLE for a provider that cannot be
// reached and a refusal for anything else; the cause is logged, never
// shown.
func (g *GoogleSignIn) providerError(step string, err error) error {
	if errors.Is(err, ErrProviderUnavailable) {
		g.log.Warn("google sign-in: provider unavailable", "step", step, "err", err.Error())
		return market.Errorf(market.CodeUnavailable, "the sign-in provider cannot be reached; try again shortly")
	}
	g.log.Info("google sign-in refused", "step", step, "err", err.Error())
	return refused("the provider's answer did not check out")
}

// CheckReturnTo accepts a path on this service and returns it without any
// fragment (the session goes there). Absolute URLs, scheme-relative ones
// (//host), backslashes (browsers read /\host as //host), whitespace and
// control characters are refused.
func CheckReturnTo(s string) (string, error) {
	if s == "" {
		return "/", nil
	}
	bad := func() error {
		return market.Invalid(market.FieldError{Field: "return_to", Message: "must be a path on this service, such as /account"})
	}
	if len(s) > MaxReturnToLen || !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") ||
		strings.ContainsFunc(s, func(r rune) bool { return r == '\\' || unicode.IsSpace(r) || unicode.IsControl(r) }) ||
		!utf8.ValidString(s) {
		return "", bad()
	}
	s, _, _ = strings.Cut(s, "#")
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return "", bad()
	}
	return s, nil
}

// displayNameFrom is the token's name made fit for a display name, or the
// e-mail's local part when it has none.
func displayNameFrom(name, email string) string {
	name = strings.Join(strings.FieldsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if name == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	if utf8.RuneCountInString(name) > MaxNameLen {
		name = strings.TrimSpace(string([]rune(name)[:MaxNameLen]))
	}
	return name
}

// randomToken is n random bytes, base64url without padding (a PKCE
// verifier of 32 bytes is 43 characters, as RFC 7636 asks).
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func stateID(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:])
}
