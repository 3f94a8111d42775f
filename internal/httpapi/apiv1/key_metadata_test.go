package apiv1_test

import (
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/testkit"
)

// Oversize agent metadata is refused naming the field as each route calls
// it.
func TestKeyMetadataLimit(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		big := map[string]any{"blob": strings.Repeat("x", 9000)}
		owner := s.Register("meta")
		r := s.Do("POST", "/api/v1/agent-keys", map[string]any{"label": "m", "scope": "buy_only",
			"acceptedAgentTerms": true, "metadata": big}, owner.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		if f := r.Fields(); len(f) != 1 || f[0] != "metadata" {
			t.Fatalf("key create fields %v", f)
		}
		r = s.Do("POST", "/api/v1/onboarding/agent-init", map[string]any{"ownerEmail": "m@example.com", "agentMetadata": big}).
			Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		if f := r.Fields(); len(f) != 1 || f[0] != "agentMetadata" {
			t.Fatalf("agent-init fields %v", f)
		}
		// Small metadata is kept and shown on the key.
		r = s.Do("POST", "/api/v1/agent-keys", map[string]any{"label": "m", "scope": "buy_only",
			"acceptedAgentTerms": true, "metadata": map[string]any{"framework": "langchain"}}, owner.Auth()).Want(t, http.StatusCreated, "")
		if m, _ := r.Data()["metadata"].(map[string]any); m["framework"] != "langchain" {
			t.Fatalf("metadata not kept: %v", r.Data())
		}
	})
}
