package mcpserver_test

import (
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/testkit"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The catalogue over Streamable HTTP: a key in Authorization, tools listed
// with schemas and annotations, whoami answered as Variant B would.
func TestMCPOverHTTP(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("mcp-owner")
		key := s.NewKey(owner, "buy_sell")
		cs := overHTTP(t, s, key.Secret)
		list, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Tools) == 0 || list.Tools[0].InputSchema == nil || list.Tools[0].Annotations == nil {
			t.Fatalf("tools %+v", list.Tools)
		}
		for _, tr := range transports {
			cs := tr.open(t, s, key.Secret)
			got := call(t, cs, "whoami", nil).want(t, "whoami", "").Data
			if agent, _ := got["agent"].(map[string]any); agent["key_id"] != key.ID {
				t.Fatalf("%s: whoami %v", tr.name, got)
			}
			// A bad argument is a tool error with the contract's code.
			call(t, cs, "whoami", map[string]any{"x": 1}).want(t, "whoami", "VALIDATION_ERROR")
		}
		// A frozen key is refused on its next call.
		cs = overHTTP(t, s, key.Secret)
		s.Do("POST", "/api/v1/admin/users/"+owner.ID+"/agent-keys/"+key.ID+"/freeze", map[string]any{}, s.Admin().Auth()).
			Want(t, http.StatusOK, "")
		mem := inMemory(t, s, key.Secret)
		call(t, mem, "whoami", nil).want(t, "whoami", "AGENT_FROZEN")
		// Over HTTP the request itself is refused (403 AGENT_FROZEN in
		// the envelope), before any MCP message.
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}}); err == nil ||
			!strings.Contains(err.Error(), "Forbidden") {
			t.Fatalf("a frozen key over HTTP: %v", err)
		}

		// What the MCP transport cannot read is refused in the envelope.
		s.Unchecked = true
		other := s.NewKey(owner, "buy")
		s.Do("POST", "/mcp", map[string]any{"hello": "world"}, testkit.AgentKey(other.Secret)).
			Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		s.Unchecked = false

		// Without a valid key: 401 before any MCP message.
		for _, hs := range [][]testkit.Header{nil, {testkit.AgentKey("mk_test_nope")}, {testkit.Bearer("mk_test_nope")}} {
			s.Unchecked = true
			r := s.Do("POST", "/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, hs...)
			s.Unchecked = false
			if r.Status != http.StatusUnauthorized {
				t.Fatalf("no key: %d %s", r.Status, r.Body)
			}
		}
	})
}
