package seed_test

import (
	"context"
	"fmt"
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
