package apiv1

import (
	"cmp"
	"net/http"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/shipping"
)

// RegisterShipping adds the pre-checkout shipping quote routes.
func (a *API) RegisterShipping(rt *httpapi.Router) {
	rt = rt.In("shipping")
	p := Prefix
	rt.Handle("POST", p+"/shipping/rates", httpapi.Public, a.shippingRates)
	rt.Handle("POST", p+"/listings/{id}/shipping-estimate", httpapi.Public, a.shippingEstimate)
}

// shippingQuoteBody is the body of both routes; the snake_case spellings
// and a plain zip are accepted too.
type shippingQuoteBody struct {
	ListingID      string `json:"listingId" format:"uuid"`
	ListingIDSnake string `json:"listing_id" format:"uuid" doc:"Alias of 'listingId'."`
	BuyerZip       string `json:"buyerZip" ref:"ShippingZip"`
	BuyerZipSnake  string `json:"buyer_zip" ref:"ShippingZip"`
	Zip            string `json:"zip" ref:"ShippingZip"`
}

func (b *shippingQuoteBody) zip(c *market.Check) string {
	z := cmp.Or(b.BuyerZip, b.BuyerZipSnake, b.Zip)
	if !c.Require(z != "", "buyerZip", "is required") {
		return ""
	}
	return shipping.CheckZip(c, "buyerZip", z)
}

// shippingRates is POST /shipping/rates {listingId, buyerZip}.
func (a *API) shippingRates(w http.ResponseWriter, r *http.Request) error {
	var b shippingQuoteBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	var c market.Check
	id := cmp.Or(b.ListingID, b.ListingIDSnake)
	if c.Require(id != "", "listingId", "is required") {
		c.Require(market.ValidID(id), "listingId", "must be a listing id (a UUID)")
	}
	zip := b.zip(&c)
	if err := c.Err(); err != nil {
		return err
	}
	return a.writeShippingQuote(w, r, id, zip)
}

// shippingEstimate is POST /listings/{id}/shipping-estimate {buyerZip}.
func (a *API) shippingEstimate(w http.ResponseWriter, r *http.Request) error {
	var b shippingQuoteBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	var c market.Check
	zip := b.zip(&c)
	if err := c.Err(); err != nil {
		return err
	}
	return a.writeShippingQuote(w, r, r.PathValue("id"), zip)
}

func (a *API) writeShippingQuote(w http.ResponseWriter, r *http.Request, listingID, zip string) error {
	httpapi.Entity(r, "listing", listingID)
	q, err := a.Shipping.Quote(r.Context(), listingID, zip)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, httpapi.ToShippingQuote(q))
}
