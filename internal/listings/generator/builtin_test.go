package generator

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"marketplace/internal/listings"
	"marketplace/internal/market"
)

func generate(t *testing.T, b listings.Brief) listings.Draft {
	t.Helper()
	d, err := NewBuiltin(nil, nil).Generate(context.Background(), b)
	if err != nil {
		t.Fatalf("Generate(%q): %v", b.Description, err)
	}
	return d
}

func TestBuiltinTitles(t *testing.T) {
	cases := []struct{ brief, want string }{
		// Brand first, product lines spelled, capacity and colour kept, the
		// flaw left to the description.
		{"iphone 12 64gb blue, small crack on back", "Apple iPhone 12 64GB Blue"},
		{"womens north face puffer jacket size M black", "The North Face Women's Puffer Jacket Size M Black"},
		{"levi's 501 jeans 32x30 dark wash", "Levi's 501 Jeans 32x30 Dark Wash"},
		{"lego star wars millennium falcon 75192 complete with box", "LEGO Star Wars Millennium Falcon 75192 Complete with Box"},
		{"sony wh-1000xm4 noise cancelling headphones black with case", "Sony WH-1000XM4 Noise Cancelling Headphones Black with Case"},
		{"gaming pc ryzen 5 5600x rtx 3060 16gb ram 1tb nvme, rgb case", "Gaming PC Ryzen 5 5600X RTX 3060 16GB RAM 1TB NVMe"},
		{"le creuset 5.5 qt dutch oven cerise red", "Le Creuset 5.5 qt Dutch Oven Cerise Red"},
		{"canon eos rebel t7 dslr with 18-55mm kit lens, 2 batteries", "Canon EOS Rebel T7 DSLR with 18-55mm Kit Lens"},
		{"pioneer ddj-400 dj controller", "Pioneer DDJ-400 DJ Controller"},
		{"wusthof classic 8 inch chef knife", "Wüsthof Classic 8 Inch Chef Knife"},
		{"Wüsthof classic chef knife", "Wüsthof Classic Chef Knife"},
		// A compatible device is not the brand; a product line brings its
		// maker.
		{"otterbox defender case for iphone 13 pro max, black", "OtterBox Defender Case for iPhone 13 Pro Max Black"},
		{"PS5 disc edition console with 2 controllers", "Sony PS5 Disc Edition Console with 2 Controllers"},
		// Quantities and years stay in front of the brand.
		{"set of 4 michelin defender tires 225/65r17, 7/32 tread", "Set of 4 Michelin Defender Tires 225/65R17"},
		{"set of 8 crate and barrel wine glasses", "Set of 8 Crate & Barrel Wine Glasses"},
		{"2003 lebron james topps rookie card", "2003 Topps Lebron James Rookie Card"},
		// Condition words, filler and stories are left out.
		{"free people maxi dress floral size S nwt", "Free People Maxi Dress Floral Size S"},
		{"ninja air fryer 4 qt, barely used", "Ninja Air Fryer 4 qt"},
		{"Selling my old iPhone XR 128gb red. Battery health 82%, works fine", "Apple iPhone XR 128GB Red"},
		{"no scratches, never dropped iphone 13 mini 128gb pink", "Apple iPhone 13 Mini 128GB Pink"},
		{"This is a really nice mid century teak dresser that I got from my grandmother", "Mid Century Teak Dresser"},
		// Attributes from other clauses; capitals only when they mean it.
		{"nintendo switch oled, white", "Nintendo Switch OLED White"},
		{"patagonia fleece, size L", "Patagonia Fleece Size L"},
		{"LOT OF 3 JCREW SWEATERS WOMENS XS", "Lot of 3 J.Crew Sweaters Women's XS"},
	}
	for _, tc := range cases {
		if got := generate(t, listings.Brief{Description: tc.brief}).Title; got != tc.want {
			t.Errorf("title of %q\n got  %q\n want %q", tc.brief, got, tc.want)
		}
	}
}

func TestBuiltinTitleIsBounded(t *testing.T) {
	long := "selling my barely used vintage 1970s mid century modern solid walnut credenza sideboard buffet cabinet " +
		"with four sliding doors and adjustable shelves and original brass hardware and tapered legs"
	title := generate(t, listings.Brief{Description: long}).Title
	if n := utf8.RuneCountInString(title); n > listings.MaxTitleLen || n < 20 {
		t.Fatalf("title %q has %d runes", title, n)
	}
	last := strings.ToLower(title[strings.LastIndex(title, " ")+1:])
	if listings.IsTitleSmallWord(last) {
		t.Errorf("title %q ends on %q", title, last)
	}
	if !strings.HasPrefix(title, "Vintage 1970s Mid Century") {
		t.Errorf("title %q keeps the filler and condition words", title)
	}
	// Nothing to work with: the category name, never an empty title.
	if got := generate(t, listings.Brief{Description: "!!!"}).Title; got != "Everything Else" {
		t.Errorf("title of punctuation = %q", got)
	}
}

func TestBuiltinConditions(t *testing.T) {
	cases := []struct{ brief, want string }{
		{"free people maxi dress size S nwt", "new_with_tags"},
		{"lego technic 42083 sealed", "new_with_tags"},
		{"anker charger new in box", "new_with_tags"},
		{"unopened yankee candle", "new_with_tags"},
		{"nwot j crew sweater", "new_without_tags"},
		{"brand new ninja blender, never used", "new_without_tags"},
		{"brand new sealed switch game", "new_with_tags"}, // tags beat no tags within "new"
		{"titleist pro v1 golf balls, new", "new_without_tags"},
		{"zara blouse worn once", "like_new"},
		{"barely used air fryer", "like_new"},
		{"sony lens, mint", "like_new"},
		{"mint green kitchenaid mixer", "good"}, // a colour, not a grade
		{"gently used stroller", "good"},
		{"iphone 12, minor scratches", "good"},
		{"iphone 12 with scratches on the back", "fair"},
		{"6 drawer dresser, some scratches on top", "fair"},
		{"like new but small crack on back", "fair"}, // the flaw outweighs the praise
		{"queen mattress, no stains", "good"},        // negated
		{"scratch free screen", "good"},
		{"no scratches, never dropped", "good"},
		{"macbook for parts", "poor"},
		{"xbox not working", "poor"},
		{"laptop won't turn on", "poor"},
		{"tiffany style lamp stained glass", "good"},
		{"lamy fountain pen fine nib", "good"}, // a nib, not "new in box"
		{"iphone 12 64gb blue", "good"},        // nothing said
	}
	for _, tc := range cases {
		if got := generate(t, listings.Brief{Description: tc.brief}).Condition; got != tc.want {
			t.Errorf("condition of %q = %s, want %s", tc.brief, got, tc.want)
		}
	}
}

func TestBuiltinBrands(t *testing.T) {
	cases := []struct{ brief, want string }{
		{"iphone 12 64gb", "Apple"},
		{"womens north face puffer jacket", "The North Face"},
		{"levis 501 jeans", "Levi's"},
		{"le creuset dutch oven", "Le Creuset"},
		{"hugo boss navy suit", "Hugo Boss"}, // not Boss, the pedal maker
		{"dyson supersonic hair dryer", "Dyson"},
		{"xbox series x wireless controller", "Microsoft"},
		{"otterbox case for iphone 13", "OtterBox"},
		{"case for iphone 13", ""},               // the phone it fits is not its brand
		{"alternator for 2012 toyota camry", ""}, // nor the car
		{"tiffany style table lamp", ""},         // a style, not the jeweller
		{"gaming pc ryzen 5 rtx 3060", ""},       // a part's maker is not the PC's
		{"mid century walnut coffee table", ""},
	}
	for _, tc := range cases {
		if got := generate(t, listings.Brief{Description: tc.brief}).Brand; got != tc.want {
			t.Errorf("brand of %q = %q, want %q", tc.brief, got, tc.want)
		}
	}
}

func TestBuiltinCategories(t *testing.T) {
	cases := []struct{ brief, want string }{
		{"iphone 12 64gb blue", "smartphones"},
		{"otterbox case for iphone 13", "phone-accessories"}, // what it is, not what it fits
		{"levis 501 jeans", "jeans"},
		{"le creuset dutch oven", "cookware"},
		{"lego star wars millennium falcon", "building-toys"},
		{"boys winter coat size 5t", "kids-clothing"}, // children's sizes move clothing
		{"baby girl clothes lot 0-3 months", "baby-clothing"},
		{"tom ford oud wood 50ml", "fragrance"}, // "ford" inside a brand is not the car
		{"bike", "cycling"},                     // no evidence for a leaf: the parent
		{"guitar", "guitars-basses"},
		{"qwzx plmk", listings.FallbackSlug},
	}
	for _, tc := range cases {
		if got := generate(t, listings.Brief{Description: tc.brief}).CategorySlug; got != tc.want {
			t.Errorf("category of %q = %s, want %s", tc.brief, got, tc.want)
		}
	}
}

func TestBuiltinDraft(t *testing.T) {
	d := generate(t, listings.Brief{Description: "samsung 55 inch 4k smart tv UN55TU7000, remote included, no stand, scratched bezel"})
	if d.Generator != "builtin" || d.CategorySlug != "televisions" || d.Condition != "fair" || d.Brand != "Samsung" {
		t.Fatalf("draft = %+v", d)
	}
	// Weight and size are the category's defaults.
	tv := mustSlug(t, listings.DefaultTaxonomy(), "televisions")
	if d.WeightOz != tv.DefaultWeightOz || d.Dimensions != tv.DefaultDims {
		t.Errorf("weight %d, dims %+v; want the category's %d, %+v", d.WeightOz, d.Dimensions, tv.DefaultWeightOz, tv.DefaultDims)
	}
	// No seller price: the prior of televisions, scaled for "fair".
	if d.PriceSource != "ai" || d.Price != listings.NicePrice(listings.ScaleCents(tv.PriorPrice, 75)) {
		t.Errorf("price %d from %s", d.Price, d.PriceSource)
	}
	paras := strings.Split(d.Description, "\n\n")
	if len(paras) != 4 {
		t.Fatalf("description has %d paragraphs, want 4:\n%s", len(paras), d.Description)
	}
	wants := []string{
		"Samsung 55 inch 4K smart TV UN55TU7000. No stand. Brand: Samsung. Category: Electronics > TV & Home Theater > Televisions.",
		"Condition: fair. Used, with noticeable wear or flaws. Seller's notes: Scratched bezel.",
		"Included: remote.",
		"Shipping: the package is estimated at 30 lb and 50 x 32 x 8 in, typical for televisions; the final cost depends on the shipping option chosen.",
	}
	for i, want := range wants {
		if paras[i] != want {
			t.Errorf("paragraph %d\n got  %q\n want %q", i+1, paras[i], want)
		}
	}
}

// The description says only what the brief, the grade and the category
// defaults say: no brand, inclusions or flaws the seller did not give.
func TestBuiltinDescriptionInventsNothing(t *testing.T) {
	d := generate(t, listings.Brief{Description: "mid century walnut coffee table"})
	want := "Mid century walnut coffee table. Category: Home & Garden > Furniture > Tables & Desks.\n\n" +
		"Condition: good. Previously used, with normal signs of wear.\n\n" +
		"Included: the item itself; the seller lists no accessories.\n\n" +
		"Shipping: the package is estimated at 50 lb and 48 x 30 x 30 in, typical for tables & desks; the final cost depends on the shipping option chosen."
	if d.Description != want {
		t.Errorf("description\n got  %q\n want %q", d.Description, want)
	}
	d = generate(t, listings.Brief{Description: "nintendo switch oled white, comes with dock and joycons"})
	if !strings.Contains(d.Description, "\n\nIncluded: dock and joycons.\n\n") {
		t.Errorf("inclusions missing:\n%s", d.Description)
	}
	if strings.Contains(d.Description, "Comes with") {
		t.Errorf("the inclusion clause is repeated in the first paragraph:\n%s", d.Description)
	}
	for _, cond := range listings.AllConditions {
		if conditionWording[cond] == "" {
			t.Errorf("no wording for condition %s", cond)
		}
	}
}

func TestBuiltinKeepsSellerFields(t *testing.T) {
	price := int64(12345)
	cases := []struct {
		name  string
		brief listings.Brief
		check func(t *testing.T, d listings.Draft)
	}{
		{"price", listings.Brief{Description: "iphone 12 64gb", Price: &price}, func(t *testing.T, d listings.Draft) {
			if d.Price != 12345 || d.PriceSource != "seller" {
				t.Errorf("price %d from %s, want 12345 from seller", d.Price, d.PriceSource)
			}
		}},
		{"zero price is the seller's", listings.Brief{Description: "iphone 12 64gb", Price: new(int64)}, func(t *testing.T, d listings.Draft) {
			if d.Price != 0 || d.PriceSource != "seller" {
				t.Errorf("price %d from %s", d.Price, d.PriceSource)
			}
		}},
		{"condition", listings.Brief{Description: "iphone 12 for parts", Condition: "like_new"}, func(t *testing.T, d listings.Draft) {
			if d.Condition != "like_new" {
				t.Errorf("condition %s, want the seller's like_new", d.Condition)
			}
			if d.Price != listings.NicePrice(listings.ScaleCents(25000, 110)) {
				t.Errorf("price %d does not follow the seller's condition", d.Price)
			}
		}},
		{"category by slug", listings.Brief{Description: "iphone 12 64gb", Category: "phone-accessories"}, func(t *testing.T, d listings.Draft) {
			if d.CategorySlug != "phone-accessories" || d.WeightOz != 4 {
				t.Errorf("category %s, weight %d", d.CategorySlug, d.WeightOz)
			}
		}},
		{"category by id", listings.Brief{Description: "iphone 12 64gb", Category: listings.CategoryID("tablets")}, func(t *testing.T, d listings.Draft) {
			if d.CategorySlug != "tablets" {
				t.Errorf("category %s, want tablets", d.CategorySlug)
			}
		}},
		{"unknown category is classified", listings.Brief{Description: "iphone 12 64gb", Category: "no-such-slug"}, func(t *testing.T, d listings.Draft) {
			if d.CategorySlug != "smartphones" {
				t.Errorf("category %s, want smartphones", d.CategorySlug)
			}
		}},
		{"unknown condition is inferred", listings.Brief{Description: "iphone 12 64gb, cracked", Condition: "mint-ish"}, func(t *testing.T, d listings.Draft) {
			if d.Condition != "fair" {
				t.Errorf("condition %s, want fair", d.Condition)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, generate(t, tc.brief)) })
	}
}

func TestBuiltinPricesFromComparables(t *testing.T) {
	comps := &fakeComps{byCond: map[string][2][]int64{"fair": {{20000, 22000, 30000}, nil}}}
	d, err := NewBuiltin(nil, comps).Generate(context.Background(), listings.Brief{Description: "iphone 12 64gb, small crack"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Price != 22000 || d.PriceSource != "ai" {
		t.Errorf("price %d from %s, want 22000 from ai", d.Price, d.PriceSource)
	}
	if !reflect.DeepEqual(comps.calls, []string{"smartphones/fair"}) {
		t.Errorf("look-ups %v", comps.calls)
	}
	boom := errors.New("down")
	_, err = NewBuiltin(nil, &fakeComps{err: map[string]error{"good": boom}}).Generate(context.Background(), listings.Brief{Description: "iphone 12"})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the comparables error", err)
	}
}

func TestBuiltinRefusesBadInput(t *testing.T) {
	g := NewBuiltin(nil, nil)
	_, err := g.Generate(context.Background(), listings.Brief{Description: "  "})
	if market.CodeOf(err) != market.CodeValidation {
		t.Errorf("empty brief: err = %v, want a validation error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Generate(ctx, listings.Brief{Description: "iphone"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
}

// The same brief gives the same draft, from any generator value and any
// goroutine.
func TestBuiltinIsDeterministic(t *testing.T) {
	briefs := []string{
		"iphone 12 64gb blue, small crack on back",
		"womens north face puffer jacket size M black",
		"set of 4 michelin defender tires 225/65r17, 7/32 tread",
		"signed derek jeter baseball with coa",
		"mario kart 8 deluxe nintendo switch",
	}
	want := make([]listings.Draft, len(briefs))
	for i, b := range briefs {
		want[i] = generate(t, listings.Brief{Description: b})
	}
	g := NewBuiltin(nil, nil)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, b := range briefs {
				d, err := g.Generate(context.Background(), listings.Brief{Description: b})
				if err != nil || !reflect.DeepEqual(d, want[i]) {
					errs <- b
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for b := range errs {
		t.Errorf("a different draft for %q", b)
	}
}

// The cue tables name only categories of the seed taxonomy and valid
// conditions, in the form the matcher reads.
func TestCueTablesAreValid(t *testing.T) {
	tax := listings.DefaultTaxonomy()
	lowerTrimmed := func(s string) bool { return s != "" && s == strings.ToLower(strings.TrimSpace(s)) }
	for _, b := range brandCues {
		if strings.TrimSpace(b.brand) == "" {
			t.Errorf("brand cue %+v has no name", b)
		}
		for _, s := range strings.Fields(b.slugs) {
			if _, ok := tax.BySlug(s); !ok {
				t.Errorf("brand %s: no category %q", b.brand, s)
			}
		}
		for _, p := range strings.Split(b.patterns, "|") {
			if !lowerTrimmed(p) || len(phraseStems(p)) == 0 {
				t.Errorf("brand %s: bad pattern %q", b.brand, p)
			}
		}
	}
	for _, m := range materialCues {
		for _, s := range strings.Fields(m.slugs) {
			if _, ok := tax.BySlug(s); !ok {
				t.Errorf("material cue: no category %q", s)
			}
		}
	}
	for _, c := range conditionCues {
		if c.condition != "" && !listings.ValidCondition(c.condition) {
			t.Errorf("condition cue names %q", c.condition)
		}
		for _, p := range strings.Split(c.patterns, "|") {
			if !lowerTrimmed(p) || len(phraseStems(p)) == 0 {
				t.Errorf("condition %s: bad pattern %q", c.condition, p)
			}
		}
	}
	for _, a := range audienceCues {
		for _, s := range []string{a.within, a.target} {
			if _, ok := tax.BySlug(s); !ok {
				t.Errorf("audience cue: no category %q", s)
			}
		}
	}
	for k := range wordCasing {
		if k != strings.ToLower(k) {
			t.Errorf("word casing key %q is not lower case", k)
		}
	}
}

func TestReadingBriefs(t *testing.T) {
	stems := []struct{ in, want string }{
		{"boots", "boot"}, {"boot", "boot"}, {"watches", "watch"}, {"dresses", "dress"}, {"dress", "dress"},
		{"batteries", "battery"}, {"ties", "tie"}, {"glasses", "glass"}, {"lenses", "lens"}, {"lens", "lens"},
		{"knives", "knife"}, {"boxes", "box"}, {"gas", "gas"}, {"ps5", "ps5"}, {"jeans", "jean"},
	}
	for _, tc := range stems {
		if got := stem(tc.in); got != tc.want {
			t.Errorf("stem(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	clauses := []struct {
		in   string
		want []string
	}{
		{"iphone 12, small crack. works (no box)", []string{"iphone 12", "small crack", "works", "no box"}},
		{"size 10.5 - barely worn", []string{"size 10.5", "barely worn"}},
		{"dr. martens 1,000 miles; t-shirt", []string{"dr  martens 1,000 miles", "t-shirt"}},
		{"j.crew shirt", []string{"j.crew shirt"}},
	}
	for _, tc := range clauses {
		if got := splitClauses(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitClauses(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	tokens := []struct {
		in   string
		want []string
	}{
		{"levi's", []string{"levis"}},
		{"wh-1000xm4", []string{"wh", "1000xm4"}},
		{"225/65r17", []string{"225/65r17"}},
		{"10.5", []string{"10.5"}},
		{"&", []string{"and"}},
		{"w/", []string{"with"}},
		{"50ml", []string{"50", "ml"}}, // number and unit apart for matching
		{"ps5", []string{"ps5"}},
	}
	for _, tc := range tokens {
		if got := matchTokens(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("matchTokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
