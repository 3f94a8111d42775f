package offers

import (
	"context"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// plusFee is a fee rule for tests: a flat 100 cents on top.
type plusFee struct{}

func (plusFee) BuyerTotals(context.Context) (func(item, ship int64) int64, error) {
	return func(item, ship int64) int64 { return item + ship + 100 }, nil
}

type fixture struct {
	store   *memStore
	clock   *market.FixedClock
	svc     *Service
	seller  Caller
	sellerA Caller // the seller's agent
	buyer   Caller // the buyer's agent
	human   Caller // the buyer in person
	listing string
	rounds  []Round
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{store: &memStore{tx: newMem()}, clock: market.NewFixedClock(time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC))}
	f.svc = NewService(f.store, f.clock, Options{Fees: plusFee{}, OnRound: func(_ context.Context, _ Tx, _ *Offer, r Round) error {
		f.rounds = append(f.rounds, r)
		return nil
	}})
	sellerU := &accounts.User{ID: market.NewID(), IdentityVerified: true}
	buyerU := &accounts.User{ID: market.NewID(), IdentityVerified: true}
	f.seller = Caller{Actor: market.Actor{Type: market.ActorUser, UserID: sellerU.ID}, User: sellerU}
	sk := &agents.Key{ID: market.NewID(), Scope: agents.ScopeSell}
	f.sellerA = Caller{Actor: market.Actor{Type: market.ActorAgent, UserID: sellerU.ID, KeyID: sk.ID}, User: sellerU, Key: sk}
	bk := &agents.Key{ID: market.NewID(), Scope: agents.ScopeBuySell}
	f.buyer = Caller{Actor: market.Actor{Type: market.ActorAgent, UserID: buyerU.ID, KeyID: bk.ID}, User: buyerU, Key: bk}
	f.human = Caller{Actor: market.Actor{Type: market.ActorUser, UserID: buyerU.ID}, User: buyerU}
	f.listing = f.addListing(10000)
	return f
}

func (f *fixture) addListing(price int64) string {
	minimum, floor := int64(3000), int64(5000)
	l := listings.Listing{ID: market.NewID(), SellerID: f.seller.User.ID, Status: listings.StatusActive, Price: price,
		ShippingType: listings.ShipFree, AcceptOffers: true, MinOfferAmount: &minimum, FloorPrice: &floor}
	f.store.tx.listings[l.ID] = l
	return l.ID
}

func amount(v int64) *int64 { return &v }

func wantCode(t *testing.T, err error, code market.Code) {
	t.Helper()
	if market.CodeOf(err) != code {
		t.Fatalf("err = %v, want %s", err, code)
	}
}

func TestCreateRules(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*listings.Listing)
		amount int64
		as     func(f *fixture) Caller
		want   market.Code
	}{
		{name: "offers disabled", change: func(l *listings.Listing) { l.AcceptOffers = false }, amount: 6000, want: market.CodeOffersDisabled},
		{name: "below minimum", amount: 2999, want: market.CodeBelowMinimum},
		{name: "at the list price", amount: 10000, want: market.CodeValidation},
		{name: "sold", change: func(l *listings.Listing) { l.Status = listings.StatusSold }, amount: 6000, want: market.CodeListingSold},
		{name: "reserved", change: func(l *listings.Listing) { l.Status = listings.StatusReserved }, amount: 6000, want: market.CodeListingNotAvailable},
		{name: "deleted", change: func(l *listings.Listing) { l.Status = listings.StatusDeleted }, amount: 6000, want: market.CodeListingNotFound},
		{name: "own listing", amount: 6000, as: func(f *fixture) Caller { return f.seller }, want: market.CodeCannotBuyOwnListing},
		{name: "sell scope", amount: 6000, as: func(f *fixture) Caller {
			c := f.buyer
			c.Key = &agents.Key{ID: c.Actor.KeyID, Scope: agents.ScopeSell}
			return c
		}, want: market.CodeInsufficientScope},
		{name: "unverified owner", amount: 6000, as: func(f *fixture) Caller {
			c := f.buyer
			u := *c.User
			u.IdentityVerified = false
			c.User = &u
			return c
		}, want: market.CodeOwnerNotVerified},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			if c.change != nil {
				l := f.store.tx.listings[f.listing]
				c.change(&l)
				f.store.tx.listings[f.listing] = l
			}
			as := f.buyer
			if c.as != nil {
				as = c.as(f)
			}
			_, err := f.svc.Create(t.Context(), as, CreateInput{ListingID: f.listing, OfferPrice: amount(c.amount)})
			wantCode(t, err, c.want)
			if len(f.store.tx.offers) != 0 || len(f.store.tx.events) != 0 || len(f.rounds) != 0 {
				t.Fatal("a refused offer left something behind")
			}
		})
	}
}

func TestUnderFloorRejectedAtOnce(t *testing.T) {
	f := newFixture(t)
	o, err := f.svc.Create(t.Context(), f.buyer, CreateInput{ListingID: f.listing, OfferPrice: amount(4999)})
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != StatusRejected || o.Awaiting != "" || o.Reserved != 0 || o.FloorPrice != nil {
		t.Fatalf("offer = %+v", o)
	}
	// Not open: a new offer may follow.
	if _, err := f.svc.Create(t.Context(), f.buyer, CreateInput{ListingID: f.listing, OfferPrice: amount(5000)}); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Create(t.Context(), f.human, CreateInput{ListingID: f.listing, OfferPrice: amount(5000)})
	wantCode(t, err, market.CodeActiveOfferExists)
}

func TestNegotiation(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	o, err := f.svc.Create(ctx, f.buyer, CreateInput{ListingID: f.listing, OfferPrice: amount(6000), Message: "  hi  "})
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != StatusPending || o.Round != 1 || o.Awaiting != Seller || o.Message != "hi" || !o.ExpiresAt.Equal(f.clock.Now().Add(RoundTTL)) ||
		o.Reserved != 6100 || o.BuyerKeyID != f.buyer.Actor.KeyID || !o.SentByAgent || !o.AutoPurchase {
		t.Fatalf("created = %+v", o)
	}
	counter := func(c Caller, v int64) (*Offer, error) {
		return f.svc.Respond(ctx, c, o.ID, Answer{Action: ActionCounter, CounterPrice: amount(v)})
	}
	// The buyer is not asked; a stranger does not see it.
	_, err = counter(f.buyer, 6500)
	wantCode(t, err, market.CodeForbidden)
	stranger := &accounts.User{ID: market.NewID(), IdentityVerified: true}
	_, err = f.svc.Respond(ctx, Caller{Actor: market.Actor{Type: market.ActorUser, UserID: stranger.ID}, User: stranger}, o.ID, Answer{Action: ActionReject})
	wantCode(t, err, market.CodeNotFound)
	// A seller's key without sell scope cannot answer.
	_, err = counter(Caller{Actor: f.sellerA.Actor, User: f.sellerA.User, Key: &agents.Key{ID: f.sellerA.Key.ID, Scope: agents.ScopeBuy}}, 9000)
	wantCode(t, err, market.CodeInsufficientScope)

	f.clock.Advance(time.Hour)
	if o, err = counter(f.sellerA, 9000); err != nil {
		t.Fatal(err)
	}
	if o.Status != StatusCountered || o.Round != 2 || o.Awaiting != Buyer || *o.CounterPrice != 9000 || o.CurrentPrice != 9000 ||
		o.Reserved != 6100 || !o.ExpiresAt.Equal(f.clock.Now().Add(RoundTTL)) || len(o.Rounds) != 2 || o.Rounds[1].By != Seller {
		t.Fatalf("seller's counter = %+v", o)
	}
	if o, err = counter(f.buyer, 7000); err != nil {
		t.Fatal(err)
	}
	if o.Round != 3 || o.Awaiting != Seller || o.Reserved != 7100 {
		t.Fatalf("buyer's counter = %+v", o)
	}
	if o, err = f.svc.Respond(ctx, f.seller, o.ID, Answer{Action: ActionAccept}); err != nil {
		t.Fatal(err)
	}
	if o.Status != StatusAccepted || *o.AgreedPrice != 7000 || o.Awaiting != "" || o.Reserved != 7100 {
		t.Fatalf("accepted = %+v", o)
	}
	_, err = f.svc.Respond(ctx, f.seller, o.ID, Answer{Action: ActionReject})
	wantCode(t, err, market.CodeInvalidState)
	_, err = f.svc.Withdraw(ctx, f.buyer, o.ID)
	wantCode(t, err, market.CodeInvalidState)

	var types []string
	for _, e := range f.store.tx.events {
		types = append(types, e.Type)
	}
	want := []string{"offer.received", "offer.countered", "offer.countered", "offer.accepted"}
	if len(types) != len(want) || types[0] != want[0] || types[3] != want[3] {
		t.Fatalf("events %v, want %v", types, want)
	}
	if len(f.rounds) != 4 || f.rounds[3].By != Seller || f.rounds[3].Amount != 7000 {
		t.Fatalf("OnRound saw %+v", f.rounds)
	}

	// The purchase path's view: the agreed price, then used.
	tx := f.store.tx
	if p, err := AgreedPrice(ctx, tx, o.ID, o.BuyerID, o.ListingID, f.clock.Now()); err != nil || p != 7000 {
		t.Fatalf("AgreedPrice = %d, %v", p, err)
	}
	_, err = AgreedPrice(ctx, tx, o.ID, f.seller.User.ID, o.ListingID, f.clock.Now())
	wantCode(t, err, market.CodeNotFound)
	_, err = AgreedPrice(ctx, tx, o.ID, o.BuyerID, o.ListingID, f.clock.Now().Add(RoundTTL))
	wantCode(t, err, market.CodeOfferExpired)
	if err := Used(ctx, tx, o.ID, "order-1", f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if got := tx.offers[o.ID]; got.OrderID != "order-1" || got.Reserved != 0 || got.Open() {
		t.Fatalf("used = %+v", got)
	}
	_, err = AgreedPrice(ctx, tx, o.ID, o.BuyerID, o.ListingID, f.clock.Now())
	wantCode(t, err, market.CodeOfferNotAccepted)
}

func TestMaxRounds(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	o, _ := f.svc.Create(ctx, f.buyer, CreateInput{ListingID: f.listing, OfferPrice: amount(6000)})
	sides := []Caller{f.seller, f.buyer, f.seller, f.buyer}
	for i, c := range sides {
		var err error
		if o, err = f.svc.Respond(ctx, c, o.ID, Answer{Action: ActionCounter, CounterPrice: amount(int64(9000 - i*500))}); err != nil {
			t.Fatalf("round %d: %v", i+2, err)
		}
	}
	if o.Round != 5 {
		t.Fatalf("round = %d", o.Round)
	}
	_, err := f.svc.Respond(ctx, f.seller, o.ID, Answer{Action: ActionCounter, CounterPrice: amount(7500)})
	wantCode(t, err, market.CodeMaxRoundsReached)
	if o, err = f.svc.Respond(ctx, f.seller, o.ID, Answer{Action: ActionReject, Message: "no"}); err != nil || o.Status != StatusRejected || o.Reserved != 0 {
		t.Fatalf("reject = %+v, %v", o, err)
	}
}

func TestExpiry(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	o, _ := f.svc.Create(ctx, f.buyer, CreateInput{ListingID: f.listing, OfferPrice: amount(6000)})
	f.clock.Advance(RoundTTL - time.Second)
	if n, err := f.svc.ExpireDue(ctx); err != nil || n != 0 {
		t.Fatalf("early sweep = %d, %v", n, err)
	}
	f.clock.Advance(time.Second)
	_, err := f.svc.Respond(ctx, f.seller, o.ID, Answer{Action: ActionAccept})
	wantCode(t, err, market.CodeOfferExpired)
	if got, _ := f.svc.Get(ctx, f.buyer, o.ID); got.Status != StatusExpired {
		t.Fatalf("read after the round ran out = %s", got.Status)
	}
	if n, err := f.svc.ExpireDue(ctx); err != nil || n != 1 {
		t.Fatalf("sweep = %d, %v", n, err)
	}
	got := f.store.tx.offers[o.ID]
	if got.Status != StatusExpired || got.Reserved != 0 || f.store.tx.events[len(f.store.tx.events)-1].Type != "offer.expired" {
		t.Fatalf("expired = %+v", got)
	}
	_, err = f.svc.Withdraw(ctx, f.buyer, o.ID)
	wantCode(t, err, market.CodeOfferExpired)
}

func TestListingSoldExpiresOpenOffers(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	o, _ := f.svc.Create(ctx, f.buyer, CreateInput{ListingID: f.listing, OfferPrice: amount(6000)})
	if err := ListingSold(ctx, f.store.tx, f.listing, f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if got := f.store.tx.offers[o.ID]; got.Status != StatusExpired || got.Reserved != 0 {
		t.Fatalf("after the sale = %+v", got)
	}
}

func TestReservation(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	c := agents.DefaultControls()
	c.Daily = 10000
	f.store.tx.controls = &c
	o, err := f.svc.Create(ctx, f.buyer, CreateInput{ListingID: f.listing, OfferPrice: amount(6000)})
	if err != nil {
		t.Fatal(err)
	}
	second := f.addListing(10000)
	_, err = f.svc.Create(ctx, f.buyer, CreateInput{ListingID: second, OfferPrice: amount(5000)})
	wantCode(t, err, market.CodeSpendingLimitExceeded)
	// A human's own offer is not capped and reserves nothing.
	h, err := f.svc.Create(ctx, f.human, CreateInput{ListingID: second, OfferPrice: amount(5000)})
	if err != nil || h.Reserved != 0 {
		t.Fatalf("human offer = %+v, %v", h, err)
	}
	// The seller's counter does not commit the buyer; accepting it does.
	if _, err := f.svc.Respond(ctx, f.seller, o.ID, Answer{Action: ActionCounter, CounterPrice: amount(9950)}); err != nil {
		t.Fatal(err)
	}
	before := f.store.tx.offers[o.ID]
	_, err = f.svc.Respond(ctx, f.buyer, o.ID, Answer{Action: ActionAccept})
	wantCode(t, err, market.CodeSpendingLimitExceeded)
	if after := f.store.tx.offers[o.ID]; after.Status != before.Status || after.Reserved != 6100 {
		t.Fatalf("a refused acceptance changed the offer: %+v", after)
	}
	// Its own reservation is left out when re-priced: 9800 + 100 fits.
	if got, err := f.svc.Respond(ctx, f.buyer, o.ID, Answer{Action: ActionCounter, CounterPrice: amount(9800)}); err != nil || got.Reserved != 9900 {
		t.Fatalf("buyer's counter = %+v, %v", got, err)
	}
	if got, err := f.svc.Withdraw(ctx, f.buyer, o.ID); err != nil || got.Reserved != 0 || got.Status != StatusWithdrawn {
		t.Fatalf("withdrawn = %+v, %v", got, err)
	}
}

// An offer whose round ran out does not block a new one, even before the
// sweep: it is expired in the new offer's transaction.
func TestExpiredOfferMakesRoom(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	old, _ := f.svc.Create(ctx, f.buyer, CreateInput{ListingID: f.listing, OfferPrice: amount(6000)})
	f.clock.Advance(RoundTTL)
	o, err := f.svc.Create(ctx, f.buyer, CreateInput{ListingID: f.listing, OfferPrice: amount(6500)})
	if err != nil || o.Status != StatusPending {
		t.Fatalf("new offer = %+v, %v", o, err)
	}
	if got := f.store.tx.offers[old.ID]; got.Status != StatusExpired || got.Reserved != 0 {
		t.Fatalf("old offer = %+v", got)
	}
}
