package apiv1_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"marketplace/internal/testkit"
)

// A browser that opens the magic link gets a form, and the form completes
// onboarding like the JSON call does.
func TestMagicLinkInABrowser(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		html := testkit.Header{Name: "Accept", Value: "text/html,application/xhtml+xml"}
		form := testkit.Header{Name: "Content-Type", Value: "application/x-www-form-urlencoded"}
		init := s.Do("POST", "/api/v1/onboarding/agent-init", map[string]any{
			"ownerEmail": "browser@example.com", "ownerFirstName": "Bea", "agentLabel": "Picker <b>",
		}).Want(t, http.StatusOK, "")
		link := init.Data()["magic_link"].(string)
		path := strings.TrimPrefix(link, s.URL)

		page := s.Do("GET", path, nil, html)
		body := string(page.Body)
		if page.Status != 200 || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(body, `<form method="post">`) || !strings.Contains(body, "browser@example.com") {
			t.Fatalf("form page: %d %s\n%s", page.Status, page.Header.Get("Content-Type"), body)
		}
		if strings.Contains(body, "<b>") || !strings.Contains(body, "Picker &lt;b&gt;") {
			t.Fatal("the agent's label must be escaped")
		}

		bad := url.Values{"password": {"short"}, "displayName": {"Bea"}, "acceptedTerms": {"true"}, "acceptedAgentTerms": {"true"}}
		again := s.Do("POST", path, bad.Encode(), html, form)
		if again.Status != 400 || !strings.Contains(string(again.Body), "password: must be at least 10 characters") {
			t.Fatalf("form with a short password: %d\n%s", again.Status, again.Body)
		}

		good := url.Values{"password": {"long enough 123"}, "displayName": {"Bea"}, "acceptedTerms": {"true"}, "acceptedAgentTerms": {"true"}}
		done := s.Do("POST", path, good.Encode(), html, form)
		if done.Status != 200 || !strings.Contains(string(done.Body), "Verify your identity now") {
			t.Fatalf("completed page: %d\n%s", done.Status, done.Body)
		}
		poll := s.Do("GET", "/api/v1/onboarding/status/"+init.Data()["onboarding_id"].(string), nil,
			testkit.Header{Name: "X-Onboarding-Secret", Value: init.Data()["poll_secret"].(string)}).Want(t, 200, "")
		if poll.Data()["status"] != "kyc_pending" || !strings.HasPrefix(poll.Data()["agent_key"].(string), "mk_test_") {
			t.Fatalf("after the form: %v", poll.Data())
		}

		closed := s.Do("GET", path, nil, html)
		if closed.Status != 409 || !strings.Contains(string(closed.Body), "This link cannot be used") {
			t.Fatalf("used link: %d\n%s", closed.Status, closed.Body)
		}
		// The same link still answers JSON to an API client.
		s.Do("GET", path, nil).Want(t, http.StatusConflict, "INVALID_STATE")
	})
}
