package listings

import (
	"testing"
	"time"
)

func TestSlugOf(t *testing.T) {
	for in, want := range map[string]string{
		"Mechanical Keyboards":  "mechanical-keyboards",
		"Film & Photo":          "film-photo",
		"  Children's Books  ":  "childrens-books",
		"Café Crème 2000":       "cafe-creme-2000",
		"A>B":                   "a-b",
		"!!!":                   "",
		"日本":                    "",
		"--Vinyl--Records--":    "vinyl-records",
		"Über-Größe Ski Jacket": "uber-groe-ski-jacket",
	} {
		if got := SlugOf(in); got != want {
			t.Errorf("SlugOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// A category is usable only while it and every ancestor are active; the
// usable tree drops a switched-off subtree and keeps ids and paths.
func TestUsable(t *testing.T) {
	all := DefaultTaxonomy().All()
	for i := range all {
		if all[i].Slug == "computers" {
			all[i].Active = false
		}
	}
	tax, err := NewTaxonomy(all)
	if err != nil {
		t.Fatal(err)
	}
	if tax.Usable("computers") || tax.Usable("keyboards-mice") || tax.Usable(CategoryID("keyboards-mice")) {
		t.Fatal("an inactive category or its child is usable")
	}
	if !tax.Usable("electronics") || tax.Usable("no-such") {
		t.Fatal("usable is wrong for the parent or an unknown slug")
	}
	u := tax.UsableOnly()
	if _, ok := u.BySlug("keyboards-mice"); ok {
		t.Fatal("the usable tree holds a child of an inactive category")
	}
	want := tax.Len() - 1 - len(tax.Descendants("computers"))
	if u.Len() != want {
		t.Fatalf("usable tree has %d categories, want %d", u.Len(), want)
	}
	e, _ := u.BySlug("electronics")
	if orig, _ := tax.BySlug("electronics"); e.ID != orig.ID || e.Path != orig.Path {
		t.Fatalf("usable tree changed electronics: %+v", e)
	}
	for i := range all {
		all[i].Active = false
	}
	none, _ := NewTaxonomy(all)
	if none.UsableOnly() != nil {
		t.Fatal("a tree with nothing active has a usable tree")
	}
}

// The table's rows build the tree in the seed's order, admins' categories
// after it in the order they were made; paths come from the names.
func TestBuildTaxonomy(t *testing.T) {
	seed := DefaultTaxonomy().All()
	rows := make([]Category, 0, len(seed)+2)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	kb, _ := DefaultTaxonomy().BySlug("keyboards-mice")
	rows = append(rows,
		Category{ID: CategoryID("b-new"), Slug: "b-new", Name: "B", ParentID: kb.ID, Active: true, CreatedAt: at.Add(time.Hour)},
		Category{ID: CategoryID("a-new"), Slug: "a-new", Name: "A", ParentID: kb.ID, Active: true, CreatedAt: at.Add(2 * time.Hour)})
	for i := len(seed) - 1; i >= 0; i-- { // the table hands them in another order
		c := seed[i]
		c.ParentSlug, c.Path = "", "stale"
		if c.Slug == "computers" {
			c.Name = "Computers"
		}
		rows = append(rows, c)
	}
	tax, err := buildTaxonomy(rows)
	if err != nil {
		t.Fatal(err)
	}
	got := tax.All()
	if len(got) != len(seed)+2 {
		t.Fatalf("%d categories", len(got))
	}
	kids := tax.Children("keyboards-mice")
	if len(kids) != 2 || kids[0].Slug != "b-new" || kids[1].Slug != "a-new" {
		t.Fatalf("admin categories out of creation order: %+v", kids)
	}
	if kids[0].Path != "Electronics > Computers > Keyboards & Mice > B" {
		t.Fatalf("path %q", kids[0].Path)
	}
	roots := tax.Roots()
	for i, r := range DefaultTaxonomy().Roots() {
		if roots[i].Slug != r.Slug {
			t.Fatalf("root %d is %s, want %s (seed order)", i, roots[i].Slug, r.Slug)
		}
	}
	if _, err := buildTaxonomy([]Category{{ID: "x", Slug: "x", Name: "X", ParentID: "gone"}}); err == nil {
		t.Fatal("a row whose parent is missing built")
	}
}
