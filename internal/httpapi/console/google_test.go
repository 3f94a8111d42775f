package console_test

import (
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/testkit"
	"marketplace/internal/testkit/oidcprovider"
)

// googleConsent passes the test provider's consent screen at authURL and
// returns the path and query it sends the browser back to on s.
func googleConsent(t *testing.T, s *testkit.Server, authURL string) string {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc, s.URL+"/api/v1/auth/google/callback?") {
		t.Fatalf("provider answered %d, Location %q", resp.StatusCode, loc)
	}
	return strings.TrimPrefix(loc, s.URL)
}

// TestGoogleSignIn: "Sign in with Google" on the sign-in page runs the
// API's Google flow and ends in a console session, back at next; a
// callback opened in another browser than the one that started the flow
// signs nobody in; without Google configured there is no link and no route.
func TestGoogleSignIn(t *testing.T) {
	t.Parallel()
	p := oidcprovider.Start(t, "console-client", "console-secret")
	opts := testkit.Options{GoogleIssuer: p.Issuer, GoogleClientID: "console-client", GoogleClientSecret: "console-secret"}
	testkit.Run(t, opts, func(t *testing.T, s *testkit.Server) {
		b := newBrowser(t, s)
		b.get("/signin?next=/agents").want(t, http.StatusOK, `href="/signin/google?next=%2Fagents"`, "Sign in with Google")
		b.get("/signup").want(t, http.StatusOK, "Sign up with Google")
		start := b.get("/signin/google?next=/agents")
		if start.status != http.StatusSeeOther || !strings.HasPrefix(start.header.Get("Location"), p.Issuer+"/authorize?") {
			t.Fatalf("start answered %d to %q", start.status, start.header.Get("Location"))
		}
		p.SignIn(oidcprovider.Person{Subject: "10490000771", Email: "gina.console@gmail.example", EmailVerified: true, Name: "Gina <b>G</b>"})
		b.get(googleConsent(t, s, start.header.Get("Location"))).redirect(t, "/agents")
		b.get("/agents").want(t, http.StatusOK, "Sign out", "Gina &lt;b&gt;G&lt;/b&gt;")

		// Login CSRF: a flow started in one browser and finished in
		// another (the victim's, following the attacker's link) is refused.
		attacker := newBrowser(t, s)
		start = attacker.get("/signin/google?next=/agents")
		victim := newBrowser(t, s)
		victim.get(googleConsent(t, s, start.header.Get("Location"))).want(t, http.StatusUnauthorized, "started in another browser")
		victim.get("/agents").redirect(t, "/signin?next=%2Fagents")

		// The API's own flow still answers with a token for a JSON client.
		r := s.DoNoRedirect("GET", "/api/v1/auth/google", nil).Want(t, http.StatusFound, "")
		s.DoNoRedirect("GET", googleConsent(t, s, r.Header.Get("Location")), nil, testkit.Header{Name: "Accept", Value: "application/json"}).
			Want(t, http.StatusOK, "")
	})
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		b := newBrowser(t, s)
		if p := b.get("/signin").want(t, http.StatusOK); strings.Contains(p.body, "Google") {
			t.Fatal("a Google link without Google configured")
		}
		b.get("/signin/google").want(t, http.StatusNotFound)
	})
}
