package audit

import (
	"testing"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// Each money event the system records becomes its audit entry; the same
// types recorded in a person's or agent's name, and other types, do not
// (their requests are audited by the router).
func TestMoneyMove(t *testing.T) {
	for typ, action := range MoneyMoveActions() {
		e := &events.Event{ID: "ev1", Type: typ, ActorType: market.ActorSystem, EntityType: "order", EntityID: "o1",
			Data: map[string]any{"amount": int64(1234), "status": "paid", "listingTitle": "a lamp"}}
		got := MoneyMove(e, "req_1")
		if got == nil || got.Action != action || got.ActorType != market.ActorSystem || got.ActorID != "" ||
			got.EntityType != "order" || got.EntityID != "o1" || got.Result != Allowed || got.RequestID != "req_1" {
			t.Fatalf("%s: entry %+v", typ, got)
		}
		d := got.Details
		if d["amount"] != int64(1234) || d["orderStatus"] != "paid" || d["status"] != nil || d["listingTitle"] != nil ||
			d["event"] != typ || d["eventId"] != "ev1" {
			t.Fatalf("%s: details %v", typ, d)
		}
		e.ActorType, e.ActorID = market.ActorUser, "u1"
		if got := MoneyMove(e, ""); got != nil {
			t.Fatalf("%s by a user: %+v, want none", typ, got)
		}
	}
	if got := MoneyMove(&events.Event{Type: "order.shipped", ActorType: market.ActorSystem}, ""); got != nil {
		t.Fatalf("order.shipped: %+v, want none", got)
	}
}
