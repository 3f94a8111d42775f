package app_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The layers, bottom up: market (the shared vocabulary) and idempotency;
// the domain areas, which own their store interfaces; the live settings and
// the audit log, which the areas reach only through interfaces of their own;
// the store, which implements them; the HTTP core and its surfaces; app,
// which wires them.
// No import may run back up. These rules read the real import graph, so a
// forbidden import fails here, not in a reviewer's memory.
const module = "marketplace/"

// domainAreas know neither the store, nor HTTP handlers, nor the wiring.
var domainAreas = []string{
	"internal/accounts", "internal/activity", "internal/admin", "internal/agents", "internal/checkouts", "internal/events",
	"internal/listings", "internal/messaging", "internal/moderation", "internal/notify", "internal/offers", "internal/orders",
	"internal/payments", "internal/sandbox", "internal/shipping", "internal/webhooks",
}

// consumedAreas are services the domain areas use without knowing them:
// each area declares the small interface it needs (orders.Settings,
// listings.ChangeLog, agents.SystemAuditTx) and app adapts these packages to
// it, so no area depends on their concrete types, keys or store.
var consumedAreas = []string{"internal/settings", "internal/audit"}

// layerRules are the forbidden edges: a package matching from must not
// import a package matching to, unless it is in except.
var layerRules = []struct {
	why    string
	from   func(pkg string) bool
	to     func(imp string) bool
	except []string
}{
	{
		why:    "only app, the test kit, the commands and the surfaces themselves build on the HTTP layer",
		from:   func(string) bool { return true },
		to:     under("internal/httpapi"),
		except: []string{"internal/app", "internal/testkit", "internal/httpapi", "cmd"},
	},
	{
		why:  "the console's pages call the operations the API calls, never the store or another surface",
		from: under("internal/httpapi/console"),
		to: under("internal/store", "internal/app", "internal/jobs", "internal/httpapi/apiv1", "internal/httpapi/agentv1",
			"internal/httpapi/mcpserver", "internal/httpapi/web"),
	},
	{
		why: "the ACP binding maps the checkout sessions of internal/checkouts to ACP's wire shapes: it calls the " +
			"operations, never the store or another surface",
		from: under("internal/httpapi/acp"),
		to: under("internal/store", "internal/app", "internal/jobs", "internal/httpapi/apiv1", "internal/httpapi/agentv1",
			"internal/httpapi/mcpserver", "internal/httpapi/web", "internal/httpapi/console"),
	},
	{
		why:  "checkout sessions know no protocol: each checkout protocol is a binding over them",
		from: under("internal/checkouts"),
		to:   under("internal/httpapi", "internal/api"),
	},
	{
		why:  "no surface builds on the console (the API hands it Google sign-ins through a function)",
		from: under("internal/httpapi/apiv1", "internal/httpapi/agentv1", "internal/httpapi/mcpserver", "internal/httpapi/web"),
		to:   under("internal/httpapi/console"),
	},
	{
		why:  "the domain knows no HTTP status, request or casing",
		from: is("internal/market", "internal/idempotency"),
		to:   is("net/http"),
	},
	{
		why:  "the operations and their views know no HTTP and no store: every surface calls them",
		from: under("internal/api"),
		to:   under("net/http", "internal/store", "internal/app", "internal/jobs", "internal/config"),
	},
	{
		why:  "market is the bottom layer",
		from: is("internal/market"),
		to:   func(imp string) bool { return strings.HasPrefix(imp, module) },
	},
	{
		why:  "areas own their store interfaces; the store implements them, not the other way round",
		from: under(slices.Concat(domainAreas, consumedAreas)...),
		to:   under("internal/store", "internal/app", "internal/jobs", "internal/testkit", "internal/config", "internal/seed"),
	},
	{
		why:  "areas declare the settings and audit interfaces they need; app adapts the concrete packages to them",
		from: under(domainAreas...),
		to:   under(consumedAreas...),
	},
	{
		why:  "the store serves the areas and knows nothing above them",
		from: under("internal/store"),
		to:   under("internal/app", "internal/jobs", "internal/testkit", "internal/seed"),
	},
}

func TestLayering(t *testing.T) {
	imports := importGraph(t)
	if len(imports) < 20 {
		t.Fatalf("go list found only %d packages", len(imports))
	}
	for _, bad := range forbiddenEdges(imports) {
		t.Error(bad)
	}
}

// The rules catch an edge that breaks them, and only such edges.
func TestLayeringRulesCatchForbiddenEdges(t *testing.T) {
	for _, c := range []struct {
		from, to string
		bad      bool
	}{
		{"marketplace/internal/store", "marketplace/internal/httpapi", true},
		{"marketplace/internal/orders", "marketplace/internal/httpapi/apiv1", true},
		{"marketplace/internal/market", "net/http", true},
		{"marketplace/internal/market", "marketplace/internal/accounts", true},
		{"marketplace/internal/orders", "marketplace/internal/store", true},
		{"marketplace/internal/listings/photos", "marketplace/internal/store", true},
		{"marketplace/internal/store", "marketplace/internal/app", true},
		{"marketplace/internal/orders", "marketplace/internal/settings", true},
		{"marketplace/internal/listings", "marketplace/internal/audit", true},
		{"marketplace/internal/admin/users", "marketplace/internal/audit", true},
		{"marketplace/internal/settings", "marketplace/internal/store", true},
		{"marketplace/internal/audit", "marketplace/internal/app", true},
		{"marketplace/internal/settings", "marketplace/internal/events", false},
		{"marketplace/internal/httpapi", "marketplace/internal/settings", false},
		{"marketplace/internal/store", "marketplace/internal/audit", false},
		{"marketplace/internal/app", "marketplace/internal/settings", false},
		{"marketplace/internal/app", "marketplace/internal/httpapi", false},
		{"marketplace/internal/httpapi/apiv1", "marketplace/internal/httpapi", false},
		{"marketplace/internal/store", "marketplace/internal/orders", false},
		{"marketplace/internal/orders", "marketplace/internal/market", false},
		{"marketplace/internal/payments", "net/http", false},
		{"marketplace/internal/api", "net/http", true},
		{"marketplace/internal/api", "marketplace/internal/httpapi", true},
		{"marketplace/internal/api", "marketplace/internal/store", true},
		{"marketplace/internal/httpapi", "marketplace/internal/api", false},
		{"marketplace/internal/api", "marketplace/internal/offers", false},
		{"marketplace/internal/httpapi/console", "marketplace/internal/store", true},
		{"marketplace/internal/httpapi/console", "marketplace/internal/httpapi/apiv1", true},
		{"marketplace/internal/httpapi/apiv1", "marketplace/internal/httpapi/console", true},
		{"marketplace/internal/httpapi/console", "marketplace/internal/api", false},
		{"marketplace/internal/httpapi/console", "marketplace/internal/httpapi", false},
	} {
		got := len(forbiddenEdges(map[string][]string{c.from: {c.to}})) > 0
		if got != c.bad {
			t.Errorf("%s -> %s: forbidden = %v, want %v", c.from, c.to, got, c.bad)
		}
	}
}

func forbiddenEdges(imports map[string][]string) []string {
	var out []string
	for pkg, imps := range imports {
		rel := strings.TrimPrefix(pkg, module)
		for _, rule := range layerRules {
			if !rule.from(rel) || slices.ContainsFunc(rule.except, func(e string) bool { return under(e)(rel) }) {
				continue
			}
			for _, imp := range imps {
				if rule.to(strings.TrimPrefix(imp, module)) || rule.to(imp) {
					out = append(out, pkg+" imports "+imp+": "+rule.why)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// importGraph maps every package of the module (test files aside) to what
// it imports.
func importGraph(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", module+"...")
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		graph[p.ImportPath] = p.Imports
	}
	return graph
}

// under matches the module-relative paths of packages at or below roots.
func under(roots ...string) func(string) bool {
	return func(p string) bool {
		for _, r := range roots {
			if p == r || strings.HasPrefix(p, r+"/") {
				return true
			}
		}
		return false
	}
}

// is matches exactly these paths (module-relative or standard library).
func is(paths ...string) func(string) bool {
	return func(p string) bool { return slices.Contains(paths, p) }
}
