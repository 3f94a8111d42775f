package apiv1_test

import (
	"context"
	"net/http"
	"testing"

	"marketplace/internal/testkit"
)

// pkgParcel is a listing's weight and size as the seller reads it.
type pkgParcel struct {
	weight  int64
	l, w, h float64
}

func pkgOf(t *testing.T, s *testkit.Server, seller *testkit.User, id string) (pkgParcel, map[string]any) {
	t.Helper()
	l := s.Do("GET", "/api/v1/listings/"+id, nil, seller.Auth()).Want(t, http.StatusOK, "").Data()
	d := testkit.Obj(t, l, "dimensions")
	return pkgParcel{weight: testkit.Num(t, l, "weightOz"), l: d["l"].(float64), w: d["w"].(float64), h: d["h"].(float64)}, l
}

// A new listing that gives no weight or size takes them from the seller's
// package defaults before generation's category default; a seller without
// them keeps the category default, and what the seller gives wins.
func TestListingPackageDefaults(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		const brief = "Cast iron skillet, 12 inch, well seasoned"
		fields := func(kv ...any) map[string]any {
			return testkit.Body(map[string]any{"price": 4000, "condition": "good"}, kv...)
		}
		packer := s.VerifiedOwner("pkgpacker")
		prefsPut(t, s, packer, map[string]any{"packageDefaults": map[string]any{"weightOz": 80, "lengthIn": 12,
			"widthIn": 10, "heightIn": 6}})
		plain := s.VerifiedOwner("pkgplain")

		id := s.CreateListing(packer.Auth(), brief, fields()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		if got, l := pkgOf(t, s, packer, id); got != (pkgParcel{80, 12, 10, 6}) || l["status"] != "active" {
			t.Fatalf("listing of a seller with package defaults: %+v (%v)", got, l)
		}

		// Without package defaults: the category's typical parcel, as before.
		id = s.CreateListing(plain.Auth(), brief, fields()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		got, l := pkgOf(t, s, plain, id)
		tax, err := s.App.Listings.Taxonomy(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		cat, ok := tax.ByID(l["categoryId"].(string))
		if !ok {
			t.Fatalf("listing category %v", l["categoryId"])
		}
		w, d, ok := tax.Defaults(cat.Slug)
		if want := (pkgParcel{int64(w), d.L, d.W, d.H}); !ok || got != want || got == (pkgParcel{80, 12, 10, 6}) {
			t.Fatalf("listing of a seller without package defaults: %+v, want the %s default %+v", got, cat.Slug, want)
		}

		// What the seller gives is kept; only the missing part is filled.
		id = s.CreateListing(packer.Auth(), brief, fields("weightOz", 20)).
			Want(t, http.StatusCreated, "").Data()["id"].(string)
		if got, _ := pkgOf(t, s, packer, id); got != (pkgParcel{20, 12, 10, 6}) {
			t.Fatalf("listing with its own weight: %+v", got)
		}
		id = s.CreateListing(packer.Auth(), brief, fields("dimensions", map[string]any{"l": 5, "w": 4, "h": 3})).
			Want(t, http.StatusCreated, "").Data()["id"].(string)
		if got, _ := pkgOf(t, s, packer, id); got != (pkgParcel{80, 5, 4, 3}) {
			t.Fatalf("listing with its own size: %+v", got)
		}
		id = s.CreateListing(packer.Auth(), brief, fields("weightOz", 7, "dimensions",
			map[string]any{"l": 5, "w": 4, "h": 3})).Want(t, http.StatusCreated, "").Data()["id"].(string)
		if got, _ := pkgOf(t, s, packer, id); got != (pkgParcel{7, 5, 4, 3}) {
			t.Fatalf("listing with its own parcel: %+v", got)
		}
	})
}
