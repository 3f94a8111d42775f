package seed_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/seed"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

func TestSeed(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
		var progress []int
		res, err := seed.Run(ctx, db, now, seed.Options{Listings: 1200, SoldPercent: 10, Seed: 3},
			func(done int) { progress = append(progress, done) })
		if err != nil {
			t.Fatal(err)
		}
		if res.Listings != 1200 || res.Sellers != 5 || res.Sold < 60 || res.Sold > 200 {
			t.Fatalf("result %+v", res)
		}
		if len(progress) != 2 || progress[1] != 1200 {
			t.Fatalf("progress %v", progress)
		}
		page, err := db.Read().SearchListings(ctx, listings.SearchQuery{Sort: listings.SortNewest, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != res.Listings-res.Sold || len(page.Listings) != 50 {
			t.Fatalf("search sees %d active (page of %d), want %d", page.Total, len(page.Listings), res.Listings-res.Sold)
		}
		for _, l := range page.Listings {
			if l.Title == "" || l.Price < 199 || l.Price%100 != 99 || !listings.ValidCondition(l.Condition) || l.CategoryID == "" {
				t.Fatalf("unrealistic listing %+v", l)
			}
		}
		// A second run adds to the first, with sellers of its own; on SQLite
		// the write connection's cache and temp_store are as they were.
		pragmas := func() string {
			if db.Dialect() != store.SQLite {
				return ""
			}
			var cache, temp int
			if err := db.WritePool().QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil {
				t.Fatal(err)
			}
			if err := db.WritePool().QueryRowContext(ctx, "PRAGMA temp_store").Scan(&temp); err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(cache, temp)
		}
		before := pragmas()
		if _, err := seed.Run(ctx, db, now, seed.Options{Listings: 10, Seed: 3}, nil); err != nil {
			t.Fatal(err)
		}
		if after := pragmas(); after != before {
			t.Fatalf("cache_size, temp_store %s after the seed, %s before", after, before)
		}
	})
}

// TestSeedSameData: the same options make the same listings (all but the
// ids and sellers, which are new each run), on either engine.
func TestSeedSameData(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	opts := seed.Options{Listings: 300, Sellers: 3, SoldPercent: 20, Seed: 11}
	var first []string
	for _, e := range storetest.Engines() {
		for run := range 2 {
			db := e.Open(t)
			if _, err := seed.Run(ctx, db, now, opts, nil); err != nil {
				t.Fatal(err)
			}
			got := seeded(t, db)
			if len(got) != opts.Listings {
				t.Fatalf("%s: %d listings", e.Name, len(got))
			}
			if first == nil {
				first = got
				continue
			}
			for i := range got {
				if got[i] != first[i] {
					t.Fatalf("%s run %d: listing %d is\n%s\nwant\n%s", e.Name, run, i, got[i], first[i])
				}
			}
		}
	}
}

// seeded lists the listings' contents in a stable order.
func seeded(t *testing.T, db *store.DB) []string {
	t.Helper()
	list, _, err := db.Read().AdminListings(context.Background(), listings.AdminFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range list {
		sold := ""
		if l.SoldAt != nil {
			sold = l.SoldAt.UTC().Format(time.RFC3339Nano)
		}
		ship := int64(-1)
		if l.ShippingCost != nil {
			ship = *l.ShippingCost
		}
		out = append(out, fmt.Sprintf("%s|%s|%s|%s|%d|%s|%s|%s|%d|%v|%d|%v|%s|%s", l.CreatedAt.Format(time.RFC3339Nano),
			l.Status, l.Title, l.Brand, l.Price, l.Condition, l.CategoryID, l.ShippingType, ship, l.AcceptOffers,
			l.WeightOz, l.Dimensions, l.Description, sold))
	}
	sort.Strings(out)
	return out
}
