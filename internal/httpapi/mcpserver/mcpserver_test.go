package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"marketplace/internal/testkit"
)

// keyHeader adds the agent key to every request of the MCP client.
type keyHeader struct {
	key  string
	next http.RoundTripper
}

func (k keyHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return k.next.RoundTrip(r)
}

// connect opens an MCP client session to the server's /mcp as key.
func connect(t *testing.T, s *testkit.Server, key string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: s.URL + "/mcp",
		HTTPClient: &http.Client{Transport: keyHeader{key: key, next: http.DefaultTransport}}, DisableStandaloneSSE: true}
	cs, err := c.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// The catalogue over Streamable HTTP: a key in Authorization, tools listed
// with schemas and annotations, whoami answered as Variant B would.
func TestMCPOverHTTP(t *testing.T) {
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("mcp-owner")
		key := s.NewKey(owner, "buy_sell")
		cs := connect(t, s, key.Secret)
		list, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Tools) == 0 || list.Tools[0].InputSchema == nil || list.Tools[0].Annotations == nil {
			t.Fatalf("tools %+v", list.Tools)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if res.IsError || !strings.Contains(string(raw), `"key_id":"`+key.ID+`"`) {
			t.Fatalf("whoami: error %v, %s", res.IsError, raw)
		}
		// A bad argument is a tool error with the contract's code.
		res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{"x": 1}})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ = json.Marshal(res.StructuredContent)
		if !res.IsError || !strings.Contains(string(raw), `"code":"VALIDATION_ERROR"`) {
			t.Fatalf("extra argument: error %v, %s", res.IsError, raw)
		}

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
