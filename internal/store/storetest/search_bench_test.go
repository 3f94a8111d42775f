package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/store"
)

// BenchmarkSearch100k loads 100,000 active listings per engine (about 30 s
// each) and times searches: each shape hot (repeated: served from the
// cache) and cold (a listing write before each query, untimed, so nothing
// is cached), then 20 concurrent clients for 5 s on a fixed mix (hot) and
// on varied words (cold). It runs only when asked:
//
//	MARKETPLACE_SEARCH_BENCH=1 go test ./internal/store/storetest -run x -bench Search100k -benchtime 100x
//
// SEARCH_BENCH_N changes the number of listings.
func BenchmarkSearch100k(b *testing.B) {
	if os.Getenv("MARKETPLACE_SEARCH_BENCH") == "" {
		b.Skip("set MARKETPLACE_SEARCH_BENCH=1 to load 100,000 listings and time searches")
	}
	n := 100_000
	if s := os.Getenv("SEARCH_BENCH_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	for _, e := range Engines() {
		b.Run(e.Name, func(b *testing.B) {
			db := e.Open(b)
			ctx := context.Background()
			start := time.Now()
			fill(b, db, n)
			if db.Dialect() == store.Postgres && os.Getenv("SEARCH_BENCH_NO_ANALYZE") == "" {
				// What autovacuum does soon after a bulk load.
				if _, err := db.WritePool().Exec("ANALYZE"); err != nil {
					b.Fatal(err)
				}
			}
			b.Logf("%s: %d listings inserted in %s", e.Name, n, time.Since(start).Round(time.Millisecond))
			maxP := int64(5000)
			var pivot *listings.Listing
			if err := db.InTx(ctx, func(tx *store.Tx) error {
				list, _, err := tx.ListingsBySeller(ctx, sellerOf(b, db), nil, 1, 0)
				if err == nil {
					pivot = &list[0]
				}
				return err
			}); err != nil {
				b.Fatal(err)
			}
			read := db.Read()
			electronics, _ := read.CategorySubtree(ctx, "electronics")
			home, _ := read.CategorySubtree(ctx, "home-garden")
			leaf, _ := read.CategorySubtree(ctx, "laptops")
			queries := map[string]listings.SearchQuery{
				"text+category":         {Text: "vintage", CategoryIDs: electronics, Limit: 20},
				"text+maxPrice":         {Text: "lamp", MaxPrice: &maxP, Limit: 20},
				"text+condition":        {Text: "camera", Conditions: []string{"good"}, Limit: 20},
				"2words+category":       {Text: "vintage lamp", CategoryIDs: home, Limit: 20},
				"rare+category":         {Text: "figurine", CategoryIDs: home, Limit: 20},
				"desc-only common":      {Text: "walnut", Limit: 20},
				"text+leaf category":    {Text: "vintage", CategoryIDs: leaf, Limit: 20},
				"text newest+category":  {Text: "vintage", CategoryIDs: electronics, Sort: listings.SortNewest, Limit: 20},
				"text price_asc+filter": {Text: "lamp", MaxPrice: &maxP, Sort: listings.SortPriceAsc, Limit: 20},
				"browse category":       {CategoryIDs: electronics, Limit: 20},
				"text+category nototal": {Text: "vintage", CategoryIDs: electronics, Limit: 20, NoTotal: true},
				"text+maxPrice nototal": {Text: "lamp", MaxPrice: &maxP, Limit: 20, NoTotal: true},
				"rare+cat nototal":      {Text: "figurine", CategoryIDs: home, Limit: 20, NoTotal: true},
				"browse price range":    {MinPrice: &maxP, Sort: listings.SortPriceAsc, Limit: 20},
			}
			names := make([]string, 0, len(queries))
			for k := range queries {
				names = append(names, k)
			}
			slices.Sort(names)
			for _, name := range names {
				q := queries[name]
				first, err := read.SearchListings(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				b.Logf("%-22s total %6d", name, first.Total)
				b.Run(name+" hot", func(b *testing.B) {
					for b.Loop() {
						if _, err := read.SearchListings(ctx, q); err != nil {
							b.Fatal(err)
						}
					}
				})
				// Cold: a listing write before each query (not timed) moves
				// the data version, so nothing comes from the cache.
				b.Run(name+" cold", func(b *testing.B) {
					for b.Loop() {
						b.StopTimer()
						bump(b, db, pivot)
						b.StartTimer()
						if _, err := read.SearchListings(ctx, q); err != nil {
							b.Fatal(err)
						}
					}
				})
				if first.Cursor != "" {
					q2 := q
					q2.After = first.Cursor
					b.Run(name+" page2 cold", func(b *testing.B) {
						for b.Loop() {
							b.StopTimer()
							bump(b, db, pivot)
							b.StartTimer()
							if _, err := read.SearchListings(ctx, q2); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
			// 20 concurrent clients for a fixed time over a mix of text+filter
			// queries, repeated (hot) or each one distinct (cold).
			for _, cold := range []bool{false, true} {
				b.Run(fmt.Sprintf("parallel20 cold=%t", cold), func(b *testing.B) {
					mix := []listings.SearchQuery{queries["text+category"], queries["text+maxPrice"], queries["text+condition"],
						queries["2words+category"], queries["rare+category"]}
					var mu sync.Mutex
					var seq atomic.Int64
					var lat []time.Duration
					deadline := time.Now().Add(5 * time.Second)
					var wg sync.WaitGroup
					for c := range 20 {
						wg.Add(1)
						go func() {
							defer wg.Done()
							var mine []time.Duration
							for i := c; time.Now().Before(deadline); i++ {
								t := time.Now()
								q := mix[i%len(mix)]
								if cold {
									// Varied traffic: one or two random words and
									// one of the filters; few repeats in 5 s.
									n := seq.Add(1)
									rng := rand.New(rand.NewPCG(uint64(n), 3))
									q = mix[rng.IntN(len(mix))]
									q.Text = benchAdjectives[rng.IntN(len(benchAdjectives))]
									if rng.IntN(2) == 0 {
										q.Text += " " + strings.ReplaceAll(benchNouns[rng.IntN(len(benchNouns))], "-", " ")
									}
								}
								if _, err := read.SearchListings(ctx, q); err != nil {
									b.Error(err)
									return
								}
								mine = append(mine, time.Since(t))
							}
							mu.Lock()
							lat = append(lat, mine...)
							mu.Unlock()
						}()
					}
					wg.Wait()
					slices.Sort(lat)
					p := func(q float64) time.Duration { return lat[int(float64(len(lat)-1)*q)] }
					b.Logf("%s parallel20 cold=%t: %d queries in 5s = %.0f/s, p50 %s p99 %s max %s", e.Name, cold, len(lat),
						float64(len(lat))/5, p(0.5), p(0.99), lat[len(lat)-1])
				})
			}
		})
	}
}

// bump changes a listing's price, which moves the search data version.
func bump(b *testing.B, db *store.DB, l *listings.Listing) {
	l.Price++
	if err := db.InTx(context.Background(), func(tx *store.Tx) error { return tx.UpdateListing(context.Background(), l) }); err != nil {
		b.Fatal(err)
	}
}

// sellerOf is any seller with listings.
func sellerOf(b *testing.B, db *store.DB) string {
	page, err := db.Read().SearchListings(context.Background(), listings.SearchQuery{Limit: 1})
	if err != nil || len(page.Listings) == 0 {
		b.Fatal("no listings", err)
	}
	return page.Listings[0].SellerID
}

var (
	benchAdjectives = strings.Fields(`vintage modern antique classic rustic compact portable wireless digital leather wooden
		ceramic glass metal brass silver golden black white red blue green small large mini deluxe premium retro industrial
		handmade organic soft heavy light durable foldable electric manual professional`)
	benchNouns = strings.Fields(`lamp chair table camera lens phone laptop tablet monitor keyboard mouse speaker headphones
		watch ring necklace bracelet jacket coat dress shirt jeans boots sneakers bag backpack wallet sofa desk shelf
		bookcase mirror rug vase kettle toaster blender mixer pan pot knife guitar piano drum violin bicycle helmet tent
		sleeping-bag stroller crib toy puzzle doll book vinyl record poster painting print frame clock radio television
		console controller game drone projector printer scanner router charger cable battery drill saw hammer wrench
		mower grill planter hose candle blanket pillow towel quilt teapot mug plate bowl glassware sculpture figurine
		coin stamp card comic perfume lipstick razor dryer`)
	benchBrands = strings.Fields(`Sony Canon Nikon Apple Samsung Ikea Bosch Philips Dyson Fender Yamaha Gibson Lego Nike
		Adidas Levis Rolex Omega Seiko Casio Panasonic LG Dell HP Lenovo Asus Acer Logitech Bose JBL Makita DeWalt Weber
		KitchenAid Cuisinart Pyrex LeCreuset Hasbro Mattel`)
	benchWords = strings.Fields(`good great excellent condition works perfectly used gently barely original box included
		comes with all parts tested clean smoke free home pet minor scratches wear some signs of normal age fully functional
		battery holds charge ships fast from seller local pickup available price firm open to offers bundle discount
		walnut oak maple pine cherry steel aluminum cotton wool silk linen velvet suede canvas nylon plastic rubber
		bought last year rarely moving sale must go gift unwanted never opened sealed new tags retail paid`)
)

// fill adds n active listings with generated titles, brands and
// descriptions in random categories, conditions and prices.
func fill(b *testing.B, db *store.DB, n int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	var sellers []string
	err := db.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.SeedCategories(ctx, listings.DefaultTaxonomy().All(), t0); err != nil {
			return err
		}
		for i := range 200 {
			u := &accounts.User{ID: market.NewID(), Email: fmt.Sprintf("s%d@example.com", i), Username: fmt.Sprintf("s%d", i),
				Role: accounts.RoleUser, Status: accounts.StatusActive, TrustTier: accounts.TierNew, CreatedAt: t0, UpdatedAt: t0}
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
			sellers = append(sellers, u.ID)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	var leaves []string
	for _, c := range listings.DefaultTaxonomy().All() {
		leaves = append(leaves, c.ID)
	}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	for done := 0; done < n; {
		err := db.InTx(ctx, func(tx *store.Tx) error {
			for i := 0; i < 1000 && done < n; i++ {
				at := t0.Add(time.Duration(done) * time.Second)
				l := newListing(pick(sellers), at, int64(100+rng.IntN(200_000)))
				noun := strings.ReplaceAll(pick(benchNouns), "-", " ")
				l.Title = pick(benchAdjectives) + " " + pick(benchBrands) + " " + noun
				if rng.IntN(2) == 0 {
					l.Title = pick(benchAdjectives) + " " + l.Title
				}
				l.Brand = strings.Fields(l.Title)[len(strings.Fields(l.Title))-2]
				var d []string
				for range 20 + rng.IntN(30) {
					d = append(d, pick(benchWords))
				}
				d = append(d, noun, pick(benchNouns))
				l.Description = strings.Join(d, " ")
				l.CategoryID = pick(leaves)
				l.Condition = listings.AllConditions[rng.IntN(len(listings.AllConditions))]
				if err := tx.CreateListing(ctx, l); err != nil {
					return err
				}
				done++
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
