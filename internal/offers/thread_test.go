package offers

import (
	"testing"

	"marketplace/internal/messaging"
)

// Every round goes into the buyer's thread as an offer message from the
// party that made it, agent disclosure and figures included; a refused move
// posts nothing.
func TestRoundsPostedIntoThread(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	o, err := f.svc.Create(ctx, f.buyer, CreateInput{ListingID: f.listing, OfferPrice: amount(6000), Message: "would you take 60?"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Respond(ctx, f.buyer, o.ID, Answer{Action: ActionAccept}); err == nil {
		t.Fatal("the buyer accepted its own offer")
	}
	if _, err := f.svc.Respond(ctx, f.sellerA, o.ID, Answer{Action: ActionCounter, CounterPrice: amount(8050)}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Respond(ctx, f.human, o.ID, Answer{Action: ActionAccept}); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		sender, content, action string
		amount                  int64
		agent                   bool
	}{
		{f.buyer.User.ID, "Offer: $60.00\n\nwould you take 60?", "offer", 6000, true},
		{f.seller.User.ID, "Counter-offer: $80.50", "counter", 8050, true},
		{f.buyer.User.ID, "Offer accepted at $80.50", "accept", 8050, false},
	}
	got := f.store.tx.posted
	if len(got) != len(want) {
		t.Fatalf("%d messages posted, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		m := got[i]
		if m.Type != messaging.TypeOffer || m.SenderID != w.sender || m.Content != w.content || m.SentByAgent != w.agent ||
			m.Fields["action"] != w.action || m.Fields["amount"] != w.amount || m.Fields["offerId"] != o.ID {
			t.Errorf("message %d = %+v, want %+v", i, m, w)
		}
	}
}

func TestDollars(t *testing.T) {
	for cents, want := range map[int64]string{0: "$0.00", 5: "$0.05", 99: "$0.99", 100: "$1.00", 123456: "$1234.56"} {
		if got := dollars(cents); got != want {
			t.Errorf("dollars(%d) = %q, want %q", cents, got, want)
		}
	}
}

// A withdrawal tells the seller in the thread and stays on the offer's
// timeline.
func TestWithdrawPostedAndRecorded(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	o, err := f.svc.Create(ctx, f.buyer, CreateInput{ListingID: f.listing, OfferPrice: amount(6000)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Withdraw(ctx, f.buyer, o.ID); err != nil {
		t.Fatal(err)
	}
	posted := f.store.tx.posted
	if last := posted[len(posted)-1]; last.Content != "Offer withdrawn" || last.SenderID != f.buyer.User.ID || last.Fields["action"] != "withdraw" {
		t.Errorf("last message = %+v", last)
	}
	evs := f.store.tx.events
	if last := evs[len(evs)-1]; last.Type != "offer.withdrawn" || last.EntityID != o.ID || last.Data["status"] != "withdrawn" {
		t.Errorf("last event = %+v", last)
	}
}
