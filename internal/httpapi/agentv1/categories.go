package agentv1

import (
	"context"
	"net/http"

	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
)

type dimensions struct {
	L float64 `json:"l"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

type category struct {
	ID                string     `json:"id" format:"uuid"`
	Slug              string     `json:"slug" example:"smartphones"`
	Name              string     `json:"name"`
	Path              string     `json:"path" example:"Electronics > Phones > Smartphones"`
	ParentID          *string    `json:"parent_id" format:"uuid"`
	Depth             int        `json:"depth" minimum:"0"`
	DefaultWeightOz   int        `json:"default_weight_oz"`
	DefaultDimensions dimensions `json:"default_dimensions" doc:"Package size in inches."`
	Children          []category `json:"children"`
}

func toCategories(nodes []listings.CategoryNode) []category {
	out := make([]category, len(nodes))
	for i, n := range nodes {
		d := n.DefaultDims
		out[i] = category{ID: n.ID, Slug: n.Slug, Name: n.Name, Path: n.Path, ParentID: strOrNil(n.ParentID), Depth: n.Depth,
			DefaultWeightOz: n.DefaultWeightOz, DefaultDimensions: dimensions{L: d.L, W: d.W, H: d.H}, Children: toCategories(n.Children)}
	}
	return out
}

func (a *API) categories(w http.ResponseWriter, r *http.Request) error {
	out, err := a.categoriesOf(r.Context())
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// categoriesOf is GET /v1/categories, the get_categories tool and the MCP
// resource marketplace://categories: the whole category tree.
func (a *API) categoriesOf(ctx context.Context) (*categoryTree, error) {
	tree, total, err := a.Listings.CategoryTree(ctx)
	if err != nil {
		return nil, err
	}
	return &categoryTree{Categories: toCategories(tree), Total: total}, nil
}

type categoryTree struct {
	Categories []category `json:"categories"`
	Total      int        `json:"total" minimum:"0"`
}
