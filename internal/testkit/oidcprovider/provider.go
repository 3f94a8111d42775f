// Package oidcprovider is a small OpenID Connect provider for tests: a
// discovery document, a key set, an authorization endpoint that signs in
// whichever person the test says, and a token endpoint that checks the
// client, the redirect URI and the PKCE verifier against the challenge
// before it hands out an ID token. Tests control the ID token's claims and
// signature to see the relying party refuse bad ones.
package oidcprovider

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Person is who signs in at the provider.
type Person struct {
	Subject       string
	Email         string
	EmailVerified bool
	Name          string
}

// Provider is a running test provider. What it does is set through its
// methods, between flows.
type Provider struct {
	Issuer       string // its URL, which is also the tokens' iss
	ClientID     string
	ClientSecret string

	mu            sync.Mutex
	key           *rsa.PrivateKey
	other         *rsa.PrivateKey // a key the provider does not publish
	person        Person          // who consents at the authorization endpoint
	codes         map[string]*grant
	tamper        func(claims map[string]any) // edits ID tokens' claims before signing
	forge         bool                        // sign ID tokens with other
	tokenRequests int
	down          bool // the discovery document answers 503
}

type grant struct {
	clientID, redirectURI, nonce, challenge string
	person                                  Person
}

const keyID = "test-key-1"

// Start runs a provider for the test's life.
func Start(t testing.TB, clientID, clientSecret string) *Provider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &Provider{ClientID: clientID, ClientSecret: clientSecret, key: key, other: other, codes: map[string]*grant{}}
	srv := httptest.NewServer(p.handler())
	t.Cleanup(srv.Close)
	p.Issuer = srv.URL
	return p
}

// SignIn makes person the one who consents at the next authorizations.
func (p *Provider) SignIn(person Person) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.person = person
}

// Tamper makes the next ID tokens carry claims edited by fn (nil: none).
func (p *Provider) Tamper(fn func(claims map[string]any)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tamper = fn
}

// Forge makes the next ID tokens signed with a key the provider does not
// publish (under the published key's id).
func (p *Provider) Forge(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forge = on
}

// Down makes the discovery document unavailable (503) or available again.
func (p *Provider) Down(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = on
}

// TokenRequests is how many times the token endpoint was called.
func (p *Provider) TokenRequests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tokenRequests
}

func (p *Provider) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (p *Provider) discovery(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	down := p.down
	p.mu.Unlock()
	if down {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                p.Issuer,
		"authorization_endpoint":                p.Issuer + "/authorize",
		"token_endpoint":                        p.Issuer + "/token",
		"jwks_uri":                              p.Issuer + "/jwks",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported":      []string{"S256"},
		"scopes_supported":                      []string{"openid", "email", "profile"},
	})
}

func (p *Provider) jwks(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &p.key.PublicKey, KeyID: keyID, Algorithm: "RS256", Use: "sig"},
	}})
}

// authorize is the consent screen, consented at once by the person the
// test signed in: 302 to the redirect URI with a code and the state. It
// refuses a request without the openid scope or an S256 PKCE challenge.
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	fail := func(msg string) { http.Error(w, msg, http.StatusBadRequest) }
	switch {
	case q.Get("response_type") != "code":
		fail("response_type must be code")
		return
	case q.Get("client_id") != p.ClientID:
		fail("unknown client")
		return
	case q.Get("redirect_uri") == "":
		fail("redirect_uri is required")
		return
	case !strings.Contains(" "+q.Get("scope")+" ", " openid "):
		fail("scope must include openid")
		return
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		fail("a PKCE S256 code_challenge is required")
		return
	case q.Get("state") == "" || q.Get("nonce") == "":
		fail("state and nonce are required")
		return
	}
	p.mu.Lock()
	code := random()
	p.codes[code] = &grant{clientID: q.Get("client_id"), redirectURI: q.Get("redirect_uri"), nonce: q.Get("nonce"),
		challenge: q.Get("code_challenge"), person: p.person}
	p.mu.Unlock()
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		fail("bad redirect_uri")
		return
	}
	bq := back.Query()
	bq.Set("code", code)
	bq.Set("state", q.Get("state"))
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// token redeems a code once: the client (basic or post), the redirect URI
// and the PKCE verifier must match the authorization.
func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tokenRequests++
	fail := func(code, msg string) {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": msg})
	}
	if err := r.ParseForm(); err != nil {
		fail("invalid_request", err.Error())
		return
	}
	id, secret, ok := r.BasicAuth()
	if ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != p.ClientID || subtle.ConstantTimeCompare([]byte(secret), []byte(p.ClientSecret)) != 1 {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	if r.PostForm.Get("grant_type") != "authorization_code" {
		fail("unsupported_grant_type", "")
		return
	}
	g := p.codes[r.PostForm.Get("code")]
	delete(p.codes, r.PostForm.Get("code"))
	switch {
	case g == nil:
		fail("invalid_grant", "unknown or used code")
		return
	case g.clientID != id || g.redirectURI != r.PostForm.Get("redirect_uri"):
		fail("invalid_grant", "client or redirect_uri differs from the authorization")
		return
	case challenge(r.PostForm.Get("code_verifier")) != g.challenge:
		fail("invalid_grant", "PKCE verification failed")
		return
	}
	now := time.Now()
	claims := map[string]any{
		"iss": p.Issuer, "aud": p.ClientID, "sub": g.person.Subject, "email": g.person.Email,
		"email_verified": g.person.EmailVerified, "name": g.person.Name, "nonce": g.nonce,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
	if p.tamper != nil {
		p.tamper(claims)
	}
	key := p.key
	if p.forge {
		key = p.other
	}
	idToken, err := sign(key, claims)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"access_token": random(), "token_type": "Bearer", "expires_in": 3600,
		"id_token": idToken, "scope": "openid email profile"})
}

func sign(key *rsa.PrivateKey, claims map[string]any) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", keyID))
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return obj.CompactSerialize()
}

// challenge is RFC 7636's S256 of a verifier.
func challenge(verifier string) string {
	if verifier == "" {
		return "\x00" // matches no challenge
	}
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func random() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
