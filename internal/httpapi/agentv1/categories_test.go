package agentv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/listings"
	"marketplace/internal/testkit"
)

func TestCategoriesB(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("cats")
		key := s.NewKey(owner, "sell_only")
		for _, h := range []testkit.Header{key.Auth(), owner.Auth()} {
			r := s.Do("GET", "/v1/categories", nil, h).Want(t, http.StatusOK, "")
			d := r.Data()
			cats := d["categories"].([]any)
			if int(d["total"].(float64)) != listings.DefaultTaxonomy().Len() || len(cats) != len(listings.DefaultTaxonomy().Roots()) {
				t.Fatalf("total %v, %d roots", d["total"], len(cats))
			}
			first := cats[0].(map[string]any)
			if _, ok := first["parent_id"]; !ok || first["default_dimensions"] == nil || first["default_weight_oz"] == nil {
				t.Fatalf("snake_case fields missing: %v", first)
			}
		}
		s.Do("GET", "/v1/categories", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("GET", "/v1/categories", nil, testkit.AgentKey("mk_test_nope")).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
	})
}
