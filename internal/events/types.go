package events

import "slices"

// The notification categories of CONTRACT.md section 12: preferences switch
// a category off per channel.
const (
	CategoryOrders   = "orders"
	CategoryOffers   = "offers"
	CategoryMessages = "messages"
	CategoryListings = "listings"
	CategoryAccount  = "account"
)

// Categories lists every category, in the order preferences show them.
var Categories = []string{CategoryOrders, CategoryOffers, CategoryMessages, CategoryListings, CategoryAccount}

// TypeTest is the event POST /auth/me/webhook/test sends to one endpoint.
const TypeTest = "webhook.test"

// publicTypes are the types that leave the service (CONTRACT.md section
// 12), each with its category: the spec's fourteen and the contract's
// additions. Every other type stays in the log.
var publicTypes = map[string]string{
	"listing.created":     CategoryListings,
	"listing.ai_complete": CategoryListings,
	"listing.sold":        CategoryListings,
	"listing.updated":     CategoryListings,
	"offer.received":      CategoryOffers,
	"offer.accepted":      CategoryOffers,
	"offer.rejected":      CategoryOffers,
	"offer.countered":     CategoryOffers,
	"offer.expired":       CategoryOffers,
	"order.created":       CategoryOrders,
	"order.shipped":       CategoryOrders,
	"order.delivered":     CategoryOrders,
	"order.disputed":      CategoryOrders,
	"order.cancelled":     CategoryOrders,
	"order.completed":     CategoryOrders,
	"payment.released":    CategoryOrders,
	"refund.issued":       CategoryOrders,
	"message.received":    CategoryMessages,
	"approval.required":   CategoryAccount,
	"agent_key.frozen":    CategoryAccount,
	TypeTest:              CategoryAccount,
}

// Public reports whether events of type typ leave the service.
func Public(typ string) bool {
	_, ok := publicTypes[typ]
	return ok
}

// Category is the notification category of a public type ("" otherwise).
func Category(typ string) string { return publicTypes[typ] }

// Types lists the public types, sorted: what a webhook may subscribe to.
func Types() []string {
	out := make([]string, 0, len(publicTypes))
	for t := range publicTypes {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}
