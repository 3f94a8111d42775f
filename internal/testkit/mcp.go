package testkit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// MCPPost sends one JSON-RPC tools/call of tool with args to /mcp with an
// agent key, as a Streamable HTTP client does, and answers the HTTP
// response and its body.
func (s *Server) MCPPost(secret, tool string, args map[string]any) (*http.Response, []byte) {
	s.T.Helper()
	if args == nil {
		args = map[string]any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	req, _ := http.NewRequest("POST", s.URL+"/mcp", bytes.NewReader(body))
	req.Header.Set("X-Agent-Key", secret)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.T.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}

// MCPTool calls tool over /mcp and answers its structured result and
// whether it was a refusal (isError); anything but a 200 with a result
// fails the test.
func (s *Server) MCPTool(secret, tool string, args map[string]any) (result map[string]any, isError bool) {
	s.T.Helper()
	resp, raw := s.MCPPost(secret, tool, args)
	if resp.StatusCode != http.StatusOK {
		s.T.Fatalf("%s: %d %s", tool, resp.StatusCode, raw)
	}
	// A streamed answer carries the message on its data line.
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "data:"); ok {
			raw = []byte(strings.TrimSpace(rest))
		}
	}
	var out struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
			IsError           bool           `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Result.StructuredContent == nil {
		s.T.Fatalf("%s: answer %s", tool, raw)
	}
	return out.Result.StructuredContent, out.Result.IsError
}
