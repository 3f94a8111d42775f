package shipping_test

import (
	"context"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/shipping"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

var t0 = time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)

type fixture struct {
	t     *testing.T
	db    *store.DB
	clock *market.FixedClock
	svc   *shipping.Service
}

func newFixture(t *testing.T, db *store.DB) *fixture {
	clock := market.NewFixedClock(t0)
	return &fixture{t: t, db: db, clock: clock,
		svc: shipping.NewService(store.Shipping(db), clock, []byte("test-secret-0123456789abcdef0123456789"))}
}

// seller makes a user, shipping from zip when it is not "".
func (f *fixture) seller(zip string) *accounts.User {
	f.t.Helper()
	id := market.NewID()
	u := &accounts.User{ID: id, Email: id + "@example.com", Username: "u" + id[24:],
		DisplayName: "Seller", Role: accounts.RoleUser, Status: accounts.StatusActive, TrustTier: accounts.TierNew,
		CreatedAt: t0, UpdatedAt: t0}
	if zip != "" {
		u.ShipFrom = &accounts.Address{Name: "S", Line1: "1 Main St", City: "Town", State: "NY", Zip: zip, Country: "US"}
	}
	if err := f.db.InTx(context.Background(), func(tx *store.Tx) error { return tx.CreateUser(context.Background(), u) }); err != nil {
		f.t.Fatal(err)
	}
	return u
}

// listing creates a listing of the seller's with the shipping type and
// cost, 2 lb in a 12 x 10 x 6 inch box.
func (f *fixture) listing(sellerID string, ship listings.ShippingType, cost *int64, status listings.Status) *listings.Listing {
	f.t.Helper()
	l := &listings.Listing{ID: market.NewID(), SellerID: sellerID, Status: status, Title: "Lamp", Description: "A lamp",
		Brief: "lamp", Price: 5000, PriceSource: "seller", Condition: "good", CategoryID: "c1", ShippingType: ship,
		ShippingCost: cost, WeightOz: 32, Dimensions: listings.Dimensions{L: 12, W: 10, H: 6}, PhotoIDs: []string{},
		CreatedAt: t0, UpdatedAt: t0}
	if err := f.db.InTx(context.Background(), func(tx *store.Tx) error { return tx.CreateListing(context.Background(), l) }); err != nil {
		f.t.Fatal(err)
	}
	return l
}

func wantCode(t *testing.T, err error, code market.Code) {
	t.Helper()
	if got := market.CodeOf(err); got != code {
		t.Fatalf("error %v, want %s", err, code)
	}
}

func cents(v int64) *int64 { return &v }

func TestQuoteCalculated(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		l := f.listing(f.seller("10001").ID, listings.ShipCalculated, nil, listings.StatusActive)

		q, err := f.svc.Quote(ctx, l.ID, "90012-1234")
		if err != nil {
			t.Fatal(err)
		}
		if q.Type != shipping.QuoteDynamic || q.ListingID != l.ID || q.Zip != "90012" || q.LocalPickupAvailable ||
			!q.AutoShip.Enabled || q.AutoShip.Method != shipping.MethodPlatformLabel || len(q.Rates) != 7 {
			t.Fatalf("quote %+v", q)
		}
		if q.CheapestCents != q.Rates[0].Amount {
			t.Fatalf("cheapest %d, first rate %+v", q.CheapestCents, q.Rates[0])
		}
		// The rates are the engine's for the seller's origin, each redeemable,
		// with the default handling day before the days in transit.
		want, err := f.svc.QuoteParcel(ctx, "10001", "90012", shipping.ParcelOf(l))
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range q.Rates {
			if r.Carrier != want[i].Carrier || r.Service != want[i].Service || r.Amount != want[i].Amount ||
				r.EstimatedDays != want[i].EstimatedDays+shipping.DefaultHandlingDays || !r.ExpiresAt.Equal(t0.Add(shipping.RateTTL)) {
				t.Fatalf("rate %d = %+v, want %+v", i, r, want[i])
			}
			got, err := f.svc.VerifyRate(r.RateID, l.ID, "90012", f.clock.Now())
			if err != nil || got.Amount != r.Amount || got.Carrier != r.Carrier || got.Service != r.Service {
				t.Fatalf("verify %+v: %+v %v", r, got, err)
			}
		}
		// Bound to the listing and the ZIP code; verifiable for a day.
		other := f.listing(f.seller("10001").ID, listings.ShipCalculated, nil, listings.StatusActive)
		_, err = f.svc.VerifyRate(q.Rates[0].RateID, other.ID, "90012", f.clock.Now())
		wantCode(t, err, market.CodeValidation)
		_, err = f.svc.VerifyRateAs("carrier_rate_id", q.Rates[0].RateID, l.ID, "90013", f.clock.Now())
		if e := market.ErrorOf(err); e.Code != market.CodeValidation || e.Fields[0].Field != "carrier_rate_id" {
			t.Fatalf("other zip: %v", err)
		}
		f.clock.Advance(shipping.RateTTL)
		_, err = f.svc.VerifyRate(q.Rates[0].RateID, l.ID, "90012", f.clock.Now())
		if e := market.ErrorOf(err); e.Code != market.CodeValidation || e.Fields[0].Field != "shipping_rate_id" {
			t.Fatalf("expired: %v", err)
		}

		// The same question, the same prices: the engine is deterministic.
		again, _ := f.svc.Quote(ctx, l.ID, "90012")
		for i := range again.Rates {
			if again.Rates[i].Amount != q.Rates[i].Amount {
				t.Fatalf("prices moved: %+v vs %+v", again.Rates[i], q.Rates[i])
			}
		}
	})
}

// The origin is the seller's ship-from ZIP code; without one (or outside
// the US) it is DefaultOriginZip.
func TestQuoteOrigin(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		near := f.listing(f.seller("90210").ID, listings.ShipCalculated, nil, listings.StatusActive)
		far := f.listing(f.seller("10001").ID, listings.ShipCalculated, nil, listings.StatusActive)
		none := f.listing(f.seller("").ID, listings.ShipCalculated, nil, listings.StatusActive)

		qNear, _ := f.svc.Quote(ctx, near.ID, "90012")
		qFar, _ := f.svc.Quote(ctx, far.ID, "90012")
		qNone, err := f.svc.Quote(ctx, none.ID, "90012")
		if err != nil {
			t.Fatal(err)
		}
		if qNear.CheapestCents >= qFar.CheapestCents {
			t.Fatalf("from the same city %d, across the country %d", qNear.CheapestCents, qFar.CheapestCents)
		}
		def, _ := f.svc.QuoteParcel(ctx, shipping.DefaultOriginZip, "90012", shipping.ParcelOf(none))
		if qNone.CheapestCents != def[0].Amount {
			t.Fatalf("no ship-from: %d, want the default origin's %d", qNone.CheapestCents, def[0].Amount)
		}
	})
}

func TestQuoteByShippingType(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		seller := f.seller("60601").ID

		flat := f.listing(seller, listings.ShipFlatRate, cents(899), listings.StatusActive)
		q, err := f.svc.Quote(ctx, flat.ID, "10001")
		if err != nil {
			t.Fatal(err)
		}
		if q.Type != shipping.QuoteFlatRate || len(q.Rates) != 1 || q.CheapestCents != 899 || q.LocalPickupAvailable ||
			q.Rates[0].Carrier != shipping.CarrierSeller || q.Rates[0].Service != shipping.ServiceFlatRate ||
			q.Rates[0].Amount != 899 || q.Rates[0].EstimatedDays < 1 {
			t.Fatalf("flat rate %+v", q)
		}
		if r, err := f.svc.VerifyRate(q.Rates[0].RateID, flat.ID, "10001", f.clock.Now()); err != nil || r.Amount != 899 {
			t.Fatalf("flat rate token: %+v %v", r, err)
		}

		both := f.listing(seller, listings.ShipBoth, cents(1250), listings.StatusActive)
		q, _ = f.svc.Quote(ctx, both.ID, "10001")
		if q.Type != shipping.QuoteFlatRate || len(q.Rates) != 1 || q.CheapestCents != 1250 || !q.LocalPickupAvailable || !q.AutoShip.Enabled {
			t.Fatalf("both %+v", q)
		}

		free := f.listing(seller, listings.ShipFree, nil, listings.StatusActive)
		q, _ = f.svc.Quote(ctx, free.ID, "10001")
		if q.Type != shipping.QuoteFree || len(q.Rates) != 1 || q.CheapestCents != 0 || q.Rates[0].Amount != 0 ||
			q.Rates[0].Service != shipping.ServiceFree || q.Rates[0].RateID == "" {
			t.Fatalf("free %+v", q)
		}

		pickup := f.listing(seller, listings.ShipLocalPickup, nil, listings.StatusActive)
		q, _ = f.svc.Quote(ctx, pickup.ID, "10001")
		if q.Type != shipping.QuoteLocalPickup || q.Rates == nil || len(q.Rates) != 0 || q.CheapestCents != 0 ||
			!q.LocalPickupAvailable || q.AutoShip.Enabled || q.AutoShip.Method != "" {
			t.Fatalf("pickup %+v", q)
		}

		// After the sale, the order's label is quoted with carrier rates
		// whatever the listing's type.
		sold := f.listing(seller, listings.ShipFlatRate, cents(899), listings.StatusSold)
		oq, err := f.svc.OrderQuote(ctx, sold.ID, "10001")
		if err != nil || oq.Type != shipping.QuoteDynamic || len(oq.Rates) != 7 {
			t.Fatalf("order quote %+v %v", oq, err)
		}
		if _, err := f.svc.VerifyRate(oq.Rates[0].RateID, sold.ID, "10001", f.clock.Now()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestQuoteErrors(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		seller := f.seller("60601").ID
		active := f.listing(seller, listings.ShipCalculated, nil, listings.StatusActive)

		_, err := f.svc.Quote(ctx, market.NewID(), "10001")
		wantCode(t, err, market.CodeListingNotFound)
		_, err = f.svc.Quote(ctx, "not-an-id", "10001")
		wantCode(t, err, market.CodeListingNotFound)
		_, err = f.svc.OrderQuote(ctx, market.NewID(), "10001")
		wantCode(t, err, market.CodeListingNotFound)
		for _, zip := range []string{"", "1234", "ABCDE", "00000"} {
			_, err = f.svc.Quote(ctx, active.ID, zip)
			if e := market.ErrorOf(err); e.Code != market.CodeValidation || e.Fields[0].Field != "zip" {
				t.Fatalf("zip %q: %v", zip, err)
			}
		}
		for status, code := range map[listings.Status]market.Code{
			listings.StatusReserved: market.CodeListingNotAvailable, listings.StatusSold: market.CodeListingNotAvailable,
			listings.StatusPendingAI: market.CodeListingNotFound, listings.StatusHeld: market.CodeListingNotFound,
			listings.StatusArchived: market.CodeListingNotFound, listings.StatusRemoved: market.CodeListingNotFound,
			listings.StatusDeleted: market.CodeListingNotFound,
		} {
			l := f.listing(seller, listings.ShipCalculated, nil, status)
			_, err := f.svc.Quote(ctx, l.ID, "10001")
			wantCode(t, err, code)
			if code == market.CodeListingNotAvailable && market.ErrorOf(err).Details["status"] != string(status) {
				t.Fatalf("%s: details %v", status, market.ErrorOf(err).Details)
			}
		}
		_, err = f.svc.QuoteParcel(ctx, "1", "2", shipping.Parcel{})
		if e := market.ErrorOf(err); e.Code != market.CodeValidation || len(e.Fields) != 2 {
			t.Fatalf("QuoteParcel bad zips: %v", err)
		}
	})
}
