package events

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"
	"time"

	"marketplace/internal/market"
)

// An event's data is recorded in canonical names; one stored before, in
// camelCase, reads the same: each surface shows both in its own casing,
// nested maps and arrays included, and the event's own data is never
// changed.
func TestSpellBothCasings(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	canonical := map[string]any{"order_id": "o1", "listing_title": "Lamp", "seller_id": "s", "buyer_id": "b",
		"item_price": float64(5000), "changes": []any{"floorPrice", "status"}, "status": "paid",
		"parcel": map[string]any{"tracking_number": "T1", "legs": []any{map[string]any{"carrier_id": "c1"}}}}
	old := map[string]any{"orderId": "o1", "listingTitle": "Lamp", "sellerId": "s", "buyerId": "b",
		"itemPrice": float64(5000), "changes": []any{"floorPrice", "status"}, "status": "paid",
		"parcel": map[string]any{"trackingNumber": "T1", "legs": []any{map[string]any{"carrierId": "c1"}}}}
	wantA := `{"createdAt":"2026-01-02T03:04:05Z","data":{"buyerId":"b","changes":["floorPrice","status"],"itemPrice":5000,"listingTitle":"Lamp","orderId":"o1","parcel":{"legs":[{"carrierId":"c1"}],"trackingNumber":"T1"},"sellerId":"s","status":"paid"},"id":"ev1","type":"order.created"}`
	wantB := `{"created_at":"2026-01-02T03:04:05Z","data":{"buyer_id":"b","changes":["floorPrice","status"],"item_price":5000,"listing_title":"Lamp","order_id":"o1","parcel":{"legs":[{"carrier_id":"c1"}],"tracking_number":"T1"},"seller_id":"s","status":"paid"},"id":"ev1","type":"order.created"}`
	for name, data := range map[string]map[string]any{"canonical": canonical, "old camelCase row": old} {
		before := deepCopy(t, data)
		e := &Event{ID: "ev1", Type: "order.created", CreatedAt: at, Data: data}
		for _, c := range []struct {
			snake bool
			want  string
		}{{false, wantA}, {true, wantB}} {
			got, _ := json.Marshal(Payload(e, c.snake))
			if string(got) != c.want {
				t.Errorf("%s, snake %v:\n got %s\nwant %s", name, c.snake, got, c.want)
			}
			// With contentTrust for an agent key: the same, plus the trust.
			p := PayloadFor(e, c.snake, "b")
			trust, field := "contentTrust", "listingTitle"
			if c.snake {
				trust, field = "content_trust", "listing_title"
			}
			ct, _ := p["data"].(map[string]any)[trust].(map[string]any)
			if ct == nil || !reflect.DeepEqual(ct["fields"], []string{}) && !hasField(ct["fields"], field) {
				t.Errorf("%s, snake %v: trust %v", name, c.snake, p["data"])
			}
		}
		if !reflect.DeepEqual(data, before) {
			t.Errorf("%s: the event's data was changed: %v", name, data)
		}
		if got := Canonical(data); !reflect.DeepEqual(got, canonical) {
			t.Errorf("%s: canonical %v", name, got)
		}
	}
	// Spelled as asked already: no copy.
	if got := Spell(canonical, true); reflect.ValueOf(got).Pointer() != reflect.ValueOf(canonical).Pointer() {
		t.Error("canonical data copied for snake case")
	}
	if got := Spell(old, false); reflect.ValueOf(got).Pointer() != reflect.ValueOf(old).Pointer() {
		t.Error("camelCase data copied for camelCase")
	}
	// Null data stays null in camelCase and is {} in snake case, as ever.
	e := &Event{ID: "ev1", Type: "user.registered", CreatedAt: at}
	if a, b := Payload(e, false)["data"], Payload(e, true)["data"]; a.(map[string]any) != nil || b.(map[string]any) == nil {
		t.Errorf("nil data: %#v %#v", a, b)
	}
}

func hasField(v any, name string) bool {
	fs, _ := v.([]string)
	for _, f := range fs {
		if f == name {
			return true
		}
	}
	return false
}

func deepCopy(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The two spellings undo each other on every name the domain's events
// carry, so an old camelCase name and its canonical one read alike.
func TestNameSpellings(t *testing.T) {
	for snake, camel := range map[string]string{
		"offer_id": "offerId", "awaiting_response_from": "awaitingResponseFrom", "processor_refund_id": "processorRefundId",
		"status": "status", "last4": "last4", "content_trust": "contentTrust", "previous_price": "previousPrice",
	} {
		for _, in := range []string{snake, camel} {
			if got := spellName(in, true); got != snake {
				t.Errorf("snake of %q = %q, want %q", in, got, snake)
			}
			if got := spellName(in, false); got != camel {
				t.Errorf("camel of %q = %q, want %q", in, got, camel)
			}
		}
	}
}

// typicalEvent is an order.created as a feed reads it from the store: the
// order's snapshot, decoded from JSON.
func typicalEvent(camel bool) *Event {
	d := map[string]any{"order_id": "o1", "listing_id": "l1", "listing_title": "A lamp", "buyer_id": "b", "seller_id": "s",
		"status": "paid", "channel": "direct", "fulfillment_type": "shipping", "item_price": 5000.0, "shipping_cost": 800.0,
		"service_fee": 150.0, "total_charged": 5950.0, "amount_refunded": 0.0}
	if camel {
		d = maps.Collect(func(yield func(string, any) bool) {
			for k, v := range d {
				if !yield(market.CamelName(k), v) {
					return
				}
			}
		})
	}
	return &Event{ID: "ev1", Type: "order.created", CreatedAt: time.Now(), Data: d}
}

// BenchmarkPayload: one event's payload for each surface, from data
// recorded canonically (now) and in camelCase (rows stored before).
func BenchmarkPayload(b *testing.B) {
	for _, c := range []struct {
		name         string
		camel, snake bool
	}{
		{"canonical/camel", false, false}, {"canonical/snake", false, true},
		{"stored-camel/camel", true, false}, {"stored-camel/snake", true, true},
	} {
		e := typicalEvent(c.camel)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				_ = Payload(e, c.snake)
			}
		})
	}
}
