package apiv1_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"marketplace/internal/testkit"
)

// adminAuthTable checks a GET admin route's authorization: no credentials
// 401, a user's bearer and any agent key (an admin's too) 403, admin 200.
func adminAuthTable(t *testing.T, s *testkit.Server, admin *testkit.User, path string) {
	t.Helper()
	user := s.Register("not-admin")
	adminKey := s.NewKey(admin, "buy_sell")
	userKey := s.NewKey(user, "buy_sell")
	s.Do("GET", path, nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
	s.Do("GET", path, nil, user.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
	s.Do("GET", path, nil, userKey.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
	s.Do("GET", path, nil, adminKey.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
	s.Do("GET", path, nil, admin.Auth()).Want(t, http.StatusOK, "")
}

// The audit log answers every filter of the spec's row, together, and the
// entity and actor routes.
func TestAdminAudit(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin := s.Admin()
		one, two := s.Register("audit-one"), s.Register("audit-two")
		day1 := s.Clock.Now()
		s.Do("PATCH", "/api/v1/auth/me", map[string]any{"displayName": "One"}, one.Auth()).Want(t, http.StatusOK, "")
		s.Do("PATCH", "/api/v1/auth/me", map[string]any{"displayName": ""}, two.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		s.Clock.Advance(24 * time.Hour)
		s.Do("PATCH", "/api/v1/auth/me", map[string]any{"displayName": "Uno"}, one.Auth()).Want(t, http.StatusOK, "")

		get := func(path string, q url.Values) *testkit.Response {
			t.Helper()
			return s.Do("GET", path+"?"+q.Encode(), nil, admin.Auth()).Want(t, http.StatusOK, "")
		}
		count := func(r *testkit.Response, want int) {
			t.Helper()
			if n := len(r.List()); n != want {
				t.Fatalf("%d entries, want %d: %s", n, want, r.Body)
			}
			if total := r.JSON["meta"].(map[string]any)["total"]; total != float64(want) {
				t.Fatalf("meta.total = %v, want %d", total, want)
			}
		}
		me := "PATCH /api/v1/auth/me"
		all := url.Values{"actorType": {"user"}, "actorId": {one.ID}, "action": {me}, "entityType": {"user"},
			"entityId": {one.ID}, "result": {"allowed"}, "startDate": {"2026-06-11"}, "endDate": {"2026-06-11"}}
		r := get("/api/v1/admin/audit", all)
		count(r, 1)
		e := r.List()[0].(map[string]any)
		for k, want := range map[string]any{"actorType": "user", "actorId": one.ID, "action": me, "entityType": "user",
			"entityId": one.ID, "result": "allowed"} {
			if e[k] != want {
				t.Fatalf("entry %s = %v, want %v (%v)", k, e[k], want, e)
			}
		}
		for _, k := range []string{"id", "details", "ip", "requestId", "createdAt"} {
			if _, ok := e[k]; !ok {
				t.Fatalf("entry has no %s: %v", k, e)
			}
		}
		if d := e["details"].(map[string]any); d["status"] != float64(200) {
			t.Fatalf("details = %v", d)
		}
		if at := e["createdAt"].(string); at[:10] != "2026-06-11" {
			t.Fatalf("createdAt %s, want on 2026-06-11", at)
		}

		// Each filter on its own narrows the set.
		byOne := url.Values{"actorId": {one.ID}}
		count(get("/api/v1/admin/audit", byOne), 2)
		count(get("/api/v1/admin/audit", url.Values{"actorType": {"user"}, "actorId": {two.ID}}), 1)
		count(get("/api/v1/admin/audit", url.Values{"actorId": {two.ID}, "result": {"refused"}}), 1)
		count(get("/api/v1/admin/audit", url.Values{"actorId": {two.ID}, "result": {"allowed"}}), 0)
		count(get("/api/v1/admin/audit", url.Values{"action": {me}}), 3)
		count(get("/api/v1/admin/audit", url.Values{"action": {me}, "actorType": {"agent"}}), 0)
		// The registration names the user too.
		count(get("/api/v1/admin/audit", url.Values{"entityType": {"user"}, "entityId": {one.ID}}), 3)
		count(get("/api/v1/admin/audit", url.Values{"entityType": {"user"}, "entityId": {one.ID}, "actorType": {"anonymous"}}), 1)
		count(get("/api/v1/admin/audit", url.Values{"actorId": {one.ID}, "startDate": {"2026-06-10"}, "endDate": {"2026-06-10"}}), 1)
		count(get("/api/v1/admin/audit", url.Values{"actorId": {one.ID}, "startDate": {"2026-06-11"}}), 1)
		count(get("/api/v1/admin/audit", url.Values{"actorId": {one.ID}, "endDate": {"2026-06-10"}}), 1)
		// RFC 3339 bounds are inclusive instants.
		at := day1.Format(time.RFC3339Nano)
		count(get("/api/v1/admin/audit", url.Values{"actorId": {one.ID}, "startDate": {at}, "endDate": {at}}), 1)
		count(get("/api/v1/admin/audit", url.Values{"actorId": {one.ID}, "startDate": {day1.Add(time.Second).Format(time.RFC3339)}}), 1)

		// Newest first, paged.
		page := get("/api/v1/admin/audit", url.Values{"actorId": {one.ID}, "limit": {"1"}, "offset": {"1"}})
		if n := len(page.List()); n != 1 {
			t.Fatalf("page has %d entries", n)
		}
		meta := page.JSON["meta"].(map[string]any)
		if meta["total"] != float64(2) || meta["limit"] != float64(1) || meta["offset"] != float64(1) {
			t.Fatalf("meta = %v", meta)
		}
		if c := page.List()[0].(map[string]any)["createdAt"].(string); c[:10] != "2026-06-10" {
			t.Fatalf("second newest is from %s, want the first day", c)
		}
		if l := get("/api/v1/admin/audit", nil).JSON["meta"].(map[string]any)["limit"]; l != float64(20) {
			t.Fatalf("default limit %v", l)
		}

		// The entity and actor routes, with further filters.
		count(get("/api/v1/admin/audit/entity/user/"+one.ID, nil), 3)
		count(get("/api/v1/admin/audit/entity/user/"+one.ID, url.Values{"startDate": {"2026-06-11"}}), 1)
		count(get("/api/v1/admin/audit/actor/user/"+one.ID, nil), 2)
		count(get("/api/v1/admin/audit/actor/user/"+one.ID, url.Values{"result": {"refused"}}), 0)
		count(get("/api/v1/admin/audit/actor/user/"+two.ID, url.Values{"result": {"refused"}}), 1)

		for _, q := range []string{"limit=0", "limit=101", "offset=-1", "actorType=robot", "result=maybe", "startDate=yesterday",
			"endDate=2026-13-01", "startDate=2026-06-11&endDate=2026-06-10"} {
			s.Do("GET", "/api/v1/admin/audit?"+q, nil, admin.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		}
		s.Do("GET", "/api/v1/admin/audit/actor/robot/x", nil, admin.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")

		for _, path := range []string{"/api/v1/admin/audit", "/api/v1/admin/audit/entity/user/" + one.ID,
			fmt.Sprintf("/api/v1/admin/audit/actor/user/%s", one.ID)} {
			adminAuthTable(t, s, admin, path)
		}
	})
}
