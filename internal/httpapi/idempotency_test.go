package httpapi

import (
	"net/http/httptest"
	"testing"
)

// The parameters compared between a request and its retry ignore key order,
// whitespace and the key field itself, and nothing else.
func TestIdemKeyParams(t *testing.T) {
	r := httptest.NewRequest("POST", "/", nil)
	k1, p1 := idemKey(r, []byte(`{"listingId":"a","maxPrice":100,"idempotencyKey":"k"}`))
	k2, p2 := idemKey(r, []byte(` { "maxPrice": 100, "idempotency_key": "k", "listingId": "a" } `))
	if k1 != "k" || k2 != "k" || string(p1) != string(p2) {
		t.Fatalf("keys %q %q, params %s vs %s", k1, k2, p1, p2)
	}
	_, p3 := idemKey(r, []byte(`{"listingId":"a","maxPrice":101,"idempotencyKey":"k"}`))
	if string(p3) == string(p1) {
		t.Fatal("a different maxPrice compares equal")
	}
	// Large integers keep every digit (no float rounding).
	_, p4 := idemKey(r, []byte(`{"maxPrice":9007199254740993}`))
	_, p5 := idemKey(r, []byte(`{"maxPrice":9007199254740992}`))
	if string(p4) == string(p5) {
		t.Fatal("large integers collapsed")
	}
	r.Header.Set("Idempotency-Key", "hdr")
	if k, _ := idemKey(r, []byte(`{"idempotencyKey":"body"}`)); k != "hdr" {
		t.Fatalf("header key lost to body key: %q", k)
	}
}

func FuzzIdemKey(f *testing.F) {
	f.Add([]byte(`{"listingId":"a","idempotencyKey":"k"}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(`{"idempotencyKey":7}`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest("POST", "/", nil)
		key, params := idemKey(r, body)
		if params == nil && len(body) > 0 {
			t.Fatal("no parameters for a body")
		}
		again, params2 := idemKey(r, body)
		if key != again || string(params) != string(params2) {
			t.Fatal("not deterministic")
		}
	})
}
