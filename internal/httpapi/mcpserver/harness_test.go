package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"marketplace/internal/httpapi/mcpserver"
	"marketplace/internal/testkit"
)

// The test harness every tool test shares: a session over Streamable HTTP
// (the real /mcp with its key header) or in memory (the same server, the
// key authenticated on each call), and call, which answers a tool's
// structured content and, for a refusal, its code.

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

// overHTTP opens an MCP client session to the server's /mcp as key.
func overHTTP(t testing.TB, s *testkit.Server, key string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: s.URL + mcpserver.Path,
		HTTPClient: &http.Client{Transport: keyHeader{key: key, next: http.DefaultTransport}}, DisableStandaloneSSE: true}
	cs, err := c.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	sessionKind.Store(cs, "http")
	return cs
}

// inMemory opens a session to the same catalogue over in-memory pipes,
// each call authenticated as key.
func inMemory(t testing.TB, s *testkit.Server, key string) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	srv := s.App.MCP.New(mcpserver.KeyCaller(s.App.Router, key))
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	sessionKind.Store(cs, "memory")
	return cs
}

// sessionKind says which transport a session runs over: a whole run
// checks that every tool was called over each (TestMain).
var sessionKind sync.Map // *mcp.ClientSession -> "http" | "memory"

// transports are both ways in; tool tests run over each.
var transports = []struct {
	name string
	open func(testing.TB, *testkit.Server, string) *mcp.ClientSession
}{{"http", overHTTP}, {"memory", inMemory}}

// answer is one tool call's outcome.
type answer struct {
	Data map[string]any // the structured content
	Code string         // the refusal's code; "" on success
}

// call calls tool with args and decodes the answer; a transport or
// protocol failure fails the test.
func call(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) answer {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	if kind, ok := sessionKind.Load(cs); ok {
		called.Store(tool+"/"+kind.(string), true)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var out answer
	if err := json.Unmarshal(raw, &out.Data); err != nil {
		t.Fatalf("%s: structured content %s", tool, raw)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content items, want the JSON text", tool, len(res.Content))
	}
	if text, ok := res.Content[0].(*mcp.TextContent); !ok || !jsonEqual(text.Text, raw) {
		t.Fatalf("%s: the text content is not the structured content", tool)
	}
	if res.IsError {
		out.Code, _ = out.Data["code"].(string)
		if out.Code == "" {
			t.Fatalf("%s: a tool error without a code: %s", tool, raw)
		}
	}
	return out
}

// want checks a call's outcome: code "" for success.
func (a answer) want(t testing.TB, tool, code string) answer {
	t.Helper()
	if a.Code != code {
		t.Fatalf("%s: code %q, want %q (%v)", tool, a.Code, code, a.Data)
	}
	return a
}

func jsonEqual(a string, b []byte) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal(b, &y) == nil && equalJSON(x, y)
}

func equalJSON(x, y any) bool {
	bx, _ := json.Marshal(x)
	by, _ := json.Marshal(y)
	return string(bx) == string(by)
}
