package generator

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"marketplace/internal/listings"
)

// offTree is the built-in tree with slug switched off, as the listings
// service hands it in a brief: only the usable categories.
func offTree(t *testing.T, slug string) *listings.Taxonomy {
	t.Helper()
	all := listings.DefaultTaxonomy().All()
	for i := range all {
		if all[i].Slug == slug {
			all[i].Active = false
		}
	}
	tax, err := listings.NewTaxonomy(all)
	if err != nil {
		t.Fatal(err)
	}
	return tax.UsableOnly()
}

// The built-in generator picks among the brief's tree: a switched-off
// category (and what is below it) is never chosen, not even when the
// seller named it, and a category added to the tree is found by its name.
func TestBuiltinUsesTheBriefsTree(t *testing.T) {
	g := NewBuiltin(nil, nil)
	ctx := context.Background()
	brief := listings.Brief{Description: "Mechanical keyboard, brown switches, barely used"}
	d, err := g.Generate(ctx, brief)
	if err != nil || d.CategorySlug != "keyboards-mice" {
		t.Fatalf("with the built-in tree: %q, %v", d.CategorySlug, err)
	}
	for _, off := range []string{"keyboards-mice", "computers"} {
		b := brief
		b.Taxonomy, b.Category = offTree(t, off), "keyboards-mice"
		d, err := g.Generate(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		if d.CategorySlug == "keyboards-mice" || !b.Taxonomy.Usable(d.CategorySlug) {
			t.Fatalf("%s off: chose %q", off, d.CategorySlug)
		}
	}

	all := listings.DefaultTaxonomy().All()
	all = append(all, listings.Category{Slug: "split-keyboards", Name: "Split Keyboards", ParentSlug: "keyboards-mice",
		Keywords: []string{"split keyboards"}, Active: true})
	grown, err := listings.NewTaxonomy(all)
	if err != nil {
		t.Fatal(err)
	}
	b := listings.Brief{Description: "Split keyboards pair with tenting legs", Taxonomy: grown}
	if d, err := g.Generate(ctx, b); err != nil || d.CategorySlug != "split-keyboards" || d.WeightOz == 0 {
		t.Fatalf("with an admin's category: %+v, %v", d, err)
	}
}

// The OpenAI adapter lists the brief's categories to the model and accepts
// only those.
func TestOpenAIUsesTheBriefsTree(t *testing.T) {
	srv := newOAIServer(t, oaiReply(200, oaiCompletion(oaiContent(oaiWith("category_slug", "keyboards-mice")), nil)))
	fb := &oaiFallback{}
	g := newOAIGen(t, srv.URL, oaiKey, time.Second, fb, nil)
	ctx := context.Background()

	b := oaiBrief()
	b.Taxonomy = offTree(t, "computers")
	if _, err := g.Generate(ctx, b); err != nil {
		t.Fatal(err)
	}
	if fb.count() != 1 {
		t.Fatalf("a slug outside the brief's tree was accepted (fallback calls %d)", fb.count())
	}
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(srv.last(t).body, &req); err != nil {
		t.Fatal(err)
	}
	system, _ := req.Messages[0].Content.(string)
	if strings.Contains(system, "keyboards-mice") || !strings.Contains(system, "electronics") {
		t.Fatalf("the system prompt does not list the brief's tree")
	}

	b.Taxonomy = listings.DefaultTaxonomy()
	d, err := g.Generate(ctx, b)
	if err != nil || d.CategorySlug != "keyboards-mice" || fb.count() != 1 {
		t.Fatalf("with keyboards-mice in the tree: %+v, %v, fallback %d", d, err, fb.count())
	}
}
