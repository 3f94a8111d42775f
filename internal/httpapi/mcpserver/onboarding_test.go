package mcpserver_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

var onbSeq atomic.Int64

// Agent-initiated onboarding over MCP, on each transport: an agent with a
// key (any scope) asks a person for a new key; it polls with the secret;
// the person completes the magic link over HTTP; the next poll hands over
// the key once, and the new key works over MCP.
func TestMCPOnboarding(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("onbowner")
		key := s.NewKey(owner, "sell_only")
		for _, tr := range transports {
			t.Run(tr.name, func(t *testing.T) {
				cs := tr.open(t, s, key.Secret)
				email := fmt.Sprintf("friend.mcp%d@example.com", onbSeq.Add(1))
				d := call(t, cs, "initiate_onboarding", map[string]any{"owner_email": email, "desired_scope": "buy",
					"owner_first_name": "Ada", "owner_last_name": "Lovelace", "agent_label": "Household buyer",
					"agent_metadata": map[string]any{"framework": "mcp"}}).want(t, "initiate_onboarding", "").Data
				id, _ := d["onboarding_id"].(string)
				secret, _ := d["poll_secret"].(string)
				link, _ := d["magic_link"].(string)
				if id == "" || secret == "" || d["status"] != "pending_human" || !strings.HasPrefix(link, s.URL+"/api/v1/onboarding/complete/") {
					t.Fatalf("initiate_onboarding %v", d)
				}
				call(t, cs, "initiate_onboarding", map[string]any{"owner_email": "not an e-mail", "desired_scope": "buy"}).
					want(t, "initiate_onboarding", "VALIDATION_ERROR")

				st := call(t, cs, "check_onboarding_status", map[string]any{"onboarding_id": id, "poll_secret": secret}).
					want(t, "check_onboarding_status", "").Data
				if st["status"] != "pending_human" || st["agent_key"] != nil || st["key_id"] != nil {
					t.Fatalf("first check %v", st)
				}
				call(t, cs, "check_onboarding_status", map[string]any{"onboarding_id": id, "poll_secret": "wrong"}).
					want(t, "check_onboarding_status", "UNAUTHORIZED")
				call(t, cs, "check_onboarding_status", map[string]any{"onboarding_id": market.NewID()}).
					want(t, "check_onboarding_status", "NOT_FOUND")

				// The person completes the link.
				path := strings.TrimPrefix(link, s.URL)
				s.Do("GET", path, nil).Want(t, http.StatusOK, "")
				s.Do("POST", path, map[string]any{"password": "long enough pw", "acceptedTerms": true, "acceptedAgentTerms": true}).
					Want(t, http.StatusOK, "")

				// Without the secret: the status, never the key.
				st = call(t, cs, "check_onboarding_status", map[string]any{"onboarding_id": id}).want(t, "check_onboarding_status", "").Data
				if st["agent_key"] != nil || st["key_id"] == nil {
					t.Fatalf("check without the secret %v", st)
				}
				st = call(t, cs, "check_onboarding_status", map[string]any{"onboarding_id": id, "poll_secret": secret}).
					want(t, "check_onboarding_status", "").Data
				newKey, _ := st["agent_key"].(string)
				if !strings.HasPrefix(newKey, "mk_") || st["agent_key_delivered"] != true {
					t.Fatalf("check after completion %v", st)
				}
				st = call(t, cs, "check_onboarding_status", map[string]any{"onboarding_id": id, "poll_secret": secret}).
					want(t, "check_onboarding_status", "").Data
				if st["agent_key"] != nil {
					t.Fatalf("the key was handed over twice: %v", st)
				}
				who := call(t, tr.open(t, s, newKey), "whoami", nil).want(t, "whoami", "").Data
				if agent, _ := who["agent"].(map[string]any); agent["key_id"] != st["key_id"] || agent["scope"] != "buy" {
					t.Fatalf("the new key: %v", who)
				}
			})
		}
	})
}

// The onboarding tools refuse a bad, revoked or frozen key like every tool.
func TestMCPOnboardingAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("onbauthz")
		revoked := s.NewKey(owner, "buy_sell")
		s.Do("DELETE", "/api/v1/agent-keys/"+revoked.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
		frozen := s.NewKey(owner, "buy_sell")
		s.Do("POST", "/api/v1/admin/users/"+owner.ID+"/agent-keys/"+frozen.ID+"/freeze", nil, s.Admin().Auth()).
			Want(t, http.StatusOK, "")
		calls := map[string]map[string]any{
			"initiate_onboarding":     {"owner_email": "someone@example.com", "desired_scope": "buy"},
			"check_onboarding_status": {"onboarding_id": market.NewID()},
		}
		for secret, code := range map[string]string{"mk_test_bad": "INVALID_AGENT_KEY", revoked.Secret: "INVALID_AGENT_KEY",
			frozen.Secret: "AGENT_FROZEN"} {
			cs := memAs(t, s, secret)
			for tool, args := range calls {
				call(t, cs, tool, args).want(t, tool, code)
			}
		}
	})
}
