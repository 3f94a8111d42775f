package ops_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/ops"
	"marketplace/internal/market"
	"marketplace/internal/settings"
	"marketplace/internal/testkit"
)

// pathRef finds the paths a guide mentions: under /api/v1 and /v1, the
// MCP endpoint and the guides themselves.
var pathRef = regexp.MustCompile(`(/api/v1/[A-Za-z0-9_{}./-]*|/v1/[A-Za-z0-9_{}./-]*|/mcp\b|/llms\.txt|/agent-skill\.md)`)

// served reports whether a route matches path, a {param} on either side
// matching any one segment.
func served(routes []httpapi.Route, method, path string) bool {
	want := strings.Split(path, "/")
	for _, r := range routes {
		if method != "" && r.Method != method {
			continue
		}
		got := strings.Split(r.Pattern, "/")
		if len(got) != len(want) {
			continue
		}
		ok := true
		for i := range got {
			if got[i] != want[i] && !strings.HasPrefix(got[i], "{") && !strings.HasPrefix(want[i], "{") {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// The guides: public, of their content types, every path they mention
// served by the router, every error code with advice, every tool named,
// and the running configuration's URL and mode in them.
func TestAgentGuides(t *testing.T) {
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		routes := s.App.Router.Routes()
		for _, g := range []struct{ path, contentType string }{
			{"/llms.txt", "text/plain"}, {"/agent-skill.md", "text/markdown"},
		} {
			resp, err := http.Get(s.URL + g.path)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			_, _ = io.Copy(&b, resp.Body)
			resp.Body.Close()
			body := b.String()
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), g.contentType) {
				t.Fatalf("%s: %d %s", g.path, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if !strings.Contains(body, s.URL+"/v1/") || !strings.Contains(body, "sandbox") {
				t.Fatalf("%s does not name this server (%s, sandbox):\n%s", g.path, s.URL, body)
			}
			refs := pathRef.FindAllString(body, -1)
			if len(refs) < 5 {
				t.Fatalf("%s mentions only %v", g.path, refs)
			}
			for _, p := range refs {
				p = strings.TrimRight(p, ".,")
				if !served(routes, "", p) {
					t.Errorf("%s mentions %s, which the router does not serve", g.path, p)
				}
			}
			for _, tool := range s.App.MCP.Tools {
				if !strings.Contains(body, tool.Name) {
					t.Errorf("%s does not name the tool %s", g.path, tool.Name)
				}
			}
			if g.path == "/agent-skill.md" {
				for _, c := range market.Codes() {
					if !strings.Contains(body, "| "+string(c)+" | ") {
						t.Errorf("%s: no row for %s", g.path, c)
					}
				}
			}
		}
		// A setting the admin changes shows in the next request's guide.
		if _, err := s.App.Settings.Set(t.Context(), market.System, settings.OfferMaxRounds.Name(), json.RawMessage("7")); err != nil {
			t.Fatal(err)
		}
		text, err := get(s.URL + "/llms.txt")
		if err != nil || !strings.Contains(text, "at most 7 rounds") {
			t.Fatalf("llms.txt after offers.max_rounds=7 (%v):\n%s", err, text)
		}
	})
}

func get(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// Every code of the contract has its own advice.
func TestAdviceCoversEveryCode(t *testing.T) {
	seen := map[string]market.Code{}
	for _, c := range market.Codes() {
		a := ops.Advice(c)
		if a == "See the error's message and details." {
			t.Errorf("%s has no advice", c)
		}
		if prev, ok := seen[a]; ok {
			t.Errorf("%s and %s share advice", c, prev)
		}
		seen[a] = c
	}
}

// The manifest's capabilities: the old six, the tool areas and what the
// surfaces serve; the shape unchanged.
func TestManifestCapabilities(t *testing.T) {
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		d := s.Do("GET", "/api/v1/manifest", nil).Want(t, http.StatusOK, "").Data()
		var caps []string
		for _, c := range d["capabilities"].([]any) {
			caps = append(caps, c.(string))
		}
		have := strings.Join(caps, ",")
		for _, want := range []string{"accounts", "agent_keys", "agent_onboarding", "spending_controls",
			"identity_verification", "categories", "listings", "search", "offers", "orders", "messages", "mcp",
			"openai_tools", "agent_guides", "sandbox"} {
			if !strings.Contains(","+have+",", ","+want+",") {
				t.Errorf("manifest capabilities %s lack %s", have, want)
			}
		}
		for _, tool := range s.App.MCP.Tools {
			if !strings.Contains(","+have+",", ","+tool.Area+",") {
				t.Errorf("manifest capabilities %s lack the tool area %s", have, tool.Area)
			}
		}
	})
}
