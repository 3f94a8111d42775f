package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// OIDCConfig names an OpenID provider and this service's client there.
type OIDCConfig struct {
	Issuer       string // e.g. https://accounts.google.com
	ClientID     string
	ClientSecret string // "" for a public client (PKCE alone)
	RedirectURL  string // this service's callback, as registered with the provider
	// HTTPClient talks to the provider (discovery, keys, token endpoint);
	// nil is a client with a 10-second timeout.
	HTTPClient *http.Client
}

// OIDC is an OpenIDProvider on go-oidc and oauth2. The provider's
// endpoints and keys come from its discovery document, read on first use
// and read again on a later use after a failure, so a provider that is down
// never stops the service from starting.
type OIDC struct {
	cfg    OIDCConfig
	client *http.Client

	mu       sync.Mutex
	provider *oidc.Provider
	failedAt time.Time // the last failed discovery, for the cool-down
}

// discoveryCooldown is how long a failed discovery is answered from memory
// before the document is asked for again, so a provider that hangs does not
// hold every sign-in for its timeout.
const discoveryCooldown = time.Second

// NewOIDC makes the provider; nothing is fetched yet.
func NewOIDC(cfg OIDCConfig) *OIDC {
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	return &OIDC{cfg: cfg, client: client}
}

var errDiscovery = errors.New("discovery failed moments ago")

// discover returns the provider, reading its discovery document when it is
// not known yet.
func (o *OIDC) discover(ctx context.Context) (*oidc.Provider, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.provider != nil {
		return o.provider, nil
	}
	if !o.failedAt.IsZero() && time.Since(o.failedAt) < discoveryCooldown {
		return nil, o.unavailable(errDiscovery)
	}
	// The document is the provider's to keep for the service's life: a
	// request's cancellation must not cut it, nor the keys' later fetches
	// (go-oidc keeps this context's client for them).
	p, err := oidc.NewProvider(oidc.ClientContext(context.WithoutCancel(ctx), o.client), o.cfg.Issuer)
	if err != nil {
		o.failedAt = time.Now()
		return nil, o.unavailable(err)
	}
	o.provider, o.failedAt = p, time.Time{}
	return p, nil
}

func (o *OIDC) unavailable(cause error) error {
	return fmt.Errorf("%w: discovery at %s: %v", ErrProviderUnavailable, o.cfg.Issuer, cause)
}

func (o *OIDC) oauth(p *oidc.Provider) *oauth2.Config {
	return &oauth2.Config{ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, RedirectURL: o.cfg.RedirectURL,
		Endpoint: p.Endpoint(), Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}
}

// AuthCodeURL implements OpenIDProvider.
func (o *OIDC) AuthCodeURL(ctx context.Context, state, nonce, verifier string) (string, error) {
	p, err := o.discover(ctx)
	if err != nil {
		return "", err
	}
	return o.oauth(p).AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), nil
}

// Exchange implements OpenIDProvider: the code for tokens at the token
// endpoint (with the PKCE verifier), then the ID token checked by go-oidc:
// signature with the keys of the provider's JWKS, iss, aud (our client id)
// and exp.
func (o *OIDC) Exchange(ctx context.Context, code, verifier string) (*IDClaims, error) {
	p, err := o.discover(ctx)
	if err != nil {
		return nil, err
	}
	ctx = oidc.ClientContext(ctx, o.client)
	tok, err := o.oauth(p).Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, fmt.Errorf("token endpoint: %w", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, errors.New("the token response carries no id_token")
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: o.cfg.ClientID}).Verify(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("id token: %w", err)
	}
	var c struct {
		Email         string   `json:"email"`
		EmailVerified jsonBool `json:"email_verified"`
		Name          string   `json:"name"`
	}
	if err := idt.Claims(&c); err != nil {
		return nil, fmt.Errorf("id token claims: %w", err)
	}
	return &IDClaims{Subject: idt.Subject, Email: c.Email, EmailVerified: bool(c.EmailVerified), Name: c.Name, Nonce: idt.Nonce}, nil
}

// jsonBool reads a JSON true, or the string "true" that some providers
// have sent for email_verified; anything else is false.
type jsonBool bool

func (b *jsonBool) UnmarshalJSON(data []byte) error {
	s := strings.TrimSpace(string(data))
	*b = jsonBool(s == "true" || s == `"true"`)
	var v any
	return json.Unmarshal(data, &v)
}
