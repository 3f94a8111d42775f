package apiv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/testkit"
)

// Every round of a negotiation lands in the buyer's thread on the listing
// as an offer message from the party that made it, with the figures in its
// structured fields and the agent disclosure; the seller sees them unread.
func TestOfferRoundsInThread(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "thread")
		o := sc.offer(t, s, 6000)
		id := o["id"].(string)
		s.Do("POST", "/api/v1/offers/"+id+"/counter", map[string]any{"counterPrice": 8000, "message": "Meet me here?"},
			sc.seller.Auth()).Want(t, http.StatusOK, "")

		threads := msgList(s.Do("GET", "/api/v1/messages/threads", nil, sc.seller.Auth()).Want(t, http.StatusOK, ""))
		if len(threads) != 1 || threads[0]["listingId"] != sc.listing || testkit.Num(t, threads[0], "unreadCount") != 1 {
			t.Fatalf("seller's threads = %v", threads)
		}
		ms := msgList(s.Do("GET", "/api/v1/messages/threads/"+threads[0]["id"].(string), nil, sc.buyer.Auth()).
			Want(t, http.StatusOK, ""))
		want := []struct {
			sender, action, content string
			amount                  float64
			agent                   bool
		}{
			{sc.buyer.ID, "offer", "Offer: $60.00\n\nWould you take this?", 6000, true},
			{sc.seller.ID, "counter", "Counter-offer: $80.00\n\nMeet me here?", 8000, false},
		}
		if len(ms) != len(want) {
			t.Fatalf("%d messages, want %d: %v", len(ms), len(want), ms)
		}
		for i, w := range want {
			m := ms[i]
			f, _ := m["structuredFields"].(map[string]any)
			if m["messageType"] != "offer" || m["senderId"] != w.sender || m["content"] != w.content || m["sentByAgent"] != w.agent ||
				f["offerId"] != id || f["action"] != w.action || f["amount"] != w.amount {
				t.Errorf("message %d = %v", i, m)
			}
		}
	})
}
