package listings

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Category is one node of the category tree.
type Category struct {
	ID              string // UUIDv5 of the slug (CategoryID), the same on every engine and run
	Slug            string // unique, kebab-case
	Name            string
	Path            string // names from the top, joined by " > "
	ParentSlug      string // "" for a top-level category
	ParentID        string // "" for a top-level category
	Depth           int    // 0 for a top-level category
	DefaultWeightOz int    // packed shipping weight; 0 means "as the parent"
	DefaultDims     Dimensions
	Keywords        []string // lower-case words and phrases that point here
	PriorPrice      int64    // cents, a typical used price; 0 means "as the parent"
	// Active is the category's own switch (PATCH /admin/categories/{id}).
	// A category is in use only while it and every ancestor are active
	// (Taxonomy.Usable).
	Active    bool
	CreatedAt time.Time // when it entered the table; zero in the built-in seed
}

// FallbackSlug is the catch-all category: it has no keywords and takes a
// brief nothing else in the taxonomy matched.
const FallbackSlug = "everything-else"

// categoryNamespace is the fixed UUIDv5 namespace of category ids. Changing
// it would change every category id, so it never changes.
var categoryNamespace = uuid.MustParse("3b0d2f6e-9a41-4c57-8e2a-6c1f0b7d5a93")

// CategoryID is the stable id of the category with this slug.
func CategoryID(slug string) string {
	return uuid.NewSHA1(categoryNamespace, []byte(slug)).String()
}

// Taxonomy is a validated category tree. It is read-only once built, so one
// value is safely shared by every goroutine.
type Taxonomy struct {
	cats     []*Category // depth first: every parent before its children
	bySlug   map[string]*Category
	byID     map[string]*Category
	byPath   map[string]*Category
	children map[string][]*Category // by parent slug; "" holds the roots
}

//go:embed taxonomy.json
var taxonomyJSON []byte

// taxonomyRow is one entry of taxonomy.json.
type taxonomyRow struct {
	Slug       string     `json:"slug"`
	Name       string     `json:"name"`
	Parent     string     `json:"parent"`
	WeightOz   int        `json:"weightOz"`
	Dims       [3]float64 `json:"dims"`
	PriorPrice int64      `json:"priorPrice"`
	Keywords   []string   `json:"keywords"`
}

var (
	defaultTaxonomyOnce sync.Once
	defaultTaxonomy     *Taxonomy
)

// DefaultTaxonomy is the built-in seed taxonomy (taxonomy.json). The table
// is tested, so a failure to load it is a programming error.
func DefaultTaxonomy() *Taxonomy {
	defaultTaxonomyOnce.Do(func() {
		t, err := ParseTaxonomy(taxonomyJSON)
		if err != nil {
			panic(err)
		}
		defaultTaxonomy = t
	})
	return defaultTaxonomy
}

// ParseTaxonomy reads a taxonomy table in the taxonomy.json format and
// validates it.
func ParseTaxonomy(data []byte) (*Taxonomy, error) {
	var rows []taxonomyRow
	if err := json.Unmarshal(data, &rows); err != nil {
		return nil, fmt.Errorf("taxonomy: %w", err)
	}
	cats := make([]Category, len(rows))
	for i, r := range rows {
		cats[i] = Category{
			Slug:            r.Slug,
			Name:            r.Name,
			ParentSlug:      r.Parent,
			DefaultWeightOz: r.WeightOz,
			DefaultDims:     Dimensions{L: r.Dims[0], W: r.Dims[1], H: r.Dims[2]},
			Keywords:        r.Keywords,
			PriorPrice:      r.PriorPrice,
			Active:          true,
		}
	}
	return NewTaxonomy(cats)
}

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// NewTaxonomy validates cats and builds the tree: slugs unique and
// kebab-case, names present, every parent present, no cycles, keywords
// trimmed, lower case and not repeated within a category, no negative
// defaults, at least one category. ID, ParentID, Path and Depth are derived; an ID already set is
// kept (a category an admin created may carry a random one).
func NewTaxonomy(cats []Category) (*Taxonomy, error) {
	if len(cats) == 0 {
		return nil, fmt.Errorf("taxonomy: no categories")
	}
	t := &Taxonomy{
		bySlug:   make(map[string]*Category, len(cats)),
		byID:     make(map[string]*Category, len(cats)),
		byPath:   make(map[string]*Category, len(cats)),
		children: map[string][]*Category{},
	}
	rows := make([]*Category, len(cats))
	for i := range cats {
		c := cats[i]
		c.Keywords = append([]string(nil), c.Keywords...)
		if !slugPattern.MatchString(c.Slug) {
			return nil, fmt.Errorf("taxonomy: slug %q is not kebab-case", c.Slug)
		}
		if t.bySlug[c.Slug] != nil {
			return nil, fmt.Errorf("taxonomy: slug %q appears twice", c.Slug)
		}
		if strings.TrimSpace(c.Name) == "" || strings.Contains(c.Name, ">") {
			return nil, fmt.Errorf("taxonomy: %s: name %q is empty or holds the path separator", c.Slug, c.Name)
		}
		if c.ParentSlug == c.Slug {
			return nil, fmt.Errorf("taxonomy: %s is its own parent", c.Slug)
		}
		if c.DefaultWeightOz < 0 || c.PriorPrice < 0 || c.DefaultDims.L < 0 || c.DefaultDims.W < 0 || c.DefaultDims.H < 0 {
			return nil, fmt.Errorf("taxonomy: %s: negative default", c.Slug)
		}
		seen := map[string]bool{}
		for _, k := range c.Keywords {
			if k == "" || k != strings.TrimSpace(k) || k != strings.ToLower(k) {
				return nil, fmt.Errorf("taxonomy: %s: keyword %q must be trimmed lower case", c.Slug, k)
			}
			if seen[k] {
				return nil, fmt.Errorf("taxonomy: %s: keyword %q repeated", c.Slug, k)
			}
			seen[k] = true
		}
		if c.ID == "" {
			c.ID = CategoryID(c.Slug)
		}
		if t.byID[c.ID] != nil {
			return nil, fmt.Errorf("taxonomy: %s: id %s already used", c.Slug, c.ID)
		}
		rows[i] = &c
		t.bySlug[c.Slug] = &c
		t.byID[c.ID] = &c
	}
	for _, c := range rows {
		if c.ParentSlug != "" && t.bySlug[c.ParentSlug] == nil {
			return nil, fmt.Errorf("taxonomy: %s: parent %q does not exist", c.Slug, c.ParentSlug)
		}
	}
	// Walk up from every node; a walk longer than the table is a cycle.
	for _, c := range rows {
		depth, p := 0, c
		for p.ParentSlug != "" {
			p = t.bySlug[p.ParentSlug]
			depth++
			if depth > len(rows) {
				return nil, fmt.Errorf("taxonomy: %s: parent chain has a cycle", c.Slug)
			}
		}
		c.Depth = depth
	}
	// Children in table order; then a depth-first walk from the roots puts
	// every parent before its children, so paths build in one pass.
	for _, c := range rows {
		t.children[c.ParentSlug] = append(t.children[c.ParentSlug], c)
	}
	t.cats = make([]*Category, 0, len(rows))
	var walk func(parent *Category)
	walk = func(parent *Category) {
		key := ""
		if parent != nil {
			key = parent.Slug
		}
		for _, c := range t.children[key] {
			c.Path = c.Name
			if parent != nil {
				c.ParentID = parent.ID
				c.Path = parent.Path + " > " + c.Name
			}
			t.cats = append(t.cats, c)
			walk(c)
		}
	}
	walk(nil)
	for _, c := range t.cats {
		if t.byPath[c.Path] != nil {
			return nil, fmt.Errorf("taxonomy: path %q appears twice", c.Path)
		}
		t.byPath[c.Path] = c
	}
	return t, nil
}

func (c *Category) clone() Category {
	out := *c
	out.Keywords = append([]string(nil), c.Keywords...)
	return out
}

func cloneAll(cs []*Category) []Category {
	out := make([]Category, len(cs))
	for i, c := range cs {
		out[i] = c.clone()
	}
	return out
}

// Len is the number of categories.
func (t *Taxonomy) Len() int { return len(t.cats) }

// All lists every category depth first, each parent before its children.
func (t *Taxonomy) All() []Category { return cloneAll(t.cats) }

// Roots lists the top-level categories in table order.
func (t *Taxonomy) Roots() []Category { return cloneAll(t.children[""]) }

// BySlug finds a category by slug.
func (t *Taxonomy) BySlug(slug string) (Category, bool) {
	if c := t.bySlug[slug]; c != nil {
		return c.clone(), true
	}
	return Category{}, false
}

// ByID finds a category by id.
func (t *Taxonomy) ByID(id string) (Category, bool) {
	if c := t.byID[id]; c != nil {
		return c.clone(), true
	}
	return Category{}, false
}

// ByPath finds a category by its full path ("Electronics > Phones & Accessories").
func (t *Taxonomy) ByPath(path string) (Category, bool) {
	if c := t.byPath[path]; c != nil {
		return c.clone(), true
	}
	return Category{}, false
}

// Resolve finds a category by slug or id, as API filters accept either.
func (t *Taxonomy) Resolve(slugOrID string) (Category, bool) {
	if c := t.find(slugOrID); c != nil {
		return c.clone(), true
	}
	return Category{}, false
}

func (t *Taxonomy) find(slugOrID string) *Category {
	if c := t.bySlug[slugOrID]; c != nil {
		return c
	}
	return t.byID[slugOrID]
}

// Children lists the direct children of a category, in table order.
func (t *Taxonomy) Children(slug string) []Category {
	if t.bySlug[slug] == nil {
		return nil
	}
	return cloneAll(t.children[slug])
}

// IsLeaf reports whether the category exists and has no children.
func (t *Taxonomy) IsLeaf(slug string) bool {
	return t.bySlug[slug] != nil && len(t.children[slug]) == 0
}

// Ancestors lists the categories above slug, the top-level one first; empty
// for a top-level or unknown category.
func (t *Taxonomy) Ancestors(slug string) []Category {
	c := t.bySlug[slug]
	if c == nil {
		return nil
	}
	out := make([]Category, c.Depth)
	for i := c.Depth - 1; i >= 0; i-- {
		c = t.bySlug[c.ParentSlug]
		out[i] = c.clone()
	}
	return out
}

// Descendants lists every category below slug, depth first in table order.
func (t *Taxonomy) Descendants(slug string) []Category {
	if t.bySlug[slug] == nil {
		return nil
	}
	var out []Category
	var walk func(string)
	walk = func(s string) {
		for _, c := range t.children[s] {
			out = append(out, c.clone())
			walk(c.Slug)
		}
	}
	walk(slug)
	return out
}

// IsWithin reports whether the category slug is ancestor (given by slug or
// id) or lies anywhere below it. Spending controls use it: blocking a
// category blocks all of its sub-categories. Unknown categories are never
// within anything.
func (t *Taxonomy) IsWithin(slug, ancestor string) bool {
	c, a := t.bySlug[slug], t.find(ancestor)
	if c == nil || a == nil {
		return false
	}
	for ; c != nil; c = t.bySlug[c.ParentSlug] {
		if c == a {
			return true
		}
		if c.ParentSlug == "" {
			break
		}
	}
	return false
}

// TopLevel is the top-level category above (or equal to) slug.
func (t *Taxonomy) TopLevel(slug string) (Category, bool) {
	c := t.bySlug[slug]
	if c == nil {
		return Category{}, false
	}
	for c.ParentSlug != "" {
		c = t.bySlug[c.ParentSlug]
	}
	return c.clone(), true
}

// Defaults are the shipping weight and size of slug: its own, or the
// nearest ancestor's where it sets none. ok is false for an unknown slug.
func (t *Taxonomy) Defaults(slug string) (weightOz int, dims Dimensions, ok bool) {
	c := t.bySlug[slug]
	if c == nil {
		return 0, Dimensions{}, false
	}
	for p := c; p != nil; p = t.bySlug[p.ParentSlug] {
		if weightOz == 0 && p.DefaultWeightOz > 0 {
			weightOz = p.DefaultWeightOz
		}
		if dims == (Dimensions{}) && p.DefaultDims.L > 0 && p.DefaultDims.W > 0 && p.DefaultDims.H > 0 {
			dims = p.DefaultDims
		}
		if p.ParentSlug == "" {
			break
		}
	}
	return weightOz, dims, true
}

// Prior is the typical used price of slug in cents: its own prior, or the
// nearest ancestor's when it has none; 0 when no category on the way up has
// one.
func (t *Taxonomy) Prior(slug string) int64 {
	for c := t.bySlug[slug]; c != nil; c = t.bySlug[c.ParentSlug] {
		if c.PriorPrice > 0 {
			return c.PriorPrice
		}
		if c.ParentSlug == "" {
			break
		}
	}
	return 0
}

// Usable reports whether the category (by slug or id) exists and it and
// every category above it are active: deactivating a category takes its
// whole subtree out of use (the sub-categories keep their own switch, so
// reactivating the parent brings them back as they were).
func (t *Taxonomy) Usable(slugOrID string) bool {
	c := t.find(slugOrID)
	if c == nil {
		return false
	}
	for ; c != nil; c = t.bySlug[c.ParentSlug] {
		if !c.Active {
			return false
		}
		if c.ParentSlug == "" {
			break
		}
	}
	return true
}

// UsableOnly is the tree of the usable categories (ids, paths and table
// order kept); nil when none is.
func (t *Taxonomy) UsableOnly() *Taxonomy {
	var keep []Category
	for _, c := range t.cats {
		if t.Usable(c.Slug) {
			keep = append(keep, c.clone())
		}
	}
	if len(keep) == 0 {
		return nil
	}
	out, err := NewTaxonomy(keep)
	if err != nil { // a subset closed under parents of a valid tree is valid
		panic(err)
	}
	return out
}

// Restricts reports whether a spending restriction (a category id or slug,
// as an owner's categoryRestrictions hold it) covers listing l: its own
// category or one of its ancestors. Inactive categories count: a listing
// keeps its category, and a restriction on it still holds. A nil tree
// knows ids only.
func (t *Taxonomy) Restricts(restriction string, l *Listing) bool {
	r := strings.TrimSpace(restriction)
	if strings.EqualFold(r, l.CategoryID) {
		return true
	}
	if t == nil {
		return false
	}
	cat, ok := t.ByID(l.CategoryID)
	if !ok {
		return false
	}
	restricted, ok := t.Resolve(strings.ToLower(r))
	return ok && t.IsWithin(cat.Slug, restricted.Slug)
}
