package app_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/openapi"
	"marketplace/internal/jobs"
	"marketplace/internal/market"
	"marketplace/internal/store/storetest"
)

// rootTwins are root routes that answer exactly as their /api/v1 twins; the
// documents describe them once, under /api/v1.
var rootTwins = map[string]string{"/": "/api/v1/", "/health": "/api/v1/health", "/health/deep": "/api/v1/health/deep"}

// documentedOp is one operation of a published document, with its full path
// (the server prefix applied).
type documentedOp struct {
	doc    string // openapi.A or openapi.B
	method string
	path   string
	op     *openapi3.Operation
}

func (d documentedOp) key() string { return d.method + " " + d.path }

// documentedOps lists every operation of a document under its full path:
// the path item's own servers win over the document's.
func documentedOps(t *testing.T, name string) []documentedOp {
	t.Helper()
	doc, err := openapi.Load(name)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	if len(doc.Servers) != 1 {
		t.Fatalf("%s: want exactly one server, got %d", name, len(doc.Servers))
	}
	var out []documentedOp
	for path, item := range doc.Paths.Map() {
		base := doc.Servers[0].URL
		if len(item.Servers) > 0 {
			base = item.Servers[0].URL
		}
		full := strings.TrimSuffix(base, "/") + path
		for method, op := range item.Operations() {
			out = append(out, documentedOp{doc: name, method: method, path: full, op: op})
		}
	}
	return out
}

// newApp builds the service in mode on a fresh SQLite store.
func newApp(t *testing.T, mode config.Mode) *app.App {
	t.Helper()
	db := storetest.OpenSQLite(t)
	ctx := context.Background()
	if err := jobs.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	cfg := config.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), Mode: mode, PublicURL: "http://127.0.0.1:0",
		JWTSecret: "coverage-secret-0123456789abcdef0123456789"}
	a, err := app.New(ctx, cfg, db, app.Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// docFor is the document that must describe a served path.
func docFor(path string) string {
	if strings.HasPrefix(path, "/v1/") {
		return openapi.B
	}
	return openapi.A
}

// wantSecurity is the security an operation served with auth must declare,
// as sorted alternatives ("" is "no credentials").
func wantSecurity(auth httpapi.Auth) []string {
	switch auth {
	case httpapi.Bearer, httpapi.Admin:
		return []string{"bearerAuth"}
	case httpapi.Agent:
		return []string{"agentKey"}
	case httpapi.Either:
		return []string{"agentKey", "bearerAuth"}
	case httpapi.Optional:
		return []string{"", "agentKey", "bearerAuth"}
	}
	return []string{""}
}

// gotSecurity flattens an operation's security requirements the same way.
// An operation must state its security itself: the documents have no global
// default, so a missing list would read as "public" by accident.
func gotSecurity(op *openapi3.Operation) []string {
	if op.Security == nil {
		return nil
	}
	if len(*op.Security) == 0 {
		return []string{""}
	}
	var out []string
	for _, req := range *op.Security {
		names := make([]string, 0, len(req))
		for n := range req {
			names = append(names, n)
		}
		sort.Strings(names)
		out = append(out, strings.Join(names, "+"))
	}
	sort.Strings(out)
	return out
}

// TestOpenAPICoverage proves the published documents and the router agree
// both ways: every served route is documented (in the right document, with
// the right security), and every documented operation is served.
func TestOpenAPICoverage(t *testing.T) {
	ops := append(documentedOps(t, openapi.A), documentedOps(t, openapi.B)...)
	byKey := map[string]documentedOp{}
	var problems []string
	for _, d := range ops {
		if prev, dup := byKey[d.key()]; dup {
			problems = append(problems, fmt.Sprintf("%s is documented twice (%s and %s)", d.key(), prev.doc, d.doc))
		}
		byKey[d.key()] = d
		if want := docFor(d.path); d.doc != want {
			problems = append(problems, fmt.Sprintf("%s is documented in %s but belongs in %s", d.key(), d.doc, want))
		}
	}

	for _, mode := range []config.Mode{config.Sandbox, config.Live} {
		t.Run(string(mode), func(t *testing.T) {
			problems := slices.Clone(problems)
			routes := newApp(t, mode).Router.Routes()
			if len(routes) == 0 {
				t.Fatal("the router lists no routes")
			}
			served := map[string]bool{}
			for _, r := range routes {
				if slices.Contains(r.Areas, "console") {
					continue // the web console's pages are HTML for browsers, no API (docs/console.md)
				}
				if slices.Contains(r.Areas, "acp") {
					continue // ACP's own published documents describe /acp (acpcheck checks every exchange)
				}
				key := r.Method + " " + r.Pattern
				served[key] = true
				path := r.Pattern
				if twin, ok := rootTwins[path]; ok {
					path = twin
				}
				d, ok := byKey[r.Method+" "+path]
				if !ok {
					problems = append(problems, fmt.Sprintf("served but not documented: %s (expected in %s)", key, docFor(path)))
					continue
				}
				if got, want := gotSecurity(d.op), wantSecurity(r.Auth); !slices.Equal(got, want) {
					problems = append(problems, fmt.Sprintf("%s: documented security %q, served with %q", key, got, want))
				}
			}
			for _, d := range ops {
				if served[d.key()] {
					continue
				}
				if sandboxOnly(d.op) && mode != config.Sandbox {
					continue
				}
				problems = append(problems, fmt.Sprintf("documented in %s but not served in %s mode: %s", d.doc, mode, d.key()))
			}
			if mode == config.Live {
				for _, d := range ops {
					if sandboxOnly(d.op) && served[d.key()] {
						problems = append(problems, fmt.Sprintf("%s is marked x-sandbox-only but served in live mode", d.key()))
					}
				}
			}
			report(t, problems)
		})
	}
}

func sandboxOnly(op *openapi3.Operation) bool {
	v, _ := op.Extensions["x-sandbox-only"].(bool)
	return v
}

// TestOpenAPIOperations checks what every operation must carry: a unique
// operationId, a summary and tags, a success answer, and the error answers
// its shape implies (401 and 403 behind credentials, 400 and 413 with a
// body), all of them in the envelope of their document.
func TestOpenAPIOperations(t *testing.T) {
	for _, name := range []string{openapi.A, openapi.B} {
		t.Run(name, func(t *testing.T) {
			var problems []string
			ids := map[string]string{}
			for _, d := range documentedOps(t, name) {
				op, key := d.op, d.key()
				if op.OperationID == "" {
					problems = append(problems, key+": no operationId")
				} else if prev, dup := ids[op.OperationID]; dup {
					problems = append(problems, fmt.Sprintf("%s: operationId %q already used by %s", key, op.OperationID, prev))
				}
				ids[op.OperationID] = key
				if op.Summary == "" || len(op.Tags) == 0 {
					problems = append(problems, key+": needs a summary and tags")
				}
				var success bool
				for status := range op.Responses.Map() {
					success = success || strings.HasPrefix(status, "2")
				}
				if !success {
					problems = append(problems, key+": no 2xx response")
				}
				need := []string{}
				if sec := gotSecurity(op); sec == nil {
					problems = append(problems, key+": security is not stated")
				} else if !slices.Equal(sec, []string{""}) {
					need = append(need, "401", "403")
				}
				if op.RequestBody != nil {
					need = append(need, "400", "413")
				}
				for _, status := range need {
					if op.Responses.Value(status) == nil {
						problems = append(problems, fmt.Sprintf("%s: no %s response", key, status))
					}
				}
				for status, ref := range op.Responses.Map() {
					if !strings.HasPrefix(status, "4") && !strings.HasPrefix(status, "5") {
						continue
					}
					mt := ref.Value.Content.Get("application/json")
					if mt == nil || mt.Schema == nil || !strings.HasSuffix(mt.Schema.Ref, "/ErrorEnvelope") {
						problems = append(problems, fmt.Sprintf("%s: response %s is not the error envelope", key, status))
					}
				}
			}
			report(t, problems)
		})
	}
}

// TestOpenAPIErrorCodes checks that each document's ErrorCode enum is
// exactly the set of codes the service can answer with.
func TestOpenAPIErrorCodes(t *testing.T) {
	var want []string
	for _, c := range market.Codes() {
		want = append(want, string(c))
	}
	sort.Strings(want)
	for _, name := range []string{openapi.A, openapi.B} {
		doc, err := openapi.Load(name)
		if err != nil {
			t.Fatalf("load %s: %v", name, err)
		}
		ref := doc.Components.Schemas["ErrorCode"]
		if ref == nil || ref.Value == nil {
			t.Fatalf("%s: no ErrorCode schema", name)
		}
		var got []string
		for _, v := range ref.Value.Enum {
			got = append(got, fmt.Sprint(v))
		}
		var problems []string
		for _, c := range want {
			if !slices.Contains(got, c) {
				problems = append(problems, "ErrorCode lacks "+c)
			}
		}
		for _, c := range got {
			if !slices.Contains(want, c) {
				problems = append(problems, "ErrorCode lists "+c+", which the service does not have")
			}
		}
		if len(got) != len(want) && len(problems) == 0 {
			problems = append(problems, "ErrorCode lists a code twice")
		}
		t.Run(name, func(t *testing.T) { report(t, problems) })
	}
}

func report(t *testing.T, problems []string) {
	t.Helper()
	if len(problems) == 0 {
		return
	}
	sort.Strings(problems)
	t.Errorf("%d OpenAPI mismatches:\n  %s", len(problems), strings.Join(problems, "\n  "))
}
