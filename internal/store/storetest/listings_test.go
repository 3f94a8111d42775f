package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/store"
)

func newListing(sellerID string, at time.Time, price int64) *listings.Listing {
	ship := int64(800)
	return &listings.Listing{ID: market.NewID(), SellerID: sellerID, Status: listings.StatusActive, Title: "Lamp",
		Description: "A lamp", Brief: "lamp", Price: price, PriceSource: "seller", Condition: "good", CategoryID: "c1",
		ShippingType: listings.ShipFlatRate, ShippingCost: &ship, AcceptOffers: true, WeightOz: 32,
		Dimensions: listings.Dimensions{L: 10, W: 8.5, H: 4}, PhotoIDs: []string{}, CreatedAt: at, UpdatedAt: at}
}

func TestListings(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var seller *accounts.User
		var first *listings.Listing
		err := db.InTx(ctx, func(tx *store.Tx) error {
			seller = newUser(t, tx, "seller@example.com", "seller")
			for i := 0; i < 3; i++ {
				l := newListing(seller.ID, t0.Add(time.Duration(i)*time.Minute), int64(1000*(i+1)))
				if i == 2 {
					l.Status = listings.StatusArchived
				}
				if err := tx.CreateListing(ctx, l); err != nil {
					return err
				}
				if first == nil {
					first = l
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.Read().ListingByID(ctx, first.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Title != "Lamp" || *got.ShippingCost != 800 || got.Dimensions.W != 8.5 || got.FloorPrice != nil ||
			!got.CreatedAt.Equal(t0) || len(got.PhotoIDs) != 0 || got.Status != listings.StatusActive {
			t.Fatalf("round trip: %+v", got)
		}
		_, err = db.Read().ListingByID(ctx, market.NewID())
		wantCode(t, err, market.CodeListingNotFound)

		floor := int64(500)
		got.Title, got.Price, got.FloorPrice, got.PhotoIDs, got.WatchersCount = "Brass lamp", 4200, &floor, []string{"p1"}, 99
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.UpdateListing(ctx, got) }); err != nil {
			t.Fatal(err)
		}
		again, _ := db.Read().ListingByID(ctx, first.ID)
		if again.Title != "Brass lamp" || again.Price != 4200 || *again.FloorPrice != 500 || again.PhotoIDs[0] != "p1" || again.WatchersCount != 0 {
			t.Fatalf("update (watchers_count must not be overwritten): %+v", again)
		}

		list, total, err := db.Read().ListingsBySeller(ctx, seller.ID, []listings.Status{listings.StatusActive}, 10, 0)
		if err != nil || total != 2 || len(list) != 2 || !list[0].CreatedAt.After(list[1].CreatedAt) {
			t.Fatalf("by seller: %d %+v %v", total, list, err)
		}
		_, total, _ = db.Read().ListingsBySeller(ctx, seller.ID, nil, 1, 0)
		if total != 3 {
			t.Fatalf("all statuses: %d", total)
		}
	})
}

// ListingWithSeller reads what ListingByID and Sellers read, in one
// statement: the same listing, every field, and the same seller face.
func TestListingWithSeller(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var seller *accounts.User
		l := newListing("", t0, 2500)
		floor, sold := int64(900), t0.Add(time.Hour)
		l.FloorPrice, l.SoldAt, l.PhotoIDs, l.Brand, l.Status = &floor, &sold, []string{"p1", "p2"}, "Acme", listings.StatusSold
		err := db.InTx(ctx, func(tx *store.Tx) error {
			seller = newUser(t, tx, "face@example.com", "face")
			l.SellerID = seller.ID
			return tx.CreateListing(ctx, l)
		})
		if err != nil {
			t.Fatal(err)
		}
		want, err := db.Read().ListingByID(ctx, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		faces, err := db.Read().Sellers(ctx, []string{seller.ID})
		if err != nil {
			t.Fatal(err)
		}
		got, face, err := db.Read().ListingWithSeller(ctx, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("listing:\n got %+v\nwant %+v", got, want)
		}
		if face != faces[seller.ID] || face.Username != "face" || face.DisplayName != "D face" || face.ID != seller.ID {
			t.Fatalf("seller %+v, Sellers says %+v", face, faces[seller.ID])
		}
		_, _, err = db.Read().ListingWithSeller(ctx, market.NewID())
		wantCode(t, err, market.CodeListingNotFound)
	})
}

func TestPhotoUploads(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		err := db.InTx(ctx, func(tx *store.Tx) error {
			owner := newUser(t, tx, "o@example.com", "owner")
			other := newUser(t, tx, "x@example.com", "other")
			l := newListing(owner.ID, t0, 1000)
			if err := tx.CreateListing(ctx, l); err != nil {
				return err
			}
			mk := func(ownerID string, uploaded bool) *listings.PhotoUpload {
				p := &listings.PhotoUpload{ID: market.NewID(), OwnerID: ownerID, ExpiresAt: t0.Add(15 * time.Minute), CreatedAt: t0}
				if err := tx.CreatePhotoUpload(ctx, p); err != nil {
					t.Fatal(err)
				}
				if uploaded {
					at := t0.Add(time.Minute)
					p.UploadedAt, p.ContentType, p.Width, p.Height, p.Size = &at, "image/jpeg", 800, 600, 12345
					if err := tx.MarkPhotoUploaded(ctx, p); err != nil {
						t.Fatal(err)
					}
				}
				return p
			}
			mine, pending, theirs := mk(owner.ID, true), mk(owner.ID, false), mk(other.ID, true)
			wantCode(t, tx.MarkPhotoUploaded(ctx, mine), market.CodeInvalidState) // single use
			got, err := tx.PhotoUploadByID(ctx, mine.ID)
			if err != nil || got.UploadedAt == nil || got.Width != 800 || got.ListingID != "" {
				t.Fatalf("upload: %+v %v", got, err)
			}
			wantCode(t, tx.AttachPhotos(ctx, l.ID, owner.ID, []string{mine.ID, theirs.ID}), market.CodeValidation)
			wantCode(t, tx.AttachPhotos(ctx, l.ID, owner.ID, []string{pending.ID}), market.CodeValidation)
			if err := tx.AttachPhotos(ctx, l.ID, owner.ID, []string{mine.ID}); err != nil {
				return err
			}
			if err := tx.AttachPhotos(ctx, l.ID, owner.ID, []string{mine.ID}); err != nil { // again: same listing is fine
				return err
			}
			l2 := newListing(owner.ID, t0, 1000)
			if err := tx.CreateListing(ctx, l2); err != nil {
				return err
			}
			wantCode(t, tx.AttachPhotos(ctx, l2.ID, owner.ID, []string{mine.ID}), market.CodeValidation) // used elsewhere
			// Replacing l's photos frees the one it no longer shows.
			second := mk(owner.ID, true)
			if err := tx.AttachPhotos(ctx, l.ID, owner.ID, []string{second.ID}); err != nil {
				return err
			}
			if got, err := tx.PhotoUploadByID(ctx, mine.ID); err != nil || got.ListingID != "" {
				t.Fatalf("replaced photo still bound: %+v %v", got, err)
			}
			if err := tx.AttachPhotos(ctx, l2.ID, owner.ID, []string{mine.ID}); err != nil {
				return err
			}
			_, err = tx.PhotoUploadByID(ctx, market.NewID())
			wantCode(t, err, market.CodeNotFound)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func TestWatches(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		err := db.InTx(ctx, func(tx *store.Tx) error {
			seller := newUser(t, tx, "s@example.com", "sells")
			a, b := newUser(t, tx, "a@example.com", "watcher-a"), newUser(t, tx, "b@example.com", "watcher-b")
			l := newListing(seller.ID, t0, 1000)
			if err := tx.CreateListing(ctx, l); err != nil {
				return err
			}
			steps := []struct {
				name  string
				do    func() (int, error)
				count int
			}{
				{"a watches", func() (int, error) { return tx.Watch(ctx, a.ID, l.ID, t0) }, 1},
				{"a again", func() (int, error) { return tx.Watch(ctx, a.ID, l.ID, t0) }, 1},
				{"b watches", func() (int, error) { return tx.Watch(ctx, b.ID, l.ID, t0.Add(time.Second)) }, 2},
				{"a stops", func() (int, error) { return tx.Unwatch(ctx, a.ID, l.ID) }, 1},
				{"a stops again", func() (int, error) { return tx.Unwatch(ctx, a.ID, l.ID) }, 1},
			}
			for _, s := range steps {
				if n, err := s.do(); err != nil || n != s.count {
					t.Fatalf("%s: %d %v, want %d", s.name, n, err, s.count)
				}
			}
			if w, n, err := tx.Watching(ctx, b.ID, l.ID); err != nil || !w || n != 1 {
				t.Fatalf("b watching: %v %d %v", w, n, err)
			}
			if w, _, _ := tx.Watching(ctx, a.ID, l.ID); w {
				t.Fatal("a still watching")
			}
			list, total, err := tx.WatchedListings(ctx, b.ID, 10, 0)
			if err != nil || total != 1 || list[0].ID != l.ID || list[0].WatchersCount != 1 {
				t.Fatalf("watched: %d %+v %v", total, list, err)
			}
			ids, err := tx.Watchers(ctx, l.ID)
			if err != nil || len(ids) != 1 || ids[0] != b.ID {
				t.Fatalf("watchers %v %v", ids, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// A failed statement spoils a PostgreSQL transaction, so this one
		// runs alone; the service checks the listing before watching.
		err = db.InTx(ctx, func(tx *store.Tx) error {
			u := newUser(t, tx, "c@example.com", "watcher-c")
			_, err := tx.Watch(ctx, u.ID, market.NewID(), t0)
			return err
		})
		if err == nil {
			t.Fatal("watching an unknown listing must fail")
		}
	})
}

func TestCategorySeeding(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tax := listings.DefaultTaxonomy()
		seed := func() error {
			return db.InTx(ctx, func(tx *store.Tx) error { return tx.SeedCategories(ctx, tax.All(), t0) })
		}
		if err := seed(); err != nil {
			t.Fatal(err)
		}
		if err := seed(); err != nil { // start-up seeds every time: nothing doubles
			t.Fatal(err)
		}
		cats, err := db.Read().Categories(ctx)
		if err != nil || len(cats) != tax.Len() {
			t.Fatalf("%d categories, %v; want %d", len(cats), err, tax.Len())
		}
		want, _ := tax.BySlug(cats[len(cats)-1].Slug)
		got := cats[len(cats)-1]
		if got.ID != want.ID || got.ParentID != want.ParentID || got.Path != want.Path || got.DefaultWeightOz != want.DefaultWeightOz ||
			got.DefaultDims != want.DefaultDims || got.PriorPrice != want.PriorPrice || len(got.Keywords) != len(want.Keywords) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
		}
		for i := 1; i < len(cats); i++ {
			if cats[i-1].Path > cats[i].Path {
				t.Fatalf("not in path order at %d: %q > %q", i, cats[i-1].Path, cats[i].Path)
			}
		}
	})
}
