package console_test

import (
	"html/template"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"marketplace/internal/httpapi/console"
	"marketplace/internal/testkit"
)

// browser is a person's browser: a cookie jar, no redirects followed (the
// tests look at each one), and the last page's CSRF token.
type browser struct {
	t    *testing.T
	s    *testkit.Server
	c    *http.Client
	csrf string
}

func newBrowser(t *testing.T, s *testkit.Server) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, s: s, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// page is one answer: status, headers, body.
type page struct {
	status int
	header http.Header
	body   string
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// do sends form (none for nil) urlencoded.
func (b *browser) do(method, path string, form url.Values, extra ...testkit.Header) page {
	b.t.Helper()
	if form == nil {
		return b.send(method, path, nil, "", extra...)
	}
	return b.send(method, path, strings.NewReader(form.Encode()), "application/x-www-form-urlencoded", extra...)
}

// send sends body as contentType ("" for no body) and reads the answer,
// keeping its CSRF token.
func (b *browser) send(method, path string, body io.Reader, contentType string, extra ...testkit.Header) page {
	b.t.Helper()
	req, err := http.NewRequest(method, b.s.URL+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/html")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for _, h := range extra {
		req.Header.Set(h.Name, h.Value)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	p := page{status: resp.StatusCode, header: resp.Header, body: string(raw)}
	if m := csrfField.FindStringSubmatch(p.body); m != nil {
		b.csrf = m[1]
	}
	return p
}

func (b *browser) get(path string, extra ...testkit.Header) page {
	return b.do("GET", path, nil, extra...)
}

// post sends a form with the CSRF token of the last page.
func (b *browser) post(path string, kv ...string) page {
	b.t.Helper()
	f := url.Values{"csrf": {b.csrf}}
	for i := 0; i+1 < len(kv); i += 2 {
		f.Set(kv[i], kv[i+1])
	}
	return b.do("POST", path, f)
}

func (p page) want(t *testing.T, status int, contains ...string) page {
	t.Helper()
	if p.status != status {
		t.Fatalf("status %d, want %d; body:\n%s", p.status, status, p.body)
	}
	for _, s := range contains {
		if !strings.Contains(p.body, s) {
			t.Fatalf("no %q in the page:\n%s", s, p.body)
		}
	}
	return p
}

func (p page) redirect(t *testing.T, to string) {
	t.Helper()
	if p.status != http.StatusSeeOther || p.header.Get("Location") != to {
		t.Fatalf("answer %d to %q, want 303 to %q; body:\n%s", p.status, p.header.Get("Location"), to, p.body)
	}
}

// find is the first group of pattern's first match in the page; the test
// fails without one, saying what it looked for.
func (p page) find(t *testing.T, pattern, what string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no %s in the page:\n%s", what, p.body)
	}
	return m[1]
}

// signIn is a browser that signed u in through the sign-in page and opened
// next (which gives it the session's CSRF token).
func signIn(t *testing.T, s *testkit.Server, u *testkit.User, next string) *browser {
	t.Helper()
	b := newBrowser(t, s)
	b.get("/signin")
	b.post("/signin", "email", u.Email, "password", u.Password, "next", next).redirect(t, next)
	b.get(next).want(t, http.StatusOK)
	return b
}

// withSession is a browser whose session cookie is value.
func withSession(t *testing.T, s *testkit.Server, value string) *browser {
	b := newBrowser(t, s)
	b.c.Jar.SetCookies(mustURL(t, s.URL), []*http.Cookie{{Name: console.SessionCookie, Value: value}})
	return b
}

// sessionCookie is the browser's console session secret, "" for none.
func sessionCookie(t *testing.T, b *browser) string {
	for _, c := range b.c.Jar.Cookies(mustURL(t, b.s.URL)) {
		if c.Name == console.SessionCookie {
			return c.Value
		}
	}
	return ""
}

// apiToken is a bearer token for email, from the API's login.
func apiToken(t *testing.T, s *testkit.Server, email, password string) testkit.Header {
	t.Helper()
	r := s.Do("POST", "/api/v1/auth/login", map[string]any{"email": email, "password": password}).Want(t, http.StatusOK, "")
	return testkit.Bearer(r.Data()["accessToken"].(string))
}

// signUp opens an account through the sign-up page and returns the browser,
// signed in.
func signUp(t *testing.T, s *testkit.Server, name, email string) *browser {
	t.Helper()
	b := newBrowser(t, s)
	b.get("/signup").want(t, http.StatusOK, "Sign up", "Display name", "Email", "Password")
	b.post("/signup", "displayName", name, "email", email, "password", "correct-horse-1", "acceptTerms", "on", "next", "/agents").
		redirect(t, "/agents")
	return b
}

func TestAgentsPage(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		b := signUp(t, s, "Ada", "ada-console@example.com")
		p := b.get("/agents").want(t, http.StatusOK, "<h1>Agents</h1>", "Sign out", "Per-transaction limit", "Approval threshold", `value="100.00"`, "$500.00")

		// Create a key with its own caps: the secret is shown once.
		p = b.post("/agents/keys", "label", "Shopping bot", "scope", "buy_only", "dailyLimit", "150.00", "acceptAgentTerms", "on").
			want(t, http.StatusCreated, "Shopping bot", "mk_test_", "daily $150.00")
		key := p.find(t, `action="/agents/keys/([0-9a-f-]+)/freeze"`, "Freeze button")
		if p := b.get("/agents"); strings.Contains(p.body, "mk_test_") && !strings.Contains(p.body, "…") {
			t.Fatal("the secret is shown again")
		}
		// Freeze, unfreeze, revoke.
		b.get("/agents")
		b.post("/agents/keys/"+key+"/freeze").redirect(t, "/agents")
		b.get("/agents").want(t, http.StatusOK, "frozen (owner)", "Unfreeze")
		b.post("/agents/keys/"+key+"/unfreeze").redirect(t, "/agents")
		b.get("/agents").want(t, http.StatusOK, "Freeze Shopping bot")
		b.post("/agents/keys/"+key+"/revoke").redirect(t, "/agents")
		if p := b.get("/agents").want(t, http.StatusOK, "revoked"); strings.Contains(p.body, "/agents/keys/"+key+"/") {
			t.Fatal("a revoked key still has buttons")
		}

		// The account's caps, in dollars and cents; a bad amount is refused
		// with the field named and nothing changed.
		b.post("/agents/controls", "perTransactionLimit", "80.50", "dailyLimit", "200", "weeklyLimit", "1,000.00",
			"monthlyLimit", "$2000", "approvalThreshold", "50.00").redirect(t, "/agents")
		b.get("/agents").want(t, http.StatusOK, `value="80.50"`, `value="200.00"`, `value="1000.00"`, `value="2000.00"`, `value="50.00"`)
		b.post("/agents/controls", "dailyLimit", "12.345").want(t, http.StatusBadRequest, "Daily limit must be an amount in dollars and cents")
		b.get("/agents").want(t, http.StatusOK, `value="200.00"`)
		b.post("/agents/controls", "perTransactionLimit", "80.50", "dailyLimit", "200", "weeklyLimit", "1000",
			"monthlyLimit", "2000", "approvalThreshold", "").redirect(t, "/agents")
		if p := b.get("/agents"); strings.Contains(p.body, `value="50.00"`) {
			t.Fatal("an empty threshold did not clear it")
		}
	})
}

// TestSecurity: CSRF, sessions apart from API credentials, sign-out, a
// password change, open redirects, escaping, other users' things, headers.
func TestSecurity(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		b := signUp(t, s, `<script>alert("x")</script>`, "eve-console@example.com")
		p := b.get("/agents").want(t, http.StatusOK, `&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`)
		if strings.Contains(p.body, `<script>alert`) {
			t.Fatal("the display name is not escaped")
		}
		for _, h := range []string{"default-src 'self'", "script-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"} {
			if !strings.Contains(p.header.Get("Content-Security-Policy"), h) {
				t.Errorf("CSP %q lacks %q", p.header.Get("Content-Security-Policy"), h)
			}
		}
		if p.header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("X-Frame-Options = %q", p.header.Get("X-Frame-Options"))
		}
		session := sessionCookie(t, b)
		if session == "" {
			t.Fatal("no session cookie")
		}

		// A label that is markup is shown as text.
		b.post("/agents/keys", "label", `<img src=x onerror=alert(1)>`, "scope", "buy_sell", "acceptAgentTerms", "on").
			want(t, http.StatusCreated, `&lt;img src=x onerror=alert(1)&gt;`)

		// CSRF: no token, or another visitor's, changes nothing.
		before := b.get("/agents").body
		for _, tok := range []string{"", "forged", newBrowser(t, s).get("/signin").body} {
			f := url.Values{"label": {"sneaky"}, "scope": {"buy_sell"}, "acceptAgentTerms": {"on"}}
			if m := csrfField.FindStringSubmatch(tok); m != nil {
				f.Set("csrf", m[1])
			} else if tok != "" {
				f.Set("csrf", tok)
			}
			b.do("POST", "/agents/keys", f).want(t, http.StatusForbidden, "did not come from this site")
		}
		if after := b.get("/agents").body; strings.Contains(after, "sneaky") || strings.Count(after, "<tr>") != strings.Count(before, "<tr>") {
			t.Fatal("a form without a valid CSRF token changed something")
		}

		// Another user's key is not found, as on the API.
		other := s.Register("other")
		otherKey := s.NewKey(other, "buy_sell")
		b.get("/agents")
		b.post("/agents/keys/"+otherKey.ID+"/freeze").want(t, http.StatusNotFound)
		b.post("/approvals/"+otherKey.ID+"/approve").want(t, http.StatusNotFound)

		// API credentials are no session; the session is no API credential.
		guest := newBrowser(t, s)
		guest.get("/agents", other.Auth()).redirect(t, "/signin?next=%2Fagents")
		guest.get("/agents", otherKey.Auth()).redirect(t, "/signin?next=%2Fagents")
		req, _ := http.NewRequest("GET", s.URL+"/api/v1/auth/me", nil)
		req.AddCookie(&http.Cookie{Name: console.SessionCookie, Value: session})
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("the console cookie on the API: %v %v", resp.StatusCode, err)
		} else {
			resp.Body.Close()
		}

		// Sign-in's return address stays on this site.
		s.Register("mallory") // a known account to sign in with
		for _, next := range []string{"//evil.example/x", "https://evil.example", "/\\evil.example", "javascript:alert(1)", "/agents\r\nX: y"} {
			g := newBrowser(t, s)
			g.get("/signin")
			g.post("/signin", "email", "eve-console@example.com", "password", "correct-horse-1", "next", next).redirect(t, "/")
		}
		g := newBrowser(t, s)
		g.get("/signin?next=/approvals")
		g.post("/signin", "email", "eve-console@example.com", "password", "wrong-password", "next", "/approvals").
			want(t, http.StatusUnauthorized, "e-mail or password is wrong", `value="/approvals"`)
		g.post("/signin", "email", "eve-console@example.com", "password", "correct-horse-1", "next", "/approvals").redirect(t, "/approvals")

		// Session fixation: a session value planted before sign-in is
		// replaced at sign-in, and the planted value signs nobody in.
		for _, planted := range []string{randomish()} {
			f := withSession(t, s, planted)
			f.get("/signin")
			f.post("/signin", "email", "eve-console@example.com", "password", "correct-horse-1", "next", "/agents").redirect(t, "/agents")
			if got := sessionCookie(t, f); got == "" || got == planted {
				t.Fatalf("sign-in kept the planted session %q (now %q)", planted, got)
			}
			withSession(t, s, planted).get("/agents").redirect(t, "/signin?next=%2Fagents")
		}

		// Sign out ends that session only; the old cookie signs nobody in.
		b.get("/agents")
		b.post("/signout").redirect(t, "/")
		b.get("/agents").redirect(t, "/signin?next=%2Fagents")
		withSession(t, s, session).get("/agents").redirect(t, "/signin?next=%2Fagents")
		g.get("/agents").want(t, http.StatusOK)

		// A password change ends every console session of the user.
		tok := apiToken(t, s, "eve-console@example.com", "correct-horse-1")
		s.Do("POST", "/api/v1/auth/set-password", map[string]any{"currentPassword": "correct-horse-1", "newPassword": "correct-horse-2"},
			tok).Want(t, http.StatusOK, "")
		g.get("/agents").redirect(t, "/signin?next=%2Fagents")
	})
}

// randomish is a made-up session value of the real shape.
func randomish() string { return strings.Repeat("A", 43) }

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestApprovals: an agent's purchase over the owner's threshold waits on the
// approvals page with its order and key; the owner approves it there and
// the order is paid; a second one is rejected with a reason.
func TestApprovals(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.NewShopper("consoleowner", "pm_card_visa")
		s.SetControls(owner.User, map[string]any{"approvalThreshold": 2000})
		seller := s.VerifiedOwner("consoleseller")
		buy := func(brief string) (orderID, title string) {
			listing := s.ActiveListing(seller, brief, 2500)
			title = s.Do("GET", "/api/v1/listings/"+listing, nil).Want(t, http.StatusOK, "").Data()["title"].(string)
			r := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing, "maxPrice": 3000,
				"shippingAddress": testkit.Address()}, owner.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
			details, _ := r.JSON["error"].(map[string]any)["details"].(map[string]any)
			orderID, _ = details["orderId"].(string)
			return orderID, title
		}
		order, title := buy("walnut side table with one drawer")

		b := signIn(t, s, owner.User, "/approvals")
		p := b.get("/approvals").want(t, http.StatusOK, "Waiting for you", template.HTMLEscapeString(title), "$25.00", "test buy_sell", order, "Approve", "Reject")
		approval := p.find(t, `action="/approvals/([0-9a-f-]+)/approve"`, "Approve button")
		b.post("/approvals/"+approval+"/approve").redirect(t, "/approvals")
		b.get("/approvals").want(t, http.StatusOK, "Nothing is waiting for you", "approved")
		if st := s.Do("GET", "/api/v1/orders/"+order, nil, owner.Auth()).Want(t, http.StatusOK, "").Data()["status"]; st != "paid" {
			t.Fatalf("the approved order is %v, want paid", st)
		}
		// Approving it again is refused on the page, as on the API.
		b.post("/approvals/"+approval+"/approve").want(t, http.StatusConflict)

		order2, _ := buy("brass desk lamp with a green shade")
		rejected := b.get("/approvals").find(t, `action="/approvals/([0-9a-f-]+)/reject"`, "Reject button")
		b.post("/approvals/"+rejected+"/reject", "reason", "too dear").redirect(t, "/approvals")
		b.get("/approvals").want(t, http.StatusOK, "rejected: too dear")
		if st := s.Do("GET", "/api/v1/orders/"+order2, nil, owner.Auth()).Want(t, http.StatusOK, "").Data()["status"]; st != "cancelled" {
			t.Fatalf("the rejected order is %v, want cancelled", st)
		}

		// The key's page: the approved purchase's authorization record with
		// the approval, the rejected one without a record; spend against caps.
		p = b.get("/agents/keys/"+owner.Key.ID).want(t, http.StatusOK, "Authorization records", order, "approved by", "at most $30.00",
			"Waiting for approval or refused: no record.", "Left for this key", "$25")
		if !strings.Contains(p.body, order2) {
			t.Fatalf("the rejected purchase is not listed:\n%s", p.body)
		}
		// Another owner's key is not found, as on the API; a guest signs in.
		other := signUp(t, s, "Other", "other-keypage@example.com")
		other.get("/agents/keys/"+owner.Key.ID).want(t, http.StatusNotFound)
		newBrowser(t, s).get("/agents/keys/"+owner.Key.ID).redirect(t, "/signin?next=%2Fagents%2Fkeys%2F"+owner.Key.ID)
	})
}

// TestAssets: the stylesheet every page links is served, as CSS, cached.
func TestAssets(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		p := newBrowser(t, s).get("/assets/console.css").want(t, http.StatusOK, "box-sizing")
		if ct := p.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
			t.Fatalf("Content-Type %q", ct)
		}
		newBrowser(t, s).get("/assets/nothing.css").want(t, http.StatusNotFound)
	})
}
