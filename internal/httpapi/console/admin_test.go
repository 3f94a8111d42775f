package console_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/shipping"
	"marketplace/internal/testkit"
)

// admAudit is the API's audit entries made by action (for entityID, unless
// it is empty), newest first.
func admAudit(t *testing.T, s *testkit.Server, admin *testkit.User, action, entityID string) []map[string]any {
	t.Helper()
	q := url.Values{"action": {action}}
	if entityID != "" {
		q.Set("entityId", entityID)
	}
	var out []map[string]any
	for _, e := range s.Do("GET", "/api/v1/admin/audit?"+q.Encode(), nil, admin.Auth()).Want(t, http.StatusOK, "").List() {
		out = append(out, e.(map[string]any))
	}
	return out
}

// TestAdminUsers: an admin finds a user, sees their keys, suspends them on
// their page (the user's bearer token and agent key then answer 403
// ACCOUNT_SUSPENDED, as the API says) and reinstates them; the audit log
// keeps each change with its reason and the values before and after; the
// refusals are the API's.
func TestAdminUsers(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		target := s.Register("target")
		key := s.NewKey(target, "buy_sell")
		s.Do("PATCH", "/api/v1/auth/me", map[string]any{"displayName": `<b>Target</b> & co`}, target.Auth()).Want(t, http.StatusOK, "")
		b := signIn(t, s, adm, "/admin")

		b.get("/admin").want(t, http.StatusOK, "<h1>Admin</h1>", `href="/admin/users"`, "Held listings", "Disputes", "Config and flags",
			"Audit", "Finance")
		p := b.get("/admin/users?search="+url.QueryEscape(target.Email)).want(t, http.StatusOK, target.Email,
			"&lt;b&gt;Target&lt;/b&gt; &amp; co", `href="/admin/users/`+target.ID+`"`, "1–1 of 1")
		if strings.Contains(p.body, "<b>Target</b>") {
			t.Fatal("the display name is not escaped")
		}
		if strings.Contains(p.body, adm.Email) {
			t.Fatal("the search did not filter")
		}
		b.get("/admin/users?status=suspended").want(t, http.StatusOK, "No user matches.")
		b.get("/admin/users?status=bogus").want(t, http.StatusBadRequest, "must be active, suspended or banned")
		b.get("/admin/users?limit=1").want(t, http.StatusOK, "1–1 of ", "Next page")

		b.get("/admin/users/"+target.ID).want(t, http.StatusOK, "test buy_sell", "No payout account", "Suspend", "Ban")
		b.post("/admin/users/"+target.ID+"/suspend", "reason", "fraud report").redirect(t, "/admin/users/"+target.ID)
		b.get("/admin/users/"+target.ID).want(t, http.StatusOK, "<dd>suspended</dd>", "Reinstate")
		s.Do("GET", "/api/v1/auth/me", nil, target.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
		s.Do("GET", "/api/v1/spending-controls", nil, key.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")

		// The audit page shows the change; the API's log has it with the
		// values before and after and the reason.
		b.get("/admin/audit?entityId="+target.ID).want(t, http.StatusOK, "POST /admin/users/{id}/suspend", target.ID, "fraud report")
		es := admAudit(t, s, adm, "POST /admin/users/{id}/suspend", target.ID)
		if len(es) != 1 {
			t.Fatalf("audit entries = %v", es)
		}
		d := es[0]["details"].(map[string]any)
		if es[0]["result"] != "allowed" || d["reason"] != "fraud report" || d["before"].(map[string]any)["status"] != "active" ||
			d["after"].(map[string]any)["status"] != "suspended" || es[0]["actorType"] != "admin" || es[0]["actorId"] != adm.ID {
			t.Fatalf("audit entry = %v", es[0])
		}

		// Refusals, on the page at the API's status: a reason is required,
		// a banned user cannot be suspended, an admin cannot suspend
		// themselves, an unknown user is not found.
		b.post("/admin/users/"+target.ID+"/reinstate", "reason", "  ").want(t, http.StatusBadRequest, "1 to 500 characters", "<dd>suspended</dd>")
		b.post("/admin/users/"+target.ID+"/reinstate", "reason", "cleared").redirect(t, "/admin/users/"+target.ID)
		s.Do("GET", "/api/v1/auth/me", nil, target.Auth()).Want(t, http.StatusOK, "")
		b.post("/admin/users/"+adm.ID+"/suspend", "reason", "oops").want(t, http.StatusForbidden, "Suspend")
		b.get("/admin/users/"+market.NewID()).want(t, http.StatusNotFound)
		b.post("/admin/users/"+market.NewID()+"/suspend", "reason", "x").want(t, http.StatusNotFound)

		// A ban revokes the keys: the key then answers INVALID_AGENT_KEY.
		b.post("/admin/users/"+target.ID+"/ban", "reason", "repeat fraud").redirect(t, "/admin/users/"+target.ID)
		s.Do("GET", "/api/v1/spending-controls", nil, key.Auth()).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		b.get("/admin/users/"+target.ID).want(t, http.StatusOK, "<dd>banned</dd>", "revoked")
	})
}

// TestAdminRefusals: a non-admin gets the API's answer to a non-admin on
// every admin page (403) and changes nothing; a guest is sent to sign in;
// a form without the CSRF token changes nothing.
func TestAdminRefusals(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		target := s.Register("victim")
		s.Do("GET", "/api/v1/admin/users", nil, target.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")

		user := signUp(t, s, "Plain user", "plain-admin-console@example.com")
		pages := []string{"/admin", "/admin/users", "/admin/users/" + target.ID, "/admin/listings", "/admin/disputes",
			"/admin/config", "/admin/audit", "/admin/finance"}
		for _, path := range pages {
			p := user.get(path).want(t, http.StatusForbidden, "this needs an administrator")
			if strings.Contains(p.body, `href="/admin"`) {
				t.Fatalf("%s: a non-admin sees the Admin link", path)
			}
		}
		user.get("/agents")
		user.post("/admin/users/"+target.ID+"/suspend", "reason", "x").want(t, http.StatusForbidden, "this needs an administrator")
		user.post("/admin/feature-flags/offers", "enabled", "false").want(t, http.StatusForbidden)
		s.Do("GET", "/api/v1/auth/me", nil, target.Auth()).Want(t, http.StatusOK, "")

		guest := newBrowser(t, s)
		for _, path := range pages {
			guest.get(path).redirect(t, "/signin?next="+url.QueryEscape(path))
		}
		// An admin's bearer token is no session on a page.
		guest.get("/admin/users", adm.Auth()).redirect(t, "/signin?next=%2Fadmin%2Fusers")

		b := signIn(t, s, adm, "/admin")
		b.get("/admin/users/"+target.ID).want(t, http.StatusOK, `href="/admin"`)
		for _, tok := range []string{"", "forged"} {
			b.do("POST", "/admin/users/"+target.ID+"/suspend", url.Values{"csrf": {tok}, "reason": {"x"}}).
				want(t, http.StatusForbidden, "did not come from this site")
		}
		s.Do("GET", "/api/v1/auth/me", nil, target.Auth()).Want(t, http.StatusOK, "")
		// Each refused attempt is in the audit log; none reached the user.
		es := admAudit(t, s, adm, "POST /admin/users/{id}/suspend", "")
		if len(es) != 3 {
			t.Fatalf("refused attempts in the audit log = %v", es)
		}
		for _, e := range es {
			if e["result"] != "refused" || e["details"].(map[string]any)["status"] != float64(http.StatusForbidden) {
				t.Fatalf("audit entry of a refused attempt = %v", e)
			}
		}
	})
}

// TestAdminHeldListings: held listings wait on the page with their title
// escaped; "Approve" puts one on sale, "Reject" needs a reason and removes
// one; deciding again is the API's INVALID_STATE.
func TestAdminHeldListings(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		seller := s.VerifiedOwner("heldseller")
		hold := func(brief, title string) string {
			id := s.ActiveListing(seller, brief, 2000)
			s.EditListing(id, func(l *listings.Listing) { l.Title = title })
			s.Do("PATCH", "/api/v1/admin/listings/"+id, map[string]any{"status": "held"}, adm.Auth()).Want(t, http.StatusOK, "")
			return id
		}
		good := hold("walnut side table with one drawer", `<script>alert("x")</script> table`)
		bad := hold("brass desk lamp with a green shade", "Brass lamp")

		b := signIn(t, s, adm, "/admin")
		p := b.get("/admin/listings").want(t, http.StatusOK, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; table", "Brass lamp",
			"$20.00", "heldseller", "/admin/listings/"+good+"/approve", "/admin/listings/"+bad+"/reject")
		if strings.Contains(p.body, `<script>alert`) {
			t.Fatal("the title is not escaped")
		}
		b.post("/admin/listings/"+good+"/approve").redirect(t, "/admin/listings")
		if st := s.Do("GET", "/api/v1/listings/"+good, nil).Want(t, http.StatusOK, "").Data()["status"]; st != "active" {
			t.Fatalf("the approved listing is %v", st)
		}
		b.post("/admin/listings/"+good+"/approve").want(t, http.StatusConflict, "only a held listing can be approved", "Brass lamp")
		b.post("/admin/listings/"+bad+"/reject", "reason", "").want(t, http.StatusBadRequest, "is required")
		b.post("/admin/listings/"+bad+"/reject", "reason", "blurry photos").redirect(t, "/admin/listings")
		b.get("/admin/listings").want(t, http.StatusOK, "No listing is held.")
		l, err := s.App.DB.Read().ListingByID(t.Context(), bad)
		if err != nil || l.Status != listings.StatusRemoved {
			t.Fatalf("the rejected listing = %v, %v", l, err)
		}
		b.post("/admin/listings/"+market.NewID()+"/approve").want(t, http.StatusNotFound)
		if es := admAudit(t, s, adm, "POST /admin/listings/{id}/reject", bad); len(es) != 2 || es[0]["details"].(map[string]any)["reason"] != "blurry photos" {
			t.Fatalf("audit of the rejection = %v", es)
		}
	})
}

// TestAdminConfig: the config page shows each key with its value in force
// and the flags; a change there holds on the API, is checked as the API
// checks it and is audited with the values before and after.
func TestAdminConfig(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		b := signIn(t, s, adm, "/admin")
		b.get("/admin/config").want(t, http.StatusOK, "offers.max_rounds", `value="5"`, "Feature flags", "Switch off offers")

		b.post("/admin/config/offers.max_rounds", "value", "7").redirect(t, "/admin/config#config-offers.max_rounds")
		b.get("/admin/config").want(t, http.StatusOK, `id="value-offers.max_rounds" name="value" value="7"`)
		var rounds any
		for _, e := range s.Do("GET", "/api/v1/admin/config", nil, adm.Auth()).Want(t, http.StatusOK, "").List() {
			if e := e.(map[string]any); e["key"] == "offers.max_rounds" {
				rounds = e["value"]
			}
		}
		if rounds != float64(7) {
			t.Fatalf("offers.max_rounds on the API = %v", rounds)
		}
		es := admAudit(t, s, adm, "POST /admin/config/{key}", "offers.max_rounds")
		if len(es) != 1 || es[0]["entityType"] != "config" || es[0]["details"].(map[string]any)["before"] != float64(5) ||
			es[0]["details"].(map[string]any)["after"] != float64(7) {
			t.Fatalf("audit of the change = %v", es)
		}

		// Out of range, not JSON, empty: refused with the value shown again;
		// an unknown key is not found.
		b.post("/admin/config/offers.max_rounds", "value", "99").want(t, http.StatusBadRequest, "must be an integer from 1 to 20", `value="99"`)
		b.post("/admin/config/offers.max_rounds", "value", "seven").want(t, http.StatusBadRequest, "must be valid JSON")
		b.post("/admin/config/offers.max_rounds", "value", "").want(t, http.StatusBadRequest, "is required")
		b.post("/admin/config/no.such.key", "value", "1").want(t, http.StatusNotFound)
		b.get("/admin/config").want(t, http.StatusOK, `name="value" value="7"`)

		// A flag switched off: the feature answers FEATURE_DISABLED.
		b.post("/admin/feature-flags/registrations", "enabled", "false").redirect(t, "/admin/config#flag-registrations")
		b.get("/admin/config").want(t, http.StatusOK, "Switch on registrations")
		s.Do("POST", "/api/v1/auth/register", map[string]any{"email": "late@example.com", "password": "password-late-1234",
			"displayName": "Late", "acceptedTerms": true}).Want(t, http.StatusServiceUnavailable, "FEATURE_DISABLED")
		b.post("/admin/feature-flags/registrations", "enabled", "true").redirect(t, "/admin/config#flag-registrations")
		b.post("/admin/feature-flags/registrations", "enabled", "maybe").want(t, http.StatusBadRequest, "must be true or false")
		b.post("/admin/feature-flags/nope", "enabled", "true").want(t, http.StatusNotFound)
	})
}

// TestAdminDisputesAndFinance: an open dispute is listed and shown with its
// order; the admin resolves it with a partial refund in dollars and cents,
// and the money moves as through the API; the finance page sums the order.
func TestAdminDisputesAndFinance(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		seller := s.VerifiedOwner("dspseller")
		listing := s.ListingWith(t, seller, "Mid-century teak side table, small, light wear", 10000, nil)
		buyer := s.NewShopper("dspbuyer", "pm_card_visa")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000})
		order := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing, "maxPrice": 10000,
			"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		s.Do("POST", "/api/v1/orders/"+order+"/ship", map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"},
			seller.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/orders/"+order+"/delivered", nil, buyer.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": order, "reason": "damaged",
			"description": `The top is split <img src=x onerror=alert(1)>`}, buyer.Auth()).Want(t, http.StatusCreated, "")

		b := signIn(t, s, adm, "/admin")
		b.get("/admin").want(t, http.StatusOK, "Disputes</a> (1 open)")
		p := b.get("/admin/disputes?status=open").want(t, http.StatusOK, order, "damaged")
		id := p.find(t, `href="/admin/disputes/([0-9a-f-]+)"`, "dispute link")
		b.get("/admin/disputes?status=resolved").want(t, http.StatusOK, "No dispute matches.")
		b.get("/admin/disputes/"+id).want(t, http.StatusOK, "The top is split &lt;img src=x onerror=alert(1)&gt;", "$100.00",
			"frozen", "Resolve dispute")
		b.post("/admin/disputes/"+id+"/resolve", "resolution", "partial_refund").want(t, http.StatusBadRequest, "is required for partial_refund")
		b.post("/admin/disputes/"+id+"/resolve", "resolution", "partial_refund", "amount", "2.5.0").want(t, http.StatusBadRequest, "Amount must be an amount")
		b.post("/admin/disputes/"+id+"/resolve", "resolution", "partial_refund", "amount", "25.00", "note", "half the damage").
			redirect(t, "/admin/disputes/"+id)
		d := s.Do("GET", "/api/v1/admin/disputes/"+id, nil, adm.Auth()).Want(t, http.StatusOK, "").Data()
		if d["status"] != "resolved" || d["resolution"] != "partial_refund" || d["resolutionAmount"] != float64(2500) {
			t.Fatalf("the dispute after resolving = %v", d)
		}
		if p := b.get("/admin/disputes/"+id).want(t, http.StatusOK, "partial_refund", "$25.00", "half the damage"); strings.Contains(p.body, "Resolve dispute") {
			t.Fatal("a resolved dispute still offers to resolve")
		}
		// Resolving again answers the resolution made, as the API does.
		b.post("/admin/disputes/"+id+"/resolve", "resolution", "refund_buyer").redirect(t, "/admin/disputes/"+id)
		if d := s.Do("GET", "/api/v1/admin/disputes/"+id, nil, adm.Auth()).Want(t, http.StatusOK, "").Data(); d["resolution"] != "partial_refund" {
			t.Fatalf("a second resolution changed it: %v", d)
		}
		b.get("/admin/disputes/"+market.NewID()).want(t, http.StatusNotFound)

		// The finance page: this month by the service's clock, and any range.
		sum := s.Do("GET", "/api/v1/admin/finance/summary?startDate=2026-06-01&endDate=2026-06-10", nil, adm.Auth()).
			Want(t, http.StatusOK, "").Data()
		raw, _ := json.Marshal(sum)
		p = b.get("/admin/finance").want(t, http.StatusOK, `value="2026-06-01"`, `value="2026-06-10"`, "<td>1</td>", "$100.00",
			"$25.00")
		for _, k := range []string{"serviceFees", "netRevenue", "payoutsPending"} {
			if c := int64(sum[k].(float64)); !strings.Contains(p.body, "$"+shipping.FormatCents(c)) {
				t.Fatalf("the finance page lacks %s %d of %s:\n%s", k, c, raw, p.body)
			}
		}
		b.get("/admin/finance?startDate=2026-05-01&endDate=2026-05-31").want(t, http.StatusOK, "<td>0</td>")
		b.get("/admin/finance?startDate=2026-06-10&endDate=2026-06-01").want(t, http.StatusBadRequest, "must not be before startDate")
	})
}
