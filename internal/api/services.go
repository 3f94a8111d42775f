package api

import (
	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/checkouts"
	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/messaging"
	"marketplace/internal/notify"
	"marketplace/internal/offers"
	"marketplace/internal/orders"
	"marketplace/internal/payments"
	"marketplace/internal/shipping"
	"marketplace/internal/webhooks"
)

// Services are the domain services the operations run on. app.New builds
// them once and every surface holds them (in its Ops), so a service is
// handed to the surfaces in one place and an operation is assembled from
// them in one place: the XOps methods beside each operation type.
type Services struct {
	Accounts  *accounts.Service
	ChatLinks *accounts.ChatLinks
	Agents    *agents.Service
	Payments  *payments.Service
	Listings  *listings.Service
	Photos    *listings.Photos
	Shipping  *shipping.Service
	Orders    *orders.Service
	Messages  *messaging.Service
	Offers    *offers.Service
	Notify    *notify.Service
	Webhooks  *webhooks.Service
	Feed      *events.FeedService
	Checkouts *checkouts.Service
	// PublicURL is where the service is reached (magic links, label URLs).
	PublicURL string
}

// Ops are the operations as one surface calls them: the shared services,
// and the surface's casing for the values a view spells by surface.
type Ops struct {
	*Services
	Casing Casing
}
