package mcpserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"marketplace/internal/httpapi/mcpserver"
	"marketplace/internal/testkit"
)

// viaProxy opens a host-side session (in memory) to a Proxy that forwards
// to the test server's /mcp over Streamable HTTP with key.
func viaProxy(t testing.TB, s *testkit.Server, key string) *mcp.ClientSession {
	t.Helper()
	p := &mcpserver.Proxy{URL: s.URL + mcpserver.Path, Key: key, Version: "test"}
	srv, remote, err := p.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { remote.Close() })
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// The stdio proxy serves the remote's tools as they are: the same names,
// schemas and annotations, and calls forwarded with their results and
// refusals (isError with the contract's code).
func TestProxy(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("proxy-owner")
		key := s.NewKey(owner, "buy")
		cs := viaProxy(t, s, key.Secret)
		direct := overHTTP(t, s, key.Secret)
		got, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := direct.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Tools) != len(want.Tools) || len(got.Tools) == 0 {
			t.Fatalf("proxy lists %d tools, the remote %d", len(got.Tools), len(want.Tools))
		}
		for i := range got.Tools {
			g, w := got.Tools[i], want.Tools[i]
			if g.Name != w.Name || g.Description != w.Description || !equalJSON(g.InputSchema, w.InputSchema) ||
				!equalJSON(g.Annotations, w.Annotations) {
				t.Fatalf("tool %d: proxy %+v, remote %+v", i, g, w)
			}
		}
		if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "marketplace") {
			t.Fatalf("instructions %q", ins)
		}
		data := call(t, cs, "whoami", nil).want(t, "whoami", "").Data
		if agent, _ := data["agent"].(map[string]any); agent["key_id"] != key.ID {
			t.Fatalf("whoami through the proxy: %v", data)
		}
		call(t, cs, "whoami", map[string]any{"x": 1}).want(t, "whoami", "VALIDATION_ERROR")
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}}); err == nil {
			t.Fatal("an unknown tool was answered")
		}

		// A key frozen mid-session: the remote refuses the request before
		// MCP; the proxy answers the contract's tool error, and calls work
		// again once the owner unfreezes the key.
		s.Do("POST", "/api/v1/admin/users/"+owner.ID+"/agent-keys/"+key.ID+"/freeze", map[string]any{}, s.Admin().Auth()).
			Want(t, http.StatusOK, "")
		call(t, cs, "whoami", nil).want(t, "whoami", "AGENT_FROZEN")
		s.Do("PATCH", "/api/v1/agent-keys/"+key.ID+"/unfreeze", nil, owner.Auth()).Want(t, http.StatusOK, "")
		call(t, cs, "whoami", nil).want(t, "whoami", "")
		// Revoked: INVALID_AGENT_KEY, as the remote answers it.
		s.Do("DELETE", "/api/v1/agent-keys/"+key.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
		call(t, cs, "whoami", nil).want(t, "whoami", "INVALID_AGENT_KEY")

		// A bad key: the remote answers 401 before MCP, so the proxy
		// cannot start; without a key it refuses to.
		if _, _, err := (&mcpserver.Proxy{URL: s.URL + mcpserver.Path, Key: "mk_test_bad"}).Connect(t.Context()); err == nil {
			t.Fatal("the proxy started with a bad key")
		}
		if _, _, err := (&mcpserver.Proxy{URL: s.URL + mcpserver.Path}).Connect(t.Context()); err == nil ||
			!strings.Contains(err.Error(), mcpserver.KeyEnv) {
			t.Fatalf("no key: %v", err)
		}
	})
}
