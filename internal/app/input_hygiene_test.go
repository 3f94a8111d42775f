package app_test

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"marketplace/internal/audit"
	"marketplace/internal/httpapi/openapi"
	"marketplace/internal/testkit"
)

// badText is one kind of text no store may receive, as each channel spells
// it: a JSON string's contents, a percent-encoded URL or form value, and the
// raw bytes of a header or a multipart part ("" where a channel cannot
// carry it: Go's client refuses a NUL in a header).
type badText struct {
	name, json, url, raw string
}

var badTexts = []badText{
	{name: "NUL", json: `a\u0000b`, url: "a%00b", raw: ""},
	{name: "lone surrogate", json: `a\ud800b`, url: "a%ED%A0%80b", raw: "a\xed\xa0\x80b"},
	{name: "invalid UTF-8", json: "a\xffb", url: "a%FFb", raw: "a\xffb"},
}

// stringInput is one string input of an operation, as the documents
// describe it.
type stringInput struct {
	in    string // path, query, header, json, form, multipart
	name  string // the parameter, or the body field's path ("a.b[0].c")
	field string // the name an answer gives it
}

// hygieneCase is one request carrying bad text in one input.
type hygieneCase struct {
	doc, method, path string
	input             stringInput
	bad               badText
}

func (c hygieneCase) String() string {
	return fmt.Sprintf("%s %s %s %s (%s)", c.method, c.path, c.input.in, c.input.name, c.bad.name)
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// hygieneCases lists, from both published documents, every string input of
// every operation with every kind of bad text.
func hygieneCases(t *testing.T) []hygieneCase {
	var out []hygieneCase
	for _, name := range []string{openapi.A, openapi.B} {
		doc, err := openapi.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(doc.Servers[0].URL, "/")
		for path, item := range doc.Paths.Map() {
			prefix := base
			if len(item.Servers) > 0 {
				prefix = strings.TrimSuffix(item.Servers[0].URL, "/")
			}
			for method, op := range item.Operations() {
				for _, in := range operationInputs(item, op) {
					for _, bad := range badTexts {
						if (in.in == "header" || in.in == "multipart") && bad.raw == "" {
							continue
						}
						out = append(out, hygieneCase{doc: name, method: method, path: prefix + path, input: in, bad: bad})
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

func operationInputs(item *openapi3.PathItem, op *openapi3.Operation) []stringInput {
	var out []stringInput
	for _, p := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
		if p.Value == nil || !isString(p.Value.Schema) {
			continue
		}
		field := p.Value.Name
		if p.Value.In == "header" {
			if !strings.EqualFold(strings.ReplaceAll(field, "_", "-"), "Idempotency-Key") {
				continue // only headers the service stores are refused at the edge
			}
			field = "idempotencyKey"
		}
		out = append(out, stringInput{in: p.Value.In, name: p.Value.Name, field: field})
	}
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return out
	}
	for ctype, media := range op.RequestBody.Value.Content {
		kind := map[string]string{"application/json": "json", "application/x-www-form-urlencoded": "form",
			"multipart/form-data": "multipart"}[ctype]
		if kind == "" || media.Schema == nil {
			continue
		}
		for _, f := range stringFields(media.Schema, "", 0) {
			if kind != "json" && strings.ContainsAny(f, ".[") {
				continue // forms are flat
			}
			out = append(out, stringInput{in: kind, name: f, field: f})
		}
	}
	return out
}

func isString(s *openapi3.SchemaRef) bool {
	return s != nil && s.Value != nil && s.Value.Type.Is("string") && s.Value.Format != "binary"
}

// stringFields lists the paths of a schema's string fields.
func stringFields(s *openapi3.SchemaRef, path string, depth int) []string {
	if s == nil || s.Value == nil || depth > 6 {
		return nil
	}
	v := s.Value
	var out []string
	for _, sub := range v.AllOf {
		out = append(out, stringFields(sub, path, depth+1)...)
	}
	switch {
	case isString(s) && path != "":
		out = append(out, path)
	case v.Type.Is("array") && path != "":
		out = append(out, stringFields(v.Items, path+"[0]", depth+1)...)
	default:
		names := make([]string, 0, len(v.Properties))
		for n := range v.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p := n
			if path != "" {
				p = path + "." + n
			}
			out = append(out, stringFields(v.Properties[n], p, depth+1)...)
		}
	}
	return out
}

// jsonWith is a JSON body holding bad (a JSON string's contents) at path.
func jsonWith(path, bad string) []byte {
	value := `"` + bad + `"`
	parts := strings.Split(path, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		name := parts[i]
		for strings.HasSuffix(name, "[0]") {
			name, value = strings.TrimSuffix(name, "[0]"), "["+value+"]"
		}
		value = `{"` + name + `":` + value + `}`
	}
	return []byte(value)
}

// TestInputHygiene sends a NUL, a lone surrogate and invalid UTF-8 to every
// string input of both surfaces, as the published documents list them, on
// every engine: the edge refuses each with 400 VALIDATION_ERROR naming the
// input (never a 500), both engines answer alike, and each refusal leaves
// an audit entry with a safe rendering of what was refused.
func TestInputHygiene(t *testing.T) {
	t.Parallel()
	cases := hygieneCases(t)
	if len(cases) < 300 {
		t.Fatalf("only %d cases from the documents", len(cases))
	}
	var mu sync.Mutex
	answers := map[string]map[string]string{} // engine -> case -> answer
	testkit.Run(t, testkit.Options{AdminEmail: "root@example.com", Password: "correct horse battery"}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		key := s.NewKey(s.VerifiedOwner("Hy"), "buy_sell")
		got := map[string]string{}
		for _, c := range cases {
			r := send(t, s, c, testkit.Bearer(adm.Token), key.Auth())
			answer := fmt.Sprintf("%d %s %v", r.Status, r.Code(), r.Fields())
			got[c.String()] = answer
			field := c.input.field
			if c.input.in == "header" && c.doc == openapi.B {
				field = "idempotency_key"
			}
			if r.Status != http.StatusBadRequest || r.Code() != "VALIDATION_ERROR" || len(r.Fields()) != 1 || r.Fields()[0] != field {
				t.Errorf("%s: %s, want 400 VALIDATION_ERROR naming %q\n%.400s", c, answer, field, r.Body)
				continue
			}
			id := r.Header.Get("X-Request-Id")
			entries, n, err := s.App.DB.Read().ListAudit(context.Background(), audit.Filter{RequestID: id})
			if err != nil || n != 1 {
				t.Errorf("%s: %d audit entries for %s (%v)", c, n, id, err)
				continue
			}
			if e := entries[0]; e.Result != audit.Refused || e.Details["field"] == nil || e.Details["value"] == nil {
				t.Errorf("%s: audit entry %+v", c, e)
			}
		}
		mu.Lock()
		answers[t.Name()] = got
		mu.Unlock()
	})
	var first map[string]string
	var firstName string
	for name, got := range answers {
		if first == nil {
			first, firstName = got, name
			continue
		}
		for c, a := range first {
			if got[c] != a {
				t.Errorf("%s: %s answered %q, %s %q", c, firstName, a, name, got[c])
			}
		}
	}
	t.Logf("%d requests per engine", len(cases))
}

// send makes the request of c with the bad text in its input.
func send(t *testing.T, s *testkit.Server, c hygieneCase, creds ...testkit.Header) *testkit.Response {
	t.Helper()
	path := pathParam.ReplaceAllStringFunc(c.path, func(m string) string {
		if m[1:len(m)-1] == c.input.name && c.input.in == "path" {
			return c.bad.url
		}
		return "01900000-0000-7000-8000-000000000000"
	})
	headers := append([]testkit.Header{}, creds...)
	var body any
	switch c.input.in {
	case "query":
		path += "?" + c.input.name + "=" + c.bad.url
	case "header":
		headers = append(headers, testkit.Header{Name: c.input.name, Value: c.bad.raw})
	case "json":
		body = jsonWith(c.input.name, c.bad.json)
	case "form":
		body = []byte(c.input.name + "=" + c.bad.url)
		headers = append(headers, testkit.Header{Name: "Content-Type", Value: "application/x-www-form-urlencoded"})
	case "multipart":
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		_ = mw.WriteField(c.input.name, c.bad.raw)
		_ = mw.Close()
		body = b.Bytes()
		headers = append(headers, testkit.Header{Name: "Content-Type", Value: mw.FormDataContentType()})
	}
	return s.Do(c.method, path, body, headers...)
}
