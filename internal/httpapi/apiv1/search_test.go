package apiv1_test

import (
	"net/http"
	"slices"
	"testing"

	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

// TestSearchOverHTTP: listings created over the API are found by text,
// filters and sorts, paged by cursor, in both variants; bad parameters are
// a 400 naming the parameter.
func TestSearchOverHTTP(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("Seller")
		agent := s.NewKey(owner, "sell_only")
		mk := func(brief string, price int, cond string) string {
			return s.CreateListing(owner.Auth(), brief, map[string]any{"price": price, "condition": cond}).
				Want(t, http.StatusCreated, "").Data()["id"].(string)
		}
		lamp := mk("Brass desk lamp with green glass shade", 4500, "good")
		lamp2 := mk("Mid-century floor lamp, walnut and linen", 12000, "like_new")
		bowl := mk(pyrexBrief, 3000, "new_with_tags")
		gone := mk("Table lamp, ceramic base", 2000, "fair")
		s.Do("DELETE", "/api/v1/listings/"+gone, nil, owner.Auth()).Want(t, http.StatusOK, "")

		ids := func(r *testkit.Response, key string) []string {
			var list []any
			if key == "" {
				list = r.List()
			} else {
				list = r.Data()[key].([]any)
			}
			var out []string
			for _, x := range list {
				out = append(out, x.(map[string]any)["id"].(string))
			}
			return out
		}

		r := s.Do("GET", "/api/v1/listings?q=lamp", nil).Want(t, http.StatusOK, "")
		if got := ids(r, ""); len(got) != 2 || !slices.Contains(got, lamp) || !slices.Contains(got, lamp2) {
			t.Fatalf("q=lamp found %v", got)
		}
		meta := r.JSON["meta"].(map[string]any)
		if _, ok := meta["total"]; ok || meta["cursor"] != nil || meta["limit"] != 20.0 {
			t.Fatalf("meta %v", meta)
		}
		// Aliases, filters, sorts.
		if got := ids(s.Do("GET", "/api/v1/listings?search=lamp&sort=price_desc", nil).Want(t, http.StatusOK, ""), ""); !slices.Equal(got, []string{lamp2, lamp}) {
			t.Fatalf("price_desc %v", got)
		}
		if got := ids(s.Do("GET", "/api/v1/listings?condition=new", nil).Want(t, http.StatusOK, ""), ""); !slices.Equal(got, []string{bowl}) {
			t.Fatalf("condition=new %v", got)
		}
		if got := ids(s.Do("GET", "/api/v1/listings?minPrice=3000&maxPrice=4500&sortBy=price_asc", nil).Want(t, http.StatusOK, ""), ""); !slices.Equal(got, []string{bowl, lamp}) {
			t.Fatalf("price range %v", got)
		}
		// Cursor paging over everything active, newest first.
		p1 := s.Do("GET", "/api/v1/listings?limit=2", nil).Want(t, http.StatusOK, "")
		cur, _ := p1.JSON["meta"].(map[string]any)["cursor"].(string)
		if cur == "" {
			t.Fatalf("no cursor after a full first page: %s", p1.Body)
		}
		p2 := s.Do("GET", "/api/v1/listings?limit=2&cursor="+cur, nil).Want(t, http.StatusOK, "")
		all := append(ids(p1, ""), ids(p2, "")...)
		if !slices.Equal(all, []string{bowl, lamp2, lamp}) {
			t.Fatalf("paged %v", all)
		}

		// Variant B search, similar, price check.
		b := s.Do("GET", "/v1/search?q=lamp&max_price=5000", nil, agent.Auth()).Want(t, http.StatusOK, "")
		if got := ids(b, "listings"); !slices.Equal(got, []string{lamp}) || b.Data()["total"] != 1.0 || b.Data()["cursor"] != nil {
			t.Fatalf("B search %s", b.Body)
		}
		sim := s.Do("GET", "/v1/search/similar/"+lamp, nil, agent.Auth()).Want(t, http.StatusOK, "")
		if got := ids(sim, "listings"); slices.Contains(got, lamp) {
			t.Fatalf("similar lists the listing itself: %v", got)
		}
		s.Do("GET", "/v1/search/similar/"+market.NewID(), nil, agent.Auth()).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		pc := s.Do("GET", "/v1/search/price-check?q=lamp", nil, agent.Auth()).Want(t, http.StatusOK, "").Data()
		if pc["active_count"] != 2.0 || pc["min"] != 4500.0 || pc["max"] != 12000.0 || pc["median"] != 8250.0 ||
			pc["sold_count"] != 0.0 || pc["sold_median"] != nil {
			t.Fatalf("price check %v", pc)
		}

		for _, c := range []struct{ path, field string }{
			{"/api/v1/listings?limit=51", "limit"},
			{"/api/v1/listings?limit=0", "limit"},
			{"/api/v1/listings?cursor=not-an-id", "cursor"},
			{"/api/v1/listings?cursor=" + market.NewID(), "cursor"},
			{"/api/v1/listings?minPrice=-1", "minPrice"},
			{"/api/v1/listings?maxPrice=abc", "maxPrice"},
			{"/api/v1/listings?condition=mint", "condition"},
			{"/api/v1/listings?categoryId=" + market.NewID(), "categoryId"},
			{"/api/v1/listings?category=no-such-slug", "category"},
			{"/api/v1/listings?sortBy=cheapest", "sortBy"},
			{"/v1/search?limit=51", "limit"},
			{"/v1/search/price-check", "q"},
		} {
			h := []testkit.Header{agent.Auth()}
			r := s.Do("GET", c.path, nil, h...).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
			if !slices.Contains(r.Fields(), c.field) {
				t.Errorf("%s: fields %v, want %s", c.path, r.Fields(), c.field)
			}
		}
	})
}
