package agentv1

import (
	"context"
	"net/http"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// RegisterOrders adds the purchase and order routes of Variant B.
func (a *API) RegisterOrders(rt *httpapi.Router) {
	p := Prefix
	a.router = rt
	rt.In("purchases").Scope(agents.OpBuy).HandleIdempotent("POST", p+"/purchase", httpapi.Either, a.purchase)
	rt.In("purchases").Scope(agents.OpBuy).Handle("POST", p+"/purchase/check", httpapi.Agent, a.checkPurchase)
	rt.In("orders").Handle("GET", p+"/orders", httpapi.Either, a.listOrders)
	rt.In("orders").Handle("GET", p+"/orders/{id}", httpapi.Either, a.getOrder)
	rt.In("shipping").Scope(agents.OpSell).Handle("POST", p+"/orders/{id}/ship", httpapi.Either, a.ship)
}

type shipBody struct {
	Carrier        string `json:"carrier" example:"ups" required:"true" doc:"'usps', 'ups', 'fedex' or 'dhl', in any case; kept on the order as sent."`
	TrackingNumber string `json:"tracking_number" example:"1Z999AA10123456784" required:"true" doc:"The carrier's tracking number; spaces and dashes are ignored."`
}

// ship is POST /v1/orders/{id}/ship {carrier, tracking_number}: the seller
// marks a paid order shipped.
func (a *API) ship(w http.ResponseWriter, r *http.Request) error {
	var b shipBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := httpapi.PathEntity(r, "order")
	return httpapi.Reply(w, r, http.StatusOK).With(a.shipOf(r.Context(), httpapi.PrincipalOf(r), id, &b))
}

// shipOf is POST /v1/orders/{id}/ship and the create_shipment tool with a
// carrier and tracking number.
func (a *API) shipOf(ctx context.Context, p *httpapi.Principal, id string, b *shipBody) (*api.Order, error) {
	return a.OrderOps().Ship(ctx, p, id, orders.Shipment{Carrier: b.Carrier, TrackingNumber: b.TrackingNumber})
}

// shipTo is a postal address in a request body.
type shipTo struct {
	Name    string `json:"name"`
	Line1   string `json:"line1"`
	Line2   string `json:"line2"`
	City    string `json:"city"`
	State   string `json:"state"`
	Zip     string `json:"zip"`
	Country string `json:"country" doc:"ISO 3166-1 alpha-2, upper case."`
	Phone   string `json:"phone"`
}

// purchaseBody is Variant B's purchase: the spec's fields plus the
// address, offer and payment method fields of Variant A in snake_case.
type purchaseBody struct {
	ListingID            string  `json:"listing_id" format:"uuid" required:"true"`
	MaxPrice             *int64  `json:"max_price" minimum:"1" maximum:"1000000000" doc:"The most, in cents, the item may cost (before fees and shipping). Required for agents."`
	ExpectedPrice        *int64  `json:"expected_price" minimum:"0" maximum:"1000000000" doc:"The item price the caller saw; any other current price is 'PRICE_CHANGED'."`
	ShippingMethod       string  `json:"shipping_method" enum:",carrier,flat_rate,free,local_pickup" doc:"'local_pickup' collects the item (as 'fulfillment_type: local_pickup'); the other values ship."`
	SelectedShippingCost *int64  `json:"selected_shipping_cost" minimum:"0" maximum:"1000000000" doc:"The shipping cost the caller expects, in cents; must equal the resolved shipping cost."`
	CarrierRateID        string  `json:"carrier_rate_id" maxLength:"2048" doc:"The 'rate_id' of a shipping quote for this listing and the address's ZIP code; required for calculated shipping."`
	SelectedCarrier      string  `json:"selected_carrier" doc:"Must match the quoted rate's carrier when sent."`
	SelectedService      string  `json:"selected_service" doc:"Must match the quoted rate's service when sent."`
	ShippingAddress      *shipTo `json:"shipping_address"`
	ShippingAddressID    string  `json:"shipping_address_id" doc:"The id of one of the buyer's saved addresses."`
	FulfillmentType      string  `json:"fulfillment_type" enum:",shipping,local_pickup"`
	OfferID              string  `json:"offer_id" doc:"An accepted offer of the buyer's on this listing."`
	PaymentMethodID      string  `json:"payment_method_id" doc:"A saved card of the buyer's; the default card otherwise."`
}

func (b *purchaseBody) input() (orders.PurchaseInput, error) {
	in := orders.PurchaseInput{ListingID: b.ListingID, MaxPrice: b.MaxPrice, ExpectedPrice: b.ExpectedPrice,
		SelectedShippingCost: b.SelectedShippingCost, ShippingRateID: b.CarrierRateID, RateField: "carrier_rate_id",
		ShippingAddressID: b.ShippingAddressID, Fulfillment: b.FulfillmentType, OfferID: b.OfferID,
		PaymentMethodID: b.PaymentMethodID, SelectedCarrier: b.SelectedCarrier, SelectedService: b.SelectedService}
	switch b.ShippingMethod {
	case "", "carrier", "flat_rate", "free":
	case "local_pickup":
		if in.Fulfillment == "" {
			in.Fulfillment = string(orders.FulfillLocalPickup)
		}
	default:
		return in, market.Invalid(market.FieldError{Field: "shipping_method", Message: "must be carrier or local_pickup"})
	}
	if a := b.ShippingAddress; a != nil {
		in.ShippingAddress = &accounts.Address{Name: a.Name, Line1: a.Line1, Line2: a.Line2, City: a.City, State: a.State,
			Zip: a.Zip, Country: a.Country, Phone: a.Phone}
	}
	return in, nil
}

// purchase is POST /v1/purchase.
func (a *API) purchase(w http.ResponseWriter, r *http.Request) error {
	var b purchaseBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	o, err := a.purchaseOf(r.Context(), httpapi.PrincipalOf(r), &b)
	if o != nil {
		httpapi.Entity(r, "order", o.ID)
	}
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusCreated, o)
}

// purchaseOf is POST /v1/purchase and the purchase_listing tool: the
// order, or with APPROVAL_REQUIRED the order queued for the owner. The
// idempotency key, if any, is in ctx.
func (a *API) purchaseOf(ctx context.Context, p *httpapi.Principal, b *purchaseBody) (*api.Order, error) {
	in, err := b.input()
	if err != nil {
		return nil, err
	}
	in.RequestID = httpapi.RequestID(ctx)
	return a.OrderOps().Purchase(ctx, p, in)
}

// listOrders is GET /v1/orders: {orders, total}.
func (a *API) listOrders(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	return httpapi.Reply(w, r, http.StatusOK).With(a.ordersOf(r.Context(), httpapi.PrincipalOf(r), q.Get("role"), q.Get("status"), limit, offset))
}

// ordersOf is GET /v1/orders and the get_orders tool.
func (a *API) ordersOf(ctx context.Context, p *httpapi.Principal, role, status string, limit, offset int) (*orderPage, error) {
	os, total, err := a.OrderOps().List(ctx, p, role, status, limit, offset)
	if err != nil {
		return nil, err
	}
	return &orderPage{Orders: os, Total: total, Limit: limit, Offset: offset}, nil
}

// orderPage's fields are in the order of the map it replaces.
type orderPage struct {
	Limit  int         `json:"limit" minimum:"1" maximum:"100"`
	Offset int         `json:"offset" minimum:"0"`
	Orders []api.Order `json:"orders"`
	Total  int         `json:"total" minimum:"0" doc:"Matches over all pages."`
}

// getOrder is GET /v1/orders/{id}.
func (a *API) getOrder(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.orderOf(r.Context(), httpapi.PrincipalOf(r), r.PathValue("id")))
}

// orderOf is GET /v1/orders/{id} and the get_order_detail tool.
func (a *API) orderOf(ctx context.Context, p *httpapi.Principal, id string) (*api.Order, error) {
	return a.OrderOps().Get(ctx, p, id)
}

// purchaseCheck is POST /v1/purchase/check: the purchase dry run.
func (a *API) checkPurchase(w http.ResponseWriter, r *http.Request) error {
	var b purchaseBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	return httpapi.Reply(w, r, http.StatusOK).With(a.checkOf(r.Context(), httpapi.PrincipalOf(r), &b))
}

// checkOf is POST /v1/purchase/check and the check_purchase tool.
func (a *API) checkOf(ctx context.Context, p *httpapi.Principal, b *purchaseBody) (*api.PurchaseCheck, error) {
	in, err := b.input()
	if err != nil {
		return nil, err
	}
	// A refusal inside the answer is spelled as the purchase's envelope.
	return a.OrderOps().Check(ctx, p, in, Surface.DetailsOf("POST "+Prefix+"/purchase"))
}
