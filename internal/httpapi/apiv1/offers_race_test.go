package apiv1_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"marketplace/internal/testkit"
)

// offerPost sends a POST off the test goroutine (it never touches t).
func offerPost(s *testkit.Server, path string, body any, h testkit.Header) buyHelperAnswer {
	return offerDo(s, "POST", path, body, h)
}

// offerDo sends a request off the test goroutine (it never touches t).
func offerDo(s *testkit.Server, method, path string, body any, h testkit.Header) buyHelperAnswer {
	raw, err := json.Marshal(body)
	if err != nil {
		return buyHelperAnswer{Err: err}
	}
	req, err := http.NewRequest(method, s.URL+path, bytes.NewReader(raw))
	if err != nil {
		return buyHelperAnswer{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(h.Name, h.Value)
	resp, err := buyHelperClient.Do(req)
	if err != nil {
		return buyHelperAnswer{Err: err}
	}
	defer resp.Body.Close()
	out := buyHelperAnswer{Status: resp.StatusCode}
	if out.Body, err = io.ReadAll(resp.Body); err != nil {
		out.Err = err
		return out
	}
	if err := json.Unmarshal(out.Body, &out.JSON); err != nil {
		out.Err = fmt.Errorf("answer %d is not JSON: %v: %s", resp.StatusCode, err, out.Body)
	}
	return out
}

// Accept and withdraw at once: exactly one wins, and the offer ends as the
// winner says.
func TestOfferRaceAcceptWithdraw(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		for i := range 5 {
			sc := newOfferScene(t, s, fmt.Sprintf("raw%d", i))
			id := sc.offer(t, s, 6000)["id"].(string)
			charges := s.Charges()
			got := buyHelperRace(2, func(i int) buyHelperAnswer {
				if i == 0 {
					return offerPost(s, "/api/v1/offers/"+id+"/accept", map[string]any{}, sc.seller.Auth())
				}
				return offerPost(s, "/api/v1/agent/offers/"+id+"/withdraw", map[string]any{}, sc.buyer.Key.Auth())
			})
			for _, a := range got {
				if a.Err != nil {
					t.Fatal(a.Err)
				}
			}
			o := offerNow(t, s, sc, id)
			switch {
			case got[0].Status == 200 && got[1].Status == 409 && got[1].code() == "INVALID_STATE":
				if o["status"] != "accepted" || o["orderId"] == nil || s.Charges() != charges+1 {
					t.Fatalf("accept won, offer = %v", o)
				}
			case got[1].Status == 200 && got[0].Status == 409 && got[0].code() == "INVALID_STATE":
				if o["status"] != "withdrawn" || s.Charges() != charges {
					t.Fatalf("withdraw won, offer = %v", o)
				}
			default:
				t.Fatalf("answers %d %s / %d %s", got[0].Status, got[0].Body, got[1].Status, got[1].Body)
			}
		}
	})
}

// The seller accepts one buyer's offer (with its automatic purchase) while
// another buyer buys the listing: one sale, one charge, and the seller's
// answer is what the offer ends as. Either the acceptance came first (200
// accepted, with the order; the other purchase is refused), or the other
// purchase did (the acceptance is refused as the listing is taken, and the
// offer ends expired): never "accepted" for an offer the sale then expires.
func TestOfferRaceAcceptVersusPurchase(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		other := s.NewShopper("racebuyer", "pm_card_visa")
		s.SetControls(other.User, map[string]any{"perTransactionLimit": 20000, "dailyLimit": 2000000, "weeklyLimit": 2000000,
			"monthlyLimit": 2000000})
		tally := map[string]int{}
		for i := range 30 {
			sc := newOfferScene(t, s, fmt.Sprintf("rap%d", i))
			id := sc.offer(t, s, 6000)["id"].(string)
			charges := s.Charges()
			got := testkit.Race(2, func(i int) buyHelperAnswer {
				if i == 0 {
					return offerPost(s, "/api/v1/offers/"+id+"/accept", map[string]any{}, sc.seller.Auth())
				}
				return buyHelperPost(s, other.Key, buyHelperBody(sc.listing, 10000))
			})
			for _, a := range got {
				if a.Err != nil {
					t.Fatal(a.Err)
				}
			}
			accept, buy := got[0], got[1]
			answers := fmt.Sprintf("accept %d %s / purchase %d %s", accept.Status, accept.Body, buy.Status, buy.Body)
			if n := s.Charges() - charges; n != 1 {
				t.Fatalf("%d charges (%s)", n, answers)
			}
			o := offerNow(t, s, sc, id)
			switch {
			case accept.Status == 200:
				told, _ := accept.JSON["data"].(map[string]any)
				if told["status"] != o["status"] || told["orderId"] != o["orderId"] {
					t.Fatalf("the seller was told %v/%v, the offer ends %v/%v (%s)", told["status"], told["orderId"], o["status"], o["orderId"], answers)
				}
				if o["status"] != "accepted" || o["orderId"] == nil {
					t.Fatalf("a 200 answer is the accepted offer with its order, not %v (%s)", o, answers)
				}
				if c := buy.code(); c != "LISTING_SOLD" && c != "LISTING_NOT_AVAILABLE" {
					t.Fatalf("the losing purchase: %s", answers)
				}
				tally["accept first"]++
			case accept.Status == 409:
				if c := accept.code(); c != "LISTING_SOLD" && c != "LISTING_NOT_AVAILABLE" && c != "OFFER_EXPIRED" {
					t.Fatalf("the refused acceptance: %s", answers)
				}
				if buy.Status != 201 || o["status"] != "expired" {
					t.Fatalf("the acceptance was refused, yet offer %v (%s)", o, answers)
				}
				tally["purchase first"]++
			default:
				t.Fatalf("%s; offer %v", answers, o)
			}
		}
		t.Logf("outcomes: %v", tally)
	})
}

// Fifty acceptances at once by the buyer's agent, each committing to a
// higher counter, never together pass the daily cap: the owner's lock
// serialises the checks, reservations and purchases alike.
func TestOfferRaceFiftyAcceptsUnderOneCap(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "fifty")
		s.SetControls(sc.buyer.User, map[string]any{"dailyLimit": 50000})
		const n = 50
		ids := make([]string, n)
		for i := range n {
			l := s.ListingWith(t, sc.seller, fmt.Sprintf("fifty lot %d of enamel mugs", i), 5000, nil)
			ids[i] = s.Do("POST", "/api/v1/agent/offers", map[string]any{"listingId": l, "offerPrice": 800},
				sc.buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
			s.Do("POST", "/api/v1/offers/"+ids[i]+"/counter", map[string]any{"counterPrice": 2000}, sc.seller.Auth()).
				Want(t, http.StatusOK, "")
		}
		// 50 x (800 + 99) = 44950 is held; each acceptance commits 2099.
		if r := testkit.Num(t, reserved(t, s, sc.buyer.Key.Auth()), "reservedForOffers"); r != 44950 {
			t.Fatalf("reserved = %d", r)
		}
		got := buyHelperRace(n, func(i int) buyHelperAnswer {
			return offerPost(s, "/api/v1/agent/offers/"+ids[i]+"/accept", map[string]any{}, sc.buyer.Key.Auth())
		})
		ok := 0
		for _, a := range got {
			switch {
			case a.Err != nil:
				t.Fatal(a.Err)
			case a.Status == 200:
				ok++
			case a.Status != 403 || a.code() != "SPENDING_LIMIT_EXCEEDED":
				t.Fatalf("answer %d %s", a.Status, a.Body)
			}
		}
		sp := reserved(t, s, sc.buyer.Key.Auth())
		committed := testkit.Num(t, testkit.Obj(t, sp, "spent"), "today") + testkit.Num(t, sp, "reservedForOffers")
		if committed > 50000 || ok != 4 {
			t.Fatalf("%d acceptances, %d committed (spending %v)", ok, committed, sp)
		}
	})
}
