package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/orders"
)

// purchaseBody is the purchase request of both the agent and the human
// forms (the human form ignores maxPrice's requirement).
type purchaseBody struct {
	ListingID         string        `json:"listingId" format:"uuid"`
	MaxPrice          *int64        `json:"maxPrice" minimum:"1" maximum:"1000000000" doc:"The most, in cents, the item may cost (the item price, before fees and shipping)."`
	ExpectedPrice     *int64        `json:"expectedPrice" minimum:"0" maximum:"1000000000" doc:"The item price the caller saw, in cents; any other current price is 'PRICE_CHANGED'."`
	ShippingAddress   *addressInput `json:"shippingAddress"`
	ShippingAddressID string        `json:"shippingAddressId" doc:"The id of one of the buyer's saved addresses."`
	FulfillmentType   string        `json:"fulfillmentType" enum:",shipping,local_pickup" doc:"'shipping' (the default) or 'local_pickup' (the default for a pickup-only listing). 'local_pickup' is for listings whose quote says 'local_pickup_available': 'local_pickup' and 'both' listings, and any listing of a seller who offers pickup in their shipping preferences; otherwise 'VALIDATION_ERROR' on 'fulfillmentType'."`
	ShippingRateID    string        `json:"shippingRateId" maxLength:"2048" doc:"The 'rate_id' of a shipping quote for this listing and the address's ZIP code; required for calculated shipping."`
	OfferID           string        `json:"offerId" doc:"An accepted offer of the caller's on this listing; the purchase is at its 'agreedPrice'."`
	PaymentMethodID   string        `json:"paymentMethodId" doc:"A saved card of the buyer's (agent purchases); the default card otherwise."`
	BuyerZip          string        `json:"buyerZip" doc:"Fee estimates: stands in for the shipping address when none is given or saved."`
}

func (b *purchaseBody) input() orders.PurchaseInput {
	in := orders.PurchaseInput{ListingID: b.ListingID, MaxPrice: b.MaxPrice, ExpectedPrice: b.ExpectedPrice,
		ShippingAddressID: b.ShippingAddressID, Fulfillment: b.FulfillmentType, ShippingRateID: b.ShippingRateID,
		OfferID: b.OfferID, PaymentMethodID: b.PaymentMethodID, BuyerZip: b.BuyerZip}
	if b.ShippingAddress != nil {
		a := b.ShippingAddress.domain()
		in.ShippingAddress = &a
	}
	return in
}

// agentPurchase is POST /agent/purchase: off-session, with a saved card.
func (a *API) agentPurchase(w http.ResponseWriter, r *http.Request) error {
	var b purchaseBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	in := b.input()
	in.RequestID = httpapi.RequestID(r.Context())
	o, err := a.OrderOps().Purchase(r.Context(), actor(r), in)
	if o != nil {
		httpapi.Entity(r, "order", o.ID)
	}
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusCreated, o)
}

// feeEstimate is POST /agent/purchase/fee-estimate.
func (a *API) feeEstimate(w http.ResponseWriter, r *http.Request) error {
	var b purchaseBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	return httpapi.Reply(w, r, http.StatusOK).With(a.OrderOps().Estimate(r.Context(), actor(r), b.input()))
}

// checkout is Variant A's answer to a human purchase.
type checkout struct {
	OrderID      string    `json:"orderId"`
	Status       string    `json:"status" enum:"pending_payment"`
	CheckoutURL  string    `json:"checkoutUrl" doc:"The hosted payment page, '<public URL>/checkout/{orderId}'."`
	ClientSecret string    `json:"clientSecret" doc:"The payment's client secret, for Stripe Elements."`
	ExpiresAt    time.Time `json:"expiresAt" doc:"When the reservation ends (15 minutes)."`
	Order        api.Order `json:"order"`
}

// humanPurchase is POST /purchases: the listing is reserved and the buyer
// pays on the hosted page at checkoutUrl.
func (a *API) humanPurchase(w http.ResponseWriter, r *http.Request) error {
	var b purchaseBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	c, o, err := a.OrderOps().StartCheckout(r.Context(), actor(r), b.input())
	if err != nil {
		return err
	}
	httpapi.Entity(r, "order", o.ID)
	return httpapi.OK(w, r, http.StatusCreated, checkout{OrderID: o.ID, Status: o.Status,
		CheckoutURL: c.CheckoutURL, ClientSecret: c.ClientSecret, ExpiresAt: c.ExpiresAt, Order: *o})
}

type confirmBody struct {
	OrderID string `json:"orderId" format:"uuid" required:"true"`
}

// confirmPurchase is POST /purchases/confirm.
func (a *API) confirmPurchase(w http.ResponseWriter, r *http.Request) error {
	var b confirmBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "order", b.OrderID)
	return httpapi.Reply(w, r, http.StatusOK).With(a.OrderOps().Confirm(r.Context(), actor(r), b.OrderID))
}

// spendingSummary is GET /agent/purchase/spending-summary: the controls and
// where spending stands, as GET /spending-controls shows them.
func (a *API) spendingSummary(w http.ResponseWriter, r *http.Request) error {
	return a.getSpending(w, r)
}
