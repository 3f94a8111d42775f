package api

import (
	"context"

	"marketplace/internal/listings"
)

// Category is a node of the category tree. It refers to itself, so
// httpapi.Spell cannot make its snake_case twin with reflect.StructOf:
// Variant B declares that twin by hand (agentv1's category), and
// httpapi.DeclareTwin checks that it is the one Spell would make.
type Category struct {
	ID                string     `json:"id" format:"uuid"`
	Slug              string     `json:"slug" example:"smartphones"`
	Name              string     `json:"name"`
	Path              string     `json:"path" example:"Electronics > Phones > Smartphones" doc:"Names from the top, joined by ' > '."`
	ParentID          *string    `json:"parentId" format:"uuid"`
	Depth             int        `json:"depth" minimum:"0" doc:"0 for a top-level category."`
	DefaultWeightOz   int        `json:"defaultWeightOz" doc:"Packed shipping weight the AI step uses when the seller gives none."`
	DefaultDimensions Dimensions `json:"defaultDimensions"`
	Children          []Category `json:"children"`
}

// categoriesOf is the view of a (sub)tree.
func categoriesOf(nodes []listings.CategoryNode) []Category {
	out := make([]Category, len(nodes))
	for i, n := range nodes {
		out[i] = Category{ID: n.ID, Slug: n.Slug, Name: n.Name, Path: n.Path, ParentID: strOrNil(n.ParentID), Depth: n.Depth,
			DefaultWeightOz: n.DefaultWeightOz, DefaultDimensions: dimensionsOf(n.DefaultDims), Children: categoriesOf(n.Children)}
	}
	return out
}

// Categories is the category tree in use, and how many categories it has.
func (x Listings) Categories(ctx context.Context) ([]Category, int, error) {
	tree, total, err := x.Service.CategoryTree(ctx)
	if err != nil {
		return nil, 0, err
	}
	return categoriesOf(tree), total, nil
}
