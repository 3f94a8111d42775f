package listings

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"marketplace/internal/market"
)

// The category tree in force is the categories table, not the built-in
// taxonomy (which only seeds it): admins add, rename and switch categories
// off (CONTRACT.md 14). Every replica keeps the tree it built cached and,
// before each use, reads (internal/fresh: or shares a read begun after the
// request arrived of) the config version (one row by primary key) that
// every category change bumps in its own transaction; when the version
// moved it rebuilds the tree, so a change holds from the next request
// everywhere.

// TaxonomySource hands out the category tree in force: every category,
// inactive ones included (Category.Active, Taxonomy.Usable say which are
// in use).
type TaxonomySource interface {
	Taxonomy(ctx context.Context) (*Taxonomy, error)
}

type staticTaxonomy struct{ t *Taxonomy }

func (s staticTaxonomy) Taxonomy(context.Context) (*Taxonomy, error) { return s.t, nil }

// StaticTaxonomy is a TaxonomySource that never changes (tests, tools).
func StaticTaxonomy(t *Taxonomy) TaxonomySource { return staticTaxonomy{t} }

// liveTaxonomy is the cached tree and the version it was built under.
type liveTaxonomy struct {
	mu      sync.Mutex
	loaded  bool
	version int64
	all     *Taxonomy // every category
	usable  *Taxonomy // the usable ones; nil when none is
}

// Taxonomy is the category tree in force, inactive categories included.
func (s *Service) Taxonomy(ctx context.Context) (*Taxonomy, error) {
	all, _, err := s.taxonomies(ctx)
	return all, err
}

// UsableTaxonomy is the tree of the categories in use: what the category
// trees show, what generation picks from and what a listing may name. Nil
// when every category is switched off.
func (s *Service) UsableTaxonomy(ctx context.Context) (*Taxonomy, error) {
	_, usable, err := s.taxonomies(ctx)
	return usable, err
}

// requestTrees holds the trees one request uses, so a page of listings
// reads the version once, not once per listing.
type requestTrees struct {
	mu          sync.Mutex
	set         bool
	all, usable *Taxonomy
}

type requestTreesKey struct{}

// OneTreePerRequest gives each request through next one category tree:
// its first use checks the version (and rebuilds the tree if it moved), the
// rest of the request reuses that tree.
func OneTreePerRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestTreesKey{}, &requestTrees{})))
	})
}

// taxonomies returns the trees in force, once per request where the request
// carries a holder (OneTreePerRequest), else checking the version each time.
func (s *Service) taxonomies(ctx context.Context) (all, usable *Taxonomy, err error) {
	rt, _ := ctx.Value(requestTreesKey{}).(*requestTrees)
	if rt == nil {
		return s.loadTaxonomies(ctx)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if !rt.set {
		if rt.all, rt.usable, err = s.loadTaxonomies(ctx); err != nil {
			return nil, nil, err
		}
		rt.set = true
	}
	return rt.all, rt.usable, nil
}

// loadTaxonomies returns the cached trees while the version has not moved.
// The rows are read after the version, so a cache is never older than the
// version it is filed under (at worst newer, which costs one reload).
func (s *Service) loadTaxonomies(ctx context.Context) (all, usable *Taxonomy, err error) {
	read := s.store.Read()
	// A version read that began after this request arrived is as good as
	// the request's own (a change holds from the next request), and under
	// load concurrent requests share one.
	v, err := s.version.Do(ctx, struct{}{}, read.ConfigVersion)
	if err != nil {
		return nil, nil, err
	}
	lt := &s.live
	lt.mu.Lock()
	if lt.loaded && lt.version == v {
		all, usable = lt.all, lt.usable
		lt.mu.Unlock()
		return all, usable, nil
	}
	lt.mu.Unlock()
	cats, err := read.Categories(ctx)
	if err != nil {
		return nil, nil, err
	}
	if all, err = buildTaxonomy(cats); err != nil {
		return nil, nil, err
	}
	usable = all.UsableOnly()
	lt.mu.Lock()
	lt.loaded, lt.version, lt.all, lt.usable = true, v, all, usable
	lt.mu.Unlock()
	return all, usable, nil
}

var (
	builtinOrderOnce sync.Once
	builtinOrder     map[string]int
)

// buildTaxonomy makes the tree of the table's rows. The built-in
// categories keep the seed's table order (the built-in generator breaks
// ties by it), the ones admins made follow in the order they were made.
// Paths are derived from the names, so they never go stale.
func buildTaxonomy(rows []Category) (*Taxonomy, error) {
	builtinOrderOnce.Do(func() {
		builtinOrder = map[string]int{}
		for i, c := range DefaultTaxonomy().cats {
			builtinOrder[c.Slug] = i
		}
	})
	rows = slices.Clone(rows)
	rank := func(c *Category) int {
		if i, ok := builtinOrder[c.Slug]; ok {
			return i
		}
		return len(builtinOrder)
	}
	slices.SortStableFunc(rows, func(a, b Category) int {
		return cmp.Or(cmp.Compare(rank(&a), rank(&b)), a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	slugOf := make(map[string]string, len(rows))
	for _, c := range rows {
		slugOf[c.ID] = c.Slug
	}
	for i := range rows {
		if rows[i].ParentID != "" {
			rows[i].ParentSlug = slugOf[rows[i].ParentID]
			if rows[i].ParentSlug == "" {
				return nil, market.Internal(fmt.Errorf("categories: %s: parent %s is not in the table", rows[i].Slug, rows[i].ParentID))
			}
		}
	}
	t, err := NewTaxonomy(rows)
	if err != nil {
		return nil, market.Internal(err)
	}
	return t, nil
}

// CategoryByID finds a category of the tree in force, inactive ones
// included: a listing keeps the category it has.
func (s *Service) CategoryByID(ctx context.Context, id string) (Category, bool) {
	if id == "" {
		return Category{}, false
	}
	t, err := s.Taxonomy(ctx)
	if err != nil {
		return Category{}, false
	}
	return t.ByID(id)
}

// ResolveCategory finds a category of the tree in force by slug or id,
// inactive ones included (the create or update then says it is inactive).
func (s *Service) ResolveCategory(ctx context.Context, slugOrID string) (Category, bool) {
	t, err := s.Taxonomy(ctx)
	if err != nil {
		return Category{}, false
	}
	return t.Resolve(slugOrID)
}

// checkCategory is the category check of a create or update naming one:
// it must exist and be in use.
func (s *Service) checkCategory(ctx context.Context, c *market.Check, field string, id market.Opt[string]) error {
	if !id.Set {
		return nil
	}
	t, err := s.Taxonomy(ctx)
	if err != nil {
		return err
	}
	_, known := t.ByID(id.Value)
	switch {
	case id.Null || !known:
		c.Add(field, "is not a known category")
	case !t.Usable(id.Value):
		c.Add(field, "is an inactive category")
	}
	return nil
}

// CategoryNode is a category with its children, for the tree answer.
type CategoryNode struct {
	Category
	Children []CategoryNode
}

// CategoryTree returns the categories in use as a tree, siblings in path
// order.
func (s *Service) CategoryTree(ctx context.Context) ([]CategoryNode, int, error) {
	t, err := s.UsableTaxonomy(ctx)
	if err != nil || t == nil {
		return []CategoryNode{}, 0, err
	}
	var build func(cats []Category) []CategoryNode
	build = func(cats []Category) []CategoryNode {
		slices.SortFunc(cats, func(a, b Category) int { return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.ID, b.ID)) })
		out := make([]CategoryNode, len(cats))
		for i, c := range cats {
			out[i] = CategoryNode{Category: c, Children: build(t.Children(c.Slug))}
		}
		return out
	}
	return build(t.Roots()), t.Len(), nil
}
