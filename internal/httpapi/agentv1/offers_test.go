package agentv1_test

import (
	"time"

	"net/http"
	"testing"

	"marketplace/internal/listings"
	"marketplace/internal/testkit"
)

func TestOffersVariantB(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("bseller")
		sellerKey := s.NewKey(seller, "sell_only").Auth()
		buyer := s.NewShopper("bbuyer", "pm_card_visa")
		s.Do("POST", "/api/v1/addresses", testkit.Address(), buyer.Auth()).Want(t, http.StatusCreated, "")
		listing := s.ActiveListing(seller, "enamel camping mug set of four", 10000)
		minimum, floor := int64(3000), int64(5000)
		s.EditListing(listing, func(l *listings.Listing) { l.AcceptOffers, l.MinOfferAmount, l.FloorPrice = true, &minimum, &floor })
		key := buyer.Key.Auth()

		// Field names are Variant B's.
		testkit.WantFields(t, s.Do("POST", "/v1/offers", map[string]any{"listing_id": listing, "amount": 10000}, key).
			Want(t, http.StatusBadRequest, "VALIDATION_ERROR"), "amount")
		testkit.WantFields(t, s.Do("POST", "/v1/offers", map[string]any{"listing_id": listing}, key).
			Want(t, http.StatusBadRequest, "VALIDATION_ERROR"), "amount")
		s.Do("POST", "/v1/offers", map[string]any{"listing_id": listing, "amount": 1000}, key).
			Want(t, http.StatusUnprocessableEntity, "BELOW_MINIMUM")
		s.Do("POST", "/v1/offers", map[string]any{"listing_id": listing, "amount": 6000}, sellerKey).
			Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")

		o := s.Do("POST", "/v1/offers", map[string]any{"listing_id": listing, "amount": 6000, "message": "Cash ready"}, key).
			Want(t, http.StatusCreated, "").Data()
		id := o["id"].(string)
		if o["status"] != "pending" || o["listing_id"] != listing || testkit.Num(t, o, "offer_price") != 6000 ||
			o["awaiting_response_from"] != "seller" || o["sent_by_agent"] != true || o["message"] != "Cash ready" {
			t.Fatalf("offer = %v", o)
		}
		sp := s.Do("GET", "/v1/account/spending", nil, key).Want(t, http.StatusOK, "").Data()
		if testkit.Num(t, sp, "reserved_for_offers") != 6210 {
			t.Fatalf("spending = %v", sp)
		}
		// The seller sees the floor; the buyer does not.
		if v := s.Do("GET", "/v1/offers/"+id, nil, sellerKey).Want(t, http.StatusOK, "").Data(); testkit.Num(t, v, "floor_price") != 5000 {
			t.Fatalf("seller view = %v", v)
		}
		if v := s.Do("GET", "/v1/offers/"+id, nil, key).Want(t, http.StatusOK, "").Data(); v["floor_price"] != nil {
			t.Fatalf("buyer view = %v", v)
		}

		respond := func(h testkit.Header, body map[string]any) *testkit.Response {
			return s.Do("POST", "/v1/offers/"+id+"/respond", body, h)
		}
		testkit.WantFields(t, respond(sellerKey, map[string]any{"action": "haggle"}).Want(t, http.StatusBadRequest, "VALIDATION_ERROR"), "action")
		testkit.WantFields(t, respond(sellerKey, map[string]any{"action": "counter"}).Want(t, http.StatusBadRequest, "VALIDATION_ERROR"), "counter_amount")
		respond(key, map[string]any{"action": "accept"}).Want(t, http.StatusForbidden, "FORBIDDEN")
		o = respond(sellerKey, map[string]any{"action": "counter", "counter_amount": 8000, "message": "Best I can do"}).Want(t, http.StatusOK, "").Data()
		if o["status"] != "countered" || testkit.Num(t, o, "counter_price") != 8000 || o["awaiting_response_from"] != "buyer" || testkit.Num(t, o, "round") != 2 {
			t.Fatalf("countered = %v", o)
		}
		// The buyer's agent accepts: it buys at once.
		o = respond(key, map[string]any{"action": "accept"}).Want(t, http.StatusOK, "").Data()
		if o["status"] != "accepted" || testkit.Num(t, o, "agreed_price") != 8000 || o["order_id"] == nil {
			t.Fatalf("accepted = %v", o)
		}
		ord := s.Do("GET", "/v1/orders/"+o["order_id"].(string), nil, key).Want(t, http.StatusOK, "").Data()
		if ord["status"] != "paid" {
			t.Fatalf("order = %v", ord)
		}
		respond(sellerKey, map[string]any{"action": "reject"}).Want(t, http.StatusConflict, "INVALID_STATE")
		sp = s.Do("GET", "/v1/account/spending", nil, key).Want(t, http.StatusOK, "").Data()
		if testkit.Num(t, sp, "reserved_for_offers") != 0 || testkit.Num(t, sp, "spent_today") != 8280 {
			t.Fatalf("spending after the purchase = %v", sp)
		}
		stranger := s.NewShopper("bstrange", "pm_card_visa")
		s.Do("GET", "/v1/offers/"+id, nil, stranger.Key.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("POST", "/v1/offers/"+id+"/respond", map[string]any{"action": "reject"}, stranger.Key.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
	})
}

// TestOffersVariantBRefusals: the area's error codes on Variant B, each
// leaving the offer as it was.
func TestOffersVariantBRefusals(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("brseller")
		sellerKey := s.NewKey(seller, "buy_sell").Auth()
		buyer := s.NewShopper("brbuyer", "pm_card_visa")
		key := buyer.Key.Auth()
		listing := s.ActiveListing(seller, "cast iron skillet ten inch", 10000)
		minimum, floor := int64(3000), int64(5000)
		s.EditListing(listing, func(l *listings.Listing) { l.AcceptOffers, l.MinOfferAmount, l.FloorPrice = true, &minimum, &floor })
		post := func(h testkit.Header, body map[string]any) *testkit.Response {
			return s.Do("POST", "/v1/offers", body, h)
		}

		post(key, map[string]any{"listing_id": "01a213b5-9c17-7bae-b83c-474d2f122a6a", "amount": 6000}).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		post(sellerKey, map[string]any{"listing_id": listing, "amount": 6000}).Want(t, http.StatusForbidden, "CANNOT_BUY_OWN_LISTING")
		post(s.NewKey(s.Register("brunver"), "buy").Auth(), map[string]any{"listing_id": listing, "amount": 6000}).
			Want(t, http.StatusForbidden, "OWNER_NOT_VERIFIED")
		closed := s.ActiveListing(seller, "cast iron dutch oven", 10000)
		s.EditListing(closed, func(l *listings.Listing) { l.AcceptOffers = false })
		post(key, map[string]any{"listing_id": closed, "amount": 6000}).Want(t, http.StatusUnprocessableEntity, "OFFERS_DISABLED")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 5000})
		r := post(key, map[string]any{"listing_id": listing, "amount": 6000}).Want(t, http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
		if d := testkit.Obj(t, r.JSON["error"].(map[string]any), "details"); d["limit_type"] != "per_transaction" || testkit.Num(t, d, "requested_amount") != 6210 {
			t.Fatalf("details = %v", d)
		}
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 10000})
		// Under the floor: 201 rejected.
		if o := post(key, map[string]any{"listing_id": listing, "amount": 4000}).Want(t, http.StatusCreated, "").Data(); o["status"] != "rejected" || o["floor_price"] != nil {
			t.Fatalf("under the floor = %v", o)
		}
		o := post(key, map[string]any{"listing_id": listing, "amount": 6000, "auto_purchase_on_accept": false}).Want(t, http.StatusCreated, "").Data()
		id := o["id"].(string)
		post(key, map[string]any{"listing_id": listing, "amount": 6500}).Want(t, http.StatusConflict, "ACTIVE_OFFER_EXISTS")
		buy := func() *testkit.Response {
			return s.Do("POST", "/v1/purchase", map[string]any{"listing_id": listing, "max_price": 10000, "offer_id": id,
				"shipping_address": testkit.Address()}, key)
		}
		buy().Want(t, http.StatusConflict, "OFFER_NOT_ACCEPTED")
		respond := func(h testkit.Header, body map[string]any) *testkit.Response {
			return s.Do("POST", "/v1/offers/"+id+"/respond", body, h)
		}
		// Rounds up to the limit (5): 4 counters, then MAX_ROUNDS_REACHED.
		for i, h := range []testkit.Header{sellerKey, key, sellerKey, key} {
			respond(h, map[string]any{"action": "counter", "counter_amount": 9000 - i*500}).Want(t, http.StatusOK, "")
		}
		before := s.Do("GET", "/v1/offers/"+id, nil, key).Want(t, http.StatusOK, "").Data()
		respond(sellerKey, map[string]any{"action": "counter", "counter_amount": 7600}).Want(t, http.StatusConflict, "MAX_ROUNDS_REACHED")
		// The round runs out.
		s.Clock.Advance(48 * time.Hour)
		respond(sellerKey, map[string]any{"action": "accept"}).Want(t, http.StatusConflict, "OFFER_EXPIRED")
		after := s.Do("GET", "/v1/offers/"+id, nil, key).Want(t, http.StatusOK, "").Data()
		if after["status"] != "expired" || after["round"] != before["round"] || after["current_price"] != before["current_price"] {
			t.Fatalf("before %v\nafter %v", before, after)
		}
		// A fresh offer, rejected by the seller with a message, then bought
		// with its id once accepted.
		o = post(key, map[string]any{"listing_id": listing, "amount": 6000}).Want(t, http.StatusCreated, "").Data()
		if o = s.Do("POST", "/v1/offers/"+o["id"].(string)+"/respond", map[string]any{"action": "reject", "message": "Too low"}, sellerKey).
			Want(t, http.StatusOK, "").Data(); o["status"] != "rejected" || o["message"] != "Too low" {
			t.Fatalf("rejected = %v", o)
		}
		o = post(key, map[string]any{"listing_id": listing, "amount": 7000, "auto_purchase_on_accept": false}).Want(t, http.StatusCreated, "").Data()
		id = o["id"].(string)
		respond(sellerKey, map[string]any{"action": "accept"}).Want(t, http.StatusOK, "")
		ord := buy().Want(t, http.StatusCreated, "").Data()
		if ord["offer_id"] != id {
			t.Fatalf("order = %v", ord)
		}
	})
}
