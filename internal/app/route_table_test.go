package app_test

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"marketplace/internal/config"
)

// specFile is the repository's copy of the interface specification (verbatim
// below its first note), so the test runs from a fresh clone; copy it again
// when the interface changes.
const specFile = "../../docs/interface-specification.md"

// specRoutes is the number of routes the interface's endpoint tables name.
const specRoutes = 210

// specRoute is one route of the interface's endpoint tables, its path
// absolute (the table's base applied).
type specRoute struct{ method, path string }

func (r specRoute) String() string { return r.method + " " + r.path }

// parseSpecRoutes reads the endpoint tables of the specification's
// "Endpoints" section: every table whose header starts "| Method | Path |".
// A method cell may name several methods ("GET / PATCH"), a path cell
// several paths ("/orders, /orders/{id}"); a one-segment path after a longer
// first one replaces its last segment ("/offers/{id}/accept, /reject" is
// /offers/{id}/accept and /offers/{id}/reject). Paths are relative to
// /api/v1, those of the "Variant B surface" table to /v1.
func parseSpecRoutes(t *testing.T, file string) []specRoute {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []specRoute
	inEndpoints, inTable := false, false
	base := "/api/v1"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "## "):
			inEndpoints, inTable = line == "## Endpoints", false
			continue
		case !inEndpoints:
			continue
		case strings.HasPrefix(line, "### "):
			base, inTable = "/api/v1", false
			if strings.Contains(line, "Variant B") {
				base = "/v1"
			}
			continue
		case !strings.HasPrefix(line, "|"):
			inTable = false
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) < 2 {
			continue
		}
		if cells[0] == "Method" && cells[1] == "Path" {
			inTable = true
			continue
		}
		if !inTable || strings.Trim(cells[0], "-: ") == "" {
			continue // another kind of table, or the header's rule
		}
		paths := strings.Split(cells[1], ",")
		first := strings.TrimSpace(paths[0])
		for i, p := range paths {
			p = strings.TrimSpace(p)
			if i > 0 && strings.Count(p, "/") == 1 && strings.Count(first, "/") > 1 {
				p = first[:strings.LastIndex(first, "/")] + p
			}
			paths[i] = p
		}
		for _, m := range strings.Split(cells[0], "/") {
			for _, p := range paths {
				out = append(out, specRoute{method: strings.TrimSpace(m), path: base + p})
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var routeParam = regexp.MustCompile(`\{[^}]*\}`)

// routeKey compares routes whatever their parameters are called
// ({id} in the interface may be {orderId} in the router).
func routeKey(method, path string) string {
	return method + " " + routeParam.ReplaceAllString(path, "{}")
}

// TestInterfaceRoutesServed checks that every route of the interface's
// endpoint tables is served, in sandbox mode (the sandbox rows are in the
// tables too).
func TestInterfaceRoutesServed(t *testing.T) {
	want := parseSpecRoutes(t, specFile)
	seen := map[string]bool{}
	for _, r := range want {
		if seen[routeKey(r.method, r.path)] {
			t.Errorf("the interface names %s twice", r)
		}
		seen[routeKey(r.method, r.path)] = true
	}
	if len(want) != specRoutes {
		t.Fatalf("the interface's endpoint tables give %d routes, want %d: the parser or the copy in %s is off", len(want), specRoutes, specFile)
	}
	served := map[string]bool{}
	for _, r := range newApp(t, config.Sandbox).Router.Routes() {
		served[routeKey(r.Method, r.Pattern)] = true
	}
	var missing []string
	for _, r := range want {
		if !served[routeKey(r.method, r.path)] {
			missing = append(missing, r.String())
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("%d of the interface's %d routes are not served:\n\t%s", len(missing), len(want), strings.Join(missing, "\n\t"))
	}
	t.Logf("%d routes of the interface, %d served", len(want), len(want)-len(missing))
}
