package apiv1_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/payments"
	"marketplace/internal/testkit"
)

func TestConnectCreateAndVerify(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("connector")
		k := s.NewKey(u, "sell_only")

		// Nothing before the account exists.
		s.Do("GET", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("POST", "/api/v1/seller/connect/refresh", nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")

		d := s.Do("POST", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		acct, _ := d["accountId"].(string)
		url, _ := d["onboardingUrl"].(string)
		reqs, _ := d["requirements"].([]any)
		if acct == "" || d["status"] != "pending" || d["payoutsEnabled"] != false || len(reqs) == 0 || url == "" {
			t.Fatalf("new payout account: %v", d)
		}
		if d["country"] != "US" || d["businessType"] != "individual" || d["verifiedAt"] != nil {
			t.Fatalf("defaults of a payout account: %v", d)
		}
		// Connecting again returns the same account; GET agrees.
		again := s.Do("POST", "/api/v1/seller/connect", map[string]any{"country": "DE"}, u.Auth()).Want(t, http.StatusOK, "").Data()
		if again["accountId"] != acct || again["country"] != "US" {
			t.Fatalf("second connect: %v, want account %s unchanged", again, acct)
		}
		got := s.Do("GET", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		if got["accountId"] != acct || got["status"] != "pending" {
			t.Fatalf("GET connect: %v", got)
		}
		if me := s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusOK, "").Data(); me["identityVerified"] != false || me["trustTier"] != "new" {
			t.Fatalf("/auth/me before verification: %v", me)
		}

		// The sandbox page, as JSON and as HTML; it does not verify by itself.
		path := keysHelperPath(t, s, url)
		page := s.Do("GET", path, nil).Want(t, http.StatusOK, "").Data()
		if page["accountId"] != acct || page["status"] != "pending" || page["payoutsEnabled"] != false {
			t.Fatalf("onboarding page (JSON): %v", page)
		}
		s.Unchecked = true // an HTML page is outside the JSON documents
		html := s.Do("GET", path, nil, testkit.Header{Name: "Accept", Value: "text/html,application/xhtml+xml"})
		s.Unchecked = false
		if html.Status != http.StatusOK || !strings.HasPrefix(html.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(html.Body), acct) || !strings.Contains(string(html.Body), "<form method=\"post\"") {
			t.Fatalf("onboarding page (HTML): %d %s\n%s", html.Status, html.Header.Get("Content-Type"), html.Body)
		}

		// A refreshed link replaces the old one.
		fresh := s.Do("POST", "/api/v1/seller/connect/refresh", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		newURL, _ := fresh["onboardingUrl"].(string)
		if newURL == "" || newURL == url || fresh["accountId"] != acct {
			t.Fatalf("refresh: %v (old URL %s)", fresh, url)
		}
		s.Do("GET", path, nil).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("POST", path, nil).Want(t, http.StatusNotFound, "NOT_FOUND")
		if cur := s.Do("GET", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusOK, "").Data(); cur["onboardingUrl"] != newURL {
			t.Fatalf("GET connect after refresh shows %v, want %s", cur["onboardingUrl"], newURL)
		}

		// Posting the onboarding URL verifies.
		newPath := keysHelperPath(t, s, newURL)
		done := s.Do("POST", newPath, nil).Want(t, http.StatusOK, "").Data()
		if done["status"] != "verified" || done["payoutsEnabled"] != true || done["identityVerified"] != true {
			t.Fatalf("completed onboarding: %v", done)
		}
		me := s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		if me["identityVerified"] != true || me["trustTier"] != "verified" {
			t.Fatalf("/auth/me after verification: %v", me)
		}
		st := s.Do("GET", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		if st["status"] != "verified" || st["payoutsEnabled"] != true || st["onboardingUrl"] != nil || st["verifiedAt"] == nil {
			t.Fatalf("GET connect after verification: %v", st)
		}
		if r, _ := st["requirements"].([]any); len(r) != 0 {
			t.Fatalf("requirements after verification: %v", st["requirements"])
		}
		// The owner's agent sees the new standing.
		if am := s.Do("GET", "/api/v1/auth/me", nil, k.Auth()).Want(t, http.StatusOK, "").Data(); am["identityVerified"] != true || am["trustTier"] != "verified" {
			t.Fatalf("agent /auth/me after verification: %v", am)
		}
		// Verifying twice, refreshing and connecting again change nothing.
		s.Do("POST", newPath, nil).Want(t, http.StatusOK, "")
		ref := s.Do("POST", "/api/v1/seller/connect/refresh", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		if ref["status"] != "verified" || ref["onboardingUrl"] != nil {
			t.Fatalf("refresh after verification: %v", ref)
		}
		if c := s.Do("POST", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusOK, "").Data(); c["accountId"] != acct || c["status"] != "verified" {
			t.Fatalf("connect after verification: %v", c)
		}
		s.Unchecked = true
		htmlDone := s.Do("GET", newPath, nil, testkit.Header{Name: "Accept", Value: "text/html"})
		s.Unchecked = false
		if htmlDone.Status != http.StatusOK || !strings.Contains(string(htmlDone.Body), "already verified") {
			t.Fatalf("page of a verified account: %d\n%s", htmlDone.Status, htmlDone.Body)
		}
	})
}

func TestConnectHTMLSubmit(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("htmlconnect")
		url := s.Do("POST", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusOK, "").Data()["onboardingUrl"].(string)
		// A browser submits the form and gets a page back.
		s.Unchecked = true
		r := s.Do("POST", keysHelperPath(t, s, url), "", testkit.Header{Name: "Accept", Value: "text/html"},
			testkit.Header{Name: "Content-Type", Value: "application/x-www-form-urlencoded"})
		s.Unchecked = false
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(r.Body), "Identity verified") {
			t.Fatalf("form submit: %d %s\n%s", r.Status, r.Header.Get("Content-Type"), r.Body)
		}
		if me := s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusOK, "").Data(); me["identityVerified"] != true {
			t.Fatalf("/auth/me after the form: %v", me)
		}
	})
}

func TestConnectErrors(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("connecterr")
		k := s.NewKey(u, "sell_only")
		cases := []struct {
			name   string
			body   any
			fields []string
		}{
			{"bad country", map[string]any{"country": "USA"}, []string{"country"}},
			{"digits country", map[string]any{"country": "U1"}, []string{"country"}},
			{"bad business type", map[string]any{"businessType": "charity"}, []string{"businessType"}},
			{"both", map[string]any{"country": "x", "businessType": "x"}, []string{"country", "businessType"}},
			{"wrong type", map[string]any{"country": 5}, []string{"country"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				testkit.WantFields(t, keysHelperSub(s, t).Do("POST", "/api/v1/seller/connect", c.body, u.Auth()), c.fields...)
			})
		}
		// None of them created an account.
		s.Do("GET", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		// A lower-case country and a company are fine.
		d := s.Do("POST", "/api/v1/seller/connect", map[string]any{"country": "de", "businessType": "company"}, u.Auth()).Want(t, http.StatusOK, "").Data()
		if d["country"] != "DE" || d["businessType"] != "company" {
			t.Fatalf("connect with options: %v", d)
		}

		// Only the human, with a bearer token.
		for _, rt := range []struct{ method, path string }{
			{"POST", "/api/v1/seller/connect"}, {"GET", "/api/v1/seller/connect"}, {"POST", "/api/v1/seller/connect/refresh"},
		} {
			s.Do(rt.method, rt.path, nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do(rt.method, rt.path, nil, testkit.Bearer("nope")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do(rt.method, rt.path, nil, k.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do(rt.method, rt.path, nil, testkit.AgentKey("mk_test_bad")).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		}
		s.SetStatus(u.ID, "suspended")
		s.Do("GET", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")

		// Unknown, over-long and other people's tokens on the sandbox page.
		for _, tok := range []string{"nope", strings.Repeat("a", 200), "a%20b", "a.b"} {
			s.Do("GET", "/sandbox/connect/onboarding/"+tok, nil).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("POST", "/sandbox/connect/onboarding/"+tok, nil).Want(t, http.StatusNotFound, "NOT_FOUND")
		}
		s.Do("GET", "/sandbox/connect/onboarding/%00", nil).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		s.Do("POST", "/sandbox/connect/onboarding/%00", nil).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
	})
}

// TestConnectAccountsAreSeparate shows one owner's link verifies only that
// owner.
func TestConnectAccountsAreSeparate(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		a, b := s.Register("connecta"), s.Register("connectb")
		ua := s.Do("POST", "/api/v1/seller/connect", nil, a.Auth()).Want(t, http.StatusOK, "").Data()
		ub := s.Do("POST", "/api/v1/seller/connect", nil, b.Auth()).Want(t, http.StatusOK, "").Data()
		if ua["accountId"] == ub["accountId"] || ua["onboardingUrl"] == ub["onboardingUrl"] {
			t.Fatal("two owners share a payout account")
		}
		s.Do("POST", keysHelperPath(t, s, ua["onboardingUrl"].(string)), nil).Want(t, http.StatusOK, "")
		if me := s.Do("GET", "/api/v1/auth/me", nil, b.Auth()).Want(t, http.StatusOK, "").Data(); me["identityVerified"] != false {
			t.Fatalf("b was verified by a's link: %v", me)
		}
		if st := s.Do("GET", "/api/v1/seller/connect", nil, b.Auth()).Want(t, http.StatusOK, "").Data(); st["status"] != "pending" {
			t.Fatalf("b's account: %v", st)
		}
	})
}

// TestConnectConcurrent shows simultaneous connects of one owner make one
// account, and every caller gets it.
func TestConnectConcurrent(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("connectrace")
		const n = 8
		out := make(chan *testkit.Response, n)
		for range n {
			go func() { out <- s.Do("POST", "/api/v1/seller/connect", nil, u.Auth()) }()
		}
		ids := map[any]bool{}
		for range n {
			r := <-out
			r.Want(t, http.StatusOK, "")
			ids[r.Data()["accountId"]] = true
		}
		if len(ids) != 1 {
			t.Fatalf("concurrent connects made accounts %v", ids)
		}
		if st := s.Do("GET", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusOK, "").Data(); !ids[st["accountId"]] {
			t.Fatalf("GET shows %v, not the account the connects returned", st["accountId"])
		}
	})
}

func TestConnectDashboard(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("dashboard")
		s.Do("GET", "/api/v1/seller/connect/dashboard", nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("POST", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusOK, "")
		pending := s.Do("GET", "/api/v1/seller/connect/dashboard", nil, u.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		if d, _ := pending.JSON["error"].(map[string]any)["details"].(map[string]any); d["status"] != "pending" {
			t.Fatalf("details: %v", pending.JSON)
		}
		s.Verify(u)
		d := s.Do("GET", "/api/v1/seller/connect/dashboard", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		url, _ := d["url"].(string)
		acct, _ := d["accountId"].(string)
		if !strings.HasPrefix(acct, "acct_sandbox_") || !strings.HasPrefix(url, s.URL+payments.SandboxDashboardPath) {
			t.Fatalf("dashboard link: %v", d)
		}
		// A transfer to the account shows on the dashboard.
		tr, err := s.App.Payments.Gateway().Transfer(context.Background(), payments.TransferRequest{Destination: acct, Amount: 123456,
			IdempotencyKey: "payout-" + acct})
		if err != nil {
			t.Fatal(err)
		}
		path := keysHelperPath(t, s, url)
		page := s.Do("GET", path, nil).Want(t, http.StatusOK, "").Data()
		ts, _ := page["transfers"].([]any)
		if page["accountId"] != acct || page["status"] != "verified" || page["payoutsEnabled"] != true || len(ts) != 1 ||
			ts[0].(map[string]any)["id"] != tr.ID || page["totalTransferred"] != float64(123456) {
			t.Fatalf("dashboard page: %v", page)
		}
		s.Unchecked = true
		html := s.Do("GET", path, nil, testkit.Header{Name: "Accept", Value: "text/html"})
		s.Unchecked = false
		if html.Status != http.StatusOK || !strings.HasPrefix(html.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(html.Body), acct) || !strings.Contains(string(html.Body), "$1,234.56") {
			t.Fatalf("dashboard page (HTML): %d\n%s", html.Status, html.Body)
		}
		// Each call hands out a new link; links expire after a day.
		d2 := s.Do("GET", "/api/v1/seller/connect/dashboard", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		if d2["url"] == url {
			t.Fatal("the same link twice")
		}
		s.Clock.Advance(payments.DashboardLinkLifetime)
		s.Do("GET", path, nil).Want(t, http.StatusNotFound, "NOT_FOUND")
		for _, tok := range []string{"nope", strings.Repeat("a", 200), "a.b"} {
			s.Do("GET", "/sandbox/connect/dashboard/"+tok, nil).Want(t, http.StatusNotFound, "NOT_FOUND")
		}
		s.Do("GET", "/sandbox/connect/dashboard/%00", nil).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
	})
}

func TestConnectSendLink(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("sendlink")
		send := func(body any) *testkit.Response {
			return s.Do("POST", "/api/v1/seller/connect/send-link", body, u.Auth())
		}
		send(map[string]any{"channel": "email"}).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("POST", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusOK, "")

		d := send(map[string]any{"channel": "email"}).Want(t, http.StatusOK, "").Data()
		if d["sent"] != true || d["channel"] != "email" || d["to"] != u.Email {
			t.Fatalf("e-mail to the owner: %v", d)
		}
		d = send(map[string]any{"channel": "email", "to": " Other@Example.com "}).Want(t, http.StatusOK, "").Data()
		if d["to"] != "other@example.com" {
			t.Fatalf("e-mail to another address: %v", d)
		}
		d = send(map[string]any{"channel": "sms", "to": "+1 (503) 555-0100"}).Want(t, http.StatusOK, "").Data()
		if d["to"] != "+15035550100" || d["channel"] != "sms" {
			t.Fatalf("text message: %v", d)
		}
		// sms without a number needs a saved address with a phone.
		testkit.WantFields(t, send(map[string]any{"channel": "sms"}), "to")
		s.Do("POST", "/api/v1/addresses", map[string]any{"name": "Ada", "line1": "1 Main St", "city": "Portland", "state": "OR",
			"zip": "97201", "phone": "503-555-0199"}, u.Auth()).Want(t, http.StatusCreated, "")
		if d := send(map[string]any{"channel": "sms"}).Want(t, http.StatusOK, "").Data(); d["to"] != "5035550199" {
			t.Fatalf("text message to the saved phone: %v", d)
		}

		for _, c := range []struct {
			body   any
			fields []string
		}{
			{map[string]any{}, []string{"channel"}},
			{map[string]any{"channel": "fax"}, []string{"channel"}},
			{map[string]any{"channel": 1}, []string{"channel"}},
			{map[string]any{"channel": "email", "to": "not-an-address"}, []string{"to"}},
			{map[string]any{"channel": "sms", "to": "call me"}, []string{"to"}},
			{map[string]any{"channel": "sms", "to": "123"}, []string{"to"}},
		} {
			testkit.WantFields(t, send(c.body), c.fields...)
		}
		send(nil).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")

		// Each message is an event that carries the link.
		acct := s.Do("GET", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		evs, err := s.App.DB.Read().EventsFor(context.Background(), "payout_account", payoutAccountID(t, s, u.ID))
		if err != nil {
			t.Fatal(err)
		}
		sent := 0
		for _, e := range evs {
			if e.Type == "payout_account.onboarding_link_sent" {
				sent++
				if e.Data["url"] != acct["onboardingUrl"] {
					t.Fatalf("event link %v, account link %v", e.Data["url"], acct["onboardingUrl"])
				}
			}
		}
		if sent != 4 {
			t.Fatalf("%d link events, want 4", sent)
		}

		s.Verify(u)
		send(map[string]any{"channel": "email"}).Want(t, http.StatusConflict, "INVALID_STATE")
	})
}

func payoutAccountID(t *testing.T, s *testkit.Server, userID string) string {
	t.Helper()
	a, err := s.App.DB.Read().PayoutAccountOf(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}
