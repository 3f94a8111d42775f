package apiv1_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/testkit"
	"marketplace/internal/testkit/oidcprovider"
)

// Google sign-in (CONTRACT.md section 17) against a local OpenID provider
// whose token endpoint checks the PKCE verifier, on every engine.

const (
	googleClientID = "marketplace-test.apps.example"
	googleSecret   = "test-client-secret"
	googleCallback = "/api/v1/auth/google/callback"
)

var acceptJSON = testkit.Header{Name: "Accept", Value: "application/json"}

func googleOptions(p *oidcprovider.Provider) testkit.Options {
	return testkit.Options{GoogleIssuer: p.Issuer, GoogleClientID: googleClientID, GoogleClientSecret: googleSecret}
}

var googleSeq atomic.Int64

// googlePerson is a new person at the provider, with a verified e-mail.
func googlePerson(name string) oidcprovider.Person {
	n := googleSeq.Add(1)
	return oidcprovider.Person{Subject: fmt.Sprintf("1049%08d", n), Email: fmt.Sprintf("%s.g%d@gmail.example", strings.ToLower(name), n),
		EmailVerified: true, Name: name + " Example"}
}

var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// googleBegin starts a flow (302) and returns the provider's address.
func googleBegin(t *testing.T, s *testkit.Server, query string, headers ...testkit.Header) string {
	t.Helper()
	r := s.DoNoRedirect("GET", "/api/v1/auth/google"+query, nil, headers...).Want(t, http.StatusFound, "")
	return r.Header.Get("Location")
}

// googleConsent passes the provider's consent screen as the person it signs
// in and returns the callback's path and query on s.
func googleConsent(t *testing.T, s *testkit.Server, authURL string) string {
	t.Helper()
	resp, err := noFollow.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc, s.URL+googleCallback+"?") {
		t.Fatalf("provider answered %d to %s, Location %q", resp.StatusCode, authURL, loc)
	}
	return strings.TrimPrefix(loc, s.URL)
}

// googleSignIn runs a whole flow for person and returns the callback's
// JSON answer.
func googleSignIn(t *testing.T, s *testkit.Server, p *oidcprovider.Provider, person oidcprovider.Person) *testkit.Response {
	t.Helper()
	p.SignIn(person)
	return s.DoNoRedirect("GET", googleConsent(t, s, googleBegin(t, s, "")), nil, acceptJSON)
}

// wantNoAccount fails if an account with email exists.
func wantNoAccount(t *testing.T, s *testkit.Server, email string) {
	t.Helper()
	if _, err := s.App.DB.Read().UserByEmail(t.Context(), email); market.CodeOf(err) != market.CodeNotFound {
		t.Fatalf("an account with %s exists (err %v)", email, err)
	}
}

func TestGoogleSignIn(t *testing.T) {
	t.Parallel()
	p := oidcprovider.Start(t, googleClientID, googleSecret)
	testkit.Run(t, googleOptions(p), func(t *testing.T, s *testkit.Server) {
		t.Run("the start sends the browser to the provider with PKCE S256, state and nonce", func(t *testing.T) {
			loc, err := url.Parse(googleBegin(t, s, "?returnTo=/welcome"))
			if err != nil {
				t.Fatal(err)
			}
			q := loc.Query()
			if loc.Scheme+"://"+loc.Host != p.Issuer || loc.Path != "/authorize" || q.Get("response_type") != "code" ||
				q.Get("client_id") != googleClientID || q.Get("redirect_uri") != s.URL+googleCallback ||
				q.Get("scope") != "openid email profile" || q.Get("code_challenge_method") != "S256" ||
				len(q.Get("code_challenge")) != 43 || len(q.Get("state")) < 40 || len(q.Get("nonce")) < 30 {
				t.Fatalf("authorization URL %s", loc)
			}
			// Each start has its own state, nonce and challenge.
			again, _ := url.Parse(googleBegin(t, s, ""))
			for _, k := range []string{"state", "nonce", "code_challenge"} {
				if again.Query().Get(k) == q.Get(k) {
					t.Errorf("two starts share %s", k)
				}
			}
			// Asked for JSON, the start answers the address instead.
			r := s.DoNoRedirect("GET", "/api/v1/auth/google?returnTo=/x", nil, acceptJSON).Want(t, http.StatusOK, "")
			wantKeys(t, "started", r.Data(), "authorizationUrl", "expiresAt")
			if u, _ := r.Data()["authorizationUrl"].(string); !strings.HasPrefix(u, p.Issuer+"/authorize?") {
				t.Errorf("authorizationUrl = %q", u)
			}
			wantTime(t, "expiresAt", r.Data()["expiresAt"], s.RealTime.Now().Add(10*time.Minute))
		})

		t.Run("a new user is made, without a password, and can add one", func(t *testing.T) {
			person := googlePerson("Nora")
			person.Email = strings.ToUpper(person.Email[:1]) + person.Email[1:]
			r := googleSignIn(t, s, p, person).Want(t, http.StatusOK, "")
			u, tok := wantAuthResult(t, r)
			wantKeys(t, "user", u, userKeys...)
			wantEq(t, "email", u["email"], strings.ToLower(person.Email))
			wantEq(t, "displayName", u["displayName"], "Nora Example")
			wantEq(t, "passwordSet", u["passwordSet"], false)
			wantEq(t, "role", u["role"], "user")
			wantEq(t, "status", u["status"], "active")
			id := u["id"].(string)
			if got := eventTypes(t, s, "user", id); !slices.Contains(got, "user.registered") || !slices.Contains(got, "user.google_linked") {
				t.Errorf("events = %v", got)
			}
			me := s.Do("GET", "/api/v1/auth/me", nil, testkit.Bearer(tok)).Want(t, http.StatusOK, "").Data()
			wantEq(t, "me.id", me["id"], id)
			wantEq(t, "me.passwordSet", me["passwordSet"], false)
			b := s.Do("GET", "/v1/account", nil, testkit.Bearer(tok)).Want(t, http.StatusOK, "").Data()
			wantEq(t, "account.password_set", b["password_set"], false)

			// No password: password login fails as any wrong password does.
			email := strings.ToLower(person.Email)
			for _, pw := range []string{"x", "anything-at-all-123"} {
				s.Do("POST", "/api/v1/auth/login", map[string]any{"email": email, "password": pw}).
					Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
			}
			// set-password needs no current password for it, then login works.
			s.Do("POST", "/api/v1/auth/set-password", map[string]any{"newPassword": "a new password 1"}, testkit.Bearer(tok)).
				Want(t, http.StatusOK, "")
			r = s.Do("POST", "/api/v1/auth/login", map[string]any{"email": email, "password": "a new password 1"}).Want(t, http.StatusOK, "")
			lu, _ := wantAuthResult(t, r)
			wantEq(t, "login id", lu["id"], id)
			wantEq(t, "passwordSet after", lu["passwordSet"], true)
			// From now on changing it needs the current one, as for anyone.
			s.Do("POST", "/api/v1/auth/set-password", map[string]any{"newPassword": "another password 2"}, testkit.Bearer(tok)).
				Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
		})

		t.Run("a returning user is signed in, with a 302 to returnTo carrying the session", func(t *testing.T) {
			person := googlePerson("Ravi")
			first, _ := wantAuthResult(t, googleSignIn(t, s, p, person).Want(t, http.StatusOK, ""))
			// The person changes their name and address at Google: the
			// subject is what counts, and the account is left as it is.
			person.Name, person.Email = "Ravi Renamed", "ravi.new@gmail.example"
			p.SignIn(person)
			cb := googleConsent(t, s, googleBegin(t, s, "?returnTo="+url.QueryEscape("/orders?tab=open#frag")))
			r := s.DoNoRedirect("GET", cb, nil).Want(t, http.StatusFound, "")
			loc := r.Header.Get("Location")
			path, frag, ok := strings.Cut(loc, "#")
			if !ok || path != "/orders?tab=open" {
				t.Fatalf("Location = %q, want /orders?tab=open#accessToken=...", loc)
			}
			if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control = %q", cc)
			}
			f, err := url.ParseQuery(frag)
			if err != nil || !strings.HasPrefix(frag, "accessToken=") || !strings.Contains(frag, "&expiresAt=20") || strings.Contains(frag, "%") {
				t.Fatalf("fragment %q: %v", frag, err)
			}
			exp, err := time.Parse(time.RFC3339, f.Get("expiresAt"))
			if err != nil || exp.Sub(time.Now()) < accounts.TokenTTL-time.Minute {
				t.Errorf("expiresAt = %q", f.Get("expiresAt"))
			}
			me := s.Do("GET", "/api/v1/auth/me", nil, testkit.Bearer(f.Get("accessToken"))).Want(t, http.StatusOK, "").Data()
			wantEq(t, "returning id", me["id"], first["id"])
			wantEq(t, "email kept", me["email"], first["email"])
			wantEq(t, "name kept", me["displayName"], first["displayName"])
			wantNoAccount(t, s, "ravi.new@gmail.example")
		})

		t.Run("the e-mail of an account not linked is refused, and nothing is linked", func(t *testing.T) {
			owner := s.Register("Olga")
			person := googlePerson("Mallory")
			person.Email = strings.ToUpper(owner.Email) // the same address, spelled otherwise
			googleSignIn(t, s, p, person).Want(t, http.StatusConflict, "EMAIL_TAKEN")
			if _, err := s.App.DB.Read().IdentityBySubject(t.Context(), accounts.ProviderGoogle, person.Subject); market.CodeOf(err) != market.CodeNotFound {
				t.Fatalf("the subject was linked: %v", err)
			}
			// Again, as a browser: still refused, no session anywhere.
			p.SignIn(person)
			r := s.DoNoRedirect("GET", googleConsent(t, s, googleBegin(t, s, "")), nil).Want(t, http.StatusConflict, "EMAIL_TAKEN")
			if r.Header.Get("Location") != "" {
				t.Errorf("a refusal redirects: %q", r.Header.Get("Location"))
			}
			// The owner's account is untouched.
			s.Do("POST", "/api/v1/auth/login", map[string]any{"email": owner.Email, "password": owner.Password}).Want(t, http.StatusOK, "")
		})

		t.Run("linking while signed in links the Google account to its owner", func(t *testing.T) {
			owner := s.Register("Lena")
			person := googlePerson("Lena")
			p.SignIn(person)
			// Through the JSON start, as an application holding the token does.
			r := s.DoNoRedirect("GET", "/api/v1/auth/google?link=true&returnTo=/settings", nil, owner.Auth(), acceptJSON).Want(t, http.StatusOK, "")
			cb := googleConsent(t, s, r.Data()["authorizationUrl"].(string))
			r = s.DoNoRedirect("GET", cb, nil).Want(t, http.StatusFound, "")
			if loc := r.Header.Get("Location"); !strings.HasPrefix(loc, "/settings#accessToken=") {
				t.Fatalf("Location = %q", loc)
			}
			if got := eventTypes(t, s, "user", owner.ID); !slices.Contains(got, "user.google_linked") {
				t.Errorf("events = %v", got)
			}
			// Signing in with Google now reaches the owner's account, whose
			// password still works.
			u, _ := wantAuthResult(t, googleSignIn(t, s, p, person).Want(t, http.StatusOK, ""))
			wantEq(t, "signed in as", u["id"], owner.ID)
			wantEq(t, "passwordSet", u["passwordSet"], true)
			wantNoAccount(t, s, person.Email)

			// The owner cannot link a second Google account.
			s.DoNoRedirect("GET", "/api/v1/auth/google?link=true", nil, owner.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
			// Another user cannot take this Google account over.
			other := s.Register("Otto")
			p.SignIn(person)
			cb = googleConsent(t, s, googleBegin(t, s, "?link=true", other.Auth()))
			s.DoNoRedirect("GET", cb, nil, acceptJSON).Want(t, http.StatusConflict, "INVALID_STATE")
			if _, err := s.App.DB.Read().IdentityOfUser(t.Context(), accounts.ProviderGoogle, other.ID); market.CodeOf(err) != market.CodeNotFound {
				t.Fatalf("the other user got a link: %v", err)
			}
			u, _ = wantAuthResult(t, googleSignIn(t, s, p, person).Want(t, http.StatusOK, ""))
			wantEq(t, "still the owner's", u["id"], owner.ID)

			// Linking needs the owner's bearer token: none is 401, an agent key 403.
			s.DoNoRedirect("GET", "/api/v1/auth/google?link=true", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			key := s.NewKey(other, "buy_only")
			s.DoNoRedirect("GET", "/api/v1/auth/google?link=true", nil, key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.DoNoRedirect("GET", "/api/v1/auth/google?link=yes", nil, other.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		})

		t.Run("a forged state is refused before the provider is asked", func(t *testing.T) {
			before := p.TokenRequests()
			s.DoNoRedirect("GET", googleCallback+"?state=forged-state-value&code=whatever", nil, acceptJSON).
				Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.DoNoRedirect("GET", googleCallback+"?code=whatever", nil, acceptJSON).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			// A real code with someone else's state is refused too.
			p.SignIn(googlePerson("Fay"))
			cb, _ := url.Parse(googleConsent(t, s, googleBegin(t, s, "")))
			q := cb.Query()
			q.Set("state", "x"+q.Get("state"))
			s.DoNoRedirect("GET", googleCallback+"?"+q.Encode(), nil, acceptJSON).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			if p.TokenRequests() != before {
				t.Errorf("the token endpoint was called %d times", p.TokenRequests()-before)
			}
		})

		t.Run("a state is good once", func(t *testing.T) {
			// Two consents on one authorization URL: two good codes for
			// the same state. Only the first callback gets through.
			person := googlePerson("Uma")
			p.SignIn(person)
			authURL := googleBegin(t, s, "")
			first, second := googleConsent(t, s, authURL), googleConsent(t, s, authURL)
			s.DoNoRedirect("GET", first, nil, acceptJSON).Want(t, http.StatusOK, "")
			s.DoNoRedirect("GET", second, nil, acceptJSON).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.DoNoRedirect("GET", first, nil, acceptJSON).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			// A state whose callback failed is spent as well.
			p.Tamper(func(c map[string]any) { c["email_verified"] = false })
			authURL = googleBegin(t, s, "")
			first, second = googleConsent(t, s, authURL), googleConsent(t, s, authURL)
			s.DoNoRedirect("GET", first, nil, acceptJSON).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			p.Tamper(nil)
			s.DoNoRedirect("GET", second, nil, acceptJSON).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		})

		t.Run("a state older than 10 minutes is refused", func(t *testing.T) {
			person := googlePerson("Tess")
			p.SignIn(person)
			cb := googleConsent(t, s, googleBegin(t, s, ""))
			s.RealTime.Advance(10*time.Minute + time.Second)
			s.DoNoRedirect("GET", cb, nil, acceptJSON).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			wantNoAccount(t, s, person.Email)
		})

		// Each bad ID token is refused and signs no one in: no account is
		// made, and no session handed out.
		bad := map[string]struct {
			tamper func(c map[string]any)
			forge  bool
		}{
			"a wrong audience": {tamper: func(c map[string]any) { c["aud"] = "another-client.apps.example" }},
			"an expired token": {tamper: func(c map[string]any) {
				c["exp"], c["iat"] = time.Now().Add(-time.Hour).Unix(), time.Now().Add(-2*time.Hour).Unix()
			}},
			"a bad signature":          {forge: true},
			"email_verified false":     {tamper: func(c map[string]any) { c["email_verified"] = false }},
			"email_verified absent":    {tamper: func(c map[string]any) { delete(c, "email_verified") }},
			"a wrong nonce":            {tamper: func(c map[string]any) { c["nonce"] = "not-the-nonce-of-this-flow" }},
			"no nonce":                 {tamper: func(c map[string]any) { delete(c, "nonce") }},
			"another issuer":           {tamper: func(c map[string]any) { c["iss"] = "https://accounts.evil.example" }},
			"no subject":               {tamper: func(c map[string]any) { c["sub"] = "" }},
			"a string email_verified":  {tamper: func(c map[string]any) { c["email_verified"] = "false" }},
			"an e-mail that is no one": {tamper: func(c map[string]any) { c["email"] = "not an address" }},
		}
		for name, tc := range bad {
			t.Run("refused: "+name, func(t *testing.T) {
				person := googlePerson("Eve")
				p.Tamper(tc.tamper)
				p.Forge(tc.forge)
				defer func() { p.Tamper(nil); p.Forge(false) }()
				r := googleSignIn(t, s, p, person).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
				if strings.Contains(string(r.Body), "accessToken") {
					t.Errorf("a refusal carries a token: %s", r.Body)
				}
				wantNoAccount(t, s, person.Email)
				// The same person with a good token gets in.
				p.Tamper(nil)
				p.Forge(false)
				googleSignIn(t, s, p, person).Want(t, http.StatusOK, "")
			})
		}

		t.Run("a refusal at the provider signs no one in", func(t *testing.T) {
			loc, _ := url.Parse(googleBegin(t, s, ""))
			s.DoNoRedirect("GET", googleCallback+"?error=access_denied&state="+url.QueryEscape(loc.Query().Get("state")), nil, acceptJSON).
				Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		})

		t.Run("returnTo must stay on this service", func(t *testing.T) {
			for _, bad := range []string{"https://evil.example/", "http:/evil.example", "//evil.example/x", "/\\evil.example",
				"\\\\evil.example", "javascript:alert(1)", "evil.example/x", "/a b", "/x\u2028y", "mailto:a@b.example"} {
				r := s.DoNoRedirect("GET", "/api/v1/auth/google?returnTo="+url.QueryEscape(bad), nil)
				testkit.WantFields(t, r, "returnTo")
			}
			for _, good := range []string{"/", "/account/settings", "/search?q=lamp&page=2", "/%2F%2Fstays-a-path"} {
				googleBegin(t, s, "?returnTo="+url.QueryEscape(good))
			}
		})

		t.Run("two callbacks at once for one new person make one account", func(t *testing.T) {
			person := googlePerson("Cleo")
			p.SignIn(person)
			const n = 4
			cbs := make([]string, n)
			for i := range cbs {
				cbs[i] = googleConsent(t, s, googleBegin(t, s, ""))
			}
			ids := make([]string, n)
			var wg sync.WaitGroup
			for i := range cbs {
				wg.Go(func() {
					r := s.DoNoRedirect("GET", cbs[i], nil, acceptJSON)
					if r.Status == http.StatusOK {
						ids[i], _ = r.Data()["user"].(map[string]any)["id"].(string)
					} else {
						t.Errorf("callback %d: %d %s", i, r.Status, r.Body)
					}
				})
			}
			wg.Wait()
			for i := range ids {
				if ids[i] != ids[0] || ids[i] == "" {
					t.Fatalf("user ids %v, want one account", ids)
				}
			}
		})

		t.Run("suspended and banned users are refused", func(t *testing.T) {
			person := googlePerson("Sid")
			u, _ := wantAuthResult(t, googleSignIn(t, s, p, person).Want(t, http.StatusOK, ""))
			for _, st := range []accounts.Status{accounts.StatusSuspended, accounts.StatusBanned} {
				s.SetStatus(u["id"].(string), st)
				googleSignIn(t, s, p, person).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
			}
			s.SetStatus(u["id"].(string), accounts.StatusActive)
			googleSignIn(t, s, p, person).Want(t, http.StatusOK, "")
		})
	})
}

// TestGoogleSignInDisabled: without a client id both routes answer 503
// FEATURE_DISABLED naming the flag.
func TestGoogleSignInDisabled(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		for _, path := range []string{"/api/v1/auth/google?returnTo=/x", googleCallback + "?state=a&code=b"} {
			r := s.DoNoRedirect("GET", path, nil).Want(t, http.StatusServiceUnavailable, "FEATURE_DISABLED")
			details, _ := r.JSON["error"].(map[string]any)["details"].(map[string]any)
			if details["flag"] != "google_sign_in" {
				t.Errorf("%s: details = %v", path, details)
			}
		}
	})
}

// TestGoogleSignInAcrossReplicas: a flow started on one replica finishes on
// another (the state lives in the database), and a replica that starts
// while the provider is down serves anyway and reaches the provider once
// it is back.
func TestGoogleSignInAcrossReplicas(t *testing.T) {
	t.Parallel()
	p := oidcprovider.Start(t, googleClientID, googleSecret)
	testkit.RunDB(t, func(t *testing.T, start func(testkit.Options) *testkit.Server) {
		opts := googleOptions(p)
		p.Down(true)
		a := start(opts)
		opts.PublicURL = a.URL // replicas share the public URL, so the redirect URI
		b := start(opts)
		a.Do("GET", "/health", nil).Want(t, http.StatusOK, "")
		a.DoNoRedirect("GET", "/api/v1/auth/google", nil).Want(t, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
		p.Down(false)

		// The replica that met the provider down reaches it once it is
		// back (after the short cool-down of a failed discovery).
		deadline := time.Now().Add(10 * time.Second)
		for {
			r := a.DoNoRedirect("GET", "/api/v1/auth/google", nil)
			if r.Status == http.StatusFound {
				break
			}
			r.Want(t, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
			if time.Now().After(deadline) {
				t.Fatal("discovery was never retried")
			}
			time.Sleep(200 * time.Millisecond)
		}

		person := googlePerson("Rhea")
		p.SignIn(person)
		cb := googleConsent(t, a, googleBegin(t, b, ""))
		u, _ := wantAuthResult(t, a.DoNoRedirect("GET", cb, nil, acceptJSON).Want(t, http.StatusOK, ""))
		wantEq(t, "email", u["email"], person.Email)
		// The same state is spent for every replica.
		b.DoNoRedirect("GET", cb, nil, acceptJSON).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
	})
}
