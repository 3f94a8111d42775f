package apiv1_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"marketplace/internal/accounts"
	"marketplace/internal/audit"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/settings"
	"marketplace/internal/testkit"
)

// auditOf finds the domain audit entry action wrote for entityID.
func auditOf(t *testing.T, s *testkit.Server, action, entityID string) audit.Entry {
	t.Helper()
	es, _, err := s.App.DB.Read().ListAudit(t.Context(), audit.Filter{Action: action, EntityID: entityID,
		Result: string(audit.Allowed), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 {
		t.Fatalf("%d audit entries %s for %s, want 1", len(es), action, entityID)
	}
	return es[0]
}

// auditChange reads details.before[key] and details.after[key].
func auditChange(t *testing.T, e audit.Entry, key string) (before, after any) {
	t.Helper()
	b, okB := e.Details["before"].(map[string]any)
	a, okA := e.Details["after"].(map[string]any)
	if !okB || !okA {
		t.Fatalf("audit %s has no before/after: %v", e.Action, e.Details)
	}
	if e.ActorType != market.ActorAdmin || e.Result != audit.Allowed {
		t.Fatalf("audit %s: actor %s result %s", e.Action, e.ActorType, e.Result)
	}
	return b[key], a[key]
}

func TestAdminListingsAuthz(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		s.Verify(adm)
		adminKey := s.NewKey(adm, "buy_sell")
		seller := s.VerifiedOwner("authz-seller")
		sellerKey := s.NewKey(seller, "buy_sell")
		id := s.ActiveListing(seller, "walnut cutting board end grain", 4000)
		routes := []struct{ method, path string }{
			{"GET", "/api/v1/admin/listings"},
			{"GET", "/api/v1/admin/listings/" + id},
			{"PATCH", "/api/v1/admin/listings/" + id},
			{"POST", "/api/v1/admin/listings/" + id + "/approve"},
			{"POST", "/api/v1/admin/listings/" + id + "/reject"},
			{"POST", "/api/v1/admin/listings/" + id + "/delist"},
			{"GET", "/api/v1/admin/moderation/rejections"},
			{"GET", "/api/v1/admin/moderation/rejections/user/" + seller.ID},
			{"POST", "/api/v1/admin/moderation/rejections/nope/override"},
		}
		for _, r := range routes {
			s.Do(r.method, r.path, map[string]any{}).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do(r.method, r.path, map[string]any{}, seller.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do(r.method, r.path, map[string]any{}, sellerKey.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do(r.method, r.path, map[string]any{}, adminKey.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			got := s.Do(r.method, r.path, map[string]any{}, adm.Auth())
			if got.Status == http.StatusUnauthorized || got.Status == http.StatusForbidden {
				t.Fatalf("%s %s as admin: %d %s", r.method, r.path, got.Status, got.Code())
			}
		}
	})
}

func TestAdminListingsList(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		a := s.VerifiedOwner("list-seller-a")
		b := s.VerifiedOwner("list-seller-b")
		a1 := s.ListingWith(t, a, "brass table lamp with linen shade", 2000, map[string]any{"floorPrice": 1500})
		a2 := s.ActiveListing(a, "cast iron skillet ten inch seasoned", 3000)
		b1 := s.ActiveListing(b, "wool throw blanket plaid", 5000)
		s.EditListing(a2, func(l *listings.Listing) { l.Status = listings.StatusHeld })

		all := s.Do("GET", "/api/v1/admin/listings", nil, adm.Auth()).Want(t, http.StatusOK, "")
		if n := len(all.List()); n != 3 || all.JSON["meta"].(map[string]any)["total"] != float64(3) {
			t.Fatalf("all: %d items, meta %v", n, all.JSON["meta"])
		}
		meta := all.JSON["meta"].(map[string]any)
		if meta["limit"] != float64(20) || meta["offset"] != float64(0) {
			t.Fatalf("meta = %v", meta)
		}
		ids := func(r *testkit.Response) []string {
			var out []string
			for _, it := range r.List() {
				out = append(out, it.(map[string]any)["id"].(string))
			}
			return out
		}
		if got := ids(all); got[0] != b1 || got[2] != a1 {
			t.Fatalf("order = %v, want newest first", got)
		}
		page := s.Do("GET", "/api/v1/admin/listings?limit=1&offset=1", nil, adm.Auth()).Want(t, http.StatusOK, "")
		if got := ids(page); len(got) != 1 || got[0] != a2 || page.JSON["meta"].(map[string]any)["total"] != float64(3) {
			t.Fatalf("page = %v %v", got, page.JSON["meta"])
		}
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"status=held", []string{a2}},
			{"status=active", []string{b1, a1}},
			{"sellerId=" + a.ID, []string{a2, a1}},
			{"sellerId=" + a.ID + "&status=active", []string{a1}},
			{"search=LAMP", []string{a1}},
			{"search=" + b1, []string{b1}},
			{"search=100%25", nil},
			{"search=skillet&status=active", nil},
		} {
			r := s.Do("GET", "/api/v1/admin/listings?"+c.query, nil, adm.Auth()).Want(t, http.StatusOK, "")
			if got := ids(r); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("%s: %v, want %v", c.query, got, c.want)
			}
		}
		for _, q := range []string{"status=bogus", "limit=0", "limit=101", "offset=-1"} {
			s.Do("GET", "/api/v1/admin/listings?"+q, nil, adm.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		}
		// The admin view carries the seller's fields.
		d := s.Do("GET", "/api/v1/admin/listings/"+a1, nil, adm.Auth()).Want(t, http.StatusOK, "").Data()
		if d["floorPrice"] != float64(1500) || d["sellerId"] != a.ID {
			t.Fatalf("detail = %v", d)
		}
		s.Do("GET", "/api/v1/admin/listings/nope", nil, adm.Auth()).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
	})
}

func TestAdminListingsModerate(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		seller := s.VerifiedOwner("mod-seller")
		watcher := s.Register("mod-watcher")
		id := s.ListingWith(t, seller, "brass table lamp with linen shade", 2000, map[string]any{"floorPrice": 1800})
		s.Do("POST", "/api/v1/listings/"+id+"/watch", nil, watcher.Auth()).Want(t, http.StatusOK, "")

		// PATCH: price (the floor follows it down), category, status.
		cat := s.Do("GET", "/api/v1/admin/listings/"+id, nil, adm.Auth()).Data()["categoryId"]
		p := s.Do("PATCH", "/api/v1/admin/listings/"+id, map[string]any{"price": 1500}, adm.Auth()).Want(t, http.StatusOK, "").Data()
		if p["price"] != float64(1500) || p["floorPrice"] != float64(1500) {
			t.Fatalf("patched = %v", p)
		}
		if b, a := auditChange(t, auditOf(t, s, "PATCH /api/v1/admin/listings/{id}", id), "price"); b != float64(2000) || a != float64(1500) {
			t.Fatalf("audit price %v -> %v", b, a)
		}
		for _, body := range []map[string]any{{"price": 0}, {"price": "x"}, {"categoryId": "nope"}, {"status": "sold"}} {
			s.Do("PATCH", "/api/v1/admin/listings/"+id, body, adm.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		}
		s.Do("PATCH", "/api/v1/admin/listings/nope", map[string]any{"price": 100}, adm.Auth()).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		if cat != nil {
			s.Do("PATCH", "/api/v1/admin/listings/"+id, map[string]any{"categoryId": cat}, adm.Auth()).Want(t, http.StatusOK, "")
		}
		h := s.Do("PATCH", "/api/v1/admin/listings/"+id, map[string]any{"status": "held"}, adm.Auth()).Want(t, http.StatusOK, "").Data()
		if h["status"] != "held" {
			t.Fatalf("status = %v", h["status"])
		}

		// approve: held -> active, audited, watchers told.
		s.Do("POST", "/api/v1/admin/listings/"+id+"/approve", nil, adm.Auth()).Want(t, http.StatusOK, "")
		if b, a := auditChange(t, auditOf(t, s, "POST /api/v1/admin/listings/{id}/approve", id), "status"); b != "held" || a != "active" {
			t.Fatalf("audit approve %v -> %v", b, a)
		}
		s.Do("POST", "/api/v1/admin/listings/"+id+"/approve", nil, adm.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		s.Do("POST", "/api/v1/admin/listings/"+id+"/reject", map[string]any{"reason": "no"}, adm.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")

		// reject: held -> removed with a reason.
		s.EditListing(id, func(l *listings.Listing) { l.Status = listings.StatusHeld })
		s.Do("POST", "/api/v1/admin/listings/"+id+"/reject", map[string]any{}, adm.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		r := s.Do("POST", "/api/v1/admin/listings/"+id+"/reject", map[string]any{"reason": "blurry photos"}, adm.Auth()).
			Want(t, http.StatusOK, "").Data()
		if r["status"] != "removed" {
			t.Fatalf("rejected = %v", r["status"])
		}
		e := auditOf(t, s, "POST /api/v1/admin/listings/{id}/reject", id)
		if b, a := auditChange(t, e, "status"); b != "held" || a != "removed" || e.Details["reason"] != "blurry photos" {
			t.Fatalf("audit reject %v -> %v, %v", b, a, e.Details)
		}
		s.Do("POST", "/api/v1/admin/listings/"+id+"/delist", map[string]any{"reason": "x"}, adm.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")

		// delist, not counterfeit: the seller stays active.
		other := s.ActiveListing(seller, "cast iron skillet ten inch seasoned", 3000)
		s.Do("POST", "/api/v1/admin/listings/"+other+"/delist", map[string]any{"reason": "duplicate"}, adm.Auth()).Want(t, http.StatusOK, "")
		if u := user(t, s, seller.ID); u.Status != accounts.StatusActive {
			t.Fatalf("seller is %s after a plain delist", u.Status)
		}
		if b, a := auditChange(t, auditOf(t, s, "POST /api/v1/admin/listings/{id}/delist", other), "status"); b != "active" || a != "removed" {
			t.Fatalf("audit delist %v -> %v", b, a)
		}
	})
}

func user(t *testing.T, s *testkit.Server, id string) *accounts.User {
	t.Helper()
	u, err := s.App.DB.Read().UserByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestAdminListingsCounterfeit(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		seller := s.VerifiedOwner("fake-seller")
		key := s.NewKey(seller, "buy_sell")
		id := s.ActiveListing(seller, "leather handbag brown tote", 9000)
		s.Do("POST", "/api/v1/admin/listings/"+id+"/delist", map[string]any{"reason": "counterfeit"}, adm.Auth()).Want(t, http.StatusOK, "")
		s.Do("GET", "/api/v1/spending-controls", nil, key.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
		if u := user(t, s, seller.ID); u.Status != accounts.StatusSuspended {
			t.Fatalf("seller is %s after a counterfeit delist, want suspended", u.Status)
		}
		e := auditOf(t, s, "POST /api/v1/admin/listings/{id}/delist", id)
		// One entry for the request: the listing's change, and the seller's.
		if e.Details["sellerId"] != seller.ID || e.Details["sellerStatusBefore"] != "active" || e.Details["sellerStatusAfter"] != "suspended" {
			t.Fatalf("audit = %v", e.Details)
		}
		if b, a := auditChange(t, e, "status"); b != "active" || a != "removed" {
			t.Fatalf("audit delist %v -> %v", b, a)
		}
		if es, _, _ := s.App.DB.Read().ListAudit(t.Context(), audit.Filter{RequestID: e.RequestID, Limit: 10}); len(es) != 1 {
			t.Fatalf("%d audit entries for the delist's request, want 1: %v", len(es), es)
		}

		// Config off: the seller stays active.
		actor := market.Actor{Type: market.ActorAdmin, UserID: adm.ID, Admin: true}
		if _, err := s.App.Settings.Set(t.Context(), actor, settings.SuspendOnCounterfeit.Name(), json.RawMessage("false")); err != nil {
			t.Fatal(err)
		}
		other := s.VerifiedOwner("fake-seller-2")
		id2 := s.ActiveListing(other, "silk scarf printed square", 4000)
		s.Do("POST", "/api/v1/admin/listings/"+id2+"/delist", map[string]any{"reason": "counterfeit"}, adm.Auth()).Want(t, http.StatusOK, "")
		if u := user(t, s, other.ID); u.Status != accounts.StatusActive {
			t.Fatalf("seller is %s with suspend_on_counterfeit off", u.Status)
		}
	})
}

func TestAdminModerationRejections(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		a := s.VerifiedOwner("brand-seller-a")
		b := s.VerifiedOwner("brand-seller-b")
		restricted := func(u *testkit.User, brief string) (listingID, rejectionID string) {
			r := s.CreateListing(u.Auth(), brief, map[string]any{"price": 5000, "condition": "good", "shippingType": "free"}).
				Want(t, http.StatusUnprocessableEntity, "LISTING_RESTRICTED")
			d := r.JSON["error"].(map[string]any)["details"].(map[string]any)
			return d["listingId"].(string), d["rejectionId"].(string)
		}
		l1, r1 := restricted(a, "Gucci leather belt brown")
		_, r2 := restricted(b, "Rolex submariner watch")

		all := s.Do("GET", "/api/v1/admin/moderation/rejections", nil, adm.Auth()).Want(t, http.StatusOK, "")
		if n := len(all.List()); n != 2 || all.List()[0].(map[string]any)["id"] != r2 {
			t.Fatalf("rejections = %v", all.List())
		}
		one := s.Do("GET", "/api/v1/admin/moderation/rejections?limit=1", nil, adm.Auth()).Want(t, http.StatusOK, "")
		if m := one.JSON["meta"].(map[string]any); len(one.List()) != 1 || m["total"] != float64(2) || m["limit"] != float64(1) {
			t.Fatalf("limit=1: %v %v", one.List(), m)
		}
		s.Do("GET", "/api/v1/admin/moderation/rejections?limit=500", nil, adm.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		mine := s.Do("GET", "/api/v1/admin/moderation/rejections/user/"+a.ID, nil, adm.Auth()).Want(t, http.StatusOK, "")
		if n := len(mine.List()); n != 1 || mine.List()[0].(map[string]any)["listingId"] != l1 {
			t.Fatalf("a's rejections = %v", mine.List())
		}

		o := s.Do("POST", "/api/v1/admin/moderation/rejections/"+r1+"/override", nil, adm.Auth()).Want(t, http.StatusOK, "").Data()
		rej, lst := o["rejection"].(map[string]any), o["listing"].(map[string]any)
		if rej["status"] != "overridden" || rej["resolvedBy"] != adm.ID || lst["status"] != "active" {
			t.Fatalf("override = %v", o)
		}
		e := auditOf(t, s, "POST /api/v1/admin/moderation/rejections/{id}/override", r1)
		if b, a := auditChange(t, e, "status"); b != "open" || a != "overridden" {
			t.Fatalf("audit override %v -> %v", b, a)
		}
		s.Do("POST", "/api/v1/admin/moderation/rejections/"+r1+"/override", nil, adm.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		s.Do("POST", "/api/v1/admin/moderation/rejections/nope/override", nil, adm.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		// The listing is live: anyone sees it.
		s.Do("GET", "/api/v1/listings/"+l1, nil).Want(t, http.StatusOK, "")
	})
}

// Held listings wait in the admin queue as listing_review items, merged with
// purchase approvals, and are decided there.
func TestAdminQueueListingReviews(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		seller := s.VerifiedOwner("review-seller")
		b := s.NewShopper("review-buyer", "pm_card_visa")
		watcher := s.Register("review-watcher")
		s.Do("PUT", "/api/v1/spending-controls", map[string]any{"approvalThreshold": 1000}, b.Auth()).Want(t, http.StatusOK, "")
		bought := s.ActiveListing(seller, "teak side table with one drawer", 3000)
		s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": bought, "maxPrice": 5000,
			"shippingAddress": testkit.Address()}, b.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
		held := s.ActiveListing(seller, "brass table lamp with linen shade", 2000)
		s.Do("POST", "/api/v1/listings/"+held+"/watch", nil, watcher.Auth()).Want(t, http.StatusOK, "")
		other := s.ActiveListing(seller, "wool throw blanket plaid", 5000)
		for _, id := range []string{held, other} {
			s.EditListing(id, func(l *listings.Listing) { l.Status = listings.StatusHeld })
		}

		all := s.Do("GET", "/api/v1/admin/queue", nil, adm.Auth()).Want(t, http.StatusOK, "")
		if n, total := len(all.List()), all.JSON["meta"].(map[string]any)["total"]; n != 3 || total != float64(3) {
			t.Fatalf("queue: %d items, total %v", n, total)
		}
		first := all.List()[0].(map[string]any)
		if first["type"] != "listing_review" || first["id"] != other || first["entityType"] != "listing" ||
			first["entityId"] != other || first["status"] != "pending" || first["summary"] == "" {
			t.Fatalf("newest item = %v", first)
		}
		if l := first["listing"].(map[string]any); l["status"] != "held" {
			t.Fatalf("item listing = %v", l)
		}
		if last := all.List()[2].(map[string]any); last["type"] != "purchase_approval" || last["entityType"] != "order" {
			t.Fatalf("oldest item = %v", last)
		}
		page := s.Do("GET", "/api/v1/admin/queue?limit=1&offset=1", nil, adm.Auth()).Want(t, http.StatusOK, "")
		if len(page.List()) != 1 || page.List()[0].(map[string]any)["id"] != held {
			t.Fatalf("page 2 = %v", page.List())
		}
		reviews := s.Do("GET", "/api/v1/admin/queue?type=listing_review", nil, adm.Auth()).Want(t, http.StatusOK, "")
		if len(reviews.List()) != 2 {
			t.Fatalf("listing reviews = %v", reviews.List())
		}
		purchases := s.Do("GET", "/api/v1/admin/queue?type=purchase_approval", nil, adm.Auth()).Want(t, http.StatusOK, "")
		if len(purchases.List()) != 1 {
			t.Fatalf("purchase approvals = %v", purchases.List())
		}
		if n := len(s.Do("GET", "/api/v1/admin/queue?status=approved", nil, adm.Auth()).Want(t, http.StatusOK, "").List()); n != 0 {
			t.Fatalf("%d approved items", n)
		}
		s.Do("GET", "/api/v1/admin/queue?type=listing_review&status=bogus", nil, adm.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")

		// Decisions: approve goes live (watchers told), reject removes.
		ok := s.Do("POST", "/api/v1/admin/queue/"+held+"/approve", nil, adm.Auth()).Want(t, http.StatusOK, "").Data()
		if ok["status"] != "active" || ok["id"] != held {
			t.Fatalf("approved = %v", ok)
		}
		evs := eventsOf(t, s, held, "listing.updated")
		if len(evs) != 1 || evs[0]["status"] != "active" || evs[0]["previous_status"] != "held" {
			t.Fatalf("listing.updated = %v", evs)
		}
		no := s.Do("POST", "/api/v1/admin/queue/"+other+"/reject", nil, adm.Auth()).Want(t, http.StatusOK, "").Data()
		if no["status"] != "removed" {
			t.Fatalf("rejected = %v", no)
		}
		if e := auditOf(t, s, "POST /api/v1/admin/queue/{id}/reject", other); e.Details["reason"] != "rejected in review" {
			t.Fatalf("audit = %v", e.Details)
		}
		s.Do("POST", "/api/v1/admin/queue/"+held+"/approve", nil, adm.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		s.Do("POST", "/api/v1/admin/queue/nope/approve", nil, adm.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		left := s.Do("GET", "/api/v1/admin/queue?status=pending", nil, adm.Auth()).Want(t, http.StatusOK, "")
		if len(left.List()) != 1 {
			t.Fatalf("pending = %v", left.List())
		}
	})
}
