package mcpserver_test

import (
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"marketplace/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.txt from the catalogue")

// The catalogue as MCP lists it, pinned line by line in testdata/tools.txt:
// name, annotations (r read-only, d destructive, i idempotent, o open
// world) and required arguments (- for none). Renaming a tool, changing what it
// promises a host, or what it requires, fails here until the file is
// rewritten (go test -run TestToolCatalogue -update): a deliberate change.
func TestToolCatalogue(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		cs := inMemory(t, s, s.NewKey(s.VerifiedOwner("pin"), "buy_sell").Secret)
		list, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		flagOf := func(b bool, c string) string {
			if b {
				return c
			}
			return "-"
		}
		var lines []string
		for _, tool := range list.Tools {
			a := tool.Annotations
			if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
				t.Fatalf("%s: annotations %+v", tool.Name, a)
			}
			raw, _ := json.Marshal(tool.InputSchema)
			var sch struct {
				Type     string   `json:"type"`
				Required []string `json:"required"`
			}
			if err := json.Unmarshal(raw, &sch); err != nil || sch.Type != "object" {
				t.Errorf("%s: input schema %s", tool.Name, raw)
			}
			slices.Sort(sch.Required)
			if len(sch.Required) == 0 {
				sch.Required = []string{"-"}
			}
			if n := strings.Count(tool.Description, ". ") + 1; tool.Description == "" || n > 6 {
				t.Errorf("%s: a description of %d sentences", tool.Name, n)
			}
			lines = append(lines, tool.Name+" "+flagOf(a.ReadOnlyHint, "r")+flagOf(*a.DestructiveHint, "d")+
				flagOf(a.IdempotentHint, "i")+flagOf(*a.OpenWorldHint, "o")+" "+strings.Join(sch.Required, ","))
		}
		slices.Sort(lines)
		got := strings.Join(lines, "\n") + "\n"
		if *update {
			if err := os.WriteFile("testdata/tools.txt", []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile("testdata/tools.txt")
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Fatalf("the catalogue changed; if on purpose, run with -update.\ngot:\n%s\nwant:\n%s", got, want)
		}
		if len(lines) < 49 {
			t.Fatalf("%d tools; the contract asks for at least 49", len(lines))
		}
	})
}

// called records every tool a test called (through call) and over which
// transport, so TestMain can check that each tool of the catalogue is
// exercised over both.
var called sync.Map

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	// Only a whole run can say that a tool is never called.
	if code == 0 && flag.Lookup("test.run").Value.String() == "" {
		var missing []string
		for _, name := range catalogueNames() {
			for _, tr := range transports {
				if _, ok := called.Load(name + "/" + tr.name); !ok {
					missing = append(missing, name+" over "+tr.name)
				}
			}
		}
		if len(missing) > 0 {
			os.Stderr.WriteString("no test makes these tool calls: " + strings.Join(missing, ", ") + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

// catalogueNames are the pinned tool names.
func catalogueNames() []string {
	raw, err := os.ReadFile("testdata/tools.txt")
	if err != nil {
		return []string{"(testdata/tools.txt: " + err.Error() + ")"}
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		out = append(out, strings.Fields(line)[0])
	}
	return out
}
