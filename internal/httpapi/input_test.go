package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestScanJSON(t *testing.T) {
	tests := []struct {
		name, body    string
		field, reason string // "" when the body is clean
	}{
		{"clean", `{"title":"Lamp \"brass\"\n\ttwo lines","n":1,"ok":true,"x":null,"tags":["a","é","😀"]}`, "", ""},
		{"escaped pair", `{"t":"\ud83d\ude00"}`, "", ""},
		{"NUL escape", `{"title":"a\u0000b"}`, "title", "control"},
		{"raw control", "{\"title\":\"a\x01b\"}", "title", "control"},
		{"backspace escape", `{"title":"a\bb"}`, "title", "control"},
		{"DEL", "{\"title\":\"a\x7fb\"}", "title", "control"},
		{"C1 escape", `{"title":"a\u0085b"}`, "title", "control"},
		{"lone high surrogate", `{"title":"a\ud800b"}`, "title", "surrogate"},
		{"high then non-low", `{"title":"\ud800\u0041"}`, "title", "surrogate"},
		{"lone low surrogate", `{"title":"\udc00"}`, "title", "surrogate"},
		{"invalid UTF-8", "{\"title\":\"a\xffb\"}", "title", "UTF-8"},
		{"nested", `{"shippingAddress":{"line1":"ok","city":"a\u0000"}}`, "shippingAddress.city", "control"},
		{"in array", `{"photoUrls":["a","b","\u0000"]}`, "photoUrls[2]", "control"},
		{"array of objects", `{"items":[{"a":1},{"name":"\u0001"}]}`, "items[1].name", "control"},
		{"bad key", `{"ok":{"a\u0000":1}}`, "ok", "control"},
		{"top-level string", `"\u0000"`, "body", "control"},
		{"too deep", strings.Repeat("[", 100) + strings.Repeat("]", 100), "body", "deeply"},
		// Syntax errors are the decoder's to report.
		{"broken", `{"title":`, "", ""},
		{"unterminated", `{"title":"abc`, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := scanJSON([]byte(tc.body))
			if tc.field == "" {
				if f != nil {
					t.Fatalf("refused %q: %+v", tc.body, f)
				}
				return
			}
			if f == nil || f.field != tc.field || !strings.Contains(f.problem, tc.reason) {
				t.Fatalf("got %+v, want field %q (%s)", f, tc.field, tc.reason)
			}
		})
	}
}

func TestCheckInput(t *testing.T) {
	tests := []struct {
		name, method, target, ctype, body string
		header                            [2]string
		field                             string // "" when clean
	}{
		{"clean", "POST", "/x/abc?q=lamp&n=1", "application/json", `{"a":"b"}`, [2]string{}, ""},
		{"path id", "GET", "/x/a%00b", "", "", [2]string{}, "id"},
		{"query value", "GET", "/x/abc?category=%00", "", "", [2]string{}, "category"},
		{"query invalid UTF-8", "GET", "/x/abc?q=%FF", "", "", [2]string{}, "q"},
		{"query key", "GET", "/x/abc?a%01=1", "", "", [2]string{}, "a\x01"},
		{"idempotency header", "POST", "/x/abc", "application/json", `{}`, [2]string{"Idempotency-Key", "k\xff"}, "idempotency_key"},
		{"other header ignored", "GET", "/x/abc", "", "", [2]string{"User-Agent", "a\xffb"}, ""},
		{"json body", "POST", "/x/abc", "application/json", `{"t":"\u0000"}`, [2]string{}, "t"},
		{"json without type", "POST", "/x/abc", "", `{"t":"\u0000"}`, [2]string{}, "t"},
		{"form body", "POST", "/x/abc", "application/x-www-form-urlencoded", "cardNumber=4242%00", [2]string{}, "cardNumber"},
		{"image skipped", "PUT", "/x/abc", "image/jpeg", "\x00\xff\x00", [2]string{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body))
			if tc.body == "" {
				r = httptest.NewRequest(tc.method, tc.target, nil)
			}
			r.SetPathValue("id", strings.TrimPrefix(r.URL.Path, "/x/"))
			if tc.ctype != "" {
				r.Header.Set("Content-Type", tc.ctype)
			}
			if tc.header[0] != "" {
				r.Header.Set(tc.header[0], tc.header[1])
			}
			f := checkInput(r, tc.method+" /x/{id}", true)
			if tc.field == "" {
				if f != nil {
					t.Fatalf("refused: %+v", f)
				}
			} else if f == nil || f.field != tc.field {
				t.Fatalf("got %+v, want a refusal of %q", f, tc.field)
			}
			// The body is still there for the handler.
			if tc.body != "" && f == nil {
				var b bytes.Buffer
				_, _ = b.ReadFrom(r.Body)
				if b.String() != tc.body {
					t.Fatalf("body after the check = %q, want %q", b.String(), tc.body)
				}
			}
		})
	}
}

// A body over MaxBody is passed on whole for the handler to refuse (or to
// read as an upload).
func TestCheckInputLargeBody(t *testing.T) {
	big := `{"t":"` + strings.Repeat("a", MaxBody) + `"}`
	r := httptest.NewRequest("POST", "/x/abc", strings.NewReader(big))
	if f := checkInput(r, "POST /x/abc", true); f != nil {
		t.Fatalf("refused: %+v", f)
	}
	var b bytes.Buffer
	_, _ = b.ReadFrom(r.Body)
	if b.Len() != len(big) {
		t.Fatalf("the handler sees %d bytes, want %d", b.Len(), len(big))
	}
}

func TestSafeText(t *testing.T) {
	for in, want := range map[string]string{
		"plain é 😀":   "plain é 😀",
		"a\x00b":      `a\x00b`,
		"a\xffb":      `a\xffb`,
		"a\u0085b":    `a\u0085b`,
		"line\nbreak": "line\nbreak",
	} {
		if got := SafeText(in, 100); got != want {
			t.Errorf("SafeText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := SafeText(strings.Repeat("é", 100), 11); got != strings.Repeat("é", 5) {
		t.Errorf("cut = %q, want whole characters", got)
	}
}

func TestCleanPath(t *testing.T) {
	for p, want := range map[string]bool{
		"/": true, "/api/v1/orders": true, "/api/v1/": true, "/api/v1/orders/..": false, "//": false,
		"/api//v1": false, "/api/./v1": false, "/a/b/../c": false, "": false, "*": false,
	} {
		if got := cleanPath(p); got != want {
			t.Errorf("cleanPath(%q) = %v, want %v", p, got, want)
		}
	}
}

// FuzzScanJSON: the body scan never panics, and a JSON body it passes holds
// only valid UTF-8 and, once decoded, no string with a control character
// (other than line breaks and tabs) in a key or a value.
//
//	go test -fuzz=FuzzScanJSON -fuzztime=200000x ./internal/httpapi/
func FuzzScanJSON(f *testing.F) {
	for _, seed := range []string{`{"a":"b"}`, `{"a":["\u0000"]}`, `"\ud800"`, "{\"a\":\"\xff\"}", `{"a":{"b\u0001":1}}`,
		`[1,true,null,{"x":"\ud83d\ude00"}]`, `{"t":"line\nbreak\ttab"}`, `{"a":"\u007f"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fault := scanJSON(b)
		if fault != nil || !json.Valid(b) {
			return
		}
		if !utf8.Valid(b) {
			t.Fatalf("passed invalid UTF-8: %q", b)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return
		}
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				if p := TextProblem(x); p != "" || strings.ContainsRune(x, utf8.RuneError) && !bytes.Contains(b, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(b), []byte(`\ufffd`)) {
					t.Fatalf("passed %q (%s) in %q", x, p, b)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			case map[string]any:
				for k, e := range x {
					walk(k)
					walk(e)
				}
			}
		}
		walk(v)
	})
}
