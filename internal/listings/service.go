package listings

import (
	"context"

	"marketplace/internal/market"
)

// Service is the listings area. So far it serves the category tree; the
// listing lifecycle builds on it.
type Service struct {
	store Store
	clock market.Clock
	tax   *Taxonomy
}

// NewService builds the listings service over the built-in taxonomy.
func NewService(store Store, clock market.Clock) *Service {
	return &Service{store: store, clock: clock, tax: DefaultTaxonomy()}
}

// SeedCategories makes sure every built-in category exists in the store.
func (s *Service) SeedCategories(ctx context.Context) error {
	return s.store.InTx(ctx, func(tx Tx) error {
		return tx.SeedCategories(ctx, s.tax.All(), s.clock.Now())
	})
}

// CategoryNode is a category with its children, for the tree answer.
type CategoryNode struct {
	Category
	Children []CategoryNode
}

// CategoryTree returns the active categories as a tree, roots in name order.
func (s *Service) CategoryTree(ctx context.Context) ([]CategoryNode, int, error) {
	cats, err := s.store.Read().Categories(ctx)
	if err != nil {
		return nil, 0, err
	}
	byParent := map[string][]Category{}
	for _, c := range cats {
		byParent[c.ParentID] = append(byParent[c.ParentID], c)
	}
	var build func(parentID string, depth int) []CategoryNode
	build = func(parentID string, depth int) []CategoryNode {
		out := []CategoryNode{}
		for _, c := range byParent[parentID] {
			c.Depth = depth
			out = append(out, CategoryNode{Category: c, Children: build(c.ID, depth+1)})
		}
		return out
	}
	return build("", 0), len(cats), nil
}
