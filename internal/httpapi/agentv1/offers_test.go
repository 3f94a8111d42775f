package agentv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/listings"
	"marketplace/internal/testkit"
)

func TestOffersVariantB(t *testing.T) {
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
