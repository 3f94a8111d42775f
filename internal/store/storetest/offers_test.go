package storetest

import (
	"context"
	"testing"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/market"
	"marketplace/internal/offers"
	"marketplace/internal/store"
)

func newOffer(buyer, key, seller, listing string, reserved int64, at time.Time) *offers.Offer {
	return &offers.Offer{ID: market.NewID(), ListingID: listing, BuyerID: buyer, BuyerKeyID: key, SellerID: seller,
		Status: offers.StatusPending, OfferPrice: 6000, CurrentPrice: 6000, Message: "hello", Round: 1, MaxRounds: 5,
		Awaiting: offers.Seller, ExpiresAt: at.Add(offers.RoundTTL), AutoPurchase: true, Reserved: reserved, SentByAgent: key != "",
		Rounds:    []offers.Round{{Round: 1, By: offers.Buyer, Amount: 6000, Message: "hello", SentByAgent: key != "", CreatedAt: at}},
		CreatedAt: at, UpdatedAt: at}
}

// TestOffersStore: the offers area's queries, the one-open-offer index and
// the reservations the spending snapshot counts, on both engines.
func TestOffersStore(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		buyer, seller, key := market.NewID(), market.NewID(), market.NewID()
		l1, l2 := market.NewID(), market.NewID()
		var first *offers.Offer
		err := db.InTx(ctx, func(tx *store.Tx) error {
			first = newOffer(buyer, key, seller, l1, 6210, t0)
			return tx.CreateOffer(ctx, first)
		})
		if err != nil {
			t.Fatal(err)
		}
		// One open offer per buyer and listing (the failed statement ends
		// the transaction on PostgreSQL, so it is a transaction of its own).
		wantCode(t, db.InTx(ctx, func(tx *store.Tx) error {
			return tx.CreateOffer(ctx, newOffer(buyer, "", seller, l1, 0, t0))
		}), market.CodeActiveOfferExists)
		got, err := db.Read().OfferByID(ctx, first.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Reserved != 6210 || got.BuyerKeyID != key || len(got.Rounds) != 1 || !got.Rounds[0].CreatedAt.Equal(t0) ||
			!got.ExpiresAt.Equal(t0.Add(offers.RoundTTL)) || got.CounterPrice != nil || !got.AutoPurchase || !got.SentByAgent {
			t.Fatalf("read back = %+v", got)
		}
		// A counter round trips, with the rounds.
		err = db.InTx(ctx, func(tx *store.Tx) error {
			o, err := tx.OfferByID(ctx, first.ID)
			if err != nil {
				return err
			}
			c := int64(8000)
			o.Status, o.CounterPrice, o.CurrentPrice, o.Round, o.Awaiting = offers.StatusCountered, &c, c, 2, offers.Buyer
			o.Rounds = append(o.Rounds, offers.Round{Round: 2, By: offers.Seller, Amount: c, CreatedAt: t0.Add(time.Hour)})
			return tx.UpdateOffer(ctx, o)
		})
		if err != nil {
			t.Fatal(err)
		}
		got, _ = db.Read().OfferByID(ctx, first.ID)
		if got.Status != offers.StatusCountered || *got.CounterPrice != 8000 || len(got.Rounds) != 2 || got.Rounds[1].By != offers.Seller {
			t.Fatalf("after the counter = %+v", got)
		}
		if o, err := db.Read().OpenOfferOf(ctx, buyer, l1); err != nil || o.ID != first.ID {
			t.Fatalf("OpenOfferOf = %v, %v", o, err)
		}
		if os, err := db.Read().OpenOffersOn(ctx, l1); err != nil || len(os) != 1 {
			t.Fatalf("OpenOffersOn = %v, %v", os, err)
		}
		// A second listing, an offer made by the owner in person.
		second := newOffer(buyer, "", seller, l2, 0, t0.Add(time.Minute))
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.CreateOffer(ctx, second) }); err != nil {
			t.Fatal(err)
		}
		list, total, err := db.Read().Offers(ctx, offers.Filter{UserID: buyer, Role: offers.Buyer, Limit: 1})
		if err != nil || total != 2 || len(list) != 1 || list[0].ID != second.ID {
			t.Fatalf("buyer page = %v (%d), %v", list, total, err)
		}
		if _, total, _ := db.Read().Offers(ctx, offers.Filter{UserID: seller, Role: offers.Seller, Status: offers.StatusCountered, Limit: 10}); total != 1 {
			t.Fatalf("seller's countered offers = %d", total)
		}
		// Reservations: counted for the owner and the key while open and
		// unexpired, never for the offer being bought.
		snap := func(now time.Time, keyID, exclude string) *agents.SpendingSnapshot {
			day, week, month := agents.Windows(now)
			s, err := db.Read().SpendingSnapshot(ctx, agents.SpentQuery{UserID: buyer, KeyID: keyID, DayStart: day, WeekStart: week,
				MonthStart: month, Now: now, ExcludeOfferID: exclude})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		if s := snap(t0, key, ""); s.OwnerReserved != 6210 || s.KeyReserved != 6210 {
			t.Fatalf("reserved = %d / %d", s.OwnerReserved, s.KeyReserved)
		}
		if s := snap(t0, key, first.ID); s.OwnerReserved != 0 || s.KeyReserved != 0 {
			t.Fatalf("reserved without the offer = %d / %d", s.OwnerReserved, s.KeyReserved)
		}
		if s := snap(t0.Add(offers.RoundTTL), key, ""); s.OwnerReserved != 0 {
			t.Fatalf("an expired round still reserves %d", s.OwnerReserved)
		}
		if s := snap(t0, market.NewID(), ""); s.OwnerReserved != 6210 || s.KeyReserved != 0 {
			t.Fatalf("another key's reservation = %d / %d", s.OwnerReserved, s.KeyReserved)
		}
		// Due offers, then the open index frees the pair once one ends.
		due, err := db.Read().DueOffers(ctx, t0.Add(offers.RoundTTL+time.Minute), 10)
		if err != nil || len(due) != 2 {
			t.Fatalf("due = %v, %v", due, err)
		}
		err = db.InTx(ctx, func(tx *store.Tx) error {
			o, _ := tx.OfferByID(ctx, first.ID)
			o.Status, o.Reserved = offers.StatusExpired, 0
			if err := tx.UpdateOffer(ctx, o); err != nil {
				return err
			}
			return tx.CreateOffer(ctx, newOffer(buyer, key, seller, l1, 100, t0))
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.Read().OfferByID(ctx, market.NewID())
		wantCode(t, err, market.CodeNotFound)
	})
}
