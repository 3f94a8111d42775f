package apiv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/listings"
	"marketplace/internal/testkit"
)

func TestCategoryTree(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		r := s.Do("GET", "/api/v1/listings/categories", nil).Want(t, http.StatusOK, "")
		tax := listings.DefaultTaxonomy()
		roots := r.List()
		if len(roots) != len(tax.Roots()) || int(r.JSON["meta"].(map[string]any)["total"].(float64)) != tax.Len() {
			t.Fatalf("%d roots, total %v; want %d and %d", len(roots), r.JSON["meta"], len(tax.Roots()), tax.Len())
		}
		// Every node sits under its parent, with the stable id of its slug,
		// and the tree holds every category once.
		seen := 0
		var walk func(nodes []any, parentID any, depth int)
		walk = func(nodes []any, parentID any, depth int) {
			prev := ""
			for _, n := range nodes {
				c := n.(map[string]any)
				seen++
				if c["id"] != listings.CategoryID(c["slug"].(string)) || c["parentId"] != parentID || int(c["depth"].(float64)) != depth {
					t.Fatalf("node %v under %v at depth %d", c, parentID, depth)
				}
				if name := c["name"].(string); depth == 0 && name < prev {
					t.Fatalf("top level not in name order: %q after %q", name, prev)
				} else {
					prev = name
				}
				walk(c["children"].([]any), c["id"], depth+1)
			}
		}
		walk(roots, nil, 0)
		if seen != tax.Len() {
			t.Fatalf("the tree holds %d categories, want %d", seen, tax.Len())
		}
		// Public: credentials are not needed and not checked.
		s.Do("GET", "/api/v1/listings/categories", nil, testkit.Bearer("garbage")).Want(t, http.StatusOK, "")
	})
}
