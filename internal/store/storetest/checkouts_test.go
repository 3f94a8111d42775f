package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/checkouts"
	"marketplace/internal/market"
	"marketplace/internal/store"
)

// TestCheckoutsStore: a checkout session's cart survives the round trip
// whole, updates change what may change, and an unknown id is NOT_FOUND,
// on both engines.
func TestCheckoutsStore(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		listing := market.NewID()
		s := &checkouts.Session{ID: checkouts.NewID(), KeyID: market.NewID(), UserID: market.NewID(), State: checkouts.StateOpen,
			Buyer: &checkouts.Contact{FirstName: "Ada", Email: "ada@example.com"},
			Items: []checkouts.Item{{ID: "li_" + listing, ListingID: listing, Quantity: 1}},
			Destination: &checkouts.Destination{Name: "Ada", Address: accounts.Address{Name: "Ada", Line1: "1 Main St",
				City: "Austin", State: "TX", Zip: "78701", Country: "US"}},
			Options: []checkouts.Option{{ID: "ship_usps_ground", Kind: checkouts.FulfillShipping, Carrier: "usps",
				Service: "ground", Amount: 850, Days: 4, RateID: "rate.token"}, {ID: checkouts.PickupOption, Kind: checkouts.FulfillPickup}},
			Selected:  []checkouts.Selection{{OptionID: "ship_usps_ground", ItemIDs: []string{"li_" + listing}}},
			SeenPrice: 4500, Currency: "usd", CreatedAt: t0, UpdatedAt: t0}
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.CreateCheckout(ctx, s) }); err != nil {
			t.Fatal(err)
		}
		got, err := db.Read().CheckoutByID(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Fatalf("read back %+v, want %+v", got, s)
		}

		later := t0.Add(time.Minute)
		err = db.InTx(ctx, func(tx *store.Tx) error {
			cur, err := tx.CheckoutByID(ctx, s.ID) // locks
			if err != nil {
				return err
			}
			cur.State, cur.Attempt, cur.OrderID, cur.ApprovalID, cur.UpdatedAt = checkouts.StatePendingApproval, 2, market.NewID(), market.NewID(), later
			cur.Payment = &checkouts.PaymentChoice{Handler: checkouts.HandlerSavedCard, Token: "pm_1"}
			s = cur
			return tx.UpdateCheckout(ctx, cur)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, err = db.Read().CheckoutByID(ctx, s.ID); err != nil || !reflect.DeepEqual(got, s) {
			t.Fatalf("after the update read %+v (%v), want %+v", got, err, s)
		}

		_, err = db.Read().CheckoutByID(ctx, checkouts.NewID())
		wantCode(t, err, market.CodeNotFound)
		missing := *s
		missing.ID = checkouts.NewID()
		wantCode(t, db.InTx(ctx, func(tx *store.Tx) error { return tx.UpdateCheckout(ctx, &missing) }), market.CodeNotFound)
	})
}
