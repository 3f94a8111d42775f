package apiv1_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/listings/generator"
	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

const pyrexBrief = "Vintage Pyrex mixing bowl set, three nesting bowls, light wear, no chips"

// TestAgentListingFlow: a seller's agent goes from photo upload to an
// active, public listing; the public sees no owner fields, the owner does.
func TestAgentListingFlow(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("Seller")
		agent := s.NewKey(owner, "sell_only")
		urls := s.UploadPhotos(agent.Auth(), 2)
		r := s.Do("POST", "/api/v1/agent/listings", map[string]any{
			"photoUrls": urls, "description": pyrexBrief, "floorPrice": 1500, "price": 4500,
			"shippingType": "flat_rate", "shippingCost": 899,
		}, agent.Auth()).Want(t, http.StatusCreated, "")
		d := r.Data()
		if d["status"] != "active" || d["title"] == "" || d["description"] == "" || d["price"] != 4500.0 ||
			d["priceSource"] != "seller" || d["shippingCost"] != 899.0 || d["floorPrice"] != 1500.0 ||
			d["sellerId"] != owner.ID || d["watchersCount"] != 0.0 {
			t.Fatalf("created listing %s", r.Body)
		}
		if cat, _ := d["category"].(string); !strings.Contains(cat, "Kitchen") {
			t.Errorf("category %q for a Pyrex bowl set", cat)
		}
		if photos := d["photos"].([]any); len(photos) != 2 || photos[0] != urls[0] || photos[1] != urls[1] {
			t.Errorf("photos %v, want %v", photos, urls)
		}
		if seller := d["seller"].(map[string]any); seller["username"] != owner.Username || seller["id"] != owner.ID {
			t.Errorf("seller %v", seller)
		}
		id := d["id"].(string)

		pub := s.Do("GET", "/api/v1/listings/"+id, nil).Want(t, http.StatusOK, "").Data()
		if _, ok := pub["floorPrice"]; ok || pub["title"] != d["title"] {
			t.Fatalf("public view %v", pub)
		}
		if _, ok := pub["costBasis"]; ok {
			t.Fatalf("public view shows costBasis")
		}
		mine := s.Do("GET", "/api/v1/listings/"+id, nil, owner.Auth()).Want(t, http.StatusOK, "").Data()
		if mine["floorPrice"] != 1500.0 {
			t.Fatalf("owner view %v", mine)
		}
		detail := s.Do("GET", "/api/v1/agent/listings/"+id+"/detail", nil, agent.Auth()).Want(t, http.StatusOK, "").Data()
		if detail["floorPrice"] != 1500.0 {
			t.Fatalf("agent detail %v", detail)
		}
		other := s.NewKey(s.VerifiedOwner("Other"), "buy_sell")
		s.Do("GET", "/api/v1/agent/listings/"+id+"/detail", nil, other.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")

		// The AI estimates a price when none is given.
		est := s.Do("POST", "/api/v1/agent/listings", map[string]any{
			"photoUrls": s.UploadPhotos(agent.Auth(), 1), "description": "Le Creuset cast iron dutch oven, 5.5 qt, good shape"},
			agent.Auth()).Want(t, http.StatusCreated, "").Data()
		if est["priceSource"] != "ai" || est["price"].(float64) < 100 || est["condition"] == nil || est["weightOz"].(float64) <= 0 {
			t.Fatalf("estimated listing %v", est)
		}

		list := s.Do("GET", "/api/v1/agent/listings/mine", nil, agent.Auth()).Want(t, http.StatusOK, "")
		if len(list.List()) != 2 || list.JSON["meta"].(map[string]any)["total"] != 2.0 {
			t.Fatalf("mine %s", list.Body)
		}
		prof := s.Do("GET", "/api/v1/profiles/"+owner.Username+"/listings", nil).Want(t, http.StatusOK, "")
		if len(prof.List()) != 2 {
			t.Fatalf("profile listings %s", prof.Body)
		}
		s.Do("GET", "/api/v1/profiles/nobody-here/listings", nil).Want(t, http.StatusNotFound, "NOT_FOUND")

		if !hasEvent(t, s, id, "listing.created") || !hasEvent(t, s, id, "listing.ai_complete") {
			t.Fatal("listing events missing")
		}

		// Searchable at once, on both surfaces.
		found := s.Do("GET", "/api/v1/listings?q=pyrex+bowls", nil).Want(t, http.StatusOK, "").List()
		if len(found) != 1 || found[0].(map[string]any)["id"] != id {
			t.Fatalf("search for the new listing found %v", found)
		}
		b := s.Do("GET", "/v1/search?q=pyrex", nil, agent.Auth()).Want(t, http.StatusOK, "").Data()
		if b["total"] != 1.0 || b["listings"].([]any)[0].(map[string]any)["listing_id"] != id {
			t.Fatalf("Variant B search %v", b)
		}
	})
}

// hasEvent reports whether the event log holds typ for the listing.
func hasEvent(t *testing.T, s *testkit.Server, listingID, typ string) bool {
	t.Helper()
	return len(eventsOf(t, s, listingID, typ)) > 0
}

// eventsOf returns the data of each typ event about a listing, as the
// domain records it (canonical, snake_case names).
func eventsOf(t *testing.T, s *testkit.Server, listingID, typ string) []map[string]any {
	t.Helper()
	evs, err := s.App.DB.Read().EventsFor(context.Background(), "listing", listingID)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e.Data)
		}
	}
	return out
}

func TestListingOwnerMustBeVerified(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("Unverified")
		agent := s.NewKey(owner, "sell_only")
		s.Do("POST", "/api/v1/agent/listings", map[string]any{
			"photoUrls": s.UploadPhotos(agent.Auth(), 1), "description": pyrexBrief,
		}, agent.Auth()).Want(t, http.StatusForbidden, "OWNER_NOT_VERIFIED")
		// The human may list without the agent.
		s.CreateListing(owner.Auth(), pyrexBrief, nil).Want(t, http.StatusCreated, "")
		buyer := s.NewKey(s.VerifiedOwner("Buyer"), "buy_only")
		s.Do("POST", "/api/v1/agent/listings", map[string]any{"photoUrls": []string{}, "description": pyrexBrief},
			buyer.Auth()).Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
	})
}

func TestRestrictedBrand(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("Lux")
		r := s.CreateListing(owner.Auth(), "Authentic LOUIS VUITTON Neverfull MM tote, monogram canvas", nil).
			Want(t, http.StatusUnprocessableEntity, "LISTING_RESTRICTED")
		det := r.JSON["error"].(map[string]any)["details"].(map[string]any)
		if det["brand"] != "Louis Vuitton" || det["reason"] != "restricted_brand" || det["listingId"] == nil || det["rejectionId"] == nil {
			t.Fatalf("details %v", det)
		}
		id := det["listingId"].(string)
		kept := s.Do("GET", "/api/v1/listings/"+id, nil, owner.Auth()).Want(t, http.StatusOK, "").Data()
		if kept["status"] != "removed" {
			t.Fatalf("kept listing %v", kept)
		}
		s.Do("GET", "/api/v1/listings/"+id, nil).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		rej, err := s.App.DB.Read().RejectionsByUser(context.Background(), owner.ID)
		if err != nil || len(rej) != 1 || rej[0].ListingID != id || rej[0].Brand != "Louis Vuitton" {
			t.Fatalf("rejections %+v %v", rej, err)
		}

		// Accents and case do not hide a brand; a word that merely contains
		// one is fine.
		s.CreateListing(owner.Auth(), "Hermès silk scarf, carré 90", nil).Want(t, http.StatusUnprocessableEntity, "LISTING_RESTRICTED")
		s.CreateListing(owner.Auth(), "Chanelled quilting ruler, acrylic", nil).Want(t, http.StatusCreated, "")

		// The same check runs on update.
		ok := s.CreateListing(owner.Auth(), pyrexBrief, nil).Want(t, http.StatusCreated, "").Data()
		lid := ok["id"].(string)
		up := s.Do("PATCH", "/api/v1/listings/"+lid, map[string]any{"title": "Pyrex bowls (Gucci inspired)"}, owner.Auth()).
			Want(t, http.StatusUnprocessableEntity, "LISTING_RESTRICTED")
		if up.JSON["error"].(map[string]any)["details"].(map[string]any)["listingId"] != lid {
			t.Fatalf("update rejection %s", up.Body)
		}
		after := s.Do("GET", "/api/v1/listings/"+lid, nil, owner.Auth()).Want(t, http.StatusOK, "").Data()
		if after["status"] != "removed" || after["title"] != "Pyrex bowls (Gucci inspired)" {
			t.Fatalf("after restricted update %v", after)
		}
		s.Do("PATCH", "/api/v1/listings/"+lid, map[string]any{"title": "Pyrex bowls"}, owner.Auth()).
			Want(t, http.StatusConflict, "INVALID_STATE")
		// Only an admin takes a listing out of moderation.
		s.Do("DELETE", "/api/v1/listings/"+lid, nil, owner.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
	})
}

func TestListingUpdateAndWatchers(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("Seller")
		d := s.CreateListing(owner.Auth(), pyrexBrief, map[string]any{"price": 5000}).Want(t, http.StatusCreated, "").Data()
		id := d["id"].(string)
		watcher := s.Register("Watcher")
		agent := s.NewKey(s.VerifiedOwner("AgentOwner"), "buy_only")

		for range 2 { // watching twice is fine
			w := s.Do("POST", "/api/v1/listings/"+id+"/watch", nil, watcher.Auth()).Want(t, http.StatusOK, "").Data()
			if w["watching"] != true || w["watchersCount"] != 1.0 {
				t.Fatalf("watch %v", w)
			}
		}
		seller := s.NewKey(s.VerifiedOwner("SellOnly"), "sell_only")
		s.Do("POST", "/api/v1/agent/listings/"+id+"/watch", nil, seller.Auth()).Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
		w := s.Do("POST", "/api/v1/agent/listings/"+id+"/watch", nil, agent.Auth()).Want(t, http.StatusOK, "").Data()
		if w["watchersCount"] != 2.0 {
			t.Fatalf("agent watch %v", w)
		}
		got := s.Do("GET", "/api/v1/listings/"+id+"/watching", nil, watcher.Auth()).Want(t, http.StatusOK, "").Data()
		if got["watching"] != true || got["watchersCount"] != 2.0 {
			t.Fatalf("watching %v", got)
		}
		got = s.Do("GET", "/api/v1/listings/"+id+"/watching", nil, owner.Auth()).Want(t, http.StatusOK, "").Data()
		if got["watching"] != false || got["watchersCount"] != 2.0 {
			t.Fatalf("owner watching %v", got)
		}
		wl := s.Do("GET", "/api/v1/listings/watching/me", nil, watcher.Auth()).Want(t, http.StatusOK, "")
		if len(wl.List()) != 1 || wl.List()[0].(map[string]any)["id"] != id {
			t.Fatalf("watched %s", wl.Body)
		}
		if al := s.Do("GET", "/api/v1/agent/listings/watching", nil, agent.Auth()).Want(t, http.StatusOK, ""); len(al.List()) != 1 {
			t.Fatalf("agent watched %s", al.Body)
		}

		// A price drop is an event with the old and new price.
		up := s.Do("PATCH", "/api/v1/listings/"+id, map[string]any{"price": 4000, "minOfferAmount": 3000}, owner.Auth()).
			Want(t, http.StatusOK, "").Data()
		if up["price"] != 4000.0 || up["minOfferAmount"] != 3000.0 {
			t.Fatalf("updated %v", up)
		}
		evs := eventsOf(t, s, id, "listing.updated")
		if len(evs) != 1 || evs[0]["price_drop"] != true || evs[0]["previous_price"] != 5000.0 ||
			evs[0]["price"] != 4000.0 || !slices.Contains(toStrings(evs[0]["changes"]), "price") {
			t.Fatalf("listing.updated %v", evs)
		}
		// An update that changes nothing writes no event.
		s.Do("PATCH", "/api/v1/listings/"+id, map[string]any{"price": 4000}, owner.Auth()).Want(t, http.StatusOK, "")
		if n := len(eventsOf(t, s, id, "listing.updated")); n != 1 {
			t.Fatalf("%d listing.updated events after a no-op update", n)
		}
		// Null clears an optional money field.
		up = s.Do("PATCH", "/api/v1/listings/"+id, map[string]any{"minOfferAmount": nil}, owner.Auth()).Want(t, http.StatusOK, "").Data()
		if up["minOfferAmount"] != nil {
			t.Fatalf("minOfferAmount not cleared: %v", up)
		}

		w = s.Do("DELETE", "/api/v1/listings/"+id+"/watch", nil, watcher.Auth()).Want(t, http.StatusOK, "").Data()
		if w["watching"] != false || w["watchersCount"] != 1.0 {
			t.Fatalf("unwatch %v", w)
		}
		s.Do("DELETE", "/api/v1/listings/"+id+"/watch", nil, watcher.Auth()).Want(t, http.StatusOK, "")
		s.Do("DELETE", "/api/v1/agent/listings/"+id+"/watch", nil, agent.Auth()).Want(t, http.StatusOK, "")

		// Someone else's listing.
		s.Do("PATCH", "/api/v1/listings/"+id, map[string]any{"price": 1}, watcher.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("DELETE", "/api/v1/listings/"+id, nil, watcher.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("POST", "/api/v1/listings/"+market.NewID()+"/watch", nil, watcher.Auth()).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		s.Do("GET", "/api/v1/listings/not-an-id", nil).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
	})
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestArchiveAndDelete(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("Seller")
		agent := s.NewKey(owner, "sell_only")
		a := s.CreateListing(owner.Auth(), pyrexBrief, nil).Want(t, http.StatusCreated, "").Data()["id"].(string)
		b := s.CreateListing(owner.Auth(), "Brass desk lamp with green glass shade", nil).Want(t, http.StatusCreated, "").Data()["id"].(string)

		for range 2 { // archiving twice is fine
			d := s.Do("DELETE", "/api/v1/listings/"+a, nil, owner.Auth()).Want(t, http.StatusOK, "").Data()
			if d["status"] != "archived" {
				t.Fatalf("archive %v", d)
			}
		}
		s.Do("GET", "/api/v1/listings/"+a, nil).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		s.Do("GET", "/api/v1/listings/"+a, nil, owner.Auth()).Want(t, http.StatusOK, "")
		// An archived listing can be edited (and stays archived).
		s.Do("PATCH", "/api/v1/agent/listings/"+a, map[string]any{"price": 1200}, agent.Auth()).Want(t, http.StatusOK, "")

		d := s.Do("POST", "/api/v1/listings/"+b+"/delete", nil, owner.Auth()).Want(t, http.StatusOK, "").Data()
		if d["status"] != "deleted" {
			t.Fatalf("delete %v", d)
		}
		s.Do("GET", "/api/v1/listings/"+b, nil, owner.Auth()).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		s.Do("POST", "/api/v1/listings/"+b+"/delete", nil, owner.Auth()).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")

		mine := s.Do("GET", "/api/v1/listings/seller/me", nil, owner.Auth()).Want(t, http.StatusOK, "")
		if len(mine.List()) != 1 || mine.List()[0].(map[string]any)["id"] != a {
			t.Fatalf("seller/me %s", mine.Body)
		}
		archived := s.Do("GET", "/api/v1/listings/seller/me?status=archived&limit=5", nil, owner.Auth()).Want(t, http.StatusOK, "")
		if meta := archived.JSON["meta"].(map[string]any); meta["total"] != 1.0 || meta["limit"] != 5.0 || meta["offset"] != 0.0 {
			t.Fatalf("meta %v", meta)
		}
		s.Do("GET", "/api/v1/listings/seller/me?status=gone", nil, owner.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		s.Do("GET", "/api/v1/listings/seller/me?limit=0", nil, owner.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")

		// A reserved or sold listing cannot be archived.
		c := s.CreateListing(owner.Auth(), "Cast iron skillet, 10 inch", nil).Want(t, http.StatusCreated, "").Data()["id"].(string)
		setStatus(t, s, c, listings.StatusSold)
		s.Do("DELETE", "/api/v1/agent/listings/"+c, nil, agent.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		s.Do("POST", "/api/v1/listings/"+c+"/delete", nil, owner.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		s.Do("PATCH", "/api/v1/listings/"+c, map[string]any{"price": 100}, owner.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
	})
}

// setStatus moves a listing straight to a status, for states later issues
// reach (sold, reserved).
func setStatus(t *testing.T, s *testkit.Server, id string, st listings.Status) {
	t.Helper()
	s.EditListing(id, func(l *listings.Listing) { l.Status = st })
}

func TestListingBadInput(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("Seller")
		stranger := s.VerifiedOwner("Stranger")
		mine := s.UploadPhotos(owner.Auth(), 1)
		theirs := s.UploadPhotos(stranger.Auth(), 1)
		slot := s.Do("POST", "/api/v1/listings/photos/upload-urls", map[string]any{"count": 1}, owner.Auth()).Data()
		notUploaded := slot["uploads"].([]any)[0].(map[string]any)["photoUrl"].(string)
		thirteen := make([]string, 13)
		for i := range thirteen {
			thirteen[i] = mine[0]
		}
		used := s.CreateListing(owner.Auth(), pyrexBrief, nil).Want(t, http.StatusCreated, "").Data()["photos"].([]any)[0].(string)

		for _, c := range []struct {
			name  string
			body  map[string]any
			field string
		}{
			{"no photos", map[string]any{"photoUrls": []string{}, "description": pyrexBrief}, "photoUrls"},
			{"13 photos", map[string]any{"photoUrls": thirteen, "description": pyrexBrief}, "photoUrls"},
			{"missing photos", map[string]any{"description": pyrexBrief}, "photoUrls"},
			{"foreign URL", map[string]any{"photoUrls": []string{"https://evil.example/p.jpg"}, "description": pyrexBrief}, "photoUrls[0]"},
			{"someone else's photo", map[string]any{"photoUrls": theirs, "description": pyrexBrief}, "photoUrls"},
			{"not uploaded", map[string]any{"photoUrls": []string{notUploaded}, "description": pyrexBrief}, "photoUrls"},
			{"photo of another listing", map[string]any{"photoUrls": []string{used}, "description": pyrexBrief}, "photoUrls"},
			{"repeated photo", map[string]any{"photoUrls": []string{mine[0], mine[0]}, "description": pyrexBrief}, "photoUrls"},
			{"no description", map[string]any{"photoUrls": mine}, "description"},
			{"blank description", map[string]any{"photoUrls": mine, "description": "   "}, "description"},
			{"negative price", map[string]any{"photoUrls": mine, "description": pyrexBrief, "price": -5}, "price"},
			{"fractional price", map[string]any{"photoUrls": mine, "description": pyrexBrief, "price": 10.5}, "price"},
			{"string price", map[string]any{"photoUrls": mine, "description": pyrexBrief, "price": "10"}, "price"},
			{"unknown condition", map[string]any{"photoUrls": mine, "description": pyrexBrief, "condition": "mint"}, "condition"},
			{"unknown category", map[string]any{"photoUrls": mine, "description": pyrexBrief, "categoryId": market.NewID()}, "categoryId"},
			{"unknown shipping", map[string]any{"photoUrls": mine, "description": pyrexBrief, "shippingType": "drone"}, "shippingType"},
			{"flat rate without cost", map[string]any{"photoUrls": mine, "description": pyrexBrief, "shippingType": "flat_rate"}, "shippingCost"},
			{"cost with free shipping", map[string]any{"photoUrls": mine, "description": pyrexBrief, "shippingCost": 500}, "shippingCost"},
			{"min offer above price", map[string]any{"photoUrls": mine, "description": pyrexBrief, "price": 1000, "minOfferAmount": 2000}, "minOfferAmount"},
			{"floor without price", map[string]any{"photoUrls": mine, "description": pyrexBrief, "floorPrice": 500}, "floorPrice"},
			{"zero weight", map[string]any{"photoUrls": mine, "description": pyrexBrief, "weightOz": 0}, "weightOz"},
			{"bad dimensions", map[string]any{"photoUrls": mine, "description": pyrexBrief, "dimensions": map[string]any{"l": -1, "w": 2, "h": 3}}, "dimensions"},
			{"huge description", map[string]any{"photoUrls": mine, "description": strings.Repeat("bowl ", 500)}, "description"},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := s.Do("POST", "/api/v1/listings", c.body, owner.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
				if !slices.Contains(r.Fields(), c.field) {
					t.Fatalf("fields %v, want %s\n%s", r.Fields(), c.field, r.Body)
				}
			})
		}
		// Nothing of the refused creates was kept.
		list := s.Do("GET", "/api/v1/listings/seller/me", nil, owner.Auth()).Want(t, http.StatusOK, "")
		if len(list.List()) != 1 {
			t.Fatalf("%d listings after refused creates", len(list.List()))
		}
	})
}

func TestHeldForNewSellers(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := market.Actor{Type: market.ActorAdmin, UserID: s.Admin().ID, Admin: true}
		if _, err := s.App.Settings.Set(context.Background(), admin, "listings.hold_new_sellers", json.RawMessage("true")); err != nil {
			t.Fatal(err)
		}
		fresh := s.Register("Fresh") // trust tier new
		d := s.CreateListing(fresh.Auth(), pyrexBrief, nil).Want(t, http.StatusCreated, "").Data()
		if d["status"] != "held" {
			t.Fatalf("new seller's listing %v", d["status"])
		}
		s.Do("GET", "/api/v1/listings/"+d["id"].(string), nil).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		verified := s.VerifiedOwner("Known")
		if d := s.CreateListing(verified.Auth(), pyrexBrief, nil).Want(t, http.StatusCreated, "").Data(); d["status"] != "active" {
			t.Fatalf("verified seller's listing %v", d["status"])
		}
	})
}

// stallFirst blocks the create call's generation (the one bounded by the
// create's short budget) until the caller gives up, and answers the job
// queue's at once: create answers pending_ai and the job finishes. It
// tells them apart by the deadline, not by order: under load the job,
// scheduled twice the budget after the create, can call first.
type stallFirst struct {
	calls atomic.Int32
	next  listings.Generator
}

func (g *stallFirst) Generate(ctx context.Context, b listings.Brief) (listings.Draft, error) {
	g.calls.Add(1)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < 5*time.Second {
		<-ctx.Done()
		return listings.Draft{}, ctx.Err()
	}
	return g.next.Generate(ctx, b)
}

func TestGenerationInBackground(t *testing.T) {
	t.Parallel()
	gen := &stallFirst{next: generator.NewBuiltin(listings.DefaultTaxonomy(), nil)}
	opts := testkit.Options{WithJobs: true, Generator: gen, GenerationBudget: 50 * time.Millisecond}
	testkit.Run(t, opts, func(t *testing.T, s *testkit.Server) {
		gen.calls.Store(0)
		owner := s.VerifiedOwner("Seller")
		agent := s.NewKey(owner, "sell_only")
		d := s.Do("POST", "/api/v1/agent/listings", map[string]any{
			"photoUrls": s.UploadPhotos(agent.Auth(), 1), "description": pyrexBrief, "price": 2500},
			agent.Auth()).Want(t, http.StatusCreated, "").Data()
		if d["status"] != "pending_ai" || d["price"] != 2500.0 {
			t.Fatalf("created %v", d)
		}
		id := d["id"].(string)
		b := s.Do("GET", "/v1/listings/"+id, nil, agent.Auth()).Want(t, http.StatusOK, "").Data()
		if b["status"] != "processing" || b["ai_processing"].(map[string]any)["status"] != "queued" {
			t.Fatalf("variant B while pending %v", b)
		}
		// Not public until generated.
		s.Do("GET", "/api/v1/listings/"+id, nil).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		// Nor editable.
		s.Do("PATCH", "/api/v1/agent/listings/"+id, map[string]any{"price": 100}, agent.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")

		deadline := time.Now().Add(20 * time.Second)
		for {
			got := s.Do("GET", "/api/v1/listings/"+id, nil, owner.Auth()).Want(t, http.StatusOK, "").Data()
			if got["status"] == "active" {
				if got["price"] != 2500.0 || got["priceSource"] != "seller" || got["title"] == "" {
					t.Fatalf("generated %v", got)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("still %v after 20s", got["status"])
			}
			time.Sleep(100 * time.Millisecond)
		}
		if !hasEvent(t, s, id, "listing.ai_complete") {
			t.Fatal("no listing.ai_complete")
		}
	})
}
