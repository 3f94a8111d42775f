package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/listings"
	"marketplace/internal/listings/generator"
	"marketplace/internal/market"
	"marketplace/internal/store"
)

// item describes a listing for the search tests; zero fields take defaults.
type item struct {
	title, brand, desc, cond, cat string // cat is a taxonomy slug
	price                         int64
	at                            time.Time
	status                        listings.Status
	soldAt                        time.Time
}

// searchFixture is a store with the built-in categories and one seller.
type searchFixture struct {
	t      *testing.T
	db     *store.DB
	seller string
	svc    *listings.Service
}

func newSearchFixture(t *testing.T, db *store.DB) *searchFixture {
	t.Helper()
	ctx := context.Background()
	f := &searchFixture{t: t, db: db}
	err := db.InTx(ctx, func(tx *store.Tx) error {
		f.seller = newUser(t, tx, "seller@example.com", "seller").ID
		return tx.SeedCategories(ctx, listings.DefaultTaxonomy().All(), t0)
	})
	if err != nil {
		t.Fatal(err)
	}
	area := store.Listings(db)
	f.svc = listings.NewService(area, market.NewFixedClock(t0),
		listings.Options{Generator: generator.NewBuiltin(nil, area.Read())})
	return f
}

func (f *searchFixture) add(items ...item) []*listings.Listing {
	f.t.Helper()
	out := make([]*listings.Listing, len(items))
	err := f.db.InTx(context.Background(), func(tx *store.Tx) error {
		for i, it := range items {
			l := f.listing(it)
			if err := tx.CreateListing(context.Background(), l); err != nil {
				return err
			}
			out[i] = l
		}
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

func (f *searchFixture) listing(it item) *listings.Listing {
	l := newListing(f.seller, t0, 1000)
	l.Title, l.Description, l.Brand = it.title, it.desc, it.brand
	if it.cond != "" {
		l.Condition = it.cond
	}
	if it.cat != "" {
		l.CategoryID = listings.CategoryID(it.cat)
	}
	if it.price != 0 {
		l.Price = it.price
	}
	if !it.at.IsZero() {
		l.CreatedAt, l.UpdatedAt = it.at, it.at
	}
	if it.status != "" {
		l.Status = it.status
	}
	if !it.soldAt.IsZero() {
		at := it.soldAt
		l.SoldAt = &at
	}
	return l
}

func (f *searchFixture) update(l *listings.Listing) {
	f.t.Helper()
	if err := f.db.InTx(context.Background(), func(tx *store.Tx) error { return tx.UpdateListing(context.Background(), l) }); err != nil {
		f.t.Fatal(err)
	}
}

func (f *searchFixture) search(q listings.SearchQuery) listings.SearchPage {
	f.t.Helper()
	page, err := f.db.Read().SearchListings(context.Background(), q)
	if err != nil {
		f.t.Fatalf("search %+v: %v", q, err)
	}
	return page
}

// ids is the ids of a page, in order.
func ids(list []listings.Listing) []string {
	out := make([]string, len(list))
	for i, l := range list {
		out[i] = l.ID
	}
	return out
}

func idsOf(list []*listings.Listing) []string {
	out := make([]string, len(list))
	for i, l := range list {
		out[i] = l.ID
	}
	return out
}

// pageAll follows cursors from the first page to the last and returns every
// id seen, in order, checking each page's size and total on the way.
func (f *searchFixture) pageAll(q listings.SearchQuery) []string {
	f.t.Helper()
	var all []string
	for range 1000 {
		page := f.search(q)
		if len(page.Listings) > q.Limit {
			f.t.Fatalf("page of %d over limit %d", len(page.Listings), q.Limit)
		}
		all = append(all, ids(page.Listings)...)
		if page.Cursor == "" {
			return all
		}
		if page.Cursor != page.Listings[len(page.Listings)-1].ID {
			f.t.Fatalf("cursor %s is not the last id of the page", page.Cursor)
		}
		q.After = page.Cursor
	}
	f.t.Fatal("paging does not end")
	return nil
}

func wantIDs(t *testing.T, what string, got []string, want ...*listings.Listing) {
	t.Helper()
	if !slices.Equal(got, idsOf(want)) {
		t.Fatalf("%s: got %v, want %v", what, got, idsOf(want))
	}
}

func wantField(t *testing.T, err error, field string) {
	t.Helper()
	e := market.ErrorOf(err)
	if e.Code != market.CodeValidation || len(e.Fields) == 0 || e.Fields[0].Field != field {
		t.Fatalf("error %v: want VALIDATION_ERROR on %q", err, field)
	}
}

func TestSearchRanking(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		f := newSearchFixture(t, db)
		ls := f.add(
			item{title: "Brass lamp", desc: "Old and heavy, works fine"},               // 0 title
			item{title: "Oak table", desc: "Comes with a small lamp on top"},           // 1 description only
			item{title: "Desk lamp", desc: "A lamp for a desk, bright LED"},            // 2 title and description
			item{title: "Wool blanket", desc: "Warm and soft"},                         // 3 no match
			item{title: "Reading light", brand: "Lampe Berger", desc: "Clip-on light"}, // 4 brand "lampe"
			item{title: "Floor lamps pair", desc: "Two matching floor standing"},       // 5 plural, title
			item{title: "Brass candlestick", desc: "Goes well with a lamp"},            // 6 one word in the title, one in the description
		)
		page := f.search(listings.SearchQuery{Text: "lamp", Limit: 20})
		got := ids(page.Listings)
		at := func(l *listings.Listing) int { return slices.Index(got, l.ID) }
		// Title matches first, then the brand match, then description-only.
		for _, title := range []*listings.Listing{ls[0], ls[2], ls[5]} {
			if at(title) < 0 || at(title) > at(ls[4]) || at(ls[4]) > at(ls[1]) || at(ls[4]) > at(ls[6]) {
				t.Fatalf("ranking: %v (title matches %v, then brand %s, then %s, %s)", got, idsOf(ls[:3]), ls[4].ID, ls[1].ID, ls[6].ID)
			}
		}
		if at(ls[3]) >= 0 || len(got) != 6 || page.Total != 6 || page.Cursor != "" {
			t.Fatalf("matches: %v total %d cursor %q", got, page.Total, page.Cursor)
		}
		// More of the query in the title ranks higher.
		got = ids(f.search(listings.SearchQuery{Text: "brass lamp", Limit: 20}).Listings)
		wantIDs(t, "both words in the title first", got, ls[0], ls[6])
		// Every word must match (in any field), whole; stemming finds
		// plurals; quotes make a phrase.
		wantIDs(t, "all words", ids(f.search(listings.SearchQuery{Text: "heavy LAMP!", Limit: 20}).Listings), ls[0])
		wantIDs(t, "across fields", ids(f.search(listings.SearchQuery{Text: "table lamp", Limit: 20}).Listings), ls[1])
		if got := ids(f.search(listings.SearchQuery{Text: "lamps", Limit: 20}).Listings); !slices.Contains(got, ls[5].ID) || !slices.Contains(got, ls[0].ID) {
			t.Fatalf("stemming: %v", got)
		}
		if got := ids(f.search(listings.SearchQuery{Text: "blank", Limit: 20}).Listings); len(got) != 0 {
			t.Fatalf("words match whole: %v", got)
		}
		if got := ids(f.search(listings.SearchQuery{Text: "blankets", Limit: 20}).Listings); !slices.Equal(got, []string{ls[3].ID}) {
			t.Fatalf("stemming: %v", got)
		}
		if got := ids(f.search(listings.SearchQuery{Text: `"floor lamps"`, Limit: 20}).Listings); !slices.Equal(got, []string{ls[5].ID}) {
			t.Fatalf("phrase: %v", got)
		}
		if got := ids(f.search(listings.SearchQuery{Text: `"lamps floor"`, Limit: 20}).Listings); len(got) != 0 {
			t.Fatalf("phrase order: %v", got)
		}
		// The brand is searched.
		if got := ids(f.search(listings.SearchQuery{Text: "berger", Limit: 20}).Listings); !slices.Equal(got, []string{ls[4].ID}) {
			t.Fatalf("brand: %v", got)
		}
		// Text with nothing searchable in it browses.
		if page := f.search(listings.SearchQuery{Text: "!!! ''", Limit: 20}); len(page.Listings) != len(ls) {
			t.Fatalf("no words: %d results", len(page.Listings))
		}
	})
}

// TestSearchHostileText runs text that would be syntax in FTS5 or
// tsquery: none of it may fail.
func TestSearchHostileText(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		f := newSearchFixture(t, db)
		f.add(item{title: "Brass lamp NEAR window", desc: "AND OR NOT"})
		for _, text := range hostileTexts {
			for _, anyTerm := range []bool{false, true} {
				for _, sort := range []listings.Sort{listings.SortRelevance, listings.SortNewest} {
					q := listings.SearchQuery{Text: text, AnyTerms: anyTerm, Sort: sort, Limit: 5}
					if _, err := db.Read().SearchListings(context.Background(), q); err != nil {
						t.Fatalf("%q: %v", text, err)
					}
				}
			}
			if _, err := db.Read().PriceSummary(context.Background(), listings.SearchQuery{Text: text}, listings.StatusSold); err != nil {
				t.Fatalf("price summary %q: %v", text, err)
			}
		}
	})
}

var hostileTexts = []string{
	`"`, `""`, `"""`, `'`, `''`, `*`, `lamp*`, `*lamp`, `^lamp`, `lamp:*`, `a:b`, `title:lamp`, `{title}: lamp`,
	`NEAR(lamp brass)`, `lamp NEAR brass`, `AND`, `OR`, `NOT`, `lamp AND`, `OR lamp`, `NOT lamp`, `-lamp`, `+lamp`,
	`lamp & brass`, `lamp | brass`, `!lamp`, `lamp <-> brass`, `(lamp`, `lamp)`, `()`, `\`, `\\lamp`, `lamp\`,
	"lamp\x00brass", "\xff\xfe", `😀 lamp`, `𞤀`, `ⅷ`, `١٢٣`, `ǅungla`, `Straße`, `café`, `ﬁsh`, `e-bike`, `3.5mm`,
	`lamp's`, `o'brien`, `"brass lamp`, `brass "lamp`, `"a" "the"`, `the`, `a an the`, `of`, `lamp the`,
	`x`, `xx`, `12`, `1e10`, `-1`, `%`, `_`, `%lamp%`, `;DROP TABLE listings;--`, `' OR 1=1 --`, `$1`, `?`,
	`lamp lamp lamp lamp lamp lamp lamp lamp lamp lamp lamp lamp lamp lamp`,
	`a b c d e f g h i j k l m n o p q r s t u v w x y z`,
}

// FuzzSearchText: no text makes a search fail (SQLite; PostgreSQL too when
// configured, on the seed corpus).
func FuzzSearchText(f *testing.F) {
	for _, s := range hostileTexts {
		f.Add(s, false)
	}
	db := OpenSQLite(f)
	ctx := context.Background()
	err := db.InTx(ctx, func(tx *store.Tx) error {
		u := &accounts.User{ID: market.NewID(), Email: "f@example.com", Username: "fuzz", Role: accounts.RoleUser,
			Status: accounts.StatusActive, TrustTier: accounts.TierNew, CreatedAt: t0, UpdatedAt: t0}
		if err := tx.CreateUser(ctx, u); err != nil {
			return err
		}
		l := newListing(u.ID, t0, 1000)
		l.Title = "Brass lamp near window"
		return tx.CreateListing(ctx, l)
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string, anyTerm bool) {
		for _, sort := range []listings.Sort{listings.SortRelevance, listings.SortPriceAsc} {
			q := listings.SearchQuery{Text: text, AnyTerms: anyTerm, Sort: sort, Limit: 3}
			if _, err := db.Read().SearchListings(ctx, q); err != nil {
				t.Fatalf("%q: %v", text, err)
			}
		}
	})
}

func TestSearchFilters(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		f := newSearchFixture(t, db)
		ls := f.add(
			item{title: "Phone A", cat: "smartphones", cond: "new_with_tags", price: 500},
			item{title: "Phone B", cat: "smartphones", cond: "new_without_tags", price: 1000},
			item{title: "Phone case", cat: "phone-accessories", cond: "like_new", price: 1500},
			item{title: "Laptop", cat: "laptops", cond: "good", price: 2000},
			item{title: "Phone sofa", cat: "furniture", cond: "good", price: 1000},
			item{title: "Phone sold", cat: "smartphones", cond: "good", price: 1000, status: listings.StatusSold},
			item{title: "Phone archived", cat: "smartphones", cond: "good", price: 1000, status: listings.StatusArchived},
			item{title: "Phone pending", cat: "smartphones", cond: "good", price: 1000, status: listings.StatusPendingAI},
		)
		sub := func(slug string) []string {
			ids, err := db.Read().CategorySubtree(context.Background(), slug)
			if err != nil {
				t.Fatal(err)
			}
			return ids
		}
		if got := sub("phones"); len(got) != 3 || !slices.Contains(got, listings.CategoryID("smartphones")) {
			t.Fatalf("subtree of phones: %v", got)
		}
		if got := sub(listings.CategoryID("phones")); len(got) != 3 {
			t.Fatalf("subtree by id: %v", got)
		}
		if got := sub("no-such-category"); len(got) != 0 {
			t.Fatalf("unknown: %v", got)
		}
		p := func(n int64) *int64 { return &n }
		cases := []struct {
			name string
			q    listings.SearchQuery
			want []*listings.Listing // newest first: later items first (same created_at: id desc)
		}{
			{"only active", listings.SearchQuery{}, []*listings.Listing{ls[4], ls[3], ls[2], ls[1], ls[0]}},
			{"category subtree", listings.SearchQuery{CategoryIDs: sub("electronics")}, []*listings.Listing{ls[3], ls[2], ls[1], ls[0]}},
			{"leaf category", listings.SearchQuery{CategoryIDs: sub("smartphones")}, []*listings.Listing{ls[1], ls[0]}},
			{"conditions", listings.SearchQuery{Conditions: []string{"new_with_tags", "new_without_tags"}}, []*listings.Listing{ls[1], ls[0]}},
			{"one condition", listings.SearchQuery{Conditions: []string{"good"}}, []*listings.Listing{ls[4], ls[3]}},
			{"min inclusive", listings.SearchQuery{MinPrice: p(1500)}, []*listings.Listing{ls[3], ls[2]}},
			{"max inclusive", listings.SearchQuery{MaxPrice: p(1000)}, []*listings.Listing{ls[4], ls[1], ls[0]}},
			{"range", listings.SearchQuery{MinPrice: p(1000), MaxPrice: p(1500)}, []*listings.Listing{ls[4], ls[2], ls[1]}},
			{"exclude", listings.SearchQuery{ExcludeID: ls[4].ID, MaxPrice: p(1000)}, []*listings.Listing{ls[1], ls[0]}},
			{"seller", listings.SearchQuery{SellerID: f.seller, MaxPrice: p(500)}, []*listings.Listing{ls[0]}},
			{"other seller", listings.SearchQuery{SellerID: market.NewID()}, nil},
			{"everything", listings.SearchQuery{CategoryIDs: sub("phones"), Conditions: []string{"new_without_tags", "like_new"},
				MinPrice: p(1000), MaxPrice: p(1500)}, []*listings.Listing{ls[2], ls[1]}},
		}
		// Ties on created_at break by id, newest sort: id descending.
		sortByIDDesc := func(l []*listings.Listing) []*listings.Listing {
			l = slices.Clone(l)
			sort.Slice(l, func(i, j int) bool { return l[i].ID > l[j].ID })
			return l
		}
		for _, c := range cases {
			for _, text := range []string{"", "phone"} {
				q := c.q
				q.Limit, q.Text, q.Sort = 20, text, listings.SortNewest
				want := sortByIDDesc(c.want)
				if text != "" {
					want = slices.DeleteFunc(want, func(l *listings.Listing) bool { return l.ID == ls[3].ID }) // "Laptop"
				}
				page := f.search(q)
				wantIDs(t, fmt.Sprintf("%s (text %q)", c.name, text), ids(page.Listings), want...)
				if page.Total != len(want) {
					t.Fatalf("%s (text %q): total %d, want %d", c.name, text, page.Total, len(want))
				}
				q.Limit = 1 // the total counts every page
				if page := f.search(q); page.Total != len(want) {
					t.Fatalf("%s (text %q) paged: total %d, want %d", c.name, text, page.Total, len(want))
				}
			}
		}
	})
}

func TestSearchSorts(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		f := newSearchFixture(t, db)
		var items []item
		for i := range 23 {
			items = append(items, item{title: "Vintage camera", desc: "A camera", price: int64(100 * (i % 5)),
				at: t0.Add(time.Duration(i%7) * time.Minute)})
		}
		for i := range 6 {
			items = append(items, item{title: "Tripod", desc: "For a vintage camera", price: int64(100 * (i % 3)), at: t0})
		}
		items = append(items, item{title: "Unrelated", desc: "nothing", price: 100, at: t0})
		ls := f.add(items...)
		matching := ls[:29]
		expect := map[listings.Sort]func(a, b *listings.Listing) int{
			listings.SortNewest: func(a, b *listings.Listing) int {
				if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
					return c
				}
				return cmpStr(b.ID, a.ID)
			},
			listings.SortPriceAsc: func(a, b *listings.Listing) int {
				if a.Price != b.Price {
					return cmpInt(a.Price, b.Price)
				}
				return cmpStr(a.ID, b.ID)
			},
			listings.SortPriceDesc: func(a, b *listings.Listing) int {
				if a.Price != b.Price {
					return cmpInt(b.Price, a.Price)
				}
				return cmpStr(b.ID, a.ID)
			},
			// The title matches are identical documents, so they tie and go
			// by id, descending; then the description-only ones.
			listings.SortRelevance: func(a, b *listings.Listing) int {
				ta, tb := a.Title == "Vintage camera", b.Title == "Vintage camera"
				if ta != tb {
					if ta {
						return -1
					}
					return 1
				}
				return cmpStr(b.ID, a.ID)
			},
		}
		for srt, cmp := range expect {
			want := slices.Clone(matching)
			slices.SortFunc(want, cmp)
			for _, limit := range []int{1, 2, 5, 50} {
				got := f.pageAll(listings.SearchQuery{Text: "vintage camera", Sort: srt, Limit: limit})
				wantIDs(t, fmt.Sprintf("%s limit %d", srt, limit), got, want...)
				if srt == listings.SortRelevance {
					continue
				}
				// Browse (no text) pages the same way over all 30.
				all := slices.Clone(ls)
				slices.SortFunc(all, cmp)
				got = f.pageAll(listings.SearchQuery{Sort: srt, Limit: limit})
				wantIDs(t, fmt.Sprintf("browse %s limit %d", srt, limit), got, all...)
			}
		}
		// Relevance without text is newest; the default is relevance with
		// text, newest without.
		a := ids(f.search(listings.SearchQuery{Sort: listings.SortRelevance, Limit: 50}).Listings)
		b := ids(f.search(listings.SearchQuery{Limit: 50}).Listings)
		c := ids(f.search(listings.SearchQuery{Sort: listings.SortNewest, Limit: 50}).Listings)
		if !slices.Equal(a, c) || !slices.Equal(b, c) {
			t.Fatal("relevance without text and the default must be newest")
		}
		d := ids(f.search(listings.SearchQuery{Text: "camera", Limit: 50}).Listings)
		e := ids(f.search(listings.SearchQuery{Text: "camera", Sort: listings.SortRelevance, Limit: 50}).Listings)
		if !slices.Equal(d, e) {
			t.Fatal("the default with text must be relevance")
		}
	})
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestSearchCursorErrors(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		f := newSearchFixture(t, db)
		ls := f.add(item{title: "Red kettle"}, item{title: "Blue kettle"}, item{title: "Toaster"})
		ctx := context.Background()
		for _, c := range []listings.SearchQuery{
			{After: "not-an-id"},
			{After: "1"},
			{After: "' OR 1=1 --"},
			{After: market.NewID()},                 // no such listing
			{After: market.NewID(), Text: "kettle"}, // no such listing, relevance
			{After: ls[2].ID, Text: "kettle"},       // not a result of this search
			{After: ls[2].ID, Text: "kettle", AnyTerms: true},
		} {
			c.Limit = 2
			_, err := db.Read().SearchListings(ctx, c)
			wantField(t, err, "cursor")
		}
		// Any listing works as a cursor for the other sorts, and a listing
		// that left the results (sold) still pages under relevance.
		if _, err := db.Read().SearchListings(ctx, listings.SearchQuery{After: ls[2].ID, Text: "kettle", Sort: listings.SortPriceAsc, Limit: 2}); err != nil {
			t.Fatal(err)
		}
		first := f.search(listings.SearchQuery{Text: "kettle", Limit: 1})
		sold := first.Listings[0]
		sold.Status = listings.StatusSold
		f.update(&sold)
		next := f.search(listings.SearchQuery{Text: "kettle", Limit: 1, After: sold.ID})
		if len(next.Listings) != 1 || next.Listings[0].ID == sold.ID || next.Cursor != "" {
			t.Fatalf("after a sold cursor: %+v", ids(next.Listings))
		}
	})
}

// TestSearchConcurrentInserts pages while another goroutine inserts
// matching listings: every listing that was there before paging started
// is seen exactly once, and nothing is seen twice.
func TestSearchConcurrentInserts(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		f := newSearchFixture(t, db)
		var items []item
		for i := range 40 {
			it := item{title: "Ceramic vase", desc: "Hand made", price: int64(100 + 50*(i%9)), at: t0.Add(time.Duration(i%13) * time.Minute)}
			if i%4 == 0 {
				it.title, it.desc = "Flower pot", "Ceramic vase style"
			}
			items = append(items, it)
		}
		before := f.add(items...)
		for _, srt := range []listings.Sort{listings.SortNewest, listings.SortPriceAsc, listings.SortPriceDesc, listings.SortRelevance} {
			for _, text := range []string{"ceramic vase", ""} {
				if text == "" && srt == listings.SortRelevance {
					continue
				}
				stop := make(chan struct{})
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(1, 2))
					for range 40 {
						select {
						case <-stop:
							return
						default:
						}
						// New listings land anywhere in every order: earlier,
						// later and equal timestamps and prices.
						it := item{title: "Ceramic vase", desc: "Hand made", price: int64(100 + 50*rng.IntN(9)),
							at: t0.Add(time.Duration(rng.IntN(20)-3) * time.Minute)}
						if err := db.InTx(context.Background(), func(tx *store.Tx) error {
							return tx.CreateListing(context.Background(), f.listing(it))
						}); err != nil {
							t.Error(err)
							return
						}
						time.Sleep(time.Millisecond)
					}
				}()
				seen := map[string]int{}
				q := listings.SearchQuery{Text: text, Sort: srt, Limit: 3}
				for {
					page := f.search(q)
					for _, l := range page.Listings {
						seen[l.ID]++
					}
					if page.Cursor == "" {
						break
					}
					q.After = page.Cursor
					time.Sleep(2 * time.Millisecond)
				}
				close(stop)
				wg.Wait()
				for id, n := range seen {
					if n > 1 {
						t.Fatalf("%s %q: %s seen %d times", srt, text, id, n)
					}
				}
				for _, l := range before {
					if seen[l.ID] != 1 {
						t.Fatalf("%s %q: pre-existing %s seen %d times", srt, text, l.ID, seen[l.ID])
					}
				}
			}
		}
	})
}

func TestSearchIndexFollowsChanges(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		f := newSearchFixture(t, db)
		ls := f.add(item{title: "Walnut bookshelf", brand: "Ikea", desc: "Five shelves", price: 5000, cat: "furniture"})
		l := ls[0]
		found := func(q listings.SearchQuery) bool {
			q.Limit = 10
			return slices.Contains(ids(f.search(q).Listings), l.ID)
		}
		if !found(listings.SearchQuery{Text: "walnut"}) || !found(listings.SearchQuery{Text: "ikea"}) {
			t.Fatal("not found after insert")
		}
		l.Title, l.Brand = "Maple bookshelf", "Hay"
		f.update(l)
		if found(listings.SearchQuery{Text: "walnut"}) || found(listings.SearchQuery{Text: "ikea"}) || !found(listings.SearchQuery{Text: "maple hay"}) {
			t.Fatal("title or brand change not indexed")
		}
		l.Description = "Six shelves"
		l.Price = 7000
		l.Condition = "fair"
		l.CategoryID = listings.CategoryID("home-decor")
		f.update(l)
		p := func(n int64) *int64 { return &n }
		if found(listings.SearchQuery{Text: "five"}) || !found(listings.SearchQuery{Text: "six", MinPrice: p(7000), MaxPrice: p(7000)}) ||
			found(listings.SearchQuery{Text: "six", MaxPrice: p(5000)}) ||
			!found(listings.SearchQuery{Text: "six", Conditions: []string{"fair"}, CategoryIDs: []string{listings.CategoryID("home-decor")}}) ||
			found(listings.SearchQuery{Text: "six", CategoryIDs: []string{listings.CategoryID("furniture")}}) {
			t.Fatal("description, price, condition or category change not indexed")
		}
		// Changes that are not indexed leave it alone (watchers, photos).
		err := db.InTx(context.Background(), func(tx *store.Tx) error {
			_, err := tx.Watch(context.Background(), f.seller, l.ID, t0)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		l.PhotoIDs = []string{"p1"}
		f.update(l)
		if !found(listings.SearchQuery{Text: "maple", Sort: listings.SortPriceAsc}) {
			t.Fatal("lost after an unindexed change")
		}
		for _, st := range []listings.Status{listings.StatusArchived, listings.StatusReserved, listings.StatusSold} {
			l.Status = st
			f.update(l)
			if found(listings.SearchQuery{Text: "maple"}) || found(listings.SearchQuery{}) {
				t.Fatalf("%s listing still in results", st)
			}
		}
		l.Status = listings.StatusActive
		f.update(l)
		if !found(listings.SearchQuery{Text: "maple"}) {
			t.Fatal("active again but not found")
		}
		// A deleted row leaves the index (the migration's delete trigger).
		del := `DELETE FROM listings WHERE id = ?`
		if db.Dialect() == store.Postgres {
			del = `DELETE FROM listings WHERE id = $1`
		}
		if _, err := db.WritePool().ExecContext(context.Background(), del, l.ID); err != nil {
			t.Fatal(err)
		}
		if found(listings.SearchQuery{Text: "maple"}) {
			t.Fatal("deleted listing still found")
		}
		if page := f.search(listings.SearchQuery{Text: "maple", Limit: 5}); page.Total != 0 {
			t.Fatalf("deleted listing still counted: %d", page.Total)
		}
	})
}

func TestComparablePrices(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		f := newSearchFixture(t, db)
		var items []item
		for i := range 60 {
			items = append(items, item{title: "Phone", cat: "smartphones", price: int64(1000 + i), cond: "good",
				status: listings.StatusSold, soldAt: t0.Add(time.Duration(i) * time.Hour), at: t0})
		}
		items = append(items,
			item{title: "Phone", cat: "smartphones", price: 5, cond: "poor", status: listings.StatusSold, soldAt: t0.Add(500 * time.Hour)},
			item{title: "Phone", cat: "smartphones", price: 700, cond: "good", at: t0.Add(time.Hour)},
			item{title: "Phone", cat: "smartphones", price: 800, cond: "fair", at: t0.Add(2 * time.Hour)},
			item{title: "Phone", cat: "smartphones", price: 900, cond: "good", status: listings.StatusArchived},
			item{title: "Phone", cat: "phones", price: 999, cond: "good"}, // the parent: not comparable
		)
		f.add(items...)
		ctx := context.Background()
		sold, active, err := db.Read().ComparablePrices(ctx, "smartphones", "good")
		if err != nil {
			t.Fatal(err)
		}
		if len(sold) != 50 || sold[0] != 1059 || sold[49] != 1010 || !slices.Equal(active, []int64{700}) {
			t.Fatalf("good: sold %v active %v", sold, active)
		}
		sold, active, _ = db.Read().ComparablePrices(ctx, "smartphones", "")
		if len(sold) != 50 || sold[0] != 5 || !slices.Equal(active, []int64{800, 700}) {
			t.Fatalf("any: sold %v active %v", sold[:3], active)
		}
		sold, active, err = db.Read().ComparablePrices(ctx, "no-such-slug", "")
		if err != nil || len(sold) != 0 || len(active) != 0 {
			t.Fatalf("unknown: %v %v %v", sold, active, err)
		}
		// The built-in estimate reads them: 50 sold "good" phones, median
		// of 1010..1059 = 1034.5 -> 1035 -> nice price 1050.
		e, err := listings.Estimate(ctx, listings.DefaultTaxonomy(), db.Read(), "smartphones", "good")
		if err != nil || e.Basis != listings.BasisSold || e.Median != 1035 || e.Count != 50 {
			t.Fatalf("estimate %+v %v", e, err)
		}
	})
}

func TestPriceCheck(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		f := newSearchFixture(t, db)
		var items []item
		for i, p := range []int64{400, 100, 300, 200} {
			items = append(items, item{title: "Espresso machine", cat: "home-appliances", price: p, cond: "good", at: t0.Add(time.Duration(i) * time.Minute)})
		}
		for i := range 12 {
			items = append(items, item{title: "Espresso machine", cat: "home-appliances", price: int64(1000 + 100*i), cond: "like_new",
				status: listings.StatusSold, soldAt: t0.Add(time.Duration(i) * time.Hour)})
		}
		items = append(items,
			item{title: "Espresso cups", cat: "kitchen-dining", price: 50, cond: "new_with_tags"},
			item{title: "Espresso machine", cat: "home-appliances", price: 99999, status: listings.StatusArchived},
		)
		f.add(items...)
		ctx := context.Background()
		check := func(v url.Values) listings.PriceCheck {
			t.Helper()
			p, err := listings.ParsePriceCheck(v)
			if err != nil {
				t.Fatal(err)
			}
			pc, err := f.svc.PriceCheck(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			return pc
		}
		pc := check(url.Values{"q": {"espresso machine"}})
		if pc.Count != 4 || pc.Min != 100 || pc.Max != 400 || pc.Median != 250 || pc.SoldCount != 12 || pc.SoldMedian != 1550 {
			t.Fatalf("figures: %+v", pc)
		}
		if len(pc.RecentSales) != 10 || pc.RecentSales[0].Price != 2100 || pc.RecentSales[9].Price != 1200 ||
			!pc.RecentSales[0].SoldAt.Equal(t0.Add(11*time.Hour)) || pc.RecentSales[0].Condition != "like_new" ||
			pc.RecentSales[0].Title != "Espresso machine" || pc.RecentSales[0].ListingID == "" {
			t.Fatalf("recent sales: %+v", pc.RecentSales)
		}
		pc = check(url.Values{"q": {"espresso"}, "condition": {"new"}})
		if pc.Count != 1 || pc.Median != 50 || pc.Min != 50 || pc.Max != 50 || pc.SoldCount != 0 || len(pc.RecentSales) != 0 {
			t.Fatalf("condition new: %+v", pc)
		}
		pc = check(url.Values{"category": {"home-garden"}}) // no text: the category alone
		if pc.Count != 5 || pc.Median != 200 || pc.SoldCount != 12 {
			t.Fatalf("category only: %+v", pc)
		}
		pc = check(url.Values{"q": {"unobtainium"}})
		if pc.Count != 0 || pc.Median != 0 || pc.SoldCount != 0 || pc.RecentSales == nil {
			t.Fatalf("no match: %+v", pc)
		}
		_, err := listings.ParsePriceCheck(url.Values{})
		wantField(t, err, "q")
		p, _ := listings.ParsePriceCheck(url.Values{"q": {"x"}, "category": {"nope"}})
		_, err = f.svc.PriceCheck(ctx, p)
		wantField(t, err, "category")
	})
}

func TestSearchService(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		f := newSearchFixture(t, db)
		ls := f.add(
			item{title: "Canon EOS camera body", brand: "Canon", cat: "digital-cameras", at: t0},
			item{title: "Canon camera lens", brand: "Canon", cat: "camera-lenses", at: t0.Add(time.Minute)},
			item{title: "Nikon camera body", brand: "Nikon", cat: "digital-cameras", at: t0.Add(2 * time.Minute)},
			item{title: "Canon printer", brand: "Canon", cat: "office", at: t0.Add(3 * time.Minute)},
			item{title: "Garden hose", cat: "garden-outdoor", at: t0.Add(4 * time.Minute)},
			item{title: "Canon EOS camera body", brand: "Canon", cat: "digital-cameras", status: listings.StatusSold},
		)
		ctx := context.Background()
		search := func(v url.Values) (listings.SearchPage, error) {
			p, err := listings.ParseSearch(v)
			if err != nil {
				return listings.SearchPage{}, err
			}
			return f.svc.Search(ctx, p)
		}
		page, err := search(url.Values{"category": {"cameras"}, "sort": {"newest"}})
		if err != nil {
			t.Fatal(err)
		}
		wantIDs(t, "category slug", ids(page.Listings), ls[2], ls[1], ls[0])
		page, err = search(url.Values{"categoryId": {listings.CategoryID("digital-cameras")}, "search": {"canon"}})
		if err != nil {
			t.Fatal(err)
		}
		wantIDs(t, "category id and text", ids(page.Listings), ls[0])
		_, err = search(url.Values{"category": {"no-such-thing"}})
		wantField(t, err, "category")
		_, err = search(url.Values{"categoryId": {market.NewID()}})
		wantField(t, err, "categoryId")
		_, err = search(url.Values{"q": {"canon"}, "cursor": {market.NewID()}})
		wantField(t, err, "cursor")
		// A category an admin adds later is searchable at once, with its
		// parent's subtree growing too.
		err = db.InTx(ctx, func(tx *store.Tx) error {
			return tx.SeedCategories(ctx, []listings.Category{{ID: market.NewID(), Slug: "mirrorless", Name: "Mirrorless",
				Path: "Electronics > Cameras > Mirrorless", ParentID: listings.CategoryID("cameras")}}, t0)
		})
		if err != nil {
			t.Fatal(err)
		}
		ids2, _ := db.Read().CategorySubtree(ctx, "mirrorless")
		added := f.add(item{title: "Sony mirrorless camera", cat: ""})[0]
		added.CategoryID = ids2[0]
		f.update(added)
		page, err = search(url.Values{"category": {"mirrorless"}})
		if err != nil || len(page.Listings) != 1 || page.Listings[0].ID != added.ID {
			t.Fatalf("new category: %v %v", page.Listings, err)
		}
		page, _ = search(url.Values{"category": {"electronics"}, "q": {"camera"}})
		if page.Total != 4 {
			t.Fatalf("new category under its parent: total %d", page.Total)
		}

		// Similar: same category subtree, sharing words, never itself; the
		// sold source is fine.
		sim, err := f.svc.Similar(ctx, market.Actor{}, ls[5].ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := ids(sim.Listings)
		if len(got) == 0 || got[0] != ls[0].ID || slices.Contains(got, ls[5].ID) || slices.Contains(got, ls[3].ID) ||
			slices.Contains(got, ls[4].ID) {
			t.Fatalf("similar: %v", got)
		}
		sim, _ = f.svc.Similar(ctx, market.Actor{}, ls[0].ID, 1)
		if len(sim.Listings) != 1 || sim.Listings[0].ID == ls[0].ID {
			t.Fatalf("similar limit 1: %v", ids(sim.Listings))
		}
		_, err = f.svc.Similar(ctx, market.Actor{}, market.NewID(), 0)
		wantCode(t, err, market.CodeListingNotFound)
		_, err = f.svc.Similar(ctx, market.Actor{}, "nope", 0)
		wantCode(t, err, market.CodeListingNotFound)
		_, err = f.svc.Similar(ctx, market.Actor{}, ls[0].ID, 51)
		wantField(t, err, "limit")
	})
}

// TestSearchCache: repeated searches may be served from the cache, but
// never stale: a new or changed listing shows at once, and what is shown of
// a listing is current even when the page itself is unchanged.
func TestSearchCache(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		f := newSearchFixture(t, db)
		ctx := context.Background()
		var items []item
		for i := range 5 {
			items = append(items, item{title: "Teak bench", price: int64(1000 + i)})
		}
		ls := f.add(items...)
		q := listings.SearchQuery{Text: "teak", Limit: 2}
		first := f.search(q)
		again := f.search(q)
		if !slices.Equal(ids(first.Listings), ids(again.Listings)) || first.Total != 5 || again.Total != 5 {
			t.Fatalf("repeat: %v %v", ids(first.Listings), ids(again.Listings))
		}
		// Watching changes no indexed column, yet the page shows the count.
		if err := db.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.Watch(ctx, f.seller, first.Listings[0].ID, t0)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if page := f.search(q); page.Listings[0].WatchersCount != 1 {
			t.Fatalf("watchers count not current: %+v", page.Listings[0])
		}
		added := f.add(item{title: "Teak bench"})[0]
		if page := f.search(q); page.Listings[0].ID != added.ID || page.Total != 6 {
			t.Fatalf("new listing: %v total %d", ids(page.Listings), page.Total)
		}
		ls[0].Status = listings.StatusSold
		f.update(ls[0])
		if page := f.search(listings.SearchQuery{Text: "teak", Limit: 10}); len(page.Listings) != 5 ||
			slices.Contains(ids(page.Listings), ls[0].ID) {
			t.Fatalf("sold listing: %v", ids(page.Listings))
		}
		if page := f.search(q); page.Total != 5 {
			t.Fatalf("total after a sale: %d", page.Total)
		}
		// Inside a transaction a search sees the transaction's own changes.
		err := db.InTx(ctx, func(tx *store.Tx) error {
			l := f.listing(item{title: "Teak bench"})
			if err := tx.CreateListing(ctx, l); err != nil {
				return err
			}
			page, err := tx.SearchListings(ctx, q)
			if err != nil || page.Listings[0].ID != l.ID || page.Total != 6 {
				t.Errorf("in transaction: %v total %d %v", ids(page.Listings), page.Total, err)
			}
			return errors.New("roll back")
		})
		if err == nil {
			t.Fatal("want the rollback error")
		}
		if page := f.search(q); page.Total != 5 {
			t.Fatalf("after rollback: total %d", page.Total)
		}
	})
}

// TestSearchSortsBroad pages price and date sorts over a match set large
// enough that SQLite walks the sort index instead of sorting every match
// (see broadMatch), with ties on price and date, listings that are not
// active, and filters, against the order the contract defines.
func TestSearchSortsBroad(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		f := newSearchFixture(t, db)
		rng := rand.New(rand.NewPCG(3, 5))
		conds := []string{"good", "fair", "like_new", "new_with_tags"}
		statuses := []listings.Status{listings.StatusActive, listings.StatusActive, listings.StatusActive,
			listings.StatusActive, listings.StatusActive, listings.StatusActive, listings.StatusActive, listings.StatusSold}
		var items []item
		for i := range 5300 {
			it := item{title: fmt.Sprintf("Widget %d", i), desc: "A widget", cond: conds[rng.IntN(len(conds))],
				price: int64(100 * (1 + rng.IntN(60))), at: t0.Add(time.Duration(rng.IntN(40)) * time.Minute),
				status: statuses[rng.IntN(len(statuses))]}
			if i%10 == 0 {
				it.title, it.desc = fmt.Sprintf("Gadget %d", i), "Not it"
			}
			items = append(items, it)
		}
		var matching []*listings.Listing
		for _, l := range f.add(items...) {
			if l.Status == listings.StatusActive && l.Title[0] == 'W' {
				matching = append(matching, l)
			}
		}
		byPrice := func(a, b *listings.Listing) int {
			if a.Price != b.Price {
				return cmpInt(a.Price, b.Price)
			}
			return cmpStr(a.ID, b.ID)
		}
		expect := map[listings.Sort]func(a, b *listings.Listing) int{
			listings.SortNewest: func(a, b *listings.Listing) int {
				if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
					return c
				}
				return cmpStr(b.ID, a.ID)
			},
			listings.SortPriceAsc:  byPrice,
			listings.SortPriceDesc: func(a, b *listings.Listing) int { return byPrice(b, a) },
		}
		maxPrice := int64(2500)
		filters := []struct {
			name string
			q    listings.SearchQuery
			keep func(l *listings.Listing) bool
		}{
			{"all", listings.SearchQuery{}, func(*listings.Listing) bool { return true }},
			{"condition", listings.SearchQuery{Conditions: []string{"fair"}}, func(l *listings.Listing) bool { return l.Condition == "fair" }},
			{"max price", listings.SearchQuery{MaxPrice: &maxPrice}, func(l *listings.Listing) bool { return l.Price <= maxPrice }},
		}
		for srt, cmp := range expect {
			for _, fl := range filters {
				var want []*listings.Listing
				for _, l := range matching {
					if fl.keep(l) {
						want = append(want, l)
					}
				}
				slices.SortFunc(want, cmp)
				q := fl.q
				q.Text, q.Sort, q.Limit = "widget", srt, 100
				got := f.pageAll(q)
				wantIDs(t, fmt.Sprintf("%s %s", srt, fl.name), got, want...)
				q.NoTotal = false
				if page := f.search(q); page.Total != len(want) {
					t.Fatalf("%s %s: total %d, want %d", srt, fl.name, page.Total, len(want))
				}
			}
		}
	})
}
