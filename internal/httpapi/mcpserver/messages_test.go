package mcpserver_test

import (
	"testing"

	"marketplace/internal/testkit"
)

// Messages both ways over MCP: the buyer's agent writes, the seller's
// agent sees it unread (marked untrusted), reads the thread (now read) and
// replies both ways; the buyer's unread count follows.
func TestMCPMessages(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("mcpm-seller")
		sellerKey := s.NewKey(seller, "sell_only").Secret
		buyer := s.VerifiedOwner("mcpm-buyer")
		buyerKey := s.NewKey(buyer, "buy_only").Secret
		for _, tr := range transports {
			b, sl := tr.open(t, s, buyerKey), tr.open(t, s, sellerKey)
			listing := s.ActiveListing(seller, "Leather messenger bag, brown, brass buckles "+tr.name, 7000)
			base := testkit.Num(t, call(t, sl, "get_unread_count", nil).want(t, "get_unread_count", "").Data, "unread_count")

			m := call(t, b, "send_message", map[string]any{"listing_id": listing, "message": "Is the strap original?"}).
				want(t, "send_message", "").Data
			thread := buyStr(m, "thread_id")
			if thread == "" || m["sent_by_agent"] != true || m["content_trust"] != nil {
				t.Fatalf("%s: send_message %v", tr.name, m)
			}
			if n := testkit.Num(t, call(t, sl, "get_unread_count", nil).want(t, "get_unread_count", "").Data, "unread_count"); n != base+1 {
				t.Fatalf("%s: seller unread %d, want %d", tr.name, n, base+1)
			}
			ts := call(t, sl, "get_threads", map[string]any{"limit": 10}).want(t, "get_threads", "").Data
			list, _ := ts["threads"].([]any)
			if len(list) == 0 || buyStr(list[0].(map[string]any), "id") != thread {
				t.Fatalf("%s: get_threads %v", tr.name, ts)
			}
			last := buyObj(t, list[0].(map[string]any), "last_message")
			if trust, _ := last["content_trust"].(map[string]any); trust["untrusted"] != true || trust["source"] != "message" {
				t.Fatalf("%s: the buyer's text to the seller's agent: %v", tr.name, last)
			}
			read := call(t, sl, "get_thread_messages", map[string]any{"thread_id": thread}).want(t, "get_thread_messages", "").Data
			if msgs, _ := read["messages"].([]any); len(msgs) != 1 || buyStr(msgs[0].(map[string]any), "content") != "Is the strap original?" {
				t.Fatalf("%s: get_thread_messages %v", tr.name, read)
			}
			if n := testkit.Num(t, call(t, sl, "get_unread_count", nil).want(t, "get_unread_count", "").Data, "unread_count"); n != base {
				t.Fatalf("%s: after reading, seller unread %d, want %d", tr.name, n, base)
			}
			// The seller answers, in the thread and by listing and buyer.
			call(t, sl, "reply_to_thread", map[string]any{"thread_id": thread, "message": "Yes, original."}).want(t, "reply_to_thread", "")
			call(t, sl, "send_message", map[string]any{"listing_id": listing, "buyer_id": buyer.ID, "message": "Ships tomorrow."}).
				want(t, "send_message", "")
			bu := call(t, b, "get_unread_count", nil).want(t, "get_unread_count", "").Data
			if testkit.Num(t, bu, "unread_count") < 2 {
				t.Fatalf("%s: buyer unread %v", tr.name, bu)
			}
			read = call(t, b, "get_thread_messages", map[string]any{"thread_id": thread}).want(t, "get_thread_messages", "").Data
			msgs, _ := read["messages"].([]any)
			if len(msgs) != 3 || msgs[2].(map[string]any)["content_trust"] == nil || msgs[0].(map[string]any)["content_trust"] != nil {
				t.Fatalf("%s: the buyer's thread %v", tr.name, read)
			}
			call(t, b, "reply_to_thread", map[string]any{"thread_id": thread, "message": "Great, thanks"}).want(t, "reply_to_thread", "")
		}
	})
}
