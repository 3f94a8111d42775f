package apiv1_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"marketplace/internal/audit"
	"marketplace/internal/testkit"
)

// audits returns the admin's own audit entries (action, e.g. "POST /api/v1/admin/users/{id}/ban")
// about user id, newest first.
func audits(t *testing.T, s *testkit.Server, action, id string) []audit.Entry {
	t.Helper()
	es, _, err := s.App.DB.Read().ListAudit(t.Context(), audit.Filter{Action: action, EntityType: "user", EntityID: id,
		Result: string(audit.Allowed), Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// wantChange checks the newest audit entry of action on id holds field's
// value before and after.
func wantChange(t *testing.T, s *testkit.Server, action, id, field string, before, after any) audit.Entry {
	t.Helper()
	es := audits(t, s, action, id)
	if len(es) == 0 {
		t.Fatalf("no audit entry %s for %s", action, id)
	}
	e := es[0]
	b, _ := e.Details["before"].(map[string]any)
	a, _ := e.Details["after"].(map[string]any)
	if fmt.Sprint(b[field]) != fmt.Sprint(before) || fmt.Sprint(a[field]) != fmt.Sprint(after) {
		t.Fatalf("audit %s %s: before %v after %v, want %v -> %v", action, field, b[field], a[field], before, after)
	}
	if e.ActorType != "admin" || e.RequestID == "" {
		t.Fatalf("audit entry = %+v", e)
	}
	return e
}

// Every admin user route: no credentials 401, a user's bearer or any agent
// key (an admin's too) 403, an admin allowed.
func TestAdminUsersAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		adminKey := s.NewKey(adm, "buy_only")
		u := s.Register("authz-target")
		other := s.Register("authz-other")
		otherKey := s.NewKey(other, "buy_only")
		reason := map[string]any{"reason": "testing"}
		routes := []struct {
			method, path string
			body         any
		}{
			{"GET", "/api/v1/admin/users", nil},
			{"GET", "/api/v1/admin/users/" + u.ID, nil},
			{"PATCH", "/api/v1/admin/users/" + u.ID, map[string]any{"trustTier": "trusted"}},
			{"POST", "/api/v1/admin/users/" + u.ID + "/suspend", reason},
			{"POST", "/api/v1/admin/users/" + u.ID + "/reinstate", reason},
			{"POST", "/api/v1/admin/users/" + u.ID + "/ban", reason},
			{"GET", "/api/v1/admin/users/" + u.ID + "/agent-keys", nil},
			{"PATCH", "/api/v1/admin/users/" + u.ID + "/spending-controls", map[string]any{"dailyLimit": 1000}},
		}
		for _, rt := range routes {
			s.Do(rt.method, rt.path, rt.body).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do(rt.method, rt.path, rt.body, other.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do(rt.method, rt.path, rt.body, otherKey.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do(rt.method, rt.path, rt.body, adminKey.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
			s.Do(rt.method, rt.path, rt.body, adm.Auth()).Want(t, http.StatusOK, "")
		}
		// Unknown users are 404 on every route with an id.
		missing := "00000000-0000-4000-8000-000000000000"
		for _, rt := range routes[1:] {
			path := "/api/v1/admin/users/" + missing + rt.path[len("/api/v1/admin/users/")+len(u.ID):]
			s.Do(rt.method, path, rt.body, adm.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		}
	})
}

func userIDs(r *testkit.Response) []string {
	var ids []string
	for _, v := range r.List() {
		ids = append(ids, v.(map[string]any)["id"].(string))
	}
	return ids
}

func TestAdminUsersList(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		a := s.Register("ListAlpha")
		b := s.Register("listbravo")
		c := s.VerifiedOwner("listcharlie")
		s.Do("PATCH", "/api/v1/admin/users/"+b.ID, map[string]any{"trustTier": "trusted"}, adm.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/admin/users/"+a.ID+"/suspend", map[string]any{"reason": "spam"}, adm.Auth()).Want(t, http.StatusOK, "")
		get := func(q string) *testkit.Response {
			return s.Do("GET", "/api/v1/admin/users"+q, nil, adm.Auth()).Want(t, http.StatusOK, "")
		}

		all := get("")
		meta := all.JSON["meta"].(map[string]any)
		if meta["total"] != float64(4) || meta["limit"] != float64(20) || meta["offset"] != float64(0) {
			t.Fatalf("meta = %v", meta)
		}
		// Newest first.
		if ids := userIDs(all); !slices.Equal(ids, []string{c.ID, b.ID, a.ID, adm.ID}) {
			t.Fatalf("order = %v", ids)
		}
		page := get("?limit=2&offset=1")
		if ids := userIDs(page); !slices.Equal(ids, []string{b.ID, a.ID}) {
			t.Fatalf("page = %v", ids)
		}
		if m := page.JSON["meta"].(map[string]any); m["total"] != float64(4) || m["limit"] != float64(2) || m["offset"] != float64(1) {
			t.Fatalf("page meta = %v", m)
		}
		for q, want := range map[string][]string{
			"?status=suspended":              {a.ID},
			"?status=active":                 {c.ID, b.ID, adm.ID},
			"?trustTier=trusted":             {b.ID},
			"?trustTier=verified":            {c.ID},
			"?role=admin":                    {adm.ID},
			"?role=user&status=active":       {c.ID, b.ID},
			"?search=LISTALPHA":              {a.ID},             // display name and e-mail, any case
			"?search=list":                   {c.ID, b.ID, a.ID}, // a substring
			"?search=" + b.Username:          {b.ID},             // username
			"?search=example.COM&role=admin": {adm.ID},           // e-mail, with a filter
			"?search=%25":                    nil,                // LIKE wildcards are literal
			"?search=_":                      nil,
			"?search=nobody-is-called-this":  nil,
		} {
			r := get(q)
			if ids := userIDs(r); !slices.Equal(ids, want) {
				t.Errorf("%s = %v, want %v", q, ids, want)
			}
			if r.JSON["meta"].(map[string]any)["total"] != float64(len(want)) {
				t.Errorf("%s total = %v, want %d", q, r.JSON["meta"], len(want))
			}
		}
		for _, q := range []string{"?limit=0", "?limit=101", "?offset=-1", "?status=gone", "?trustTier=gold", "?role=root"} {
			s.Do("GET", "/api/v1/admin/users"+q, nil, adm.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		}
	})
}

func TestAdminUserDetail(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		sh := s.NewShopper("detail", "pm_card_visa")
		second := s.NewKey(sh.User, "sell_only")
		s.SetControls(sh.User, map[string]any{"dailyLimit": 12345})
		d := s.Do("GET", "/api/v1/admin/users/"+sh.ID, nil, adm.Auth()).Want(t, http.StatusOK, "").Data()
		if d["user"].(map[string]any)["id"] != sh.ID {
			t.Fatalf("user = %v", d["user"])
		}
		keys := d["agentKeys"].([]any)
		if len(keys) != 2 || keys[0].(map[string]any)["id"] != second.ID {
			t.Fatalf("agentKeys = %v", keys)
		}
		p := d["processor"].(map[string]any)
		if p["paymentMethodsCount"] != float64(1) || len(p["paymentMethods"].([]any)) != 1 {
			t.Fatalf("processor = %v", p)
		}
		pa := p["payoutAccount"].(map[string]any)
		if pa["status"] != "verified" || pa["processor"] != "sandbox" {
			t.Fatalf("payoutAccount = %v", pa)
		}
		if c := d["spendingControls"].(map[string]any)["controls"].(map[string]any); c["dailyLimit"] != float64(12345) {
			t.Fatalf("controls = %v", c)
		}
		// A user who never started verification has no payout account.
		plain := s.Register("detail-plain")
		p = s.Do("GET", "/api/v1/admin/users/"+plain.ID, nil, adm.Auth()).Want(t, http.StatusOK, "").Data()["processor"].(map[string]any)
		if p["payoutAccount"] != nil || p["paymentMethodsCount"] != float64(0) {
			t.Fatalf("plain processor = %v", p)
		}
		ks := s.Do("GET", "/api/v1/admin/users/"+sh.ID+"/agent-keys", nil, adm.Auth()).Want(t, http.StatusOK, "")
		if len(ks.List()) != 2 || ks.JSON["meta"].(map[string]any)["total"] != float64(2) {
			t.Fatalf("keys = %v", ks.JSON)
		}
	})
}

func TestAdminUserPatch(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		u := s.Register("patchme")
		patch := func(body map[string]any) *testkit.Response {
			return s.Do("PATCH", "/api/v1/admin/users/"+u.ID, body, adm.Auth())
		}
		d := patch(map[string]any{"identityVerified": true}).Want(t, http.StatusOK, "").Data()
		if d["identityVerified"] != true || d["trustTier"] != "verified" {
			t.Fatalf("verified = %v", d)
		}
		wantChange(t, s, "PATCH /api/v1/admin/users/{id}", u.ID, "identityVerified", false, true)
		wantChange(t, s, "PATCH /api/v1/admin/users/{id}", u.ID, "trustTier", "new", "verified")
		d = patch(map[string]any{"trustTier": "partner", "role": "admin"}).Want(t, http.StatusOK, "").Data()
		if d["trustTier"] != "partner" || d["role"] != "admin" {
			t.Fatalf("patched = %v", d)
		}
		wantChange(t, s, "PATCH /api/v1/admin/users/{id}", u.ID, "role", "user", "admin")
		d = patch(map[string]any{"status": "suspended"}).Want(t, http.StatusOK, "").Data()
		if d["status"] != "suspended" {
			t.Fatalf("status = %v", d)
		}
		wantChange(t, s, "PATCH /api/v1/admin/users/{id}", u.ID, "status", "active", "suspended")
		s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
		for field, v := range map[string]any{"status": "gone", "trustTier": "gold", "role": "root", "identityVerified": "yes"} {
			r := patch(map[string]any{field: v}).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
			if !slices.Contains(r.Fields(), field) {
				t.Errorf("%s: fields %v", field, r.Fields())
			}
		}
		// An admin cannot suspend, ban or demote themselves.
		for _, body := range []map[string]any{{"status": "suspended"}, {"status": "banned"}, {"role": "user"}} {
			s.Do("PATCH", "/api/v1/admin/users/"+adm.ID, body, adm.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		}
		s.Do("PATCH", "/api/v1/admin/users/"+adm.ID, map[string]any{"trustTier": "trusted"}, adm.Auth()).Want(t, http.StatusOK, "")
		s.Do("GET", "/api/v1/admin/users", nil, adm.Auth()).Want(t, http.StatusOK, "")
	})
}

func TestAdminUserModeration(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		seller := s.VerifiedOwner("mod-seller")
		key := s.NewKey(seller, "buy_sell")
		listing := s.ActiveListing(seller, "walnut writing desk with two drawers", 20000)
		watcher := s.VerifiedOwner("mod-watcher")
		s.Do("POST", "/api/v1/listings/"+listing+"/watch", nil, watcher.Auth()).Want(t, http.StatusOK, "")
		post := func(id, action string, body any) *testkit.Response {
			return s.Do("POST", "/api/v1/admin/users/"+id+"/"+action, body, adm.Auth())
		}
		reason := map[string]any{"reason": "fraud report"}
		if found := s.Do("GET", "/api/v1/listings?q=walnut+writing+desk", nil).Want(t, http.StatusOK, ""); len(found.List()) != 1 {
			t.Fatalf("search before the ban finds %v", found.List())
		}

		// Suspend: the user and their keys are refused, keys and listings stay.
		if d := post(seller.ID, "suspend", reason).Want(t, http.StatusOK, "").Data(); d["status"] != "suspended" {
			t.Fatalf("suspended = %v", d)
		}
		e := wantChange(t, s, "POST /api/v1/admin/users/{id}/suspend", seller.ID, "status", "active", "suspended")
		if e.Details["reason"] != "fraud report" {
			t.Fatalf("reason = %v", e.Details)
		}
		s.Do("GET", "/api/v1/auth/me", nil, seller.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
		s.Do("GET", "/api/v1/spending-controls", nil, key.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
		post(seller.ID, "reinstate", reason).Want(t, http.StatusOK, "")
		wantChange(t, s, "POST /api/v1/admin/users/{id}/reinstate", seller.ID, "status", "suspended", "active")
		s.Do("GET", "/api/v1/spending-controls", nil, key.Auth()).Want(t, http.StatusOK, "")

		// Ban: keys revoked, active listings removed; reinstate keeps both so.
		d := post(seller.ID, "ban", reason).Want(t, http.StatusOK, "").Data()
		if d["status"] != "banned" {
			t.Fatalf("banned = %v", d)
		}
		e = wantChange(t, s, "POST /api/v1/admin/users/{id}/ban", seller.ID, "status", "active", "banned")
		if fmt.Sprint(e.Details["revokedKeys"]) != fmt.Sprint([]any{key.ID}) || fmt.Sprint(e.Details["removedListings"]) != fmt.Sprint([]any{listing}) {
			t.Fatalf("ban details = %v", e.Details)
		}
		s.Do("GET", "/api/v1/spending-controls", nil, key.Auth()).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		s.Do("GET", "/api/v1/auth/me", nil, seller.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
		l, err := s.App.DB.Read().ListingByID(t.Context(), listing)
		if err != nil || l.Status != "removed" {
			t.Fatalf("listing after ban = %v, %v", l, err)
		}
		if found := s.Do("GET", "/api/v1/listings?q=walnut+writing+desk", nil).Want(t, http.StatusOK, ""); len(found.List()) != 0 {
			t.Fatalf("search still finds the banned seller's listing: %v", found.List())
		}
		// The watcher hears that the listing left sale.
		page, _, err := s.App.Feed.Page(t.Context(), watcher.ID, "", []string{"listing.updated"}, 10, 5*time.Second)
		if err != nil || len(page) != 1 || page[0].Event.EntityID != listing || page[0].Event.Data["status"] != "removed" {
			t.Fatalf("the watcher's feed after the ban: %v, %v", page, err)
		}
		// A banned account cannot be merely suspended.
		post(seller.ID, "suspend", reason).Want(t, http.StatusConflict, "INVALID_STATE")
		post(seller.ID, "reinstate", reason).Want(t, http.StatusOK, "")
		wantChange(t, s, "POST /api/v1/admin/users/{id}/reinstate", seller.ID, "status", "banned", "active")
		s.Do("GET", "/api/v1/auth/me", nil, seller.Auth()).Want(t, http.StatusOK, "")
		s.Do("GET", "/api/v1/spending-controls", nil, key.Auth()).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		if l, _ := s.App.DB.Read().ListingByID(t.Context(), listing); l.Status != "removed" {
			t.Fatalf("listing after reinstate = %v", l.Status)
		}
		ks := s.Do("GET", "/api/v1/admin/users/"+seller.ID+"/agent-keys", nil, adm.Auth()).Want(t, http.StatusOK, "").List()
		if ks[0].(map[string]any)["status"] != "revoked" {
			t.Fatalf("key after reinstate = %v", ks[0])
		}

		// The reason is required; an admin cannot suspend or ban themselves.
		for _, body := range []any{map[string]any{}, map[string]any{"reason": "   "}, map[string]any{"reason": 5}} {
			post(seller.ID, "suspend", body).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		}
		post(adm.ID, "suspend", reason).Want(t, http.StatusForbidden, "FORBIDDEN")
		post(adm.ID, "ban", reason).Want(t, http.StatusForbidden, "FORBIDDEN")
		s.Do("GET", "/api/v1/admin/users", nil, adm.Auth()).Want(t, http.StatusOK, "")
	})
}

func TestAdminUserSpendingOverride(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		u := s.Register("spend-owner")
		path := "/api/v1/admin/users/" + u.ID + "/spending-controls"
		d := s.Do("PATCH", path, map[string]any{"dailyLimit": 777, "approvalThreshold": 500}, adm.Auth()).Want(t, http.StatusOK, "").Data()
		if c := d["controls"].(map[string]any); c["dailyLimit"] != float64(777) || c["approvalThreshold"] != float64(500) || c["perTransactionLimit"] != float64(10000) {
			t.Fatalf("controls = %v", c)
		}
		own := s.Do("GET", "/api/v1/spending-controls", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		if c := own["controls"].(map[string]any); c["dailyLimit"] != float64(777) {
			t.Fatalf("owner sees %v", c)
		}
		e := audits(t, s, "PATCH /api/v1/admin/users/{id}/spending-controls", u.ID)
		if len(e) != 1 {
			t.Fatalf("%d audit entries", len(e))
		}
		b, a := e[0].Details["before"].(map[string]any), e[0].Details["after"].(map[string]any)
		if b["dailyLimit"] != float64(50000) || a["dailyLimit"] != float64(777) || b["approvalThreshold"] != nil || a["approvalThreshold"] != float64(500) {
			t.Fatalf("audit before %v after %v", b, a)
		}
		// The change is the admin's: the event names them, not the owner.
		evs, err := s.App.DB.Read().EventsFor(t.Context(), "user", u.ID)
		if err != nil {
			t.Fatal(err)
		}
		var by []string
		for _, ev := range evs {
			if ev.Type == "spending_controls.updated" {
				by = append(by, string(ev.ActorType)+":"+ev.ActorID)
			}
		}
		if len(by) != 1 || by[0] != "admin:"+adm.ID {
			t.Fatalf("spending_controls.updated by %v, want the admin %s", by, adm.ID)
		}
		r := s.Do("PATCH", path, map[string]any{"dailyLimit": -1}, adm.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		if !slices.Contains(r.Fields(), "dailyLimit") {
			t.Fatalf("fields = %v", r.Fields())
		}
	})
}

// PATCH status banned has a ban's effects.
func TestAdminUserPatchBan(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		seller := s.VerifiedOwner("patch-ban")
		key := s.NewKey(seller, "sell_only")
		listing := s.ActiveListing(seller, "copper kettle with wooden handle", 4000)
		s.Do("PATCH", "/api/v1/admin/users/"+seller.ID, map[string]any{"status": "banned"}, adm.Auth()).Want(t, http.StatusOK, "")
		e := wantChange(t, s, "PATCH /api/v1/admin/users/{id}", seller.ID, "status", "active", "banned")
		if fmt.Sprint(e.Details["revokedKeys"]) != fmt.Sprint([]any{key.ID}) {
			t.Fatalf("details = %v", e.Details)
		}
		s.Do("GET", "/api/v1/spending-controls", nil, key.Auth()).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		if l, _ := s.App.DB.Read().ListingByID(t.Context(), listing); l == nil || l.Status != "removed" {
			t.Fatalf("listing = %v", l)
		}
	})
}
