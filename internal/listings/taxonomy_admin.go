package listings

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"marketplace/internal/market"
)

// The admin's category tools (CONTRACT.md 14): list every category, add
// one, rename or switch one off and on. Each change bumps the config
// version (every replica rebuilds its tree on its next request) and writes
// an audit entry with the values before and after, in its transaction.

// Bounds of an admin's category fields.
const (
	MaxCategoryNameLen = 100
	MaxCategorySlugLen = 100
)

// NewCategory is POST /admin/categories.
type NewCategory struct {
	Name     string
	ParentID string // id or slug; "" for a top-level category
	Slug     string // "" derives it from the name
}

// CategoryPatch is PATCH /admin/categories/{id}.
type CategoryPatch struct {
	Name   market.Opt[string]
	Active market.Opt[bool]
}

// AdminCategories lists every category, inactive ones included, in path
// order.
func (s *Service) AdminCategories(ctx context.Context, actor market.Actor, limit, offset int) ([]Category, *Taxonomy, int, error) {
	if err := adminOnly(actor); err != nil {
		return nil, nil, 0, err
	}
	t, err := s.Taxonomy(ctx)
	if err != nil {
		return nil, nil, 0, err
	}
	all := t.All()
	slices.SortFunc(all, func(a, b Category) int { return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.ID, b.ID)) })
	total := len(all)
	from, to := min(offset, total), min(offset+limit, total)
	return all[from:to], t, total, nil
}

// AdminCategory reads one category by id or slug, for the answer of a
// change.
func (s *Service) AdminCategory(ctx context.Context, idOrSlug string) (Category, *Taxonomy, error) {
	t, err := s.Taxonomy(ctx)
	if err != nil {
		return Category{}, nil, err
	}
	c, ok := t.Resolve(idOrSlug)
	if !ok {
		return Category{}, nil, market.NotFound("category")
	}
	return c, t, nil
}

// checkName trims and validates a category name.
func checkName(c *market.Check, name string) string {
	name = strings.Join(strings.Fields(name), " ")
	switch {
	case name == "":
		c.Add("name", "is required")
	case utf8.RuneCountInString(name) > MaxCategoryNameLen:
		c.Add("name", "must be at most 100 characters")
	case strings.Contains(name, ">"):
		c.Add("name", "must not contain '>', the path separator")
	}
	return name
}

// SlugOf derives a slug from a name: lower-case letters and digits, every
// other run of characters one hyphen ("Film & Photo" -> "film-photo").
// Letters outside a-z drop their accents where they have a plain form and
// are skipped otherwise; "" when nothing is left.
func SlugOf(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(name) {
		r = plainLetter(r)
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			hyphen = false
			continue
		}
		if r == '\'' || r == '’' || r >= 0x80 && unicode.IsLetter(r) { // "Children's" -> "childrens"
			continue
		}
		hyphen = true
	}
	return b.String()
}

// plainLetter maps the common accented Latin letters to their plain form.
func plainLetter(r rune) rune {
	if r < 0x80 || !unicode.IsLetter(r) {
		return r
	}
	for _, m := range [...]struct {
		from string
		to   rune
	}{{"àáâãäåā", 'a'}, {"çćč", 'c'}, {"èéêëēė", 'e'}, {"ìíîïī", 'i'}, {"ñń", 'n'}, {"òóôõöøō", 'o'},
		{"ùúûüū", 'u'}, {"ýÿ", 'y'}, {"šś", 's'}, {"žźż", 'z'}} {
		if strings.ContainsRune(m.from, r) {
			return m.to
		}
	}
	return r
}

// siblingNamed reports whether parent (slug, "" for the top level) has a
// child other than self with this name, ignoring case: paths stay unique.
func siblingNamed(t *Taxonomy, parent, self, name string) bool {
	var kids []Category
	if parent == "" {
		kids = t.Roots()
	} else {
		kids = t.Children(parent)
	}
	for _, k := range kids {
		if k.Slug != self && strings.EqualFold(k.Name, name) {
			return true
		}
	}
	return false
}

// categoryAudit is what an audit entry records of a category.
func categoryAudit(c *Category) map[string]any {
	return map[string]any{"slug": c.Slug, "name": c.Name, "path": c.Path, "parentId": c.ParentID, "active": c.Active}
}

// CreateCategory adds a category under an active parent (or at the top).
// Its name is its one keyword for the built-in generator; its package
// defaults and price prior are the parent's (a top-level one takes those
// of the catch-all category). A slug derived from the name that is taken
// is tried once more prefixed with the parent's slug.
func (s *Service) CreateCategory(ctx context.Context, actor market.Actor, in NewCategory) (*Category, error) {
	if err := adminOnly(actor); err != nil {
		return nil, err
	}
	var c market.Check
	name := checkName(&c, in.Name)
	slug := strings.TrimSpace(in.Slug)
	derived := slug == ""
	if derived {
		slug = SlugOf(name)
		c.Require(name == "" || slug != "", "slug", "is required: the name has no letters or digits to derive one from")
	} else {
		c.Require(len(slug) <= MaxCategorySlugLen && slugPattern.MatchString(slug), "slug",
			"must be lower-case letters and digits in hyphen-separated words, at most 100 characters")
	}
	if len(slug) > MaxCategorySlugLen {
		slug = strings.TrimRight(slug[:MaxCategorySlugLen], "-")
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	var out *Category
	err := s.store.InTx(ctx, func(tx Tx) error {
		rows, err := tx.Categories(ctx)
		if err != nil {
			return err
		}
		t, err := buildTaxonomy(rows)
		if err != nil {
			return err
		}
		cat := Category{Name: name, Active: true, CreatedAt: s.clock.Now()}
		if in.ParentID = strings.TrimSpace(in.ParentID); in.ParentID != "" {
			p, ok := t.Resolve(in.ParentID)
			if !ok {
				return market.Invalid(market.FieldError{Field: "parentId", Message: "no category has this id"})
			}
			if !t.Usable(p.ID) {
				return market.Invalid(market.FieldError{Field: "parentId", Message: "is an inactive category"})
			}
			cat.ParentID, cat.ParentSlug = p.ID, p.Slug
			cat.Path = p.Path + " > " + name
		} else {
			cat.Path = name
			if fb, ok := DefaultTaxonomy().BySlug(FallbackSlug); ok {
				cat.DefaultWeightOz, cat.DefaultDims, cat.PriorPrice = fb.DefaultWeightOz, fb.DefaultDims, fb.PriorPrice
			}
		}
		if _, taken := t.BySlug(slug); taken && derived && cat.ParentSlug != "" {
			slug = strings.TrimRight(cat.ParentSlug+"-"+slug, "-")
			if len(slug) > MaxCategorySlugLen {
				slug = strings.TrimRight(slug[:MaxCategorySlugLen], "-")
			}
		}
		if _, taken := t.BySlug(slug); taken {
			return market.Invalid(market.FieldError{Field: "slug", Message: "is already used by another category"})
		}
		if siblingNamed(t, cat.ParentSlug, "", name) {
			return market.Invalid(market.FieldError{Field: "name", Message: "a category under the same parent already has this name"})
		}
		cat.Slug, cat.ID = slug, CategoryID(slug)
		if kw := strings.ToLower(name); strings.ContainsFunc(kw, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			cat.Keywords = []string{kw}
		}
		if err := tx.InsertCategory(ctx, &cat); err != nil {
			return err
		}
		if err := tx.BumpConfigVersion(ctx); err != nil {
			return err
		}
		out = &cat
		s.noteChange(ctx, nil, categoryAudit(&cat), nil)
		return nil
	})
	return out, err
}

// UpdateCategory renames a category (the paths of it and every category
// below it follow) or switches it off or on. Switching one off takes it and
// its sub-categories out of use; existing listings keep them. The last
// category in use cannot be switched off.
func (s *Service) UpdateCategory(ctx context.Context, actor market.Actor, idOrSlug string, p CategoryPatch) (*Category, error) {
	if err := adminOnly(actor); err != nil {
		return nil, err
	}
	var c market.Check
	name := ""
	if p.Name.Set {
		if p.Name.Null {
			c.Add("name", "must not be null")
		} else {
			name = checkName(&c, p.Name.Value)
		}
	}
	c.Require(!p.Active.Set || !p.Active.Null, "active", "must be true or false")
	c.Require(p.Name.Set || p.Active.Set, "name", "give name or active")
	if err := c.Err(); err != nil {
		return nil, err
	}
	var out *Category
	err := s.store.InTx(ctx, func(tx Tx) error {
		rows, err := tx.Categories(ctx)
		if err != nil {
			return err
		}
		t, err := buildTaxonomy(rows)
		if err != nil {
			return err
		}
		before, ok := t.Resolve(strings.TrimSpace(idOrSlug))
		if !ok {
			return market.NotFound("category")
		}
		if p.Name.Set && siblingNamed(t, before.ParentSlug, before.Slug, name) {
			return market.Invalid(market.FieldError{Field: "name", Message: "a category under the same parent already has this name"})
		}
		changed := make([]Category, 0, len(rows))
		for _, r := range t.All() {
			if r.ID == before.ID {
				if p.Name.Set {
					r.Name = name
				}
				if p.Active.Set {
					r.Active = p.Active.Value
				}
			}
			changed = append(changed, r)
		}
		next, err := NewTaxonomy(changed)
		if err != nil {
			return market.Internal(err)
		}
		after, _ := next.ByID(before.ID)
		if after.Name == before.Name && after.Active == before.Active {
			out = &after
			return nil
		}
		if t.Usable(before.ID) && next.UsableOnly() == nil {
			return market.Invalid(market.FieldError{Field: "active", Message: "the last category in use cannot be switched off"})
		}
		// The row and, on a rename, every row whose path moved with it.
		renamed := 0
		for _, r := range next.All() {
			old, _ := t.ByID(r.ID)
			if r.ID != before.ID && r.Path == old.Path {
				continue
			}
			if r.ID != before.ID {
				renamed++
			}
			if err := tx.UpdateCategory(ctx, &r); err != nil {
				return err
			}
		}
		if err := tx.BumpConfigVersion(ctx); err != nil {
			return err
		}
		out = &after
		s.noteChange(ctx, categoryAudit(&before), categoryAudit(&after), map[string]any{"descendantsRenamed": renamed})
		return nil
	})
	return out, err
}
