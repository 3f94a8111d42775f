package agentv1

import (
	"context"

	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/shipping"
)

// The tools of an order after the sale: reads, shipping, delivery,
// pickup, cancellation, refund requests and disputes. Each calls the
// operation the route it mirrors calls, and answers the same view, which
// the tools spell in snake_case.

type orderIDArgs struct {
	OrderID string `json:"order_id" format:"uuid" required:"true" doc:"The order's id (from get_orders or a purchase)."`
}

type getOrdersArgs struct {
	Role   string `json:"role" enum:",buyer,seller" doc:"Only the orders where the caller's owner is the buyer, or the seller; both when absent."`
	Status string `json:"status" maxLength:"40" doc:"Only orders in this status (e.g. 'paid', 'shipped', 'delivered', 'completed', 'cancelled')."`
	Limit  int    `json:"limit" minimum:"1" maximum:"100" doc:"Page size, 20 when absent."`
	Offset int    `json:"offset" minimum:"0"`
}

type shippingRatesArgs struct {
	OrderID   string `json:"order_id" format:"uuid" doc:"A paid order: rates for the seller to ship it now (to the order's address unless 'zip' is given). Give this or 'listing_id'."`
	ListingID string `json:"listing_id" format:"uuid" doc:"A listing: rates for a buyer before purchase; 'zip' is then required. Give this or 'order_id'."`
	Zip       string `json:"zip" maxLength:"10" doc:"The destination US ZIP code."`
}

type createShipmentArgs struct {
	OrderID        string `json:"order_id" format:"uuid" required:"true"`
	Carrier        string `json:"carrier" maxLength:"20" example:"ups" doc:"With 'tracking_number': the carrier the seller shipped with ('usps', 'ups', 'fedex' or 'dhl'). With 'buy_label': the carrier wanted for the label ('usps', 'ups' or 'fedex'; any when absent)."`
	TrackingNumber string `json:"tracking_number" maxLength:"64" doc:"The carrier's tracking number of a parcel the seller sent; spaces and dashes are ignored."`
	BuyLabel       bool   `json:"buy_label" doc:"True: the platform buys a prepaid label (its cost is taken from the seller's payout instead of the buyer's shipping) and the order is shipped with its tracking number."`
	Service        string `json:"service" maxLength:"60" doc:"With 'buy_label': the carrier's service, e.g. 'ground_advantage'; any when absent."`
}

type cancelOrderArgs struct {
	OrderID string `json:"order_id" format:"uuid" required:"true"`
	Reason  string `json:"reason" maxLength:"500" doc:"Why; recorded on the 'order.cancelled' event."`
}

type refundRequestArgs struct {
	OrderID string `json:"order_id" format:"uuid" required:"true"`
	Reason  string `json:"reason" minLength:"1" maxLength:"500" required:"true" doc:"Why the buyer wants a refund."`
	Amount  *int64 `json:"amount" minimum:"1" maximum:"1000000000" doc:"Cents to refund, up to what is refundable; everything refundable when absent."`
	Message string `json:"message" maxLength:"500" doc:"A note to the seller."`
}

type openDisputeArgs struct {
	OrderID        string   `json:"order_id" format:"uuid" required:"true"`
	Reason         string   `json:"reason" enum:"not_received,not_as_described,damaged,counterfeit,other" required:"true"`
	Description    string   `json:"description" minLength:"1" maxLength:"2000" required:"true" doc:"What went wrong, for the seller and the admin who decides."`
	EvidencePhotos []string `json:"evidence_photos" maxItems:"8" uniqueItems:"true" doc:"Photo URLs uploaded by the owner to this service."`
}

// orderTimeline is the get_order_events tool's answer (Variant A's
// /agent/orders/{id}/events), as Variant B spells lists.
type orderTimeline struct {
	OrderID string              `json:"order_id"`
	Events  []api.TimelineEvent `json:"events" doc:"Oldest first."`
}

// orderMove runs one transition of an order and answers the order.
func orderMove(fn func(ctx context.Context, c *api.Caller, id string) (*api.Order, error)) func(context.Context, *httpapi.Principal, *orderIDArgs) (any, error) {
	return func(ctx context.Context, p *httpapi.Principal, in *orderIDArgs) (any, error) {
		return fn(ctx, p, in.OrderID)
	}
}

func (a *API) orderTools() []Tool {
	ops := a.OrderOps()
	const notFound = " An unknown order is NOT_FOUND, another owner's FORBIDDEN."
	// A transition repeated is refused (INVALID_STATE) and changes
	// nothing more: those tools are idempotent in the MCP sense.
	return []Tool{
		tool(Tool{Name: "get_orders", Title: "List orders", Area: "orders", ReadOnly: true, Idempotent: true,
			Description: "The owner's orders as buyer and seller, newest first, with fees, status and tracking: {orders, total, limit, offset}. " +
				"Filter with 'role' and 'status'; page with 'limit' and 'offset'. Free; VALIDATION_ERROR on a bad filter."},
			func(ctx context.Context, p *httpapi.Principal, in *getOrdersArgs) (any, error) {
				limit := in.Limit
				if limit == 0 {
					limit = httpapi.DefaultLimit
				}
				return a.ordersOf(ctx, p, in.Role, in.Status, limit, in.Offset)
			}),
		tool(Tool{Name: "get_order_detail", Title: "Get an order", Area: "orders", ReadOnly: true, Idempotent: true,
			Description: "One order of the owner's (as buyer or seller): status, fees, shipping address, carrier and tracking, " +
				"and for the seller the commission and payout. Free." + notFound},
			func(ctx context.Context, p *httpapi.Principal, in *orderIDArgs) (any, error) {
				return a.orderOf(ctx, p, in.OrderID)
			}),
		tool(Tool{Name: "get_order_events", Title: "An order's timeline", Area: "orders", ReadOnly: true, Idempotent: true,
			Description: "Everything that happened to one order, oldest first (created, paid, shipped, delivered, refunds, disputes), " +
				"each with who did it: {order_id, events}. Free." + notFound},
			func(ctx context.Context, p *httpapi.Principal, in *orderIDArgs) (any, error) {
				es, err := ops.Events(ctx, p, in.OrderID)
				if err != nil {
					return nil, err
				}
				return &orderTimeline{OrderID: in.OrderID, Events: es}, nil
			}),
		tool(Tool{Name: "get_shipping_rates", Title: "Shipping rates", Area: "shipping", ReadOnly: true,
			Description: "Carrier rate quotes: for a listing before purchase ('listing_id' and 'zip'; pass a rate's 'rate_id' to purchase_listing as " +
				"'carrier_rate_id'), or for a paid order the seller is about to ship ('order_id'; to the order's address). Free, nothing is bought. " +
				"Errors: VALIDATION_ERROR, NOT_FOUND, INVALID_STATE (the order is not paid)."},
			func(ctx context.Context, p *httpapi.Principal, in *shippingRatesArgs) (any, error) {
				return a.shippingRatesOf(ctx, p, in)
			}),
		tool(Tool{Name: "create_shipment", Title: "Ship an order", Area: "shipping", Scope: agents.OpSell, Idempotent: true, OpenWorld: true,
			Description: "The seller ships a paid order: either with 'carrier' and 'tracking_number' of a parcel already sent (answers the order), " +
				"or 'buy_label: true' to have the platform buy a prepaid label, whose cost comes out of the seller's payout (answers the label " +
				"with its tracking number and the order). Repeating a call changes nothing: the same label is returned, never bought twice. The buyer is told it shipped. " +
				"Needs sell scope. Errors: INSUFFICIENT_SCOPE, VALIDATION_ERROR, NOT_FOUND, FORBIDDEN (the caller's owner is not the seller), INVALID_STATE."},
			func(ctx context.Context, p *httpapi.Principal, in *createShipmentArgs) (any, error) {
				return a.createShipment(ctx, p, in)
			}),
		tool(Tool{Name: "track_shipment", Title: "Track a shipment", Area: "shipping", ReadOnly: true, Idempotent: true,
			Description: "Where an order's parcel is: status, carrier, service, tracking number and tracking page, shipped and delivered times, " +
				"the estimated delivery date. For the buyer or the seller; free." + notFound},
			func(ctx context.Context, p *httpapi.Principal, in *orderIDArgs) (any, error) {
				return ops.Shipment(ctx, p, in.OrderID)
			}),
		tool(Tool{Name: "confirm_delivery", Title: "Confirm delivery", Area: "orders", Scope: agents.OpBuy, Destructive: true, Idempotent: true,
			Description: "The buyer confirms a shipped order arrived: the order becomes delivered and the seller's payout hold period starts " +
				"(a refund or dispute stays possible within its window). Cannot be undone; call it only when the owner has the item. " +
				"Needs buy scope. Errors: INSUFFICIENT_SCOPE, NOT_FOUND, FORBIDDEN (not the buyer), INVALID_STATE (not shipped)."},
			orderMove(ops.ConfirmDelivery)),
		tool(Tool{Name: "mark_pickup_ready", Title: "Ready for pickup", Area: "orders", Scope: agents.OpSell, Idempotent: true,
			Description: "The seller says a local-pickup order is ready to collect; the buyer is told. Answers the order. Needs sell scope. " +
				"Errors: INSUFFICIENT_SCOPE, NOT_FOUND, FORBIDDEN (not the seller), INVALID_STATE (not a paid pickup order)."},
			orderMove(ops.PickupReady)),
		tool(Tool{Name: "confirm_pickup", Title: "Confirm pickup", Area: "orders", Scope: agents.OpBuy, Destructive: true, Idempotent: true,
			Description: "The buyer confirms a local-pickup order was collected: the order becomes delivered and the seller's payout hold " +
				"period starts. Cannot be undone. Needs buy scope. Errors: INSUFFICIENT_SCOPE, NOT_FOUND, FORBIDDEN (not the buyer), INVALID_STATE."},
			orderMove(ops.ConfirmPickup)),
		tool(Tool{Name: "cancel_order", Title: "Cancel an order", Area: "orders", Scope: agents.OpSell, Destructive: true, Idempotent: true, OpenWorld: true,
			Description: "The seller cancels a paid order before it ships: the buyer's card is refunded in full and the listing is available again. " +
				"Cannot be undone. Needs sell scope. Errors: INSUFFICIENT_SCOPE, NOT_FOUND, FORBIDDEN (not the seller), INVALID_STATE (already shipped)."},
			func(ctx context.Context, p *httpapi.Principal, in *cancelOrderArgs) (any, error) {
				return ops.Cancel(ctx, p, in.OrderID, in.Reason)
			}),
		tool(Tool{Name: "request_refund", Title: "Request a refund", Area: "orders", Scope: agents.OpBuy,
			Description: "The buyer asks the seller for a refund of an order (all that is refundable, or 'amount' cents): answers the request, " +
				"status 'requested'; no money moves until the seller approves. One open request per order. Needs buy scope. " +
				"Errors: INSUFFICIENT_SCOPE, VALIDATION_ERROR, NOT_FOUND, FORBIDDEN (not the buyer), INVALID_STATE."},
			func(ctx context.Context, p *httpapi.Principal, in *refundRequestArgs) (any, error) {
				return ops.RequestRefund(ctx, p, in.OrderID, orders.RefundRequestInput{Reason: in.Reason,
					Amount: in.Amount, Message: in.Message})
			}),
		tool(Tool{Name: "open_dispute", Title: "Open a dispute", Area: "disputes", Scope: agents.OpBuy, Destructive: true, Idempotent: true,
			Description: "The buyer disputes an order (not received, not as described, damaged, counterfeit): the seller's payout is frozen until " +
				"an admin resolves it, possibly with a refund. Use it after request_refund failed or when the item never came; it cannot be withdrawn. " +
				"Needs buy scope. Errors: INSUFFICIENT_SCOPE, VALIDATION_ERROR, NOT_FOUND, FORBIDDEN (not the buyer), INVALID_STATE (e.g. already disputed)."},
			func(ctx context.Context, p *httpapi.Principal, in *openDisputeArgs) (any, error) {
				return a.DisputeOps().Open(ctx, p, api.DisputeOpening{OrderID: in.OrderID, Reason: in.Reason,
					Description: in.Description, EvidencePhotos: in.EvidencePhotos})
			}),
	}
}

// shippingRatesOf quotes for a listing (POST /v1/listings/{id}/shipping-
// estimate) or for a paid order (POST /api/v1/orders/{id}/shipping/rates).
func (a *API) shippingRatesOf(ctx context.Context, p *httpapi.Principal, in *shippingRatesArgs) (any, error) {
	var c market.Check
	if (in.OrderID == "") == (in.ListingID == "") {
		c.Add("order_id", "give order_id or listing_id, not both")
		return nil, c.Err()
	}
	zip := in.Zip
	if in.ListingID != "" {
		if c.Require(zip != "", "zip", "is required with listing_id") {
			zip = shipping.CheckZip(&c, "zip", zip)
		}
		if err := c.Err(); err != nil {
			return nil, err
		}
		q, err := a.Shipping.Quote(ctx, in.ListingID, zip)
		if err != nil {
			return nil, err
		}
		return httpapi.ToShippingQuote(q), nil
	}
	q, err := a.OrderOps().Rates(ctx, p, in.OrderID, zip)
	if err != nil {
		return nil, err
	}
	return httpapi.ToShippingQuote(q), nil
}

// createShipment ships with the seller's tracking number (POST
// /v1/orders/{id}/ship) or buys the platform label (POST
// /api/v1/orders/{id}/shipping/label).
func (a *API) createShipment(ctx context.Context, p *httpapi.Principal, in *createShipmentArgs) (any, error) {
	if !in.BuyLabel {
		var c market.Check
		c.Require(in.Carrier != "", "carrier", "is required unless buy_label is true")
		c.Require(in.TrackingNumber != "", "tracking_number", "is required unless buy_label is true")
		if err := c.Err(); err != nil {
			return nil, err
		}
		return a.shipOf(ctx, p, in.OrderID, &shipBody{Carrier: in.Carrier, TrackingNumber: in.TrackingNumber})
	}
	if in.TrackingNumber != "" {
		return nil, market.Invalid(market.FieldError{Field: "tracking_number", Message: "must be absent with buy_label: the label brings its own"})
	}
	return a.OrderOps().BuyLabel(ctx, p, in.OrderID, orders.LabelRequest{Carrier: in.Carrier, Service: in.Service})
}
