package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

// The webhook tools on each transport: register (the secret shown once),
// list, read the delivery log, delete; another owner's endpoint is refused
// as the HTTP routes refuse it. The feed itself is read in
// TestMCPAfterSaleDay.
func TestMCPWebhookTools(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
		t.Cleanup(rcv.Close)
		owner, other := s.VerifiedOwner("hookowner"), s.VerifiedOwner("hookother")
		key, otherKey := s.NewKey(owner, "sell_only"), s.NewKey(other, "buy_only")
		for _, tr := range transports {
			t.Run(tr.name, func(t *testing.T) {
				cs, os := tr.open(t, s, key.Secret), tr.open(t, s, otherKey.Secret)
				w := call(t, cs, "create_webhook", map[string]any{"url": rcv.URL + "/" + tr.name, "events": []string{"order.shipped", "offer.received"}}).
					want(t, "create_webhook", "").Data
				id, _ := w["id"].(string)
				if secret, _ := w["secret"].(string); !strings.HasPrefix(secret, "whsec_") || id == "" || w["enabled"] != true {
					t.Fatalf("create_webhook %v", w)
				}
				call(t, cs, "create_webhook", map[string]any{"url": rcv.URL, "events": []string{"no.such"}}).
					want(t, "create_webhook", "VALIDATION_ERROR")
				call(t, cs, "create_webhook", map[string]any{"url": rcv.URL}).want(t, "create_webhook", "VALIDATION_ERROR")

				list := call(t, cs, "list_webhooks", nil).want(t, "list_webhooks", "").Data
				viaHTTP := s.Do("GET", "/v1/agent/webhooks", nil, key.Auth()).Want(t, http.StatusOK, "").Data()
				if !equalJSON(list, viaHTTP) || !strings.Contains(mustJSON(list), id) || strings.Contains(mustJSON(list), "whsec_") {
					t.Fatalf("list_webhooks %v, HTTP %v", list, viaHTTP)
				}
				if l := call(t, os, "list_webhooks", nil).want(t, "list_webhooks", "").Data; strings.Contains(mustJSON(l), id) {
					t.Fatalf("another owner lists %v", l)
				}

				ds := call(t, cs, "get_webhook_deliveries", map[string]any{"webhook_id": id, "limit": 10}).
					want(t, "get_webhook_deliveries", "").Data
				if _, ok := ds["deliveries"].([]any); !ok {
					t.Fatalf("get_webhook_deliveries %v", ds)
				}
				call(t, cs, "get_webhook_deliveries", map[string]any{"webhook_id": id, "limit": 101}).
					want(t, "get_webhook_deliveries", "VALIDATION_ERROR")

				// Another owner's endpoint: as HTTP answers.
				for tool, route := range map[string][2]string{
					"get_webhook_deliveries": {"GET", "/v1/agent/webhooks/" + id + "/deliveries"},
					"delete_webhook":         {"DELETE", "/v1/agent/webhooks/" + id},
				} {
					code := s.Do(route[0], route[1], nil, otherKey.Auth()).Code()
					if code == "" {
						t.Fatalf("%s %s by another owner succeeded", route[0], route[1])
					}
					call(t, os, tool, map[string]any{"webhook_id": id}).want(t, tool+" (another owner's)", code)
					call(t, cs, tool, map[string]any{"webhook_id": market.NewID()}).want(t, tool+" (unknown)", "NOT_FOUND")
				}

				del := call(t, cs, "delete_webhook", map[string]any{"webhook_id": id}).want(t, "delete_webhook", "").Data
				if del["deleted"] != true || del["id"] != id {
					t.Fatalf("delete_webhook %v", del)
				}
				call(t, cs, "delete_webhook", map[string]any{"webhook_id": id}).want(t, "delete_webhook", "NOT_FOUND")
			})
		}
	})
}

// The event and webhook tools refuse a bad, revoked or frozen key; any
// scope may use them (they are the owner's, as on HTTP).
func TestMCPEventToolsAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("evauthz")
		revoked := s.NewKey(owner, "buy_sell")
		s.Do("DELETE", "/api/v1/agent-keys/"+revoked.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
		frozen := s.NewKey(owner, "buy_sell")
		s.Do("POST", "/api/v1/admin/users/"+owner.ID+"/agent-keys/"+frozen.ID+"/freeze", nil, s.Admin().Auth()).
			Want(t, http.StatusOK, "")
		id := market.NewID()
		calls := map[string]map[string]any{
			"get_events":             {},
			"create_webhook":         {"url": "https://hooks.example.com/x", "events": []string{"*"}},
			"list_webhooks":          {},
			"delete_webhook":         {"webhook_id": id},
			"get_webhook_deliveries": {"webhook_id": id},
		}
		for secret, code := range map[string]string{"mk_test_bad": "INVALID_AGENT_KEY", revoked.Secret: "INVALID_AGENT_KEY",
			frozen.Secret: "AGENT_FROZEN"} {
			cs := memAs(t, s, secret)
			for tool, args := range calls {
				call(t, cs, tool, args).want(t, tool, code)
			}
		}
		// Every scope reads the feed.
		for _, scope := range []string{"buy_only", "sell_only"} {
			for _, tr := range transports {
				call(t, tr.open(t, s, s.NewKey(owner, scope).Secret), "get_events", map[string]any{"limit": 5}).want(t, "get_events", "")
			}
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
