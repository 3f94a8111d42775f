package events

import (
	"testing"
	"time"
)

func TestPayloadCasing(t *testing.T) {
	e := &Event{ID: "ev1", Type: "listing.updated", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Data: map[string]any{"previousPrice": 5000, "listingId": "l1", "nested": []any{map[string]any{"trackingNumber": "x"}}}}
	a := Payload(e, false)
	if a["createdAt"] != "2026-01-02T03:04:05Z" || a["data"].(map[string]any)["previousPrice"] != 5000 {
		t.Fatalf("camel %v", a)
	}
	b := Payload(e, true)
	d := b["data"].(map[string]any)
	if b["created_at"] != "2026-01-02T03:04:05Z" || d["previous_price"] != 5000 || d["listing_id"] != "l1" ||
		d["nested"].([]any)[0].(map[string]any)["tracking_number"] != "x" {
		t.Fatalf("snake %v", b)
	}
	for in, want := range map[string]string{"a": "a", "aB": "a_b", "already_snake": "already_snake", "orderId": "order_id"} {
		if got := Snake(in); got != want {
			t.Errorf("Snake(%q) = %q, want %q", in, got, want)
		}
	}
}
