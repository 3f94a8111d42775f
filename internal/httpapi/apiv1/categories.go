package apiv1

import (
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
	Path              string     `json:"path" example:"Electronics > Phones > Smartphones" doc:"Names from the top, joined by ' > '."`
	ParentID          *string    `json:"parentId" format:"uuid"`
	Depth             int        `json:"depth" minimum:"0" doc:"0 for a top-level category."`
	DefaultWeightOz   int        `json:"defaultWeightOz" doc:"Packed shipping weight the AI step uses when the seller gives none."`
	DefaultDimensions dimensions `json:"defaultDimensions"`
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
	tree, total, err := a.Listings.CategoryTree(r.Context())
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, toCategories(tree), httpapi.Meta{"total": total})
}
