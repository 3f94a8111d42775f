package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"marketplace/internal/testkit"
)

// `marketplace mcp` serves the remote's tools on its transport (stdio in
// the binary; in memory here) and exits 0 when the host hangs up.
func TestMCPCommand(t *testing.T) {
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		key := s.NewKey(s.VerifiedOwner("cmd-mcp"), "buy")
		ct, st := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var stderr bytes.Buffer
		done := make(chan int, 1)
		go func() {
			done <- runMCP(ctx, []string{"--url", s.URL + "/mcp"}, env(map[string]string{"MARKETPLACE_AGENT_KEY": key.Secret}), &stderr, st)
		}()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("whoami through `marketplace mcp`: %v %+v", err, res)
		}
		if agent, _ := res.StructuredContent.(map[string]any)["agent"].(map[string]any); agent["key_id"] != key.ID {
			t.Fatalf("whoami: %v", res.StructuredContent)
		}
		cs.Close()
		select {
		case code := <-done:
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("`marketplace mcp` did not exit when the host hung up")
		}
	})
}
