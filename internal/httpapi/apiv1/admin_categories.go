package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
)

// The admin's category routes (CONTRACT.md 14): the categories table is the
// tree every replica uses from the next request on.

// RegisterAdminCategories adds the admin category routes.
func (a *API) RegisterAdminCategories(rt *httpapi.Router) {
	rt = rt.In("admin")
	p := Prefix
	rt.Handle("GET", p+"/admin/categories", httpapi.Admin, a.adminCategories)
	rt.Handle("POST", p+"/admin/categories", httpapi.Admin, a.adminCreateCategory)
	rt.Handle("PATCH", p+"/admin/categories/{id}", httpapi.Admin, a.adminUpdateCategory)
}

// adminCategory is the admin's view of a category, inactive ones included.
type adminCategory struct {
	ID        string    `json:"id" format:"uuid"`
	Slug      string    `json:"slug" example:"mechanical-keyboards"`
	Name      string    `json:"name"`
	Path      string    `json:"path" example:"Electronics > Computers & Tablets > Mechanical Keyboards" doc:"Names from the top, joined by ' > '."`
	ParentID  *string   `json:"parentId" format:"uuid" doc:"Null for a top-level category."`
	Depth     int       `json:"depth" minimum:"0" doc:"0 for a top-level category."`
	Active    bool      `json:"active" doc:"The category's own switch."`
	Available bool      `json:"available" doc:"Whether it is in use: it and every category above it are active. Only available categories appear in the category trees, are picked by the AI step and may be named by a listing create or update."`
	CreatedAt time.Time `json:"createdAt" doc:"When it entered the table; for the built-in categories, the first start-up."`
}

func toAdminCategory(t *listings.Taxonomy, c *listings.Category) adminCategory {
	return adminCategory{ID: c.ID, Slug: c.Slug, Name: c.Name, Path: c.Path, ParentID: strOrNil(c.ParentID), Depth: c.Depth,
		Active: c.Active, Available: t.Usable(c.ID), CreatedAt: c.CreatedAt}
}

type adminCreateCategoryBody struct {
	Name     string  `json:"name" required:"true" minLength:"1" maxLength:"100" doc:"Trimmed; must not contain '>' nor repeat a sibling's name (ignoring case)."`
	ParentID *string `json:"parentId" doc:"The parent's id (or slug); it must be available. Absent or null for a top-level category."`
	Slug     *string `json:"slug" maxLength:"100" pattern:"^[a-z0-9]+(-[a-z0-9]+)*$" doc:"Unique. Absent or null: derived from the name (lower-case letters and digits, other runs one hyphen); a derived slug already taken is prefixed with the parent's slug."`
}

type adminUpdateCategoryBody struct {
	Name   httpapi.Opt[string] `json:"name" minLength:"1" maxLength:"100" nullable:"false" doc:"A new name; the paths of the category and of every category below it follow."`
	Active httpapi.Opt[bool]   `json:"active" nullable:"false" doc:"false takes the category and its sub-categories out of use (existing listings keep them); true brings it back."`
}

// adminCategories is GET /admin/categories?limit=&offset=: every category
// in path order.
func (a *API) adminCategories(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	cs, t, total, err := a.Listings.AdminCategories(r.Context(), actor(r).Actor, limit, offset)
	if err != nil {
		return err
	}
	out := make([]adminCategory, len(cs))
	for i := range cs {
		out[i] = toAdminCategory(t, &cs[i])
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, httpapi.PageMeta(total, limit, offset))
}

// adminCreateCategory is POST /admin/categories {name, parentId?, slug?}.
func (a *API) adminCreateCategory(w http.ResponseWriter, r *http.Request) error {
	var b adminCreateCategoryBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	in := listings.NewCategory{Name: b.Name}
	if b.ParentID != nil {
		in.ParentID = *b.ParentID
	}
	if b.Slug != nil {
		in.Slug = *b.Slug
	}
	c, err := a.Listings.CreateCategory(r.Context(), actor(r).Actor, in)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "category", c.ID)
	return a.writeAdminCategory(w, r, http.StatusCreated, c.ID)
}

// adminUpdateCategory is PATCH /admin/categories/{id} {name?, active?}.
func (a *API) adminUpdateCategory(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "category")
	var b adminUpdateCategoryBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	c, err := a.Listings.UpdateCategory(r.Context(), actor(r).Actor, id, listings.CategoryPatch{Name: b.Name, Active: b.Active})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "category", c.ID) // the path may name it by slug
	return a.writeAdminCategory(w, r, http.StatusOK, c.ID)
}

// writeAdminCategory answers the category as the tree in force now has it.
func (a *API) writeAdminCategory(w http.ResponseWriter, r *http.Request, status int, id string) error {
	c, t, err := a.Listings.AdminCategory(r.Context(), id)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, status, toAdminCategory(t, &c))
}
