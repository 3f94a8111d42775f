package events

import (
	"strings"

	"marketplace/internal/market"
	"marketplace/internal/moderation"
)

// Content from others in events (CONTRACT.md section 16): an event's data
// carries text its parties wrote (a listing's title, an offer's message, a
// chat message). Read by an agent key, text another party wrote comes with
// contentTrust {untrusted, source, flags, fields}, the shape
// httpapi.ContentTrust gives every other read, placed in data beside the
// text (content_trust on snake-case surfaces).

// The trust sources of event text, as httpapi's Trust* constants name them.
const (
	trustListing = "listing"
	trustMessage = "message"
	trustOffer   = "offer"
)

// eventText is the foreign-text part of an event's data: the keys holding
// text, who wrote it and what kind of text it is.
type eventText struct {
	author string // the user who wrote it; "" when the data does not say
	source string
	keys   []string
}

// textOf finds the text in e's data d (in canonical names). ok is false
// when there is none.
func textOf(e *Event, d map[string]any) (t eventText, ok bool) {
	str := func(k string) string { s, _ := d[k].(string); return s }
	typ := e.Type
	switch {
	case typ == "message.received":
		if str("sender_id") == "" {
			return t, false // a system message: the platform's words
		}
		t = eventText{author: str("sender_id"), source: trustMessage, keys: []string{"content"}}
		if str("message_type") == "offer" {
			t.source = trustOffer
		}
	case strings.HasPrefix(typ, "offer."):
		t = eventText{source: trustOffer, keys: []string{"message"}}
		switch str("by") {
		case "buyer":
			t.author = str("buyer_id")
		case "seller":
			t.author = str("seller_id")
		case "":
			if typ == "offer.received" { // the buyer's opening offer
				t.author = str("buyer_id")
			}
		}
	case strings.HasPrefix(typ, "listing."):
		t = eventText{author: str("seller_id"), source: trustListing, keys: []string{"title", "brand"}}
	case strings.HasPrefix(typ, "order."), typ == "payment.released", typ == "refund.issued", typ == "approval.required":
		// The order's snapshot names the listing as its seller wrote it; a
		// cancelling seller's reason is theirs too (an admin's is the
		// platform's).
		t = eventText{author: str("seller_id"), source: trustListing, keys: []string{"listing_title"}}
		if typ == "order.cancelled" && (e.ActorType == market.ActorUser || e.ActorType == market.ActorAgent) {
			t.keys = append(t.keys, "reason")
		}
	default:
		return t, false
	}
	present := t.keys[:0:0]
	for _, k := range t.keys {
		if str(k) != "" {
			present = append(present, k)
		}
	}
	t.keys = present
	return t, len(present) > 0
}

// trustFor is the contentTrust of e's data for an agent key of owner, in
// the casing of the surface; nil when the data holds no text another party
// wrote. Text whose author the data does not name counts as another's.
func trustFor(e *Event, owner string, snake bool) map[string]any {
	d := Canonical(e.Data)
	t, ok := textOf(e, d)
	if !ok || (t.author != "" && t.author == owner) {
		return nil
	}
	fields := make([]moderation.TrustField, len(t.keys))
	for i, k := range t.keys {
		s, _ := d[k].(string)
		fields[i] = moderation.TrustField{Name: spellName(k, snake), Text: s}
	}
	a := moderation.AssessTrust(fields...)
	return map[string]any{"untrusted": true, "source": t.source, "flags": a.Flags, "fields": a.Fields}
}
