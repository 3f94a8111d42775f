package httpapi

import "marketplace/internal/httpapi/apidoc"

// IdempotencyKeyBody is what an idempotent route's JSON body may carry for
// the router (idemKey reads it before the handler runs). The published
// documents add it to those routes' request bodies.
type IdempotencyKeyBody struct {
	IdempotencyKey      string `json:"idempotencyKey" maxLength:"255" doc:"The idempotency key (when no 'Idempotency-Key' header is sent); not part of the compared parameters."`
	IdempotencyKeySnake string `json:"idempotency_key" maxLength:"255" doc:"Another spelling of 'idempotencyKey'."`
}

// ShippingComponents are the schemas of the shipping quote, which both
// surfaces answer in the same snake_case shape; for the snake_case surface
// (Variant B) the texts name its purchase fields.
func ShippingComponents(c Casing) []apidoc.Component {
	rate := apidoc.Component{Name: "ShippingRate", Of: shippingRate{}}
	if c == Snake {
		rate.Fields = map[string]string{
			"rate_id":      `doc:"Opaque signed token (URL-safe, under 100 characters) carrying this rate; valid until 'expires_at', only for this listing and ZIP code. Pass it as 'carrier_rate_id'; the purchase takes its shipping amount from it, never from a client-sent cost."`,
			"amount_cents": `doc:"The same price in integer cents (what 'selected_shipping_cost' must equal)."`,
		}
	}
	return []apidoc.Component{
		{Name: "ShippingQuote", Of: ShippingQuote{}, Doc: shippingQuoteDoc},
		rate,
		{Name: "ShippingAutoShip", Of: shippingAutoShip{}, Doc: `The auto-ship status: whether the order can ship on a prepaid label the platform
provides once it is paid ('method: platform_label', for the carrier and service of
the rate chosen), without the seller arranging a carrier. Every listing that ships
can; a pickup-only listing cannot ('enabled: false', 'method: null').`},
	}
}

// shippingQuoteDoc describes ShippingQuote: how each shipping type is quoted.
const shippingQuoteDoc = `How the listing's shipping type is quoted ('type'):
- 'dynamic' (calculated shipping): every carrier rate, priced from the billable weight
  (the greater of the listing's weight and its dimensional weight; a listing without a
  weight, or without dimensions, takes the seller's package defaults from their
  shipping preferences, or else counts as 1 lb in a 10 x 8 x 4 inch box) and the zone
  (1 to 8) between the seller's ship-from ZIP code and the buyer's. A seller without a US
  ship-from address ships from 64106 (Kansas City). Prices are deterministic.
- 'flat_rate' (flat_rate and both): one rate, carrier 'seller', service 'flat_rate', at
  the listing's shipping cost.
- 'free': one rate, carrier 'seller', service 'free', amount '0.00'.
- 'local_pickup': no rates ('rates' is empty, 'cheapest_cents' 0); the buyer collects.

Rates are in price order, cheapest first. 'local_pickup_available' is true for
'local_pickup' and 'both' listings, and for the other types (which say only how the
item ships) when the seller offers local pickup in their shipping preferences
('localPickup'); a purchase may then ask for 'local_pickup' fulfilment.`
