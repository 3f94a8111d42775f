package audit

import (
	"maps"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// moneyMoves names the audit action of each event type that records money
// moving, or a reservation of money ending, on the service's own account.
var moneyMoves = map[string]string{
	"payment.succeeded": "payment.capture",  // the buyer's charge, settled on the order
	"payment.failed":    "payment.void",     // a queued purchase's charge failed: the reservation is released
	"order.expired":     "checkout.expire",  // an unpaid checkout's reservation ran out
	"payment.released":  "payout.release",   // the seller's payout, transferred
	"refund.issued":     "refund.issue",     // the processor refunded the buyer
	"transfer.reversed": "transfer.reverse", // the processor took a refund back from a payout
	"label.purchased":   "label.purchase",   // a platform-funded label, bought
}

// MoneyMoveActions lists the audit actions of money moves, by event type.
func MoneyMoveActions() map[string]string { return maps.Clone(moneyMoves) }

// MoneyMove is the audit entry of an event that records a money move
// the service made itself: a job (payout release, reconciliation, automatic
// labels), a processor's webhook, or the charge a purchase request settles.
// It is written in the event's transaction (store.OnAnyEvent), so the move
// and its entry commit together. Moves made in a person's or agent's name
// (a seller buying a label) are the entries of their requests, and other
// events have none: nil. requestID names the HTTP request the move ran in,
// if any, linking the entry to the request's own.
func MoneyMove(e *events.Event, requestID string) *Entry {
	action, ok := moneyMoves[e.Type]
	if !ok || e.ActorType != market.ActorSystem {
		return nil
	}
	// The figures (cents) and ids the event recorded; the listing's title is
	// a seller's free text, not the audit's business, and an entry's
	// "status" is an HTTP status, so the order's is renamed. Audit details
	// are named in camelCase, the event's data canonically: spelled here.
	data := events.Spell(e.Data, false)
	details := make(map[string]any, len(data)+2)
	for k, v := range data {
		switch k {
		case "listingTitle":
		case "status":
			details["orderStatus"] = v
		default:
			details[k] = v
		}
	}
	details["event"], details["eventId"] = e.Type, e.ID
	return SystemEntry(e.CreatedAt, action, e.EntityType, e.EntityID, requestID, details)
}

// SystemEntry is the entry of a change the system made on its own, in no
// person's or agent's name (a money move, an agent key's freeze): actor
// system, result allowed, linked to the request it ran in (requestID; ""
// for none).
func SystemEntry(at time.Time, action, entityType, entityID, requestID string, details map[string]any) *Entry {
	return &Entry{
		ID: market.NewID(), ActorType: market.ActorSystem, Action: action, EntityType: entityType, EntityID: entityID,
		Result: Allowed, RequestID: requestID, Details: details, CreatedAt: at,
	}
}
