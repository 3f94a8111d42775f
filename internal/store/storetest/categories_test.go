package storetest

import (
	"context"
	"testing"

	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/store"
)

// Seeding brings the built-in rows' keywords and priors up to the build
// while keeping what admins changed, and moves the config version only
// when a row changed; admins' rows round-trip with their switch.
func TestCategoriesTable(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		seed := listings.DefaultTaxonomy().All()
		in := func(fn func(tx *store.Tx) error) {
			t.Helper()
			if err := db.InTx(ctx, fn); err != nil {
				t.Fatal(err)
			}
		}
		version := func() int64 {
			t.Helper()
			v, err := db.Read().ConfigVersion(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		find := func(slug string) listings.Category {
			t.Helper()
			cats, err := db.Read().Categories(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cats {
				if c.Slug == slug {
					return c
				}
			}
			t.Fatalf("no %s", slug)
			return listings.Category{}
		}
		in(func(tx *store.Tx) error { return tx.SeedCategories(ctx, seed, t0) })
		v1 := version()
		in(func(tx *store.Tx) error { return tx.SeedCategories(ctx, seed, t0) })
		if v := version(); v != v1 {
			t.Fatalf("a seed that changed nothing moved the version %d -> %d", v1, v)
		}

		// An admin renames and switches off a built-in category.
		c := find("computers")
		c.Name, c.Path, c.Active = "Computers", "Electronics > Computers", false
		in(func(tx *store.Tx) error { return tx.UpdateCategory(ctx, &c) })
		// A later build changes the category's prior and keywords.
		next := make([]listings.Category, len(seed))
		copy(next, seed)
		for i := range next {
			if next[i].Slug == "computers" {
				next[i].PriorPrice, next[i].Keywords = 12345, []string{"laptop"}
			}
		}
		in(func(tx *store.Tx) error { return tx.SeedCategories(ctx, next, t0) })
		if v := version(); v == v1 {
			t.Fatal("a seed that changed a row did not move the version")
		}
		got := find("computers")
		if got.PriorPrice != 12345 || len(got.Keywords) != 1 || got.Keywords[0] != "laptop" || got.Name != "Computers" ||
			got.Path != "Electronics > Computers" || got.Active {
			t.Fatalf("after the reseed: %+v", got)
		}

		// An admin's category; a taken slug is a validation error.
		mine := listings.Category{ID: listings.CategoryID("gnomes"), Slug: "gnomes", Name: "Gnomes", Path: "Gnomes", Active: true,
			Keywords: []string{"gnomes"}, CreatedAt: t0}
		in(func(tx *store.Tx) error { return tx.InsertCategory(ctx, &mine) })
		if g := find("gnomes"); g.ID != mine.ID || !g.Active || g.ParentID != "" || len(g.Keywords) != 1 {
			t.Fatalf("round trip %+v", g)
		}
		err := db.InTx(ctx, func(tx *store.Tx) error { return tx.InsertCategory(ctx, &mine) })
		if market.CodeOf(err) != market.CodeValidation {
			t.Fatalf("a taken slug: %v", err)
		}
		ghost := listings.Category{ID: "nope", Name: "x"}
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.UpdateCategory(ctx, &ghost) }); market.CodeOf(err) != market.CodeNotFound {
			t.Fatalf("updating an unknown category: %v", err)
		}
	})
}
