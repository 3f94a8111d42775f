package store_test

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/seed"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// A price-sorted text search walks the price index only when its matches
// are dense enough in the catalogue (the threshold grows with the
// catalogue's size), and both plans page the same listings in the same
// order on both engines, as does the date walk beside them; on PostgreSQL
// a walk that comes back short is read whole.
func TestSearchBreadth(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		// 3,000 listings whose descriptions all say "condition": above
		// every fixed threshold (PostgreSQL's planner estimate included).
		if _, err := seed.Run(ctx, db, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), seed.Options{Listings: 3000, Seed: 3}, nil); err != nil {
			t.Fatal(err)
		}
		all, err := allActive(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		q := listings.SearchQuery{Text: "condition", Limit: 20, NoTotal: true}

		store.SetCatalogueSize(t, db, 0)
		if !store.PriceWalks(t, db, q) {
			t.Fatal("3,000 matches in a small catalogue should walk the price index")
		}
		walked := pages(t, db, q)
		store.SetCatalogueSize(t, db, 10_000_000)
		if store.PriceWalks(t, db, q) {
			t.Fatal("3,000 matches in 10,000,000 listings should be read whole, not walked")
		}
		read := pages(t, db, q)
		// A walk of 10 listings comes back short: PostgreSQL reads every
		// match instead (SQLite's walk has no bound).
		store.SetCatalogueSize(t, db, 0)
		store.SetWalkMin(t, 10)
		short := pages(t, db, q)

		for _, sort := range []listings.Sort{listings.SortPriceAsc, listings.SortPriceDesc, listings.SortNewest} {
			want := ordered(all, sort)[:40]
			if !slices.Equal(walked[sort], want) {
				t.Errorf("%s, price walk allowed: got %v, want %v", sort, walked[sort][:3], want[:3])
			}
			if !slices.Equal(read[sort], want) {
				t.Errorf("%s, read whole: got %v, want %v", sort, read[sort][:3], want[:3])
			}
			if !slices.Equal(short[sort], want) {
				t.Errorf("%s, after a short walk: got %v, want %v", sort, short[sort][:3], want[:3])
			}
		}
	})
}

// pages is the ids of the first two pages of q in each sort, read by the
// plan the store takes now (not from its cache).
func pages(t *testing.T, db *store.DB, q listings.SearchQuery) map[listings.Sort][]string {
	t.Helper()
	store.ResetSearchCache(db)
	out := map[listings.Sort][]string{}
	for _, sort := range []listings.Sort{listings.SortPriceAsc, listings.SortPriceDesc, listings.SortNewest} {
		q := q
		q.Sort = sort
		for range 2 {
			page, err := db.Read().SearchListings(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range page.Listings {
				out[sort] = append(out[sort], l.ID)
			}
			q.After = page.Cursor
		}
	}
	return out
}

// allActive reads every active listing, page by page.
func allActive(ctx context.Context, db *store.DB) ([]listings.Listing, error) {
	var out []listings.Listing
	q := listings.SearchQuery{Limit: listings.MaxSearchLimit, NoTotal: true, Sort: listings.SortNewest}
	for {
		page, err := db.Read().SearchListings(ctx, q)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Listings...)
		if page.Cursor == "" {
			return out, nil
		}
		q.After = page.Cursor
	}
}

// ordered is the ids of list in sort's order, ties by id.
func ordered(list []listings.Listing, sort listings.Sort) []string {
	list = slices.Clone(list)
	slices.SortFunc(list, func(a, b listings.Listing) int {
		switch sort {
		case listings.SortPriceAsc:
			return cmp.Or(cmp.Compare(a.Price, b.Price), cmp.Compare(a.ID, b.ID))
		case listings.SortPriceDesc:
			return cmp.Or(cmp.Compare(b.Price, a.Price), cmp.Compare(b.ID, a.ID))
		}
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	ids := make([]string, len(list))
	for i, l := range list {
		ids[i] = l.ID
	}
	return ids
}
