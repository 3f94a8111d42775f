package apiv1_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/notify"
	"marketplace/internal/testkit"
)

// Offers follow their listing (CONTRACT.md section 8): a price cut ends the
// offers at or above the new price, a listing leaving sale ends them all, on
// every path that makes the change, and an accepted offer never pays more
// than the price of the moment.

// offerFrom makes an offer of amount on listing by a new agent buyer (card
// and default address saved) and answers its id and the buyer.
func offerFrom(t *testing.T, s *testkit.Server, name, listing string, amount int64, extra ...any) (string, *testkit.Shopper) {
	t.Helper()
	b := s.NewShopper(name, "pm_card_visa")
	s.Do("POST", "/api/v1/addresses", testkit.Address(), b.Auth()).Want(t, http.StatusCreated, "")
	body := testkit.Body(map[string]any{"listingId": listing, "offerPrice": amount}, extra...)
	o := s.Do("POST", "/api/v1/agent/offers", body, b.Key.Auth()).Want(t, http.StatusCreated, "").Data()
	return o["id"].(string), b
}

// offerOf reads an offer as its buyer's agent.
func offerOf(t *testing.T, s *testkit.Server, b *testkit.Shopper, id string) map[string]any {
	t.Helper()
	return s.Do("GET", "/api/v1/agent/offers/"+id, nil, b.Key.Auth()).Want(t, http.StatusOK, "").Data()
}

// wantExpiredNotice checks that the buyer was told the offer ended, for
// reason: offer.expired in the buyer's event feed and an e-mail.
func wantExpiredNotice(t *testing.T, s *testkit.Server, b *testkit.Shopper, id, reason string) {
	t.Helper()
	// Asked again until it shows: on PostgreSQL the feed shows an event
	// once older transactions on the whole server have ended, and the
	// tests running beside this one hold some.
	found := false
	for deadline := time.Now().Add(30 * time.Second); !found && time.Now().Before(deadline); {
		for _, e := range s.Do("GET", "/api/v1/events?types=offer.expired&limit=100&wait=5", nil, b.Auth()).
			Want(t, http.StatusOK, "").List() {
			d := e.(map[string]any)["data"].(map[string]any)
			if d["offerId"] == id {
				if d["reason"] != reason || d["status"] != "expired" {
					t.Fatalf("offer.expired data = %v, want reason %s", d, reason)
				}
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("the buyer's feed has no offer.expired for offer %s", id)
	}
	mails, err := s.App.Notify.Outbox(t.Context(), b.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	why := map[string]string{"price_changed": "price came down"}[reason]
	if why == "" {
		why = "no longer on sale"
	}
	if !slices.ContainsFunc(mails, func(m notify.Mail) bool {
		return m.Kind == "offer.expired" && strings.Contains(m.Text, why) && strings.Contains(m.HTML, why)
	}) {
		t.Fatalf("the buyer got no offer.expired mail saying %q: %+v", why, mails)
	}
}

// A price cut on any surface ends the offers waiting for an answer whose
// amount on the table is at or above the new price (the buyer's offer, the
// seller's counter), releases what they held of the buyer's caps and tells
// the buyer; an offer below the new price goes on. Answers to an ended
// offer are OFFER_EXPIRED.
func TestOfferPriceCutEndsOffersAtOrAbove(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		paths := []struct {
			name string
			cut  func(sc offerScene, price int64)
		}{
			{"owner", func(sc offerScene, price int64) {
				s.Do("PATCH", "/api/v1/listings/"+sc.listing, map[string]any{"price": price}, sc.seller.Auth()).Want(t, http.StatusOK, "")
			}},
			{"agent", func(sc offerScene, price int64) {
				s.Do("PATCH", "/api/v1/agent/listings/"+sc.listing, map[string]any{"price": price}, sc.sellerKey.Auth()).Want(t, http.StatusOK, "")
			}},
			{"variant-b", func(sc offerScene, price int64) {
				s.Do("PATCH", "/v1/listings/"+sc.listing, map[string]any{"price": price}, sc.sellerKey.Auth()).Want(t, http.StatusOK, "")
			}},
			{"admin", func(sc offerScene, price int64) {
				s.Do("PATCH", "/api/v1/admin/listings/"+sc.listing, map[string]any{"price": price}, adm.Auth()).Want(t, http.StatusOK, "")
			}},
			{"mcp", func(sc offerScene, price int64) {
				if out, refused := s.MCPTool(sc.sellerKey.Secret, "update_listing", map[string]any{"listing_id": sc.listing, "price": price}); refused {
					t.Fatalf("update_listing refused: %v", out)
				}
			}},
		}
		for i, p := range paths {
			t.Run(p.name, func(t *testing.T) {
				sc := newOfferScene(t, s, fmt.Sprintf("cut%d", i))
				// 9000 on the table; 6000 below the coming price; the
				// seller's counter of 8800 to a third buyer.
				high, hb := sc.buyer.Key, sc.buyer
				highID := sc.offer(t, s, 9000)["id"].(string)
				lowID, lb := offerFrom(t, s, fmt.Sprintf("cut%dlow", i), sc.listing, 6000)
				ctrID, cb := offerFrom(t, s, fmt.Sprintf("cut%dctr", i), sc.listing, 6500)
				s.Do("POST", "/api/v1/offers/"+ctrID+"/counter", map[string]any{"counterPrice": 8800}, sc.seller.Auth()).Want(t, http.StatusOK, "")
				if r := testkit.Num(t, reserved(t, s, high.Auth()), "reservedForOffers"); r != 9315 {
					t.Fatalf("held for the 9000 offer: %d", r)
				}

				p.cut(sc, 8000)

				for _, o := range []struct {
					id   string
					b    *testkit.Shopper
					want string
				}{{highID, hb, "expired"}, {ctrID, cb, "expired"}, {lowID, lb, "pending"}} {
					if got := offerOf(t, s, o.b, o.id); got["status"] != o.want || got["awaitingResponseFrom"] != nil && o.want == "expired" {
						t.Fatalf("offer %s after the cut to 8000: %v, want %s", o.id, got, o.want)
					}
				}
				if r := testkit.Num(t, reserved(t, s, high.Auth()), "reservedForOffers"); r != 0 {
					t.Fatalf("the ended offer still holds %d of the buyer's caps", r)
				}
				wantExpiredNotice(t, s, hb, highID, "price_changed")
				wantExpiredNotice(t, s, cb, ctrID, "price_changed")
				// No answer revives them.
				s.Do("POST", "/api/v1/offers/"+highID+"/accept", nil, sc.seller.Auth()).Want(t, http.StatusConflict, "OFFER_EXPIRED")
				s.Do("POST", "/api/v1/agent/offers/"+ctrID+"/accept", nil, cb.Key.Auth()).Want(t, http.StatusConflict, "OFFER_EXPIRED")
				s.Do("POST", "/api/v1/agent/offers/"+ctrID+"/counter", map[string]any{"counterPrice": 7000}, cb.Key.Auth()).
					Want(t, http.StatusConflict, "OFFER_EXPIRED")
				// The buyer may offer again below the new price.
				s.Do("POST", "/api/v1/agent/offers", map[string]any{"listingId": sc.listing, "offerPrice": 7500}, high.Auth()).
					Want(t, http.StatusCreated, "")
				// The offer below the price goes on and is bought at its amount.
				o := s.Do("POST", "/api/v1/offers/"+lowID+"/accept", nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
				if o["status"] != "accepted" || o["orderId"] == nil {
					t.Fatalf("the offer below the new price, accepted: %v", o)
				}
				ord := s.Do("GET", "/api/v1/agent/orders/"+o["orderId"].(string), nil, lb.Key.Auth()).Want(t, http.StatusOK, "").Data()
				if testkit.Num(t, testkit.Obj(t, ord, "fees"), "itemPrice") != 6000 {
					t.Fatalf("order = %v", ord)
				}
			})
		}
	})
}

// The case of the report: an offer of 9000, the price cut from 10000 to
// 5000, then the seller accepts: refused (the offer ended with the cut),
// nothing charged. A price raise leaves offers alone.
func TestOfferAboveCutPriceNotBought(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "report")
		id := sc.offer(t, s, 9000)["id"].(string)
		s.Do("PATCH", "/api/v1/listings/"+sc.listing, map[string]any{"price": 12000}, sc.seller.Auth()).Want(t, http.StatusOK, "")
		if o := offerNow(t, s, sc, id); o["status"] != "pending" {
			t.Fatalf("offer after a price raise: %v", o)
		}
		s.Do("PATCH", "/api/v1/listings/"+sc.listing, map[string]any{"price": 5000}, sc.seller.Auth()).Want(t, http.StatusOK, "")
		charges := s.Charges()
		s.Do("POST", "/api/v1/offers/"+id+"/accept", nil, sc.seller.Auth()).Want(t, http.StatusConflict, "OFFER_EXPIRED")
		if s.Charges() != charges {
			t.Fatal("the refused acceptance charged")
		}
		if o := offerNow(t, s, sc, id); o["status"] != "expired" || o["orderId"] != nil {
			t.Fatalf("offer = %v", o)
		}
	})
}

// An accepted offer waiting for its purchase stays accepted through a price
// cut below its agreed price, and its purchase with offerId pays the price
// of the moment, never more: the rule is applied inside the purchase's
// transaction.
func TestOfferAcceptedPaysNoMoreThanPrice(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "paycut")
		key := sc.buyer.Key.Auth()
		id := sc.offer(t, s, 9000, "autoPurchaseOnAccept", false)["id"].(string)
		if o := s.Do("POST", "/api/v1/offers/"+id+"/accept", nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data(); o["status"] != "accepted" {
			t.Fatalf("accepted = %v", o)
		}
		s.Do("PATCH", "/api/v1/listings/"+sc.listing, map[string]any{"price": 5000}, sc.seller.Auth()).Want(t, http.StatusOK, "")
		if o := offerNow(t, s, sc, id); o["status"] != "accepted" || testkit.Num(t, o, "agreedPrice") != 9000 {
			t.Fatalf("accepted offer after the cut = %v", o)
		}
		buy := func() map[string]any { return map[string]any{"listingId": sc.listing, "maxPrice": 9000, "offerId": id} }
		// Asking for the agreed price is told the price now.
		r := s.Do("POST", "/api/v1/agent/purchase", testkit.Body(buy(), "expectedPrice", 9000), key).Want(t, http.StatusConflict, "PRICE_CHANGED")
		if d := r.JSON["error"].(map[string]any)["details"].(map[string]any); d["currentPrice"] != float64(5000) {
			t.Fatalf("details = %v", d)
		}
		ord := s.Do("POST", "/api/v1/agent/purchase", buy(), key).Want(t, http.StatusCreated, "").Data()
		// 5000 + the 3.5% fee (175).
		if fees := testkit.Obj(t, ord, "fees"); testkit.Num(t, fees, "itemPrice") != 5000 || testkit.Num(t, fees, "totalCharged") != 5175 {
			t.Fatalf("order = %v", ord)
		}
		if o := offerNow(t, s, sc, id); o["orderId"] != ord["id"] {
			t.Fatalf("offer after purchase = %v", o)
		}
	})
}

// The seller's price cut races the seller's acceptance (with its automatic
// purchase) of an offer above the new price: either the cut comes first and
// the acceptance is refused with nothing charged, or the sale comes first
// at the agreed price and the cut is refused (the listing is taken).
func TestOfferRaceAcceptVersusPriceCut(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		for i := range 12 {
			sc := newOfferScene(t, s, fmt.Sprintf("rcut%d", i))
			id := sc.offer(t, s, 9000)["id"].(string)
			charges := s.Charges()
			got := testkit.Race(2, func(i int) buyHelperAnswer {
				if i == 0 {
					return offerPost(s, "/api/v1/offers/"+id+"/accept", map[string]any{}, sc.seller.Auth())
				}
				return offerDo(s, "PATCH", "/api/v1/listings/"+sc.listing, map[string]any{"price": 5000}, sc.seller.Auth())
			})
			for _, a := range got {
				if a.Err != nil {
					t.Fatal(a.Err)
				}
			}
			o := offerNow(t, s, sc, id)
			l := s.Do("GET", "/api/v1/listings/"+sc.listing, nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()
			switch {
			case got[1].Status == 200:
				if got[0].Status != 409 || got[0].code() != "OFFER_EXPIRED" || o["status"] != "expired" || s.Charges() != charges ||
					testkit.Num(t, l, "price") != 5000 {
					t.Fatalf("the cut won: accept %d %s, offer %v, listing %v", got[0].Status, got[0].Body, o, l)
				}
			case got[0].Status == 200:
				ord := s.Do("GET", "/api/v1/agent/orders/"+fmt.Sprint(o["orderId"]), nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "").Data()
				if got[1].code() != "INVALID_STATE" || o["status"] != "accepted" || testkit.Num(t, testkit.Obj(t, ord, "fees"), "itemPrice") != 9000 ||
					testkit.Num(t, l, "price") != 10000 || s.Charges() != charges+1 {
					t.Fatalf("the sale won: cut %d %s, offer %v, order %v", got[1].Status, got[1].Body, o, ord)
				}
			default:
				t.Fatalf("answers %d %s / %d %s", got[0].Status, got[0].Body, got[1].Status, got[1].Body)
			}
		}
	})
}

// Every way a listing leaves sale ends its open offers at once: a pending
// one (its hold on the buyer's caps released) and an accepted one waiting
// for its purchase, each buyer told with offer.expired; the accepted offer
// can no longer be bought.
func TestOfferEndsWhenListingLeavesSale(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		paths := []struct {
			name   string
			status string // the listing's status after
			end    func(sc offerScene)
		}{
			{"owner archive", "archived", func(sc offerScene) {
				s.Do("DELETE", "/api/v1/listings/"+sc.listing, nil, sc.seller.Auth()).Want(t, http.StatusOK, "")
			}},
			{"owner delete", "deleted", func(sc offerScene) {
				s.Do("POST", "/api/v1/listings/"+sc.listing+"/delete", nil, sc.seller.Auth()).Want(t, http.StatusOK, "")
			}},
			{"agent archive", "archived", func(sc offerScene) {
				s.Do("DELETE", "/api/v1/agent/listings/"+sc.listing, nil, sc.sellerKey.Auth()).Want(t, http.StatusOK, "")
			}},
			{"variant-b archive", "archived", func(sc offerScene) {
				s.Do("DELETE", "/v1/listings/"+sc.listing, nil, sc.sellerKey.Auth()).Want(t, http.StatusOK, "")
			}},
			{"mcp archive", "archived", func(sc offerScene) {
				if out, refused := s.MCPTool(sc.sellerKey.Secret, "archive_listing", map[string]any{"listing_id": sc.listing}); refused {
					t.Fatalf("archive_listing refused: %v", out)
				}
			}},
			{"restricted brand", "removed", func(sc offerScene) {
				s.Do("PATCH", "/api/v1/listings/"+sc.listing, map[string]any{"title": "Louis Vuitton walnut side table"}, sc.seller.Auth()).
					Want(t, http.StatusUnprocessableEntity, "LISTING_RESTRICTED")
			}},
			{"admin delist", "removed", func(sc offerScene) {
				s.Do("POST", "/api/v1/admin/listings/"+sc.listing+"/delist", map[string]any{"reason": "duplicate"}, adm.Auth()).Want(t, http.StatusOK, "")
			}},
			{"admin counterfeit", "removed", func(sc offerScene) {
				s.Do("POST", "/api/v1/admin/listings/"+sc.listing+"/delist", map[string]any{"reason": "counterfeit"}, adm.Auth()).Want(t, http.StatusOK, "")
			}},
			{"admin status", "held", func(sc offerScene) {
				s.Do("PATCH", "/api/v1/admin/listings/"+sc.listing, map[string]any{"status": "held"}, adm.Auth()).Want(t, http.StatusOK, "")
			}},
			{"admin reject", "removed", func(sc offerScene) {
				// Held without the hook (as by a review before the offers'
				// time), then rejected.
				s.EditListing(sc.listing, func(l *listings.Listing) { l.Status = listings.StatusHeld })
				s.Do("POST", "/api/v1/admin/listings/"+sc.listing+"/reject", map[string]any{"reason": "blurry photos"}, adm.Auth()).Want(t, http.StatusOK, "")
			}},
			{"seller banned", "removed", func(sc offerScene) {
				s.Do("POST", "/api/v1/admin/users/"+sc.seller.ID+"/ban", map[string]any{"reason": "fraud"}, adm.Auth()).Want(t, http.StatusOK, "")
			}},
		}
		for i, p := range paths {
			t.Run(p.name, func(t *testing.T) {
				sc := newOfferScene(t, s, fmt.Sprintf("gone%d", i))
				pendingID := sc.offer(t, s, 6000)["id"].(string)
				acceptedID, ab := offerFrom(t, s, fmt.Sprintf("gone%dacc", i), sc.listing, 7000, "autoPurchaseOnAccept", false)
				s.Do("POST", "/api/v1/offers/"+acceptedID+"/accept", nil, sc.seller.Auth()).Want(t, http.StatusOK, "")
				if r := testkit.Num(t, reserved(t, s, sc.buyer.Key.Auth()), "reservedForOffers"); r != 6210 {
					t.Fatalf("held for the offer: %d", r)
				}

				p.end(sc)

				if l := s.Do("GET", "/api/v1/admin/listings/"+sc.listing, nil, adm.Auth()).Want(t, http.StatusOK, "").Data(); l["status"] != p.status {
					t.Fatalf("listing after %s: %v, want %s", p.name, l, p.status)
				}
				reason := "listing_" + p.status
				for _, o := range []struct {
					id string
					b  *testkit.Shopper
				}{{pendingID, sc.buyer}, {acceptedID, ab}} {
					if got := offerOf(t, s, o.b, o.id); got["status"] != "expired" || got["awaitingResponseFrom"] != nil {
						t.Fatalf("offer after %s: %v", p.name, got)
					}
					wantExpiredNotice(t, s, o.b, o.id, reason)
				}
				if r := testkit.Num(t, reserved(t, s, sc.buyer.Key.Auth()), "reservedForOffers"); r != 0 {
					t.Fatalf("the ended offer still holds %d of the buyer's caps", r)
				}
				buy := map[string]any{"listingId": sc.listing, "maxPrice": 7000, "offerId": acceptedID}
				if r := s.Do("POST", "/api/v1/agent/purchase", buy, ab.Key.Auth()); r.Status != http.StatusConflict && r.Status != http.StatusNotFound {
					t.Fatalf("purchase with the ended offer: %d %s", r.Status, r.Body)
				}
				if p.name != "seller banned" && p.name != "admin counterfeit" { // a banned or suspended seller answers nothing
					s.Do("POST", "/api/v1/offers/"+pendingID+"/accept", nil, sc.seller.Auth()).Want(t, http.StatusConflict, "OFFER_EXPIRED")
				}
			})
		}
	})
}
