package apiv1_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/settings"
	"marketplace/internal/testkit"
)

// offerScene is a listing of 10000 cents (free shipping) taking offers of at
// least 3000 with a private floor of 5000, its seller (with a buy_sell key),
// and a buyer whose agent can buy: verified, a card and a default address.
type offerScene struct {
	seller    *testkit.User
	sellerKey *testkit.Key
	buyer     *testkit.Shopper
	listing   string
}

func newOfferScene(t *testing.T, s *testkit.Server, name string) offerScene {
	t.Helper()
	sc := offerScene{seller: s.VerifiedOwner(name + "seller")}
	sc.sellerKey = s.NewKey(sc.seller, "buy_sell")
	sc.buyer = s.NewShopper(name+"buyer", "pm_card_visa")
	s.Do("POST", "/api/v1/addresses", testkit.Address(), sc.buyer.Auth()).Want(t, http.StatusCreated, "")
	sc.listing = offerListing(t, s, sc.seller, name+" walnut side table", 10000)
	return sc
}

func offerListing(t *testing.T, s *testkit.Server, seller *testkit.User, brief string, price int64) string {
	t.Helper()
	id := s.ListingWith(t, seller, brief, price, nil)
	minimum, floor, cost := int64(3000), int64(5000), int64(2000)
	s.EditListing(id, func(l *listings.Listing) {
		l.AcceptOffers, l.MinOfferAmount, l.FloorPrice, l.CostBasis = true, &minimum, &floor, &cost
	})
	return id
}

func (sc offerScene) offer(t *testing.T, s *testkit.Server, amount int64, extra ...any) map[string]any {
	t.Helper()
	body := testkit.Body(map[string]any{"listingId": sc.listing, "offerPrice": amount, "message": "Would you take this?"}, extra...)
	return s.Do("POST", "/api/v1/agent/offers", body, sc.buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()
}

// offerNow reads an offer as its buyer's agent.
func offerNow(t *testing.T, s *testkit.Server, sc offerScene, id string) map[string]any {
	t.Helper()
	return s.Do("GET", "/api/v1/agent/offers/"+id, nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "").Data()
}

// sameOffer fails unless the offer reads as it did (a refused move changed nothing).
func sameOffer(t *testing.T, s *testkit.Server, sc offerScene, before map[string]any) {
	t.Helper()
	after := offerNow(t, s, sc, before["id"].(string))
	a, _ := json.Marshal(after)
	b, _ := json.Marshal(before)
	if string(a) != string(b) {
		t.Fatalf("offer changed by a refused move:\n before %s\n after  %s", b, a)
	}
}

func offerEvents(t *testing.T, s *testkit.Server, id string) []string {
	t.Helper()
	evs, err := s.App.DB.Read().EventsFor(t.Context(), "offer", id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func reserved(t *testing.T, s *testkit.Server, auth testkit.Header) map[string]any {
	t.Helper()
	return s.Do("GET", "/api/v1/spending-controls", nil, auth).Want(t, http.StatusOK, "").Data()
}

func TestOfferNegotiation(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "nego")
		stranger := s.VerifiedOwner("strangr")
		now := s.Clock.Now()
		o := sc.offer(t, s, 6000)
		id := o["id"].(string)
		if o["status"] != "pending" || testkit.Num(t, o, "round") != 1 || o["awaitingResponseFrom"] != "seller" ||
			testkit.Num(t, o, "offerPrice") != 6000 || testkit.Num(t, o, "currentPrice") != 6000 || o["counterPrice"] != nil ||
			o["agreedPrice"] != nil || o["sentByAgent"] != true || o["buyerId"] != sc.buyer.ID || o["sellerId"] != sc.seller.ID ||
			testkit.Num(t, o, "maxRounds") != 5 || o["autoPurchaseOnAccept"] != true || o["orderId"] != nil {
			t.Fatalf("new offer = %v", o)
		}
		if _, ok := o["floorPrice"]; ok {
			t.Fatalf("the buyer sees the floor: %v", o)
		}
		if exp, _ := time.Parse(time.RFC3339Nano, o["expiresAt"].(string)); !exp.Equal(now.Add(48 * time.Hour)) {
			t.Fatalf("expiresAt = %v, want 48 hours after %v", o["expiresAt"], now)
		}
		if rs := o["rounds"].([]any); len(rs) != 1 || rs[0].(map[string]any)["by"] != "buyer" {
			t.Fatalf("rounds = %v", o["rounds"])
		}

		// The seller's view carries the private figures.
		sv := s.Do("GET", "/api/v1/offers/"+id, nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
		if testkit.Num(t, sv, "floorPrice") != 5000 || testkit.Num(t, sv, "costBasis") != 2000 {
			t.Fatalf("seller view = %v", sv)
		}
		// One open offer per buyer and listing.
		s.Do("POST", "/api/v1/agent/offers", map[string]any{"listingId": sc.listing, "offerPrice": 6500},
			sc.buyer.Key.Auth()).Want(t, http.StatusConflict, "ACTIVE_OFFER_EXISTS")
		// The active offer on the listing.
		act := s.Do("GET", "/api/v1/agent/offers/listing/"+sc.listing, nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "").Data()
		if act["id"] != id {
			t.Fatalf("active offer = %v", act)
		}
		// Only the party asked answers; strangers do not see it.
		o = offerNow(t, s, sc, id)
		s.Do("POST", "/api/v1/agent/offers/"+id+"/accept", nil, sc.buyer.Key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("POST", "/api/v1/agent/offers/"+id+"/counter", map[string]any{"counterPrice": 6500}, sc.buyer.Key.Auth()).
			Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("GET", "/api/v1/offers/"+id, nil, stranger.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("POST", "/api/v1/offers/"+id+"/accept", nil, stranger.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("POST", "/api/v1/offers/"+id+"/withdraw", nil, sc.seller.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("POST", "/api/v1/agent/offers/"+id+"/counter", map[string]any{"counterPrice": 10000}, sc.sellerKey.Auth()).
			Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		s.Do("POST", "/api/v1/agent/offers/"+id+"/counter", map[string]any{}, sc.sellerKey.Auth()).
			Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		sameOffer(t, s, sc, o)

		// The seller counters, the buyer counters back, the seller accepts:
		// the buyer's agent buys at the agreed price at once.
		o = s.Do("POST", "/api/v1/agent/offers/"+id+"/counter", map[string]any{"counterPrice": 8000, "message": "Meet me higher"},
			sc.sellerKey.Auth()).Want(t, http.StatusOK, "").Data()
		if o["status"] != "countered" || testkit.Num(t, o, "round") != 2 || o["awaitingResponseFrom"] != "buyer" ||
			testkit.Num(t, o, "counterPrice") != 8000 || testkit.Num(t, o, "currentPrice") != 8000 || o["message"] != "Meet me higher" {
			t.Fatalf("countered = %v", o)
		}
		s.Do("POST", "/api/v1/offers/"+id+"/accept", nil, sc.seller.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		// The buyer's counter is checked against the minimum.
		s.Do("POST", "/api/v1/agent/offers/"+id+"/counter", map[string]any{"counterPrice": 2000}, sc.buyer.Key.Auth()).
			Want(t, http.StatusUnprocessableEntity, "BELOW_MINIMUM")
		o = s.Do("POST", "/api/v1/agent/offers/"+id+"/counter", map[string]any{"counterPrice": 7000}, sc.buyer.Key.Auth()).
			Want(t, http.StatusOK, "").Data()
		if testkit.Num(t, o, "round") != 3 || o["awaitingResponseFrom"] != "seller" {
			t.Fatalf("buyer's counter = %v", o)
		}
		o = s.Do("POST", "/api/v1/offers/"+id+"/accept", map[string]any{"message": "Deal"}, sc.seller.Auth()).
			Want(t, http.StatusOK, "").Data()
		if o["status"] != "accepted" || testkit.Num(t, o, "agreedPrice") != 7000 || o["awaitingResponseFrom"] != nil || o["orderId"] == nil {
			t.Fatalf("accepted = %v", o)
		}
		ord := s.Do("GET", "/api/v1/agent/orders/"+o["orderId"].(string), nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "").Data()
		if ord["status"] != "paid" || ord["offerId"] != id || testkit.Num(t, testkit.Obj(t, ord, "fees"), "itemPrice") != 7000 {
			t.Fatalf("order = %v", ord)
		}
		// Decided: no more answers.
		s.Do("POST", "/api/v1/offers/"+id+"/reject", nil, sc.seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		s.Do("POST", "/api/v1/agent/offers/"+id+"/withdraw", nil, sc.buyer.Key.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		want := []string{"offer.received", "offer.countered", "offer.countered", "offer.accepted"}
		if got := offerEvents(t, s, id); len(got) != len(want) || got[0] != want[0] || got[3] != want[3] {
			t.Fatalf("events %v, want %v", got, want)
		}
		// The lists.
		bl := s.Do("GET", "/api/v1/agent/offers/buyer/me", nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "").List()
		if len(bl) != 1 || bl[0].(map[string]any)["id"] != id {
			t.Fatalf("buyer list = %v", bl)
		}
		sl := s.Do("GET", "/api/v1/offers/seller/me?status=accepted", nil, sc.seller.Auth()).Want(t, http.StatusOK, "").List()
		if len(sl) != 1 || testkit.Num(t, sl[0].(map[string]any), "floorPrice") != 5000 {
			t.Fatalf("seller list = %v", sl)
		}
		s.Do("GET", "/api/v1/offers/seller/me?status=nope", nil, sc.seller.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		s.Do("GET", "/api/v1/agent/offers/listing/"+sc.listing, nil, sc.buyer.Key.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
	})
}

func TestOfferRefusals(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "refuse")
		key := sc.buyer.Key.Auth()
		post := func(body map[string]any, h testkit.Header) *testkit.Response {
			return s.Do("POST", "/api/v1/agent/offers", body, h)
		}
		base := func() map[string]any { return map[string]any{"listingId": sc.listing, "offerPrice": 6000} }
		testkit.WantFields(t, post(testkit.Body(base(), "offerPrice", testkit.Drop), key).Want(t, http.StatusBadRequest, "VALIDATION_ERROR"), "offerPrice")
		testkit.WantFields(t, post(testkit.Body(base(), "offerPrice", 10000), key).Want(t, http.StatusBadRequest, "VALIDATION_ERROR"), "offerPrice")
		post(testkit.Body(base(), "offerPrice", 2999), key).Want(t, http.StatusUnprocessableEntity, "BELOW_MINIMUM")
		sellerCard := s.SaveCard(sc.seller, "pm_card_visa")
		testkit.WantFields(t, post(testkit.Body(base(), "paymentMethodId", sellerCard, "shippingAddressId", market.NewID()), key).
			Want(t, http.StatusBadRequest, "VALIDATION_ERROR"), "paymentMethodId", "shippingAddressId")
		post(testkit.Body(base(), "listingId", market.NewID()), key).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		post(base(), sc.sellerKey.Auth()).Want(t, http.StatusForbidden, "CANNOT_BUY_OWN_LISTING")
		post(base(), s.NewKey(sc.buyer.User, "sell_only").Auth()).Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
		unverified := s.Register("unverif")
		post(base(), s.NewKey(unverified, "buy_sell").Auth()).Want(t, http.StatusForbidden, "OWNER_NOT_VERIFIED")
		closed := offerListing(t, s, sc.seller, "closed brass lamp", 10000)
		s.EditListing(closed, func(l *listings.Listing) { l.AcceptOffers = false })
		post(testkit.Body(base(), "listingId", closed), key).Want(t, http.StatusUnprocessableEntity, "OFFERS_DISABLED")
		if l := s.Do("GET", "/api/v1/agent/offers/buyer/me", nil, key).Want(t, http.StatusOK, "").List(); len(l) != 0 {
			t.Fatalf("refused offers were made: %v", l)
		}

		// Under the floor: 201, rejected at once, nothing about the floor.
		o := sc.offer(t, s, 4000)
		if o["status"] != "rejected" || o["awaitingResponseFrom"] != nil {
			t.Fatalf("under-floor offer = %v", o)
		}
		if _, ok := o["floorPrice"]; ok {
			t.Fatal("the floor was revealed")
		}
		// A rejected offer is not open: a new one may be made, and withdrawn.
		o = sc.offer(t, s, 6000)
		s.Do("POST", "/api/v1/agent/offers/"+o["id"].(string)+"/counter", map[string]any{"counterPrice": 7000},
			s.NewKey(sc.seller, "buy_only").Auth()).Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
		w := s.Do("POST", "/api/v1/agent/offers/"+o["id"].(string)+"/withdraw", nil, key).Want(t, http.StatusOK, "").Data()
		if w["status"] != "withdrawn" {
			t.Fatalf("withdrawn = %v", w)
		}
		s.Do("POST", "/api/v1/offers/"+o["id"].(string)+"/accept", nil, sc.seller.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
	})
}

func TestOfferRoundsAndExpiry(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "rounds")
		raw, _ := json.Marshal(2)
		if _, err := s.App.Settings.Set(t.Context(), market.System, settings.OfferMaxRounds.Name(), raw); err != nil {
			t.Fatal(err)
		}
		o := sc.offer(t, s, 6000)
		id := o["id"].(string)
		if testkit.Num(t, o, "maxRounds") != 2 {
			t.Fatalf("maxRounds = %v", o["maxRounds"])
		}
		s.Do("POST", "/api/v1/agent/offers/"+id+"/counter", map[string]any{"counterPrice": 9000}, sc.sellerKey.Auth()).Want(t, http.StatusOK, "")
		o = offerNow(t, s, sc, id)
		s.Do("POST", "/api/v1/agent/offers/"+id+"/counter", map[string]any{"counterPrice": 7000}, sc.buyer.Key.Auth()).
			Want(t, http.StatusConflict, "MAX_ROUNDS_REACHED")
		sameOffer(t, s, sc, o)

		// 48 hours after the round: OFFER_EXPIRED, and time-advance marks it.
		s.Clock.Advance(48 * time.Hour)
		s.Do("POST", "/api/v1/agent/offers/"+id+"/accept", nil, sc.buyer.Key.Auth()).Want(t, http.StatusConflict, "OFFER_EXPIRED")
		adv := s.Do("POST", "/v1/sandbox/time-advance/1", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").Data()
		if testkit.Num(t, adv, "offers_expired") != 1 {
			t.Fatalf("time-advance = %v", adv)
		}
		if o = offerNow(t, s, sc, id); o["status"] != "expired" {
			t.Fatalf("after time-advance = %v", o)
		}
		if ev := offerEvents(t, s, id); ev[len(ev)-1] != "offer.expired" {
			t.Fatalf("events = %v", ev)
		}
		s.Do("POST", "/api/v1/agent/offers/"+id+"/withdraw", nil, sc.buyer.Key.Auth()).Want(t, http.StatusConflict, "OFFER_EXPIRED")
	})
}

func TestOfferPurchaseWithOfferID(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "byid")
		key := sc.buyer.Key.Auth()
		buy := func(offerID string) *testkit.Response {
			return s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": sc.listing, "maxPrice": 10000, "offerId": offerID}, key)
		}
		s.SetControls(sc.buyer.User, map[string]any{"dailyLimit": 10000})
		o := sc.offer(t, s, 6000, "autoPurchaseOnAccept", false)
		id := o["id"].(string)
		buy(id).Want(t, http.StatusConflict, "OFFER_NOT_ACCEPTED")
		// 6000 plus the 3.5% fee (210) is held of the daily cap.
		sp := reserved(t, s, key)
		if testkit.Num(t, sp, "reservedForOffers") != 6210 || testkit.Num(t, testkit.Obj(t, sp, "remaining"), "daily") != 3790 {
			t.Fatalf("spending = %v", sp)
		}
		o = s.Do("POST", "/api/v1/offers/"+id+"/accept", nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
		if o["status"] != "accepted" || o["orderId"] != nil {
			t.Fatalf("accepted without auto-purchase = %v", o)
		}
		// The purchase with offerId pays the agreed price; its reservation is
		// not counted twice (6210 + 6210 would pass the 10000 cap).
		ord := buy(id).Want(t, http.StatusCreated, "").Data()
		if fees := testkit.Obj(t, ord, "fees"); testkit.Num(t, fees, "itemPrice") != 6000 || testkit.Num(t, fees, "totalCharged") != 6210 {
			t.Fatalf("order = %v", ord)
		}
		sp = reserved(t, s, key)
		if testkit.Num(t, sp, "reservedForOffers") != 0 || testkit.Num(t, testkit.Obj(t, sp, "spent"), "today") != 6210 {
			t.Fatalf("spending after the purchase = %v", sp)
		}
		if o = offerNow(t, s, sc, id); o["orderId"] != ord["id"] {
			t.Fatalf("offer after purchase = %v", o)
		}
	})
}

func TestOfferAcceptedPurchaseFailsThenExpires(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "decl")
		// A buyer whose only card declines: the accepted offer waits.
		decl := s.NewShopper("declbuyer", "pm_card_chargeDeclined")
		s.Do("POST", "/api/v1/addresses", testkit.Address(), decl.Auth()).Want(t, http.StatusCreated, "")
		o := s.Do("POST", "/api/v1/agent/offers", map[string]any{"listingId": sc.listing, "offerPrice": 6000},
			decl.Key.Auth()).Want(t, http.StatusCreated, "").Data()
		id := o["id"].(string)
		charges := s.Charges()
		o = s.Do("POST", "/api/v1/offers/"+id+"/accept", nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
		if o["status"] != "accepted" || o["orderId"] != nil || testkit.Num(t, o, "agreedPrice") != 6000 {
			t.Fatalf("accepted with a failed purchase = %v", o)
		}
		if s.Charges() != charges {
			t.Fatal("a declined purchase charged")
		}
		s.Clock.Advance(48 * time.Hour)
		s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": sc.listing, "maxPrice": 10000, "offerId": id},
			decl.Key.Auth()).Want(t, http.StatusConflict, "OFFER_EXPIRED")
	})
}

func TestOfferExpiresWhenListingSells(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "sold")
		id := sc.offer(t, s, 6000)["id"].(string)
		other := s.NewShopper("otherbuyer", "pm_card_visa")
		s.SetControls(other.User, map[string]any{"perTransactionLimit": 20000})
		s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": sc.listing, "maxPrice": 10000,
			"shippingAddress": testkit.Address()}, other.Key.Auth()).Want(t, http.StatusCreated, "")
		if o := offerNow(t, s, sc, id); o["status"] != "expired" {
			t.Fatalf("offer on a sold listing = %v", o)
		}
		if sp := reserved(t, s, sc.buyer.Key.Auth()); testkit.Num(t, sp, "reservedForOffers") != 0 {
			t.Fatalf("reservation kept: %v", sp)
		}
		s.Do("POST", "/api/v1/offers/"+id+"/accept", nil, sc.seller.Auth()).Want(t, http.StatusConflict, "OFFER_EXPIRED")
	})
}

func TestOfferSpendingReservation(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "resv")
		key := sc.buyer.Key.Auth()
		s.SetControls(sc.buyer.User, map[string]any{"dailyLimit": 10000})
		first := sc.offer(t, s, 6000)
		second := offerListing(t, s, sc.seller, "second oak stool", 10000)
		r := s.Do("POST", "/api/v1/agent/offers", map[string]any{"listingId": second, "offerPrice": 5000}, key).
			Want(t, http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
		d := testkit.Obj(t, r.JSON["error"].(map[string]any), "details")
		if d["limit_type"] != "daily" || testkit.Num(t, d, "requested_amount") != 5175 || testkit.Num(t, d, "remaining") != 3790 ||
			testkit.Num(t, d, "limit") != 10000 {
			t.Fatalf("details = %v", d)
		}
		// A purchase counts the reservation too.
		third := offerListing(t, s, sc.seller, "third pine shelf", 4000)
		s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": third, "maxPrice": 4000}, key).
			Want(t, http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
		// The seller's counter does not move the reservation; the buyer's
		// acceptance of it must fit.
		s.Do("POST", "/api/v1/agent/offers/"+first["id"].(string)+"/counter", map[string]any{"counterPrice": 9900},
			sc.sellerKey.Auth()).Want(t, http.StatusOK, "")
		if sp := reserved(t, s, key); testkit.Num(t, sp, "reservedForOffers") != 6210 {
			t.Fatalf("after the seller's counter = %v", sp)
		}
		before := offerNow(t, s, sc, first["id"].(string))
		s.Do("POST", "/api/v1/agent/offers/"+first["id"].(string)+"/accept", nil, key).
			Want(t, http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
		sameOffer(t, s, sc, before)
		// Withdrawing releases it.
		s.Do("POST", "/api/v1/agent/offers/"+first["id"].(string)+"/withdraw", nil, key).Want(t, http.StatusOK, "")
		if sp := reserved(t, s, key); testkit.Num(t, sp, "reservedForOffers") != 0 {
			t.Fatalf("after withdraw = %v", sp)
		}
		s.Do("POST", "/api/v1/agent/offers", map[string]any{"listingId": second, "offerPrice": 5000}, key).Want(t, http.StatusCreated, "")
	})
}

func TestOfferSandboxReset(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "reset")
		sc.offer(t, s, 6000)
		c := s.Do("POST", "/v1/sandbox/reset", nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "").Data()
		if testkit.Num(t, c, "offers_deleted") != 1 {
			t.Fatalf("reset = %v", c)
		}
		if l := s.Do("GET", "/api/v1/offers/buyer/me", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").List(); len(l) != 0 {
			t.Fatalf("offers after reset = %v", l)
		}
	})
}

// TestOfferAuthorization: the agent forms take agent keys only, the bearer
// forms bearer tokens only; frozen and revoked keys and suspended owners are
// refused before anything moves.
func TestOfferAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "authz")
		o := sc.offer(t, s, 6000)
		id := o["id"].(string)
		frozen := s.NewKey(sc.seller, "buy_sell")
		s.Do("POST", "/api/v1/admin/users/"+sc.seller.ID+"/agent-keys/"+frozen.ID+"/freeze", nil, s.Admin().Auth()).Want(t, http.StatusOK, "")
		revoked := s.NewKey(sc.seller, "buy_sell")
		s.Do("DELETE", "/api/v1/agent-keys/"+revoked.ID, nil, sc.seller.Auth()).Want(t, http.StatusOK, "")
		for _, c := range []struct {
			method, path string
			h            []testkit.Header
			status       int
			code         string
		}{
			{"POST", "/api/v1/agent/offers/" + id + "/accept", nil, 401, "INVALID_AGENT_KEY"},
			{"POST", "/api/v1/agent/offers/" + id + "/accept", []testkit.Header{sc.seller.Auth()}, 401, "INVALID_AGENT_KEY"},
			{"POST", "/api/v1/agent/offers/" + id + "/accept", []testkit.Header{frozen.Auth()}, 403, "AGENT_FROZEN"},
			{"POST", "/api/v1/agent/offers/" + id + "/accept", []testkit.Header{revoked.Auth()}, 401, "INVALID_AGENT_KEY"},
			{"POST", "/api/v1/offers/" + id + "/accept", nil, 401, "UNAUTHORIZED"},
			{"POST", "/api/v1/offers/" + id + "/accept", []testkit.Header{sc.sellerKey.Auth()}, 403, "FORBIDDEN"},
			{"GET", "/api/v1/offers/" + id, []testkit.Header{sc.buyer.Key.Auth()}, 403, "FORBIDDEN"},
			{"POST", "/v1/offers/" + id + "/respond", nil, 401, "UNAUTHORIZED"},
		} {
			s.Do(c.method, c.path, map[string]any{"action": "accept"}, c.h...).Want(t, c.status, c.code)
		}
		sameOffer(t, s, sc, o)
		// A suspended seller's key cannot answer.
		s.SetStatus(sc.seller.ID, accounts.StatusSuspended)
		s.Do("POST", "/api/v1/agent/offers/"+id+"/accept", nil, sc.sellerKey.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
		sameOffer(t, s, sc, o)
	})
}

// A human's offer is bought off-session on acceptance too, with the saved
// card and default address; a human with no saved card gets the accepted
// offer and 48 hours to buy it (CONTRACT.md section 8).
func TestOfferHumanBuyer(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "human")
		o := s.Do("POST", "/api/v1/offers", map[string]any{"listingId": sc.listing, "offerPrice": 6000}, sc.buyer.Auth()).
			Want(t, http.StatusCreated, "").Data()
		if o["sentByAgent"] != false {
			t.Fatalf("human offer = %v", o)
		}
		if sp := reserved(t, s, sc.buyer.Auth()); testkit.Num(t, sp, "reservedForOffers") != 0 {
			t.Fatalf("a human's offer reserved: %v", sp)
		}
		o = s.Do("POST", "/api/v1/agent/offers/"+o["id"].(string)+"/accept", nil, sc.sellerKey.Auth()).Want(t, http.StatusOK, "").Data()
		if o["status"] != "accepted" || o["orderId"] == nil {
			t.Fatalf("accepted = %v", o)
		}
		ord := s.Do("GET", "/api/v1/orders/"+o["orderId"].(string), nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").Data()
		if ord["status"] != "paid" || ord["channel"] != "human" {
			t.Fatalf("order = %v", ord)
		}

		cardless := s.VerifiedOwner("cardless")
		l2 := offerListing(t, s, sc.seller, "human second listing brass bell", 10000)
		o = s.Do("POST", "/api/v1/offers", map[string]any{"listingId": l2, "offerPrice": 6000}, cardless.Auth()).
			Want(t, http.StatusCreated, "").Data()
		o = s.Do("POST", "/api/v1/offers/"+o["id"].(string)+"/accept", nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
		if o["status"] != "accepted" || o["orderId"] != nil {
			t.Fatalf("accepted without a card = %v", o)
		}
		if l := s.Do("GET", "/api/v1/listings/"+l2, nil).Want(t, http.StatusOK, "").Data(); l["status"] != "active" {
			t.Fatalf("listing = %v", l["status"])
		}
	})
}

// Acceptance above the owner's approval threshold queues the purchase; the
// owner's approval buys it with the offer, whose reservation the order then
// takes over (counted once).
func TestOfferAcceptanceNeedsApproval(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "appr")
		s.SetControls(sc.buyer.User, map[string]any{"approvalThreshold": 5000, "dailyLimit": 10000})
		id := sc.offer(t, s, 6000)["id"].(string)
		o := s.Do("POST", "/api/v1/offers/"+id+"/accept", nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
		if o["status"] != "accepted" || o["orderId"] != nil {
			t.Fatalf("accepted = %v", o)
		}
		list := s.Do("GET", "/api/v1/approvals?status=pending", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").List()
		if len(list) != 1 {
			t.Fatalf("approvals = %v", list)
		}
		aid := list[0].(map[string]any)["id"].(string)
		s.Do("POST", "/api/v1/approvals/"+aid+"/approve", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "")
		o = offerNow(t, s, sc, id)
		if o["orderId"] == nil {
			t.Fatalf("offer after approval = %v", o)
		}
		sp := reserved(t, s, sc.buyer.Key.Auth())
		if testkit.Num(t, sp, "reservedForOffers") != 0 || testkit.Num(t, testkit.Obj(t, sp, "spent"), "today") != 6210 {
			t.Fatalf("spending = %v", sp)
		}
	})
}

// An owner's categoryRestrictions hold for offers as for purchases: an
// agent's offer, and its acceptance of a counter, in a restricted category
// (its own id, or an ancestor's slug) is CATEGORY_RESTRICTED and reserves
// nothing.
func TestOfferCategoryRestriction(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "cat")
		key := sc.buyer.Key.Auth()
		cat := s.Do("GET", "/api/v1/listings/"+sc.listing, nil).Want(t, http.StatusOK, "").Data()["categoryId"].(string)
		var parent string
		var walk func(nodes []any, above string)
		walk = func(nodes []any, above string) {
			for _, n := range nodes {
				c := n.(map[string]any)
				if c["id"] == cat {
					parent = above
				}
				kids, _ := c["children"].([]any)
				walk(kids, c["slug"].(string))
			}
		}
		walk(s.Do("GET", "/api/v1/listings/categories", nil).Want(t, http.StatusOK, "").List(), "")
		if parent == "" {
			t.Fatalf("category %s has no parent in the tree", cat)
		}

		s.SetControls(sc.buyer.User, map[string]any{"categoryRestrictions": []string{cat}})
		r := s.Do("POST", "/api/v1/agent/offers", map[string]any{"listingId": sc.listing, "offerPrice": 6000}, key).
			Want(t, http.StatusForbidden, "CATEGORY_RESTRICTED")
		if d := testkit.Obj(t, r.JSON["error"].(map[string]any), "details"); d["category"] != cat {
			t.Fatalf("details = %v", d)
		}
		if sp := reserved(t, s, key); testkit.Num(t, sp, "reservedForOffers") != 0 {
			t.Fatalf("a refused offer reserved: %v", sp)
		}

		s.SetControls(sc.buyer.User, map[string]any{"categoryRestrictions": []string{}})
		first := sc.offer(t, s, 6000)
		s.Do("POST", "/api/v1/agent/offers/"+first["id"].(string)+"/counter", map[string]any{"counterPrice": 8000},
			sc.sellerKey.Auth()).Want(t, http.StatusOK, "")
		s.SetControls(sc.buyer.User, map[string]any{"categoryRestrictions": []string{parent}})
		before := offerNow(t, s, sc, first["id"].(string))
		s.Do("POST", "/api/v1/agent/offers/"+first["id"].(string)+"/accept", nil, key).
			Want(t, http.StatusForbidden, "CATEGORY_RESTRICTED")
		s.Do("POST", "/api/v1/agent/offers/"+first["id"].(string)+"/counter", map[string]any{"counterPrice": 7000}, key).
			Want(t, http.StatusForbidden, "CATEGORY_RESTRICTED")
		sameOffer(t, s, sc, before)

		// The seller's own moves are not the buyer's purchases.
		s.Do("POST", "/api/v1/agent/offers/"+first["id"].(string)+"/withdraw", nil, key).Want(t, http.StatusOK, "")
		if sp := reserved(t, s, key); testkit.Num(t, sp, "reservedForOffers") != 0 {
			t.Fatalf("after withdraw = %v", sp)
		}
	})
}
