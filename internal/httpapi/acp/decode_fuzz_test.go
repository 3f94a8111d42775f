package acp

import (
	"bytes"
	"errors"
	"net/http/httptest"
	"testing"

	"marketplace/internal/market"
)

// FuzzDecode: no request body makes the ACP decoders, or the cart they
// become, panic or answer anything but a market error.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"line_items":[{"id":"x"}],"currency":"usd","capabilities":{}}`,
		`{"fulfillment_details":{"address":{"name":"A","line_one":"1","city":"C","state":"OR","country":"us","postal_code":"97201"}}}`,
		`{"selected_fulfillment_options":[{"type":"shipping","option_id":"o","item_ids":["li"]}]}`,
		`{"payment_data":{"handler_id":"saved_payment_method","instrument":{"type":"card","credential":{"type":"x","token":"t"}}}}`,
		`{"buyer":{"email":""}}`, `[]`, `{"line_items":7}`, `{"x":1}`, ``, `null`, `{"a":`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var mErr *market.Error
		check := func(err error) {
			if err != nil && !errors.As(err, &mErr) {
				t.Fatalf("not a market error: %v", err)
			}
		}
		var c createRequest
		if err := decode(httptest.NewRequest("POST", "/", bytes.NewReader(body)), &c, 0); err == nil {
			_, err := inputOf(c.Buyer, c.LineItems, c.FulfillmentDetails, nil)
			check(err)
		} else {
			check(err)
		}
		var u updateRequest
		if err := decode(httptest.NewRequest("POST", "/", bytes.NewReader(body)), &u, 0); err == nil {
			_, err := inputOf(u.Buyer, u.LineItems, u.FulfillmentDetails, u.Selected)
			check(err)
		} else {
			check(err)
		}
		var cp completeRequest
		check(decode(httptest.NewRequest("POST", "/", bytes.NewReader(body)), &cp, 0))
		var cn cancelRequest
		check(decode(httptest.NewRequest("POST", "/", bytes.NewReader(body)), &cn, bodyOptional|bodyOpen))
	})
}
