// Package seed fills a store with realistic synthetic sellers and listings,
// for benchmarks and demos. The same options give the same data.
package seed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/store"
)

// Options say how much to make.
type Options struct {
	Listings    int    // how many listings
	Sellers     int    // spread over this many sellers; 0: one per 500 listings, at least 5
	SoldPercent int    // share of listings made sold (for price checks); the rest are active
	Seed        uint64 // random seed of the listings
}

// Result is what was made.
type Result struct {
	Sellers  int
	Listings int
	Sold     int
}

// batch is how many listings are made and inserted at a time (a
// transaction on SQLite; one statement of the single transaction on
// PostgreSQL, see store.BulkLoadListings).
const batch = 1000

// Run inserts the sellers and listings through the store's bulk path,
// reporting progress after each batch. On PostgreSQL the listings commit
// together at the end: a failed run leaves none of them.
func Run(ctx context.Context, db *store.DB, now time.Time, opts Options, progress func(done int)) (Result, error) {
	if opts.Listings < 0 || opts.SoldPercent < 0 || opts.SoldPercent > 100 {
		return Result{}, fmt.Errorf("seed: bad options %+v", opts)
	}
	if opts.Sellers <= 0 {
		opts.Sellers = max(5, opts.Listings/500)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	tax := listings.DefaultTaxonomy()
	var leaves []listings.Category
	for _, c := range tax.All() {
		if tax.IsLeaf(c.Slug) {
			leaves = append(leaves, c)
		}
	}
	run := rand.Uint64() // not from rng: keeps emails and usernames unique across runs
	sellers := make([]string, opts.Sellers)
	err := db.InTx(ctx, func(tx *store.Tx) error {
		// Listings point at categories; a store seeded before its first
		// start has none yet.
		if err := tx.SeedCategories(ctx, tax.All(), now); err != nil {
			return err
		}
		for i := range sellers {
			name := fmt.Sprintf("seed%x%d", run&0xffffff, i)
			u := &accounts.User{ID: market.NewID(), Email: name + "@seed.example", Username: name,
				DisplayName: sellerNames[i%len(sellerNames)], Role: accounts.RoleUser, Status: accounts.StatusActive,
				TrustTier: accounts.TierVerified, IdentityVerified: true, CreatedAt: now, UpdatedAt: now}
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
			sellers[i] = u.ID
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	res := Result{Sellers: len(sellers)}
	err = db.BulkLoadListings(ctx, opts.Listings, func(insert func([]*listings.Listing) error) error {
		ls := make([]*listings.Listing, 0, batch)
		for done := 0; done < opts.Listings; {
			ls = ls[:0]
			for i := range min(batch, opts.Listings-done) {
				l := synth(rng, tax, leaves, sellers, now, done+i, opts.SoldPercent)
				if l.Status == listings.StatusSold {
					res.Sold++
				}
				ls = append(ls, l)
			}
			if err := insert(ls); err != nil {
				return err
			}
			done += len(ls)
			res.Listings = done
			if progress != nil {
				progress(done)
			}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	return res, db.Analyze(ctx)
}

// synth makes one listing in a random leaf category.
func synth(rng *rand.Rand, tax *listings.Taxonomy, leaves []listings.Category, sellers []string, now time.Time, i, soldPercent int) *listings.Listing {
	c := leaves[rng.IntN(len(leaves))]
	noun := c.Name
	if len(c.Keywords) > 0 {
		noun = c.Keywords[rng.IntN(len(c.Keywords))]
	}
	top, _ := tax.TopLevel(c.Slug)
	brand := ""
	if bs := brandsByTop[top.Slug]; len(bs) > 0 && rng.IntN(3) > 0 {
		brand = bs[rng.IntN(len(bs))]
	}
	adj := adjectives[rng.IntN(len(adjectives))]
	color := colors[rng.IntN(len(colors))]
	title := strings.TrimSpace(strings.Join([]string{brand, adj, color, titleCase(noun)}, " "))
	title = strings.Join(strings.Fields(title), " ")
	condition := listings.AllConditions[rng.IntN(len(listings.AllConditions))]
	desc := fmt.Sprintf("%s %s in %s condition. %s %s",
		article(adj), strings.ToLower(adj+" "+color+" "+noun), strings.ReplaceAll(condition, "_", " "),
		details[rng.IntN(len(details))], details[rng.IntN(len(details))])
	if brand != "" {
		desc = "By " + brand + ". " + desc
	}
	prior := tax.Prior(c.Slug)
	price := prior * listings.ConditionPercent(condition) / 100 * int64(50+rng.IntN(101)) / 100
	price = max(199, price/100*100+99) // x.99 prices, as sellers write them
	weight, dims, _ := tax.Defaults(c.Slug)
	created := now.Add(-time.Duration(rng.Int64N(int64(90 * 24 * time.Hour)))).Truncate(time.Millisecond)
	l := &listings.Listing{ID: market.NewID(), SellerID: sellers[i%len(sellers)], Status: listings.StatusActive,
		Title: title, Description: desc, Brief: desc, Brand: brand, Price: price, PriceSource: "seller",
		Condition: condition, CategoryID: c.ID, ShippingType: listings.ShipFree, AcceptOffers: rng.IntN(4) > 0,
		WeightOz: max(weight, 1), Dimensions: dims, PhotoIDs: []string{}, Generator: "seed", CreatedAt: created,
		UpdatedAt: created}
	if rng.IntN(3) == 0 {
		ship := int64(499 + 100*rng.IntN(10))
		l.ShippingType, l.ShippingCost = listings.ShipFlatRate, &ship
	}
	if rng.IntN(100) < soldPercent {
		sold := created.Add(time.Duration(rng.Int64N(int64(now.Sub(created)) + 1)))
		l.Status, l.SoldAt = listings.StatusSold, &sold
	}
	return l
}

func article(word string) string {
	if strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "An"
	}
	return "A"
}

func titleCase(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

var (
	sellerNames = []string{"Ada's Attic", "Second Spin", "Bolt & Barrel", "Maple Street Finds", "Retro Rewind",
		"The Gear Loft", "Thrifty Owl", "Harbor Vintage", "Pixel Pawn", "Juniper Resale"}
	adjectives = []string{"Vintage", "Classic", "Compact", "Large", "Small", "Handmade", "Modern", "Rare", "Sturdy",
		"Lightweight", "Portable", "Deluxe", "Original", "Antique", "Retro", "Premium", "Everyday", "Mini"}
	colors = []string{"black", "white", "red", "blue", "green", "grey", "brown", "silver", "gold", "navy", "olive",
		"cream", "pink", "orange", "teal"}
	details = []string{"Smoke-free home.", "Ships within two days.", "Light signs of use.", "All original parts.",
		"Tested and working.", "Comes from a collection.", "Minor scuff on one side.", "Barely used.",
		"Cleaned and ready to use.", "Measurements in photos.", "No box.", "Original box included."}
	brandsByTop = map[string][]string{
		"electronics":         {"Sony", "Samsung", "Apple", "Nintendo", "Bose", "Canon", "Nikon", "Dell", "Lenovo"},
		"clothing-shoes":      {"Levi's", "Patagonia", "Nike", "Adidas", "Carhartt", "Ralph Lauren", "Dr. Martens"},
		"home-garden":         {"Pyrex", "KitchenAid", "Le Creuset", "Dyson", "IKEA", "Lodge", "Cuisinart"},
		"toys-games":          {"LEGO", "Hasbro", "Mattel", "Fisher-Price", "Hot Wheels", "Playmobil"},
		"sports-outdoors":     {"Coleman", "Yeti", "Wilson", "Callaway", "Shimano", "Trek", "The North Face"},
		"collectibles-art":    {"Hummel", "Royal Doulton", "Topps", "Funko"},
		"books-movies-music":  {"Penguin", "Criterion", "Blue Note", "Folio Society"},
		"jewelry-watches":     {"Seiko", "Casio", "Timex", "Pandora", "Fossil", "Swatch"},
		"musical-instruments": {"Fender", "Yamaha", "Gibson", "Roland", "Korg", "Martin"},
		"baby-kids":           {"Graco", "Chicco", "UPPAbaby", "Melissa & Doug"},
		"office":              {"Herman Miller", "Steelcase", "Moleskine", "Brother"},
	}
)
