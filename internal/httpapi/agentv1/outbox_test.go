package agentv1_test

import (
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/config"
	"marketplace/internal/testkit"
)

// TestSandboxOutbox: the caller sees its own mails only, newest first: the
// onboarding magic link sent to its address (the same link agent-init
// answered) and the payout link of send-link; an agent key sees its
// owner's.
func TestSandboxOutbox(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("outboxowner")
		other := s.Register("outboxother")
		stranger := "outbox-stranger-" + strings.ToLower(owner.Username) + "@example.com"

		link := s.Do("POST", "/api/v1/onboarding/agent-init", map[string]any{"owner_email": owner.Email, "agent_label": "Shopping bot"}).
			Want(t, http.StatusOK, "").Data()["magic_link"].(string)
		s.Do("POST", "/api/v1/onboarding/agent-init", map[string]any{"owner_email": stranger, "agent_label": "Other bot"}).
			Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/seller/connect", nil, owner.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/seller/connect/send-link", map[string]any{"channel": "email"}, owner.Auth()).Want(t, http.StatusOK, "")
		// A text message is recorded, not mailed.
		s.Do("POST", "/api/v1/seller/connect/send-link", map[string]any{"channel": "sms", "to": "+15035550100"}, owner.Auth()).
			Want(t, http.StatusOK, "")

		list := func(auth testkit.Header, query string) []map[string]any {
			r := s.Do("GET", "/v1/sandbox/outbox"+query, nil, auth).Want(t, http.StatusOK, "")
			wantMeta(t, r)
			var out []map[string]any
			for _, m := range r.Data()["messages"].([]any) {
				out = append(out, m.(map[string]any))
			}
			return out
		}
		ms := list(owner.Auth(), "")
		if len(ms) != 2 || ms[0]["kind"] != "payout_account.onboarding_link" || ms[1]["kind"] != "onboarding.magic_link" {
			t.Fatalf("owner's outbox: %v", ms)
		}
		pay, magic := ms[0], ms[1]
		if magic["to"] != owner.Email || !strings.Contains(magic["text"].(string), link) ||
			!strings.Contains(magic["html"].(string), `href="`+link+`"`) || !strings.Contains(magic["subject"].(string), "Shopping bot") ||
			magic["status"] != "kept" || magic["sent_at"] != nil {
			t.Fatalf("magic link mail: %v", magic)
		}
		if pay["to"] != owner.Email || !strings.Contains(pay["text"].(string), s.URL+"/") || pay["status"] != "kept" {
			t.Fatalf("payout link mail: %v", pay)
		}
		key := s.NewKey(owner, "buy_sell")
		if got := list(key.Auth(), "?limit=1"); len(got) != 1 || got[0]["id"] != pay["id"] {
			t.Fatalf("owner's outbox through its key, limit 1: %v", got)
		}
		if got := list(other.Auth(), ""); len(got) != 0 {
			t.Fatalf("another user's outbox: %v", got)
		}
		for _, q := range []string{"?limit=0", "?limit=101", "?limit=x"} {
			s.Do("GET", "/v1/sandbox/outbox"+q, nil, owner.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		}
		s.Do("GET", "/v1/sandbox/outbox", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
	})
}

// TestSandboxOutboxLive: live mode serves no outbox.
func TestSandboxOutboxLive(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{Mode: config.Live}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("outboxlive")
		s.Do("GET", "/v1/sandbox/outbox", nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
	})
}
