package apiv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/accounts"
	"marketplace/internal/listings"
	"marketplace/internal/testkit"
)

// The public routes read an agent key when one is sent: search results, a
// seller's listings and profile carry contentTrust for another seller's
// text, as the listing itself does; humans and anonymous callers get none,
// and a key that does not authenticate is ignored, as public routes do.
func TestContentTrustPublicRoutes(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := newOfferScene(t, s, "trustpub")
		s.EditListing(sc.listing, func(l *listings.Listing) { l.Description = trustDescription })
		s.UpdateUser(sc.seller.ID, func(u *accounts.User) { u.DisplayName = trustSellerName })
		buyerKey := sc.buyer.Key.Auth()
		username := s.Do("GET", "/api/v1/listings/"+sc.listing, nil).Want(t, http.StatusOK, "").Data()["seller"].(map[string]any)["username"].(string)

		for _, path := range []string{"/api/v1/listings?q=walnut", "/api/v1/profiles/" + username + "/listings"} {
			items := s.Do("GET", path, nil, buyerKey).Want(t, http.StatusOK, "").List()
			if len(items) == 0 {
				t.Fatalf("%s: no listings", path)
			}
			l := items[0].(map[string]any)
			wantTrust(t, path, l, "listing", "[instruction_like off_platform_payment]", "[description]")
			wantTrust(t, path+" seller", testkit.Obj(t, l, "seller"), "profile", "[contact_details]", "[displayName]")
			for name, h := range map[string][]testkit.Header{"human": {sc.buyer.Auth()}, "anonymous": nil, "the seller's own agent": {sc.sellerKey.Auth()}} {
				l := s.Do("GET", path, nil, h...).Want(t, http.StatusOK, "").List()[0].(map[string]any)
				wantNoTrust(t, name+" on "+path, l, testkit.Obj(t, l, "seller"))
			}
		}

		p := s.Do("GET", "/api/v1/profiles/"+username, nil, buyerKey).Want(t, http.StatusOK, "").Data()
		if p["displayName"] != trustSellerName {
			t.Fatalf("profile = %v", p)
		}
		wantTrust(t, "profile", p, "profile", "[contact_details]", "[displayName]")
		wantNoTrust(t, "profile to a human", s.Do("GET", "/api/v1/profiles/"+username, nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").Data())
		wantNoTrust(t, "own profile to the seller's agent", s.Do("GET", "/api/v1/profiles/"+username, nil, sc.sellerKey.Auth()).Want(t, http.StatusOK, "").Data())

		bad := s.Do("GET", "/api/v1/listings?q=walnut", nil, testkit.AgentKey("mk_live_not_a_key")).Want(t, http.StatusOK, "").List()
		wantNoTrust(t, "a key that does not authenticate", bad[0].(map[string]any))
	})
}
