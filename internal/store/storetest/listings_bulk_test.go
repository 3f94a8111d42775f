package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/store"
)

// bulkFixture makes listings for the bulk-load tests: every field set on
// some, the optional ones nil on others, in two leaf categories.
type bulkFixture struct {
	seller     string
	catA, catB string
}

func newBulkFixture(t *testing.T, db *store.DB) *bulkFixture {
	t.Helper()
	ctx := context.Background()
	tax := listings.DefaultTaxonomy()
	var leaves []string
	for _, c := range tax.All() {
		if tax.IsLeaf(c.Slug) {
			leaves = append(leaves, c.ID)
		}
	}
	f := &bulkFixture{catA: leaves[0], catB: leaves[len(leaves)-1]}
	err := db.InTx(ctx, func(tx *store.Tx) error {
		f.seller = newUser(t, tx, "bulk@example.com", "bulk").ID
		return tx.SeedCategories(ctx, tax.All(), t0)
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// listing i: a third sold, a seventh archived, every other one with all the
// optional fields; titles "Zephyr" (category A) or "Quokka" (category B),
// and brand "Marlowe" on every fourth.
func (f *bulkFixture) listing(i int) *listings.Listing {
	at := t0.Add(time.Duration(i) * time.Second)
	l := &listings.Listing{ID: market.NewID(), SellerID: f.seller, Status: listings.StatusActive,
		Title: fmt.Sprintf("Zephyr lamp %d", i), Description: "A brass lamp, it's \"lovely\"; 50% off?", Brief: "lamp",
		Price: int64(1000 + i), PriceSource: "seller", Condition: "good", CategoryID: f.catA,
		ShippingType: listings.ShipFree, WeightOz: 16 + i%5, Dimensions: listings.Dimensions{L: 10, W: 8.5, H: 4.25},
		PhotoIDs: []string{}, Generator: "seed", CreatedAt: at, UpdatedAt: at.Add(time.Minute)}
	if i%2 == 1 {
		ship, minOffer, floor, cost := int64(499), int64(700), int64(600), int64(300)
		l.Title, l.CategoryID, l.Condition = fmt.Sprintf("Quokka mug %d", i), f.catB, "like_new"
		l.ShippingType, l.ShippingCost, l.AcceptOffers = listings.ShipFlatRate, &ship, true
		l.MinOfferAmount, l.FloorPrice, l.CostBasis = &minOffer, &floor, &cost
		l.PhotoIDs, l.WatchersCount, l.Generator = []string{"p1", "p2"}, 3, ""
	}
	if i%4 == 0 {
		l.Brand = "Marlowe"
	}
	switch {
	case i%3 == 0:
		sold := at.Add(time.Hour)
		l.Status, l.SoldAt = listings.StatusSold, &sold
	case i%7 == 0:
		l.Status = listings.StatusArchived
	}
	return l
}

// TestBulkLoadListings: listings loaded in bulk read back as CreateListing's
// do, field by field, and are found by search and counted as they are.
func TestBulkLoadListings(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newBulkFixture(t, db)
		const n = 40
		var one, bulk []*listings.Listing
		for i := range n {
			a, b := f.listing(i), f.listing(i)
			b.ID = market.NewID()
			one, bulk = append(one, a), append(bulk, b)
		}
		err := db.InTx(ctx, func(tx *store.Tx) error {
			for _, l := range one {
				if err := tx.CreateListing(ctx, l); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// Two batches, the second of one listing.
		err = db.BulkLoadListings(ctx, n, func(insert func([]*listings.Listing) error) error {
			if err := insert(bulk[:n-1]); err != nil {
				return err
			}
			return insert(bulk[n-1:])
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			a, err := db.Read().ListingByID(ctx, one[i].ID)
			if err != nil {
				t.Fatal(err)
			}
			b, err := db.Read().ListingByID(ctx, bulk[i].ID)
			if err != nil {
				t.Fatal(err)
			}
			b.ID = a.ID
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("listing %d:\nCreateListing %+v\nbulk          %+v", i, a, b)
			}
		}

		// Search sees the bulk-loaded listings as the others: each query
		// finds the active listings it should, from both halves.
		want := func(keep func(l *listings.Listing) bool) []string {
			var ids []string
			for _, l := range append(slices.Clone(one), bulk...) {
				if l.Status == listings.StatusActive && keep(l) {
					ids = append(ids, l.ID)
				}
			}
			slices.Sort(ids)
			return ids
		}
		inA := func(l *listings.Listing) bool { return l.CategoryID == f.catA }
		for _, c := range []struct {
			q    listings.SearchQuery
			keep func(*listings.Listing) bool
		}{
			{listings.SearchQuery{Text: "zephyr"}, inA},
			{listings.SearchQuery{Text: "quokka mugs"}, func(l *listings.Listing) bool { return !inA(l) }},
			{listings.SearchQuery{Text: "marlowe"}, func(l *listings.Listing) bool { return l.Brand == "Marlowe" }},
			{listings.SearchQuery{Text: "brass", CategoryIDs: []string{f.catB}}, func(l *listings.Listing) bool { return !inA(l) }},
			{listings.SearchQuery{CategoryIDs: []string{f.catA}}, inA},
			{listings.SearchQuery{Conditions: []string{"like_new"}}, func(l *listings.Listing) bool { return l.Condition == "like_new" }},
		} {
			c.q.Limit, c.q.Sort = 50, listings.SortNewest
			got := searchIDs(t, db, c.q)
			if w := want(c.keep); !slices.Equal(got, w) || len(w) == 0 {
				t.Fatalf("search %+v: %d found, want %d\n%v\n%v", c.q, len(got), len(w), got, w)
			}
		}

		// The admin list's exact total (admin_counts, kept by triggers) and
		// its title search (trigram indexes on PostgreSQL, the full-text
		// index on SQLite).
		_, total, err := db.Read().AdminListings(ctx, listings.AdminFilter{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if total != 2*n {
			t.Fatalf("admin total %d, want %d", total, 2*n)
		}
		_, found, err := db.Read().AdminListings(ctx, listings.AdminFilter{Search: "marlowe", Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if found != 2*((n+3)/4) {
			t.Fatalf("admin search marlowe: %d, want %d", found, 2*((n+3)/4))
		}
	})
}

func searchIDs(t *testing.T, db *store.DB, q listings.SearchQuery) []string {
	t.Helper()
	var ids []string
	for {
		page, err := db.Read().SearchListings(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range page.Listings {
			ids = append(ids, l.ID)
		}
		if page.Cursor == "" {
			break
		}
		q.After = page.Cursor
	}
	slices.Sort(ids)
	return ids
}

// TestBulkLoadListingsFails: a load that fails part way leaves no listing
// of its own on PostgreSQL (one transaction) and the batches before the
// failure on SQLite, and the admin count agrees with the table.
func TestBulkLoadListingsFails(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newBulkFixture(t, db)
		boom := errors.New("boom")
		err := db.BulkLoadListings(ctx, 20, func(insert func([]*listings.Listing) error) error {
			for i := range 2 {
				if err := insert([]*listings.Listing{f.listing(2 * i), f.listing(2*i + 1)}); err != nil {
					return err
				}
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("error %v, want boom", err)
		}
		var rows int
		if err := db.WritePool().QueryRowContext(ctx, `SELECT COUNT(*) FROM listings`).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		want := 4
		if db.Dialect() == store.Postgres {
			want = 0
		}
		_, total, err := db.Read().AdminListings(ctx, listings.AdminFilter{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if rows != want || total != want {
			t.Fatalf("%d listings, admin total %d, want %d", rows, total, want)
		}
	})
}

// TestBulkLoadRebuildsIndexes: on PostgreSQL a load at least as large as
// the table builds the listings' secondary indexes again (new index
// objects) with exactly the definitions they had; a smaller load keeps
// them. A failed load leaves them in place. The load is large enough for
// CreateListings to split it into several statements.
func TestBulkLoadRebuildsIndexes(t *testing.T) {
	if _, ok := postgresEngine(); !ok {
		t.Skip(PostgresEnv + " not set")
	}
	db := OpenPostgres(t)
	ctx := context.Background()
	f := newBulkFixture(t, db)
	load := func(n int, fail error) error {
		return db.BulkLoadListings(ctx, n, func(insert func([]*listings.Listing) error) error {
			ls := make([]*listings.Listing, n)
			for i := range ls {
				ls[i] = f.listing(i)
			}
			if err := insert(ls); err != nil {
				return err
			}
			return fail
		})
	}
	before := listingIndexes(t, db)
	if len(before) < 12 || !slices.ContainsFunc(before, func(ix indexRow) bool { return ix.name == "listings_title_trgm" }) {
		t.Fatalf("indexes before %v", before)
	}
	if err := load(5000, errors.New("boom")); err == nil {
		t.Fatal("failed load returned nil")
	}
	if after := listingIndexes(t, db); !reflect.DeepEqual(after, before) {
		t.Fatalf("after a failed load:\n%v\nwant\n%v", after, before)
	}

	if err := load(5000, nil); err != nil {
		t.Fatal(err)
	}
	rebuilt := listingIndexes(t, db)
	if len(rebuilt) != len(before) {
		t.Fatalf("indexes after the load:\n%v\nbefore\n%v", rebuilt, before)
	}
	for i, ix := range rebuilt {
		b := before[i]
		if ix.name != b.name || ix.def != b.def {
			t.Fatalf("index %s after the load:\n%s\nbefore:\n%s", ix.name, ix.def, b.def)
		}
		if ix.secondary && ix.oid == b.oid || !ix.secondary && ix.oid != b.oid {
			t.Fatalf("index %s (secondary %v): oid %d before, %d after", ix.name, ix.secondary, b.oid, ix.oid)
		}
	}

	if err := load(100, nil); err != nil { // 100 more on 5,000: indexes kept
		t.Fatal(err)
	}
	if kept := listingIndexes(t, db); !reflect.DeepEqual(kept, rebuilt) {
		t.Fatalf("after a small load:\n%v\nwant\n%v", kept, rebuilt)
	}
	var n int
	if err := db.WritePool().QueryRowContext(ctx, `SELECT COUNT(*) FROM listings WHERE title_vector @@ 'zephyr'::tsquery
		AND status = 'active'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("the rebuilt title index finds nothing")
	}
}

type indexRow struct {
	name, def string
	oid       int64
	secondary bool // neither the primary key nor unique
}

func listingIndexes(t *testing.T, db *store.DB) []indexRow {
	t.Helper()
	rows, err := db.WritePool().QueryContext(context.Background(), `SELECT i.indexname, i.indexdef, c.oid,
		NOT (x.indisunique OR x.indisprimary)
		FROM pg_indexes i JOIN pg_class c ON c.relname = i.indexname AND c.relnamespace = i.schemaname::regnamespace
		JOIN pg_index x ON x.indexrelid = c.oid
		WHERE i.tablename = 'listings' ORDER BY i.indexname`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []indexRow
	for rows.Next() {
		var r indexRow
		if err := rows.Scan(&r.name, &r.def, &r.oid, &r.secondary); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func postgresEngine() (Engine, bool) {
	for _, e := range Engines() {
		if e.Name == "postgres" {
			return e, true
		}
	}
	return Engine{}, false
}

// TestCreateListingsSplits: more listings than one statement's parameters
// allow (1,213 rows on SQLite, 2,427 on PostgreSQL) go in several
// statements, every one inserted and counted.
func TestCreateListingsSplits(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newBulkFixture(t, db)
		ls := make([]*listings.Listing, 5000)
		for i := range ls {
			ls[i] = f.listing(i)
		}
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.CreateListings(ctx, ls) }); err != nil {
			t.Fatal(err)
		}
		var rows int
		if err := db.WritePool().QueryRowContext(ctx, `SELECT COUNT(DISTINCT id) FROM listings`).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		_, total, err := db.Read().AdminListings(ctx, listings.AdminFilter{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if rows != len(ls) || total != len(ls) {
			t.Fatalf("%d listings, admin total %d, want %d", rows, total, len(ls))
		}
		last, err := db.Read().ListingByID(ctx, ls[len(ls)-1].ID)
		if err != nil || last.Title != ls[len(ls)-1].Title {
			t.Fatalf("last listing %+v, %v", last, err)
		}
	})
}
