package agentv1

import (
	"cmp"
	"context"
	"net/http"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/shipping"
)

// RegisterShipping adds the shipping quote route.
func (a *API) RegisterShipping(rt *httpapi.Router) {
	rt = rt.In("shipping")
	rt.Handle("POST", Prefix+"/listings/{id}/shipping-estimate", httpapi.Either, a.shippingEstimate)
}

// shippingEstimateBody is {zip}; buyer_zip is accepted too.
type shippingEstimateBody struct {
	Zip      string `json:"zip" ref:"ShippingZip"`
	BuyerZip string `json:"buyer_zip" ref:"ShippingZip"`
}

// shippingEstimate is POST /v1/listings/{id}/shipping-estimate {zip}: the
// listing's shipping rates to that ZIP code, each with the rate_id a
// purchase passes as carrier_rate_id. Any scope may ask.
func (a *API) shippingEstimate(w http.ResponseWriter, r *http.Request) error {
	var b shippingEstimateBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	zip, err := estimateZip(cmp.Or(b.Zip, b.BuyerZip))
	if err != nil {
		return err
	}
	id := httpapi.PathEntity(r, "listing")
	return httpapi.Reply(w, r, http.StatusOK).With(a.shippingEstimateOf(r.Context(), id, zip))
}

// estimateZip is the checked ZIP code of an estimate.
func estimateZip(zip string) (string, error) {
	var c market.Check
	if c.Require(zip != "", "zip", "is required") {
		zip = shipping.CheckZip(&c, "zip", zip)
	}
	return zip, c.Err()
}

// shippingEstimateOf is the shipping estimate of listing id to a checked
// zip: the route and the get_shipping_estimate tool.
func (a *API) shippingEstimateOf(ctx context.Context, id, zip string) (*httpapi.ShippingQuote, error) {
	q, err := a.Shipping.Quote(ctx, id, zip)
	if err != nil {
		return nil, err
	}
	out := httpapi.ToShippingQuote(q)
	return &out, nil
}
