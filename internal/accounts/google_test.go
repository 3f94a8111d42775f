package accounts

import (
	"errors"
	"strings"
	"testing"

	"marketplace/internal/market"
)

func TestCheckReturnTo(t *testing.T) {
	good := map[string]string{
		"":                      "/",
		"/":                     "/",
		"/account":              "/account",
		"/search?q=a%20b&p=2":   "/search?q=a%20b&p=2",
		"/orders#open":          "/orders",
		"/%2F%2Fstill-a-path":   "/%2F%2Fstill-a-path",
		"/caf\u00e9":            "/caf\u00e9",
		"/a/../b":               "/a/../b", // resolved by the browser, on this host
		"/?next=https://x.test": "/?next=https://x.test",
	}
	for in, want := range good {
		got, err := CheckReturnTo(in)
		if err != nil || got != want {
			t.Errorf("CheckReturnTo(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := []string{"https://evil.test/", "HTTP://evil.test", "//evil.test", "///evil.test", "/\\evil.test", "\\/evil.test",
		"/x\\y", "javascript:alert(1)", "data:text/html,x", "evil.test", "account", "#/x", "/a b", "/a\tb", "/a\nb",
		"/\u00a0x", "/\u2028x", "/\x7f", "/" + strings.Repeat("a", MaxReturnToLen), "/\xff"}
	for _, in := range bad {
		_, err := CheckReturnTo(in)
		var e *market.Error
		if !errors.As(err, &e) || e.Code != market.CodeValidation || len(e.Fields) != 1 || e.Fields[0].Field != "return_to" {
			t.Errorf("CheckReturnTo(%q) = %v, want VALIDATION_ERROR on return_to", in, err)
		}
	}
}

func TestDisplayNameFrom(t *testing.T) {
	cases := map[[2]string]string{
		{"Ada Lovelace", "ada@x.test"}:               "Ada Lovelace",
		{"  Ada \n\t Lovelace\u0000 ", "ada@x.test"}: "Ada Lovelace",
		{"", "grace.hopper@x.test"}:                  "grace.hopper",
		{strings.Repeat("é", 100), "e@x.test"}:       strings.Repeat("é", MaxNameLen),
	}
	for in, want := range cases {
		if got := displayNameFrom(in[0], in[1]); got != want {
			t.Errorf("displayNameFrom(%q, %q) = %q, want %q", in[0], in[1], got, want)
		}
	}
}
