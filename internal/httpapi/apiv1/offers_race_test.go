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
	raw, err := json.Marshal(body)
	if err != nil {
		return buyHelperAnswer{Err: err}
	}
	req, err := http.NewRequest("POST", s.URL+path, bytes.NewReader(raw))
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

// The seller accepts one buyer's offer while another buyer buys the listing:
// one sale, one charge, and the offer never ends accepted without its order.
func TestOfferRaceAcceptVersusPurchase(t *testing.T) {
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		other := s.NewShopper("racebuyer", "pm_card_visa")
		s.SetControls(other.User, map[string]any{"perTransactionLimit": 20000, "dailyLimit": 200000})
		for i := range 5 {
			sc := newOfferScene(t, s, fmt.Sprintf("rap%d", i))
			id := sc.offer(t, s, 6000)["id"].(string)
			charges := s.Charges()
			got := buyHelperRace(2, func(i int) buyHelperAnswer {
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
			if n := s.Charges() - charges; n != 1 {
				t.Fatalf("%d charges (answers %d %s / %d %s)", n, got[0].Status, got[0].Body, got[1].Status, got[1].Body)
			}
			o := offerNow(t, s, sc, id)
			switch {
			case got[1].Status == 201:
				if o["status"] == "accepted" && o["orderId"] != nil {
					t.Fatalf("both bought: offer %v", o)
				}
				if o["status"] != "expired" {
					t.Fatalf("the other buyer bought; offer = %v", o)
				}
			case got[0].Status == 200 && o["orderId"] != nil:
				if c := got[1].code(); c != "LISTING_SOLD" && c != "LISTING_NOT_AVAILABLE" {
					t.Fatalf("the losing purchase answered %d %s", got[1].Status, got[1].Body)
				}
			default:
				t.Fatalf("answers %d %s / %d %s; offer %v", got[0].Status, got[0].Body, got[1].Status, got[1].Body, o)
			}
		}
	})
}

// Fifty acceptances at once by the buyer's agent, each committing to a
// higher counter, never together pass the daily cap: the owner's lock
// serialises the checks, reservations and purchases alike.
func TestOfferRaceFiftyAcceptsUnderOneCap(t *testing.T) {
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
