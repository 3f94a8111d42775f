package generator

import (
	"context"
	"encoding/json"
	"fmt"
	"marketplace/internal/listings"
	"os"
	"sort"
	"strings"
	"testing"
)

// labelledBrief is one entry of testdata/briefs.json: what a seller typed
// and the category path a person would file it under.
type labelledBrief struct {
	Brief    string `json:"brief"`
	Category string `json:"category"`
}

func loadLabelledBriefs(t *testing.T, file string) []labelledBrief {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var set []labelledBrief
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	return set
}

// TestLabelledBriefsAreSound keeps the labelled set usable: large enough,
// every label a real category path, every top level represented.
func TestLabelledBriefsAreSound(t *testing.T) {
	tax := listings.DefaultTaxonomy()
	set := loadLabelledBriefs(t, "testdata/briefs.json")
	if len(set) < 150 {
		t.Fatalf("labelled set has %d briefs, want at least 150", len(set))
	}
	seen := map[string]bool{}
	tops := map[string]int{}
	for _, lb := range set {
		if strings.TrimSpace(lb.Brief) == "" {
			t.Errorf("empty brief labelled %q", lb.Category)
		}
		if seen[lb.Brief] {
			t.Errorf("brief %q appears twice", lb.Brief)
		}
		seen[lb.Brief] = true
		c, ok := tax.ByPath(lb.Category)
		if !ok {
			t.Errorf("brief %q: no category with path %q", lb.Brief, lb.Category)
			continue
		}
		top, _ := tax.TopLevel(c.Slug)
		tops[top.Slug]++
	}
	for _, r := range tax.Roots() {
		if tops[r.Slug] == 0 {
			t.Errorf("no labelled brief under %s", r.Name)
		}
	}
}

// TestClassifierAccuracy reports how often the built-in generator files a
// labelled brief under the right top level and the right exact category,
// and fails below 90% at the top level. Run with -v to see the figures per
// top level and every miss.
//
// testdata/briefs.json is the labelled set proper, written before the
// classifier and not changed since. testdata/briefs_holdout.json was
// written after it, to see how the cue tables do on briefs they were not
// written alongside: its first 119 entries were looked at (and generic
// gaps they showed were fixed), its last 80 were measured once and never
// tuned for.
func TestClassifierAccuracy(t *testing.T) {
	for _, file := range []string{"testdata/briefs.json", "testdata/briefs_holdout.json"} {
		t.Run(file, func(t *testing.T) {
			set := loadLabelledBriefs(t, file)
			if top, _ := measureAccuracy(t, file, set); top*100 < 90*len(set) {
				t.Errorf("top-level accuracy %s is below 90%%", percentOf(top, len(set)))
			}
		})
	}
}

func measureAccuracy(t *testing.T, name string, set []labelledBrief) (top, leaf int) {
	t.Helper()
	tax := listings.DefaultTaxonomy()
	gen := NewBuiltin(tax, nil)
	var misses []string
	perTop := map[string][2]int{} // top level -> {right, total}
	for _, lb := range set {
		want, ok := tax.ByPath(lb.Category)
		if !ok {
			t.Fatalf("unknown path %q", lb.Category)
		}
		d, err := gen.Generate(context.Background(), listings.Brief{Description: lb.Brief})
		if err != nil {
			t.Fatalf("%q: %v", lb.Brief, err)
		}
		got, _ := tax.BySlug(d.CategorySlug)
		wantTop, _ := tax.TopLevel(want.Slug)
		gotTop, _ := tax.TopLevel(got.Slug)
		pt := perTop[wantTop.Name]
		pt[1]++
		if gotTop.Slug == wantTop.Slug {
			top++
			pt[0]++
		}
		perTop[wantTop.Name] = pt
		if got.Slug == want.Slug {
			leaf++
		} else {
			misses = append(misses, fmt.Sprintf("%-60q want %-26s got %s", lb.Brief, want.Slug, got.Slug))
		}
	}
	n := len(set)
	report := fmt.Sprintf("%s: classifier accuracy on %d labelled briefs: top level %d/%d (%s), exact category %d/%d (%s)",
		name, n, top, n, percentOf(top, n), leaf, n, percentOf(leaf, n))
	t.Log(report)
	if testing.Verbose() {
		fmt.Println(report)
		names := make([]string, 0, len(perTop))
		for name := range perTop {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Printf("  %-32s %d/%d\n", name, perTop[name][0], perTop[name][1])
		}
		for _, m := range misses {
			fmt.Println("  miss:", m)
		}
	}
	return top, leaf
}

// percentOf formats part/whole as a percentage with one decimal, in
// integers.
func percentOf(part, whole int) string {
	if whole == 0 {
		return "n/a"
	}
	tenths := (part*1000 + whole/2) / whole
	return fmt.Sprintf("%d.%d%%", tenths/10, tenths%10)
}
