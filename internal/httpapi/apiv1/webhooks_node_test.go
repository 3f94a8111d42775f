package apiv1_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"marketplace/internal/testkit"
)

// TestWebhookSignaturesNode has deliveries of both surfaces verified by
// the npm standardwebhooks package (scripts/webhookverify), code we did
// not write. It needs MARKETPLACE_TEST_WEBHOOK_VERIFIER (a directory with
// verify.mjs and node_modules/standardwebhooks; .ci/run makes one); it
// skips without it, except in CI, where it fails.
func TestWebhookSignaturesNode(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("MARKETPLACE_TEST_WEBHOOK_VERIFIER")
	if dir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("MARKETPLACE_TEST_WEBHOOK_VERIFIER is not set in CI")
		}
		t.Skip("MARKETPLACE_TEST_WEBHOOK_VERIFIER is not set")
	}
	testkit.Run(t, testkit.Options{WithJobs: true}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("nodeseller")
		buyer := s.Register("nodebuyer")
		acct, agentRcv := newReceiver(t), newReceiver(t)
		secret := s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": acct.URL}, seller.Auth()).
			Want(t, http.StatusOK, "").Data()["secret"].(string)
		key := s.NewKey(seller, "sell")
		agentSecret := s.Do("POST", "/v1/agent/webhooks", map[string]any{"url": agentRcv.URL, "events": []string{"*"}}, key.Auth()).
			Want(t, http.StatusCreated, "").Data()["secret"].(string)

		listing := s.ActiveListing(seller, "Enamel teapot, speckled blue", 2800)
		msgSend(t, s, "/api/v1/messages", buyer.Auth(), listing, "Does the lid fit tightly? \u00e9\u00e8 \u2603 \"quoted\"")
		s.Do("POST", "/api/v1/auth/me/webhook/test", nil, seller.Auth()).Want(t, http.StatusOK, "")
		acct.waitFor(t, "message.received", 10*time.Second, ofType("message.received"))
		acct.waitFor(t, "webhook.test", 10*time.Second, ofType("webhook.test"))
		agentRcv.waitFor(t, "message.received", 10*time.Second, ofType("message.received"))

		type captured struct {
			Secret  string            `json:"secret"`
			Headers map[string]string `json:"headers"`
			Body    string            `json:"body"`
		}
		var all []captured
		for _, p := range []struct {
			rc     *receiver
			secret string
		}{{acct, secret}, {agentRcv, agentSecret}} {
			for _, c := range p.rc.all() {
				all = append(all, captured{Secret: p.secret, Body: string(c.Body), Headers: map[string]string{
					"webhook-id": c.ID, "webhook-timestamp": c.Timestamp, "webhook-signature": c.Signature}})
			}
		}
		if len(all) < 3 {
			t.Fatalf("only %d deliveries captured", len(all))
		}
		raw, _ := json.Marshal(all)
		file := filepath.Join(t.TempDir(), "deliveries.json")
		if err := os.WriteFile(file, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("node", "verify.mjs", file)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("standardwebhooks refused deliveries: %v\n%s", err, out)
		}
		t.Logf("%s", strings.TrimSpace(string(out)))
	})
}
