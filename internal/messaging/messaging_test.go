package messaging

import (
	"context"
	"strings"
	"testing"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

var t0 = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

type fixture struct {
	s                    *Service
	store                *memStore
	clock                *market.FixedClock
	listing              listings.Listing
	buyer, seller, other Caller
}

func newFixture() *fixture {
	seller, buyer, other := market.NewID(), market.NewID(), market.NewID()
	l := listings.Listing{ID: market.NewID(), SellerID: seller, Status: listings.StatusActive, Title: "Lamp"}
	st := newMemStore(l)
	clock := market.NewFixedClock(t0)
	human := func(id string) Caller { return Caller{Actor: market.Actor{Type: market.ActorUser, UserID: id}} }
	return &fixture{s: NewService(st, clock), store: st, clock: clock, listing: l, buyer: human(buyer),
		seller: human(seller), other: human(other)}
}

func agent(c Caller, scope agents.Scope) Caller {
	return Caller{Actor: market.Actor{Type: market.ActorAgent, UserID: c.Actor.UserID, KeyID: market.NewID()}, Scope: scope}
}

func wantCode(t *testing.T, err error, code market.Code) {
	t.Helper()
	if market.CodeOf(err) != code {
		t.Fatalf("err = %v, want %s", err, code)
	}
}

func wantField(t *testing.T, err error, field string) {
	t.Helper()
	wantCode(t, err, market.CodeValidation)
	for _, f := range market.ErrorOf(err).Fields {
		if f.Field == field {
			return
		}
	}
	t.Fatalf("err = %v, want field %s", err, field)
}

func TestInputChecks(t *testing.T) {
	f := newFixture()
	ctx := context.Background()
	deep := map[string]any{}
	cur := deep
	for range MaxFieldsDepth {
		next := map[string]any{}
		cur["a"] = next
		cur = next
	}
	cases := []struct {
		name, field string
		listing     string
		in          Input
	}{
		{"no listing", "listing_id", "", Input{Content: "hi"}},
		{"blank content", "content", f.listing.ID, Input{Content: "  "}},
		{"content too long", "content", f.listing.ID, Input{Content: strings.Repeat("x", MaxContent+1)}},
		{"control characters", "content", f.listing.ID, Input{Content: "a\x00b"}},
		{"fields too deep", "structured_fields", f.listing.ID, Input{Content: "hi", Fields: deep}},
		{"fields too large", "structured_fields", f.listing.ID, Input{Content: "hi",
			Fields: map[string]any{"x": strings.Repeat("y", MaxFieldsBytes)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.s.Send(ctx, f.buyer, c.listing, c.in)
			wantField(t, err, c.field)
		})
	}
	// Exactly the limits pass.
	ok := map[string]any{}
	cur = ok
	for range MaxFieldsDepth - 1 {
		next := map[string]any{}
		cur["a"] = next
		cur = next
	}
	if _, err := f.s.Send(ctx, f.buyer, f.listing.ID, Input{Content: strings.Repeat("é", MaxContent), Fields: ok}); err != nil {
		t.Fatal(err)
	}
}

func TestSendReplyRead(t *testing.T) {
	f := newFixture()
	ctx := context.Background()
	sent, err := f.s.Send(ctx, f.buyer, f.listing.ID, Input{Content: "  Is it still available?  ", Fields: map[string]any{"q": 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	m, th := sent.Message, sent.Thread
	if m.Content != "Is it still available?" || m.Type != TypeText || m.SenderID != f.buyer.Actor.UserID || m.SentByAgent {
		t.Fatalf("message = %+v", m)
	}
	if th.BuyerID != f.buyer.Actor.UserID || th.SellerID != f.seller.Actor.UserID || th.SellerUnread != 1 || th.BuyerUnread != 0 {
		t.Fatalf("thread = %+v", th)
	}
	if got := m.ReadAt(th, f.buyer.Actor.UserID); got != nil {
		t.Errorf("readAt for the sender before the seller read = %v", got)
	}
	// The same buyer again: the same thread.
	f.clock.Advance(time.Minute)
	again, err := f.s.Send(ctx, agent(f.buyer, agents.ScopeBuy), f.listing.ID, Input{Content: "Hello?"})
	if err != nil {
		t.Fatal(err)
	}
	if again.Thread.ID != th.ID || !again.Message.SentByAgent || again.Thread.SellerUnread != 2 {
		t.Fatalf("second send = %+v in %+v", again.Message, again.Thread)
	}
	if n, _ := f.s.Unread(ctx, f.seller); n != 2 {
		t.Errorf("seller unread = %d, want 2", n)
	}
	if n, _ := f.s.Unread(ctx, f.buyer); n != 0 {
		t.Errorf("buyer unread = %d, want 0 (own messages)", n)
	}
	// The event goes to the seller.
	ev := f.store.tx.events[len(f.store.tx.events)-1]
	if ev.Type != EventReceived || ev.Data["recipient_id"] != f.seller.Actor.UserID || ev.EntityID != th.ID {
		t.Errorf("event = %+v", ev)
	}

	// Sellers reply; they do not open threads.
	_, err = f.s.Send(ctx, f.seller, f.listing.ID, Input{Content: "hi"})
	wantCode(t, err, market.CodeForbidden)
	f.clock.Advance(time.Minute)
	reply, err := f.s.Reply(ctx, f.seller, th.ID, Input{Content: "Yes"})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Thread.BuyerUnread != 1 {
		t.Errorf("buyer unread after reply = %d", reply.Thread.BuyerUnread)
	}
	// Strangers see nothing.
	_, err = f.s.Reply(ctx, f.other, th.ID, Input{Content: "me too"})
	wantCode(t, err, market.CodeNotFound)
	_, err = f.s.Thread(ctx, f.other, th.ID)
	wantCode(t, err, market.CodeNotFound)
	_, err = f.s.Thread(ctx, f.buyer, "not-an-id")
	wantCode(t, err, market.CodeNotFound)

	// Reading marks read for the reader only.
	f.clock.Advance(time.Minute)
	conv, err := f.s.Thread(ctx, f.seller, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(conv.Messages) != 3 || conv.Thread.SellerUnread != 0 {
		t.Fatalf("conversation = %d messages, seller unread %d", len(conv.Messages), conv.Thread.SellerUnread)
	}
	if n, _ := f.s.Unread(ctx, f.seller); n != 0 {
		t.Errorf("seller unread after reading = %d", n)
	}
	if n, _ := f.s.Unread(ctx, f.buyer); n != 1 {
		t.Errorf("buyer unread = %d, want 1", n)
	}
	// As the buyer sees it: their first message was read by the seller.
	conv, _ = f.s.Thread(ctx, f.buyer, th.ID)
	if at := conv.Messages[0].ReadAt(conv.Thread, f.buyer.Actor.UserID); at == nil || !at.Equal(t0.Add(3*time.Minute)) {
		t.Errorf("readAt of the buyer's message = %v", at)
	}
	if at := conv.Messages[2].ReadAt(conv.Thread, f.buyer.Actor.UserID); at == nil {
		t.Errorf("the seller's reply is unread for the buyer after reading")
	}
}

func TestScopes(t *testing.T) {
	f := newFixture()
	ctx := context.Background()
	_, err := f.s.Send(ctx, agent(f.buyer, agents.ScopeSell), f.listing.ID, Input{Content: "hi"})
	wantCode(t, err, market.CodeInsufficientScope)
	sent, err := f.s.Send(ctx, agent(f.buyer, agents.ScopeBuySell), f.listing.ID, Input{Content: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.s.Reply(ctx, agent(f.seller, agents.ScopeBuy), sent.Thread.ID, Input{Content: "hi"})
	wantCode(t, err, market.CodeInsufficientScope)
	_, err = f.s.Reply(ctx, agent(f.buyer, agents.ScopeSell), sent.Thread.ID, Input{Content: "hi"})
	wantCode(t, err, market.CodeInsufficientScope)
	if _, err := f.s.Reply(ctx, agent(f.seller, agents.ScopeSell), sent.Thread.ID, Input{Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	// Reads take any scope.
	if _, err := f.s.Thread(ctx, agent(f.seller, agents.ScopeBuy), sent.Thread.ID); err != nil {
		t.Fatal(err)
	}
}

func TestListingStates(t *testing.T) {
	f := newFixture()
	ctx := context.Background()
	_, err := f.s.Send(ctx, f.buyer, market.NewID(), Input{Content: "hi"})
	wantCode(t, err, market.CodeListingNotFound)
	l := f.listing
	l.Status = listings.StatusRemoved
	f.store.tx.listings[l.ID] = l
	_, err = f.s.Send(ctx, f.buyer, l.ID, Input{Content: "hi"})
	wantCode(t, err, market.CodeListingNotFound)
}

func TestOnListing(t *testing.T) {
	f := newFixture()
	ctx := context.Background()
	_, err := f.s.OnListing(ctx, f.buyer, f.listing.ID, "")
	wantCode(t, err, market.CodeNotFound)
	sent, _ := f.s.Send(ctx, f.buyer, f.listing.ID, Input{Content: "hi"})
	f.s.Send(ctx, f.other, f.listing.ID, Input{Content: "me too"})
	lt, err := f.s.OnListing(ctx, f.buyer, f.listing.ID, "")
	if err != nil || lt.Conversation == nil || lt.Conversation.Thread.ID != sent.Thread.ID {
		t.Fatalf("buyer's thread = %+v, %v", lt, err)
	}
	lt, err = f.s.OnListing(ctx, f.seller, f.listing.ID, "")
	if err != nil || len(lt.Threads) != 2 {
		t.Fatalf("seller's threads = %+v, %v", lt, err)
	}
	lt, err = f.s.OnListing(ctx, f.seller, f.listing.ID, f.buyer.Actor.UserID)
	if err != nil || lt.Conversation.Thread.ID != sent.Thread.ID {
		t.Fatalf("seller's view of the buyer's thread = %+v, %v", lt, err)
	}
	// A buyer cannot name another buyer's thread.
	_, err = f.s.OnListing(ctx, f.other, f.listing.ID, f.buyer.Actor.UserID)
	wantCode(t, err, market.CodeNotFound)
	// The seller answers through ReplyTo.
	if _, err := f.s.ReplyTo(ctx, f.seller, f.listing.ID, f.buyer.Actor.UserID, Input{Content: "yes"}); err != nil {
		t.Fatal(err)
	}
	_, err = f.s.ReplyTo(ctx, f.seller, f.listing.ID, market.NewID(), Input{Content: "yes"})
	wantCode(t, err, market.CodeNotFound)

	// Post: Variant B's one send route.
	if p, err := f.s.Post(ctx, f.buyer, f.listing.ID, f.buyer.Actor.UserID, Input{Content: "again"}); err != nil || p.Thread.ID != sent.Thread.ID {
		t.Fatalf("buyer naming themself = %+v, %v", p, err)
	}
	if p, err := f.s.Post(ctx, f.seller, f.listing.ID, f.buyer.Actor.UserID, Input{Content: "ok"}); err != nil ||
		p.Thread.ID != sent.Thread.ID || p.Message.SenderID != f.seller.Actor.UserID {
		t.Fatalf("seller naming the buyer = %+v, %v", p, err)
	}
	_, err = f.s.Post(ctx, f.seller, f.listing.ID, "", Input{Content: "hi"})
	wantCode(t, err, market.CodeForbidden)
	_, err = f.s.Post(ctx, f.seller, "", f.buyer.Actor.UserID, Input{Content: ""})
	wantField(t, err, "listing_id")
	wantField(t, err, "content")
}

func TestThreadsPaging(t *testing.T) {
	f := newFixture()
	ctx := context.Background()
	var ids []string
	for range 5 {
		l := listings.Listing{ID: market.NewID(), SellerID: f.seller.Actor.UserID, Status: listings.StatusActive}
		f.store.tx.listings[l.ID] = l
		f.clock.Advance(time.Second)
		sent, err := f.s.Send(ctx, f.buyer, l.ID, Input{Content: "hi"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append([]string{sent.Thread.ID}, ids...) // newest first
	}
	var got []string
	cursor := ""
	for {
		ts, next, err := f.s.Threads(ctx, f.seller, cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range ts {
			got = append(got, th.ID)
			if th.Unread(f.seller.Actor.UserID) != 1 || th.LastMessage == nil {
				t.Errorf("thread %+v", th)
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if strings.Join(got, ",") != strings.Join(ids, ",") {
		t.Fatalf("pages = %v, want %v", got, ids)
	}
	_, _, err := f.s.Threads(ctx, f.seller, "garbage", 2)
	wantField(t, err, "cursor")
	_, _, err = f.s.Threads(ctx, f.seller, "", 101)
	wantField(t, err, "limit")
}

func TestAuto(t *testing.T) {
	f := newFixture()
	ctx := context.Background()
	err := f.store.InTx(ctx, func(tx Tx) error {
		return Auto(ctx, tx, t0, AutoMessage{ListingID: f.listing.ID, BuyerID: f.buyer.Actor.UserID,
			SellerID: f.seller.Actor.UserID, Type: TypeSystem, Content: "Shipped.", Fields: map[string]any{"event": "order.shipped"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = f.store.InTx(ctx, func(tx Tx) error {
		return Auto(ctx, tx, t0.Add(time.Second), AutoMessage{ListingID: f.listing.ID, BuyerID: f.buyer.Actor.UserID,
			SellerID: f.seller.Actor.UserID, SenderID: f.buyer.Actor.UserID, Type: TypeOffer, Content: "Offer: 50.00",
			SentByAgent: true})
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := f.s.Unread(ctx, f.buyer); n != 1 {
		t.Errorf("buyer unread = %d, want 1 (the system message, not their own offer)", n)
	}
	if n, _ := f.s.Unread(ctx, f.seller); n != 2 {
		t.Errorf("seller unread = %d, want 2", n)
	}
	if len(f.store.tx.threads) != 1 || len(f.store.tx.events) != 0 {
		t.Errorf("threads %d, events %d; want 1 and 0", len(f.store.tx.threads), len(f.store.tx.events))
	}
	err = f.store.InTx(ctx, func(tx Tx) error {
		return Auto(ctx, tx, t0, AutoMessage{ListingID: f.listing.ID, BuyerID: f.buyer.Actor.UserID,
			SellerID: f.seller.Actor.UserID, Type: TypeText, Content: "x"})
	})
	wantCode(t, err, market.CodeInternal)
}
