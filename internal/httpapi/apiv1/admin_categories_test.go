package apiv1_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"marketplace/internal/listings"
	"marketplace/internal/testkit"
)

// findCategory looks for slug in a category tree (children included).
func findCategory(nodes []any, slug string) map[string]any {
	for _, n := range nodes {
		c := n.(map[string]any)
		if c["slug"] == slug {
			return c
		}
		if kids, _ := c["children"].([]any); len(kids) > 0 {
			if f := findCategory(kids, slug); f != nil {
				return f
			}
		}
	}
	return nil
}

// inTrees reports whether slug is in the category tree of both surfaces
// (Variant B's asked with key).
func inTrees(t *testing.T, s *testkit.Server, key *testkit.Key, slug string) (a, b bool) {
	t.Helper()
	a = findCategory(s.Do("GET", "/api/v1/listings/categories", nil).Want(t, http.StatusOK, "").List(), slug) != nil
	tree, _ := s.Do("GET", "/v1/categories", nil, key.Auth()).Want(t, http.StatusOK, "").Data()["categories"].([]any)
	b = findCategory(tree, slug) != nil
	return a, b
}

// field is the one field a VALIDATION_ERROR names, or a list of them.
func field(r *testkit.Response) string {
	if fs := r.Fields(); len(fs) == 1 {
		return fs[0]
	}
	return strings.Join(r.Fields(), ",")
}

// Admins list every category, and the authorization table holds for the
// three routes.
func TestAdminCategoriesListAndAuth(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		adminAuthTable(t, s, adm, "/api/v1/admin/categories")
		user := s.Register("cats-user")
		for _, h := range []testkit.Header{user.Auth(), s.NewKey(adm, "buy_sell").Auth()} {
			s.Do("POST", "/api/v1/admin/categories", map[string]any{"name": "Nope"}, h).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do("PATCH", "/api/v1/admin/categories/"+listings.CategoryID("electronics"), map[string]any{"active": false}, h).
				Want(t, http.StatusForbidden, "FORBIDDEN")
		}
		s.Do("POST", "/api/v1/admin/categories", map[string]any{"name": "Nope"}).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("PATCH", "/api/v1/admin/categories/"+listings.CategoryID("electronics"), map[string]any{"active": false}).
			Want(t, http.StatusUnauthorized, "UNAUTHORIZED")

		n := listings.DefaultTaxonomy().Len()
		r := s.Do("GET", "/api/v1/admin/categories", nil, adm.Auth()).Want(t, http.StatusOK, "")
		meta := r.JSON["meta"].(map[string]any)
		if len(r.List()) != 20 || meta["total"] != float64(n) || meta["limit"] != float64(20) || meta["offset"] != float64(0) {
			t.Fatalf("first page: %d items, meta %v; want 20 of %d", len(r.List()), meta, n)
		}
		var all []any
		for off := 0; off < n; off += 100 {
			all = append(all, s.Do("GET", "/api/v1/admin/categories?limit=100&offset="+strconv.Itoa(off), nil, adm.Auth()).
				Want(t, http.StatusOK, "").List()...)
		}
		if len(all) != n {
			t.Fatalf("paged through %d categories, want %d", len(all), n)
		}
		prev := ""
		for _, e := range all {
			c := e.(map[string]any)
			if c["active"] != true || c["available"] != true || c["path"].(string) < prev {
				t.Fatalf("category %v (after path %q)", c, prev)
			}
			prev = c["path"].(string)
		}
		for _, q := range []string{"limit=0", "limit=101", "offset=-1"} {
			s.Do("GET", "/api/v1/admin/categories?"+q, nil, adm.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		}
	})
}

// Creating and patching validate every field; unknown ids are 404; each
// change is audited with the values before and after.
func TestAdminCategoriesValidation(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		post := func(body map[string]any) *testkit.Response {
			t.Helper()
			return s.Do("POST", "/api/v1/admin/categories", body, adm.Auth())
		}
		kb := listings.CategoryID("keyboards-mice")
		c := post(map[string]any{"name": "  Split   Keyboards ", "parentId": kb}).Want(t, http.StatusCreated, "").Data()
		if c["slug"] != "split-keyboards" || c["name"] != "Split Keyboards" || c["parentId"] != kb || c["depth"] != float64(3) ||
			c["path"] != "Electronics > Computers & Tablets > Keyboards & Mice > Split Keyboards" || c["active"] != true ||
			c["available"] != true || c["id"] != listings.CategoryID("split-keyboards") {
			t.Fatalf("created %v", c)
		}
		id := c["id"].(string)
		e := auditOf(t, s, "POST /api/v1/admin/categories", id)
		if after, _ := e.Details["after"].(map[string]any); after["slug"] != "split-keyboards" || after["active"] != true || e.Details["before"] != nil {
			t.Fatalf("create audit %v", e.Details)
		}

		// A derived slug already taken takes the parent's slug in front; the
		// parent may be named by slug.
		top := post(map[string]any{"name": "Split Keyboards", "parentId": "musical-instruments"}).Want(t, http.StatusCreated, "").Data()
		if top["slug"] != "musical-instruments-split-keyboards" {
			t.Fatalf("second split keyboards %v", top)
		}
		root := post(map[string]any{"name": "Garden Gnomes", "slug": "gnomes"}).Want(t, http.StatusCreated, "").Data()
		if root["slug"] != "gnomes" || root["parentId"] != nil || root["path"] != "Garden Gnomes" || root["depth"] != float64(0) {
			t.Fatalf("top-level %v", root)
		}

		for _, bad := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{}, "name"},
			{map[string]any{"name": "   "}, "name"},
			{map[string]any{"name": "A > B"}, "name"},
			{map[string]any{"name": string(make([]byte, 101))}, "name"},
			{map[string]any{"name": "split keyboards", "parentId": kb}, "name"}, // a sibling's name, any case
			{map[string]any{"name": "Other", "slug": "gnomes"}, "slug"},
			{map[string]any{"name": "Other", "slug": "Bad Slug"}, "slug"},
			{map[string]any{"name": "Other", "slug": "electronics"}, "slug"},
			{map[string]any{"name": "!!!"}, "slug"},
			{map[string]any{"name": "Other", "parentId": "no-such-category"}, "parentId"},
		} {
			r := post(bad.body).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
			if f := field(r); f != bad.field {
				t.Errorf("%v: field %q, want %q (%s)", bad.body, f, bad.field, r.Body)
			}
		}

		patch := func(id string, body map[string]any) *testkit.Response {
			t.Helper()
			return s.Do("PATCH", "/api/v1/admin/categories/"+id, body, adm.Auth())
		}
		patch(listings.CategoryID("no-such"), map[string]any{"active": false}).Want(t, http.StatusNotFound, "NOT_FOUND")
		for _, body := range []map[string]any{{}, {"name": ""}, {"name": "a>b"}, {"name": nil}, {"active": nil}} {
			patch(id, body).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		}
		// A sibling's name, whatever the case (the parent's own name is fine).
		patch(top["id"].(string), map[string]any{"name": "keyboards & pianos"}).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		patch(id, map[string]any{"name": "Keyboards & Mice"}).Want(t, http.StatusOK, "")
		patch(id, map[string]any{"name": "Split Keyboards"}).Want(t, http.StatusOK, "")

		// Under an inactive parent nothing new is made.
		patch(root["id"].(string), map[string]any{"active": false}).Want(t, http.StatusOK, "")
		if r := post(map[string]any{"name": "Concrete", "parentId": root["id"]}).Want(t, http.StatusBadRequest, "VALIDATION_ERROR"); field(r) != "parentId" {
			t.Fatalf("under an inactive parent: %s", r.Body)
		}

		// A rename moves the paths below it, and is audited.
		comp := listings.CategoryID("computers")
		got := patch(comp, map[string]any{"name": "Computers"}).Want(t, http.StatusOK, "").Data()
		if got["path"] != "Electronics > Computers" || got["slug"] != "computers" {
			t.Fatalf("renamed %v", got)
		}
		tree := s.Do("GET", "/api/v1/listings/categories", nil).Want(t, http.StatusOK, "").List()
		if sk := findCategory(tree, "split-keyboards"); sk == nil || sk["path"] != "Electronics > Computers > Keyboards & Mice > Split Keyboards" {
			t.Fatalf("descendant after the rename: %v", sk)
		}
		b, a := auditChange(t, auditOf(t, s, "PATCH /api/v1/admin/categories/{id}", comp), "name")
		if b != "Computers & Tablets" || a != "Computers" {
			t.Fatalf("rename audit %v -> %v", b, a)
		}
		b, a = auditChange(t, auditOf(t, s, "PATCH /api/v1/admin/categories/{id}", root["id"].(string)), "active")
		if b != true || a != false {
			t.Fatalf("switch audit %v -> %v", b, a)
		}
		// The slug names a category on the path too.
		patch("gnomes", map[string]any{"active": true}).Want(t, http.StatusOK, "")
	})
}

// The chain an admin category goes through: made under a built-in parent,
// it is a listing's category, found by the search filter and blocked by a
// restriction on the parent, and picked by the AI step; switched off on one
// replica, the other stops offering it on its next request while existing
// listings keep it.
func TestAdminCategoriesLive(t *testing.T) {
	t.Parallel()
	twoReplicas(t, func(t *testing.T, one, two *testkit.Server) {
		adm := one.Admin()
		seller := one.VerifiedOwner("cats-seller")
		key := one.NewKey(seller, "buy_sell")
		// Replica two's tree is cached before the change.
		if a, b := inTrees(t, two, key, "split-keyboards"); a || b {
			t.Fatal("split-keyboards exists before it is made")
		}
		c := one.Do("POST", "/api/v1/admin/categories", map[string]any{"name": "Split Keyboards", "parentId": "keyboards-mice"},
			adm.Auth()).Want(t, http.StatusCreated, "").Data()
		id := c["id"].(string)
		if a, b := inTrees(t, two, key, "split-keyboards"); !a || !b {
			t.Fatalf("replica two's trees after the create: %v %v", a, b)
		}

		// A listing in it, on the other replica, by id; search by the
		// category and by its parent finds it.
		l := two.ListingWith(t, seller, "Ergonomic split keyboard with tenting legs", 9000, map[string]any{"categoryId": id})
		for _, q := range []string{id, "split-keyboards", "keyboards-mice", listings.CategoryID("electronics")} {
			found := false
			for _, x := range two.Do("GET", "/api/v1/listings?categoryId="+q, nil).Want(t, http.StatusOK, "").List() {
				found = found || x.(map[string]any)["id"] == l
			}
			if !found {
				t.Fatalf("search by category %s misses the listing", q)
			}
		}
		// The AI step picks it from the brief alone.
		gen := two.CreateListing(seller.Auth(), "Split keyboards pair, brown switches, barely used", map[string]any{"condition": "good",
			"shippingType": "free"}).Want(t, http.StatusCreated, "").Data()
		if gen["categoryId"] != id {
			t.Fatalf("the AI step chose %v, want the new category", gen["categoryId"])
		}

		// A restriction on the parent (by slug) covers it.
		sh := two.NewShopper("cats-buyer", "pm_card_visa")
		two.SetControls(sh.User, map[string]any{"categoryRestrictions": []string{"keyboards-mice"}})
		two.Do("POST", purchPath, purchBody(l, 20000), sh.Key.Auth()).Want(t, http.StatusForbidden, "CATEGORY_RESTRICTED")
		two.SetControls(sh.User, map[string]any{"categoryRestrictions": []string{"split-keyboards"}})
		two.Do("POST", purchPath, purchBody(l, 20000), sh.Key.Auth()).Want(t, http.StatusForbidden, "CATEGORY_RESTRICTED")

		// Switched off on replica one: replica two's next requests see it.
		off := one.Do("PATCH", "/api/v1/admin/categories/"+id, map[string]any{"active": false}, adm.Auth()).Want(t, http.StatusOK, "").Data()
		if off["active"] != false || off["available"] != false {
			t.Fatalf("switched off: %v", off)
		}
		if a, b := inTrees(t, two, key, "split-keyboards"); a || b {
			t.Fatalf("replica two still lists it: %v %v", a, b)
		}
		r := two.CreateListing(seller.Auth(), "Another split keyboard", map[string]any{"categoryId": id, "price": 5000}).
			Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		if f := field(r); f != "categoryId" && f != "category_id" {
			t.Fatalf("field %q: %s", f, r.Body)
		}
		two.Do("PATCH", "/api/v1/listings/"+gen["id"].(string), map[string]any{"categoryId": id}, seller.Auth()).
			Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		gen2 := two.CreateListing(seller.Auth(), "Split keyboards pair, brown switches, barely used", map[string]any{"condition": "good",
			"shippingType": "free"}).Want(t, http.StatusCreated, "").Data()
		if gen2["categoryId"] == id {
			t.Fatal("the AI step still picks the inactive category")
		}
		got := two.Do("GET", "/api/v1/listings/"+l, nil).Want(t, http.StatusOK, "").Data()
		if got["categoryId"] != id {
			t.Fatalf("the existing listing lost its category: %v", got["categoryId"])
		}
		// The restriction still holds on the listing kept in it.
		two.SetControls(sh.User, map[string]any{"categoryRestrictions": []string{"keyboards-mice"}})
		two.Do("POST", purchPath, purchBody(l, 20000), sh.Key.Auth()).Want(t, http.StatusForbidden, "CATEGORY_RESTRICTED")

		// Switching the parent off takes the whole subtree out; back on, the
		// child comes back as it was (here: still off).
		one.Do("PATCH", "/api/v1/admin/categories/"+id, map[string]any{"active": true}, adm.Auth()).Want(t, http.StatusOK, "")
		one.Do("PATCH", "/api/v1/admin/categories/keyboards-mice", map[string]any{"active": false}, adm.Auth()).Want(t, http.StatusOK, "")
		if a, b := inTrees(t, two, key, "split-keyboards"); a || b {
			t.Fatal("a child of an inactive category is still listed")
		}
		if a, _ := inTrees(t, two, key, "keyboards-mice"); a {
			t.Fatal("the inactive parent is still listed")
		}
		two.CreateListing(seller.Auth(), "Another split keyboard", map[string]any{"categoryId": id, "price": 5000}).
			Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		one.Do("PATCH", "/api/v1/admin/categories/keyboards-mice", map[string]any{"active": true}, adm.Auth()).Want(t, http.StatusOK, "")
		if a, b := inTrees(t, two, key, "split-keyboards"); !a || !b {
			t.Fatal("the child did not come back with its parent")
		}
	})
}
