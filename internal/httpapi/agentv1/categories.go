package agentv1

import (
	"context"
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
)

// category is api.Category as Variant B spells it, declared by hand: the
// tree refers to itself, and reflect.StructOf cannot make such a type.
// DeclareTwin checks, at start-up, that it is the twin Spell would make
// (the same fields, tags spelled alike); Spell then reads a tree of views
// in its memory, as for every other view.
type category struct {
	ID                string         `json:"id" format:"uuid"`
	Slug              string         `json:"slug" example:"smartphones"`
	Name              string         `json:"name"`
	Path              string         `json:"path" example:"Electronics > Phones > Smartphones" doc:"Names from the top, joined by ' > '."`
	ParentID          *string        `json:"parent_id" format:"uuid"`
	Depth             int            `json:"depth" minimum:"0" doc:"0 for a top-level category."`
	DefaultWeightOz   int            `json:"default_weight_oz" doc:"Packed shipping weight the AI step uses when the seller gives none."`
	DefaultDimensions api.Dimensions `json:"default_dimensions"`
	Children          []category     `json:"children"`
}

var _ = httpapi.DeclareTwin(api.Category{}, category{})

func (a *API) categories(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.categoriesOf(r.Context()))
}

// categoriesOf is GET /v1/categories, the get_categories tool and the MCP
// resource marketplace://categories: the whole category tree.
func (a *API) categoriesOf(ctx context.Context) (*categoryTree, error) {
	tree, total, err := a.ListingOps().Categories(ctx)
	if err != nil {
		return nil, err
	}
	return &categoryTree{Categories: tree, Total: total}, nil
}

type categoryTree struct {
	Categories []api.Category `json:"categories"`
	Total      int            `json:"total" minimum:"0"`
}
