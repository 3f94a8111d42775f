package agentv1_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"marketplace/internal/httpapi/mcpserver"
	"marketplace/internal/testkit"
)

// GET /v1/tools/openai: public, every tool's parameters a JSON Schema
// object that compiles, and the same names, in the same order, as MCP's
// tools/list.
func TestToolsOpenAI(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		d := s.Do("GET", "/v1/tools/openai", nil).Want(t, http.StatusOK, "").Data()
		tools, _ := d["tools"].([]any)
		if len(tools) == 0 {
			t.Fatalf("no tools: %v", d)
		}
		var names []string
		for _, x := range tools {
			tool := x.(map[string]any)
			fn, _ := tool["function"].(map[string]any)
			name, _ := fn["name"].(string)
			if tool["type"] != "function" || name == "" || fn["description"] == "" {
				t.Fatalf("tool %v", tool)
			}
			params, _ := fn["parameters"].(map[string]any)
			if params["type"] != "object" {
				t.Fatalf("%s: parameters %v is not an object schema", name, params)
			}
			raw, _ := json.Marshal(params)
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
			if err != nil {
				t.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			if err := c.AddResource(name+".json", doc); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Compile(name + ".json"); err != nil {
				t.Fatalf("%s: parameters do not compile: %v", name, err)
			}
			names = append(names, name)
		}

		// The names MCP lists, in memory (no key needed to list).
		ct, st := mcp.NewInMemoryTransports()
		ss, err := s.App.MCP.New(mcpserver.KeyCaller(s.App.Router, "")).Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		var listed []string
		for tool, err := range cs.Tools(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			listed = append(listed, tool.Name)
		}
		if strings.Join(names, ",") != strings.Join(listed, ",") {
			t.Fatalf("openai names %v, MCP tools/list %v", names, listed)
		}
	})
}
