package testkit

import (
	"fmt"
	"testing"
)

// WantTrust fails unless obj carries a content-trust object under field
// ("contentTrust" on Variant A, "content_trust" on Variant B and MCP) that
// is untrusted, of source, with flags and fields as fmt prints them; an
// empty fields is not checked.
func WantTrust(t testing.TB, field, what string, obj map[string]any, source, flags, fields string) {
	t.Helper()
	ct, _ := obj[field].(map[string]any)
	if ct == nil || ct["untrusted"] != true || ct["source"] != source || fmt.Sprint(ct["flags"]) != flags ||
		(fields != "" && fmt.Sprint(ct["fields"]) != fields) {
		t.Fatalf("%s: %s = %v, want %s %s %s", what, field, obj[field], source, flags, fields)
	}
}

// WantNoTrust fails if any of objs carries a content-trust object under field.
func WantNoTrust(t testing.TB, field, what string, objs ...map[string]any) {
	t.Helper()
	for _, o := range objs {
		if o[field] != nil {
			t.Fatalf("%s: %s %v on %v", what, field, o[field], o)
		}
	}
}
