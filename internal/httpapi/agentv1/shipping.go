package agentv1

import (
	"cmp"
	"net/http"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/shipping"
)

// RegisterShipping adds the shipping quote route.
func (a *API) RegisterShipping(rt *httpapi.Router) {
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
	var c market.Check
	zip := cmp.Or(b.Zip, b.BuyerZip)
	if c.Require(zip != "", "zip", "is required") {
		zip = shipping.CheckZip(&c, "zip", zip)
	}
	if err := c.Err(); err != nil {
		return err
	}
	id := r.PathValue("id")
	httpapi.Entity(r, "listing", id)
	q, err := a.Shipping.Quote(r.Context(), id, zip)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, httpapi.ToShippingQuote(q))
}
