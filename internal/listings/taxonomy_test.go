package listings

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
)

func TestDefaultTaxonomyIsComplete(t *testing.T) {
	tax := DefaultTaxonomy()
	if tax.Len() < 120 {
		t.Fatalf("taxonomy has %d categories, want at least 120", tax.Len())
	}
	roots := tax.Roots()
	if len(roots) < 12 {
		t.Errorf("taxonomy has %d top-level categories, want at least 12", len(roots))
	}
	deepest := 0
	for _, c := range tax.All() {
		deepest = max(deepest, c.Depth)
		if c.DefaultWeightOz <= 0 || c.DefaultDims.L <= 0 || c.DefaultDims.W <= 0 || c.DefaultDims.H <= 0 {
			t.Errorf("%s: default weight %d oz, dims %+v: every seed category needs its own", c.Slug, c.DefaultWeightOz, c.DefaultDims)
		}
		if c.PriorPrice < 100 {
			t.Errorf("%s: prior price %d cents is not a sane used price", c.Slug, c.PriorPrice)
		}
		if len(c.Keywords) == 0 && c.Slug != FallbackSlug {
			t.Errorf("%s has no keywords", c.Slug)
		}
		if got := strings.Count(c.Path, " > "); got != c.Depth {
			t.Errorf("%s: path %q does not match depth %d", c.Slug, c.Path, c.Depth)
		}
		if c.Depth > 0 && !strings.HasPrefix(c.Path, mustSlug(t, tax, c.ParentSlug).Path+" > ") {
			t.Errorf("%s: path %q does not extend its parent's", c.Slug, c.Path)
		}
	}
	if deepest != 2 {
		t.Errorf("deepest category is at depth %d, want a tree 3 levels deep", deepest)
	}
	for _, r := range roots {
		if r.Slug != FallbackSlug && len(tax.Children(r.Slug)) == 0 {
			t.Errorf("top-level %s has no sub-categories", r.Slug)
		}
	}
	if _, ok := tax.BySlug(FallbackSlug); !ok {
		t.Errorf("the fallback category %q is missing", FallbackSlug)
	}
}

func mustSlug(t *testing.T, tax *Taxonomy, slug string) Category {
	t.Helper()
	c, ok := tax.BySlug(slug)
	if !ok {
		t.Fatalf("no category %q", slug)
	}
	return c
}

// Category ids are UUIDv5 of the slug in a fixed namespace: the same on
// every engine and every run, so restrictions stored by id stay valid.
func TestCategoryIDsAreStable(t *testing.T) {
	golden := map[string]string{
		"electronics": "4a1cfb5a-7df9-55b8-81bc-ad88598b051b",
		"smartphones": "ff4dc335-4d68-50c7-b5c6-691f82bc995a",
	}
	tax := DefaultTaxonomy()
	for slug, id := range golden {
		if got := CategoryID(slug); got != id {
			t.Errorf("CategoryID(%q) = %s, want %s", slug, got, id)
		}
		if c := mustSlug(t, tax, slug); c.ID != id {
			t.Errorf("%s has id %s, want %s", slug, c.ID, id)
		}
	}
	ids := map[string]bool{}
	for _, c := range tax.All() {
		u, err := uuid.Parse(c.ID)
		if err != nil || u.Version() != 5 {
			t.Errorf("%s: id %q is not a UUIDv5", c.Slug, c.ID)
		}
		if ids[c.ID] {
			t.Errorf("%s: id %s repeated", c.Slug, c.ID)
		}
		ids[c.ID] = true
		if got, ok := tax.ByID(c.ID); !ok || got.Slug != c.Slug {
			t.Errorf("ByID(%s) = %q, %v", c.ID, got.Slug, ok)
		}
		if c.ParentSlug != "" && c.ParentID != CategoryID(c.ParentSlug) {
			t.Errorf("%s: parent id %s, want %s", c.Slug, c.ParentID, CategoryID(c.ParentSlug))
		}
	}
	// A second parse of the same table gives the same ids.
	again, err := ParseTaxonomy(taxonomyJSON)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.All(), tax.All()) {
		t.Error("parsing the table twice gave different trees")
	}
}

func validCats() []Category {
	dims := Dimensions{L: 10, W: 8, H: 4}
	return []Category{
		{Slug: "home", Name: "Home", DefaultWeightOz: 32, DefaultDims: dims, PriorPrice: 3000, Keywords: []string{"home"}},
		{Slug: "kitchen", Name: "Kitchen", ParentSlug: "home", Keywords: []string{"kitchen"}},
		{Slug: "pans", Name: "Pans", ParentSlug: "kitchen", DefaultWeightOz: 48, PriorPrice: 4000, Keywords: []string{"pan", "cast iron"}},
		{Slug: "toys", Name: "Toys", DefaultWeightOz: 16, DefaultDims: Dimensions{L: 12, W: 10, H: 6}, Keywords: []string{"toy"}},
	}
}

func TestNewTaxonomyRejectsBadTables(t *testing.T) {
	cases := []struct {
		name   string
		change func([]Category) []Category
		want   string
	}{
		{"duplicate slug", func(c []Category) []Category { c[3].Slug = "home"; return c }, "appears twice"},
		{"missing parent", func(c []Category) []Category { c[2].ParentSlug = "garden"; return c }, "does not exist"},
		{"cycle", func(c []Category) []Category { c[0].ParentSlug = "pans"; return c }, "cycle"},
		{"own parent", func(c []Category) []Category { c[3].ParentSlug = "toys"; return c }, "its own parent"},
		{"slug not kebab-case", func(c []Category) []Category { c[3].Slug = "Toys"; return c }, "kebab-case"},
		{"slug with space", func(c []Category) []Category { c[3].Slug = "toys games"; return c }, "kebab-case"},
		{"empty name", func(c []Category) []Category { c[3].Name = " "; return c }, "name"},
		{"name with separator", func(c []Category) []Category { c[3].Name = "Toys > Games"; return c }, "name"},
		{"upper-case keyword", func(c []Category) []Category { c[2].Keywords = []string{"Pan"}; return c }, "lower case"},
		{"untrimmed keyword", func(c []Category) []Category { c[2].Keywords = []string{"pan "}; return c }, "lower case"},
		{"empty keyword", func(c []Category) []Category { c[2].Keywords = []string{""}; return c }, "lower case"},
		{"repeated keyword", func(c []Category) []Category { c[2].Keywords = []string{"pan", "pan"}; return c }, "repeated"},
		{"negative weight", func(c []Category) []Category { c[2].DefaultWeightOz = -1; return c }, "negative"},
		{"negative prior", func(c []Category) []Category { c[2].PriorPrice = -5; return c }, "negative"},
		{"duplicate id", func(c []Category) []Category { c[1].ID = CategoryID("home"); return c }, "already used"},
		{"duplicate path", func(c []Category) []Category { c[3].Name = "Home"; c[3].Slug = "home-2"; return c }, "path"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewTaxonomy(tc.change(validCats()))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	if _, err := NewTaxonomy(nil); err == nil {
		t.Error("an empty table was accepted")
	}
	if _, err := NewTaxonomy(validCats()); err != nil {
		t.Fatalf("the valid table was refused: %v", err)
	}
	if _, err := ParseTaxonomy([]byte(`[{"slug": "a", "name": "A", "weightOz": "heavy"}]`)); err == nil {
		t.Error("a malformed table was accepted")
	}
}

func TestTaxonomyLookups(t *testing.T) {
	tax, err := NewTaxonomy(validCats())
	if err != nil {
		t.Fatal(err)
	}
	slugs := func(cs []Category) []string {
		out := []string{}
		for _, c := range cs {
			out = append(out, c.Slug)
		}
		return out
	}
	if got := slugs(tax.All()); !reflect.DeepEqual(got, []string{"home", "kitchen", "pans", "toys"}) {
		t.Errorf("All = %v, want depth-first table order", got)
	}
	if got := slugs(tax.Roots()); !reflect.DeepEqual(got, []string{"home", "toys"}) {
		t.Errorf("Roots = %v", got)
	}
	if got := slugs(tax.Children("home")); !reflect.DeepEqual(got, []string{"kitchen"}) {
		t.Errorf("Children(home) = %v", got)
	}
	if got := slugs(tax.Ancestors("pans")); !reflect.DeepEqual(got, []string{"home", "kitchen"}) {
		t.Errorf("Ancestors(pans) = %v, want the top level first", got)
	}
	if got := slugs(tax.Descendants("home")); !reflect.DeepEqual(got, []string{"kitchen", "pans"}) {
		t.Errorf("Descendants(home) = %v", got)
	}
	if got := tax.Ancestors("nope"); got != nil {
		t.Errorf("Ancestors of an unknown slug = %v", got)
	}
	pans := mustSlug(t, tax, "pans")
	if pans.Path != "Home > Kitchen > Pans" || pans.Depth != 2 || pans.ParentID != CategoryID("kitchen") {
		t.Errorf("pans = %+v", pans)
	}
	if c, ok := tax.ByPath("Home > Kitchen"); !ok || c.Slug != "kitchen" {
		t.Errorf("ByPath(Home > Kitchen) = %q, %v", c.Slug, ok)
	}
	for _, key := range []string{"pans", CategoryID("pans")} {
		if c, ok := tax.Resolve(key); !ok || c.Slug != "pans" {
			t.Errorf("Resolve(%q) = %q, %v", key, c.Slug, ok)
		}
	}
	if top, ok := tax.TopLevel("pans"); !ok || top.Slug != "home" {
		t.Errorf("TopLevel(pans) = %q", top.Slug)
	}
	if !tax.IsLeaf("pans") || tax.IsLeaf("kitchen") || tax.IsLeaf("nope") {
		t.Error("IsLeaf is wrong")
	}
}

func TestIsWithin(t *testing.T) {
	tax := DefaultTaxonomy()
	cases := []struct {
		slug, ancestor string
		want           bool
	}{
		{"smartphones", "smartphones", true},
		{"smartphones", "phones", true},
		{"smartphones", "electronics", true},
		{"smartphones", CategoryID("electronics"), true}, // by id, as spending controls store them
		{"electronics", "smartphones", false},            // a parent is not within its child
		{"smartphones", "phone-accessories", false},      // nor a sibling
		{"smartphones", "clothing-shoes", false},
		{"sneakers", "clothing-shoes", true},
		{"no-such-slug", "electronics", false},
		{"smartphones", "no-such-slug", false},
		{"", "", false},
	}
	for _, tc := range cases {
		if got := tax.IsWithin(tc.slug, tc.ancestor); got != tc.want {
			t.Errorf("IsWithin(%q, %q) = %v, want %v", tc.slug, tc.ancestor, got, tc.want)
		}
	}
}

func TestDefaultsAndPriorsInherit(t *testing.T) {
	tax, err := NewTaxonomy(validCats())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		slug   string
		weight int
		dims   Dimensions
		prior  int64
	}{
		{"home", 32, Dimensions{L: 10, W: 8, H: 4}, 3000},
		{"kitchen", 32, Dimensions{L: 10, W: 8, H: 4}, 3000}, // sets nothing: all from home
		{"pans", 48, Dimensions{L: 10, W: 8, H: 4}, 4000},    // own weight and prior, home's size
		{"toys", 16, Dimensions{L: 12, W: 10, H: 6}, 0},      // no prior anywhere up
	}
	for _, tc := range cases {
		w, d, ok := tax.Defaults(tc.slug)
		if !ok || w != tc.weight || d != tc.dims {
			t.Errorf("Defaults(%s) = %d, %+v, %v; want %d, %+v", tc.slug, w, d, ok, tc.weight, tc.dims)
		}
		if p := tax.Prior(tc.slug); p != tc.prior {
			t.Errorf("Prior(%s) = %d, want %d", tc.slug, p, tc.prior)
		}
	}
	if _, _, ok := tax.Defaults("nope"); ok {
		t.Error("Defaults of an unknown slug succeeded")
	}
}

// Lookups hand out copies: a caller cannot change the shared tree.
func TestTaxonomyIsReadOnly(t *testing.T) {
	tax := DefaultTaxonomy()
	c := mustSlug(t, tax, "smartphones")
	c.Keywords[0] = "changed"
	c.Name = "changed"
	again := mustSlug(t, tax, "smartphones")
	if again.Keywords[0] == "changed" || again.Name == "changed" {
		t.Fatal("changing a returned category changed the taxonomy")
	}
	// Shared across goroutines (checked under -race).
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range DefaultTaxonomy().All() {
				DefaultTaxonomy().IsWithin(c.Slug, "electronics")
			}
		}()
	}
	wg.Wait()
}
