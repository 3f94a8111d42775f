package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"marketplace/internal/testkit"
)

// TestSettingsProfile: the display name and username are saved as PATCH
// /auth/me saves them; markup in a name is kept as written and shown as
// text; a refused username shows what was typed; a guest is sent to sign
// in; a form without the CSRF token changes nothing.
func TestSettingsProfile(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		b := signUp(t, s, "Grace", "grace-settings@example.com")
		tok := apiToken(t, s, "grace-settings@example.com", "correct-horse-1")
		b.get("/settings").want(t, http.StatusOK, "<h1>Settings</h1>", "Display name", `value="Grace"`, "Sign out")

		name := `<script>alert("x")</script> Grace`
		b.post("/settings/profile", "displayName", name, "username", "grace.h").redirect(t, "/settings?saved=profile")
		p := b.get("/settings?saved=profile").want(t, http.StatusOK, "Your profile is saved.",
			`&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; Grace`, `value="grace.h"`)
		if strings.Contains(p.body, `<script>alert`) {
			t.Fatal("the display name is not escaped")
		}
		me := s.Do("GET", "/api/v1/auth/me", nil, tok).Want(t, http.StatusOK, "").Data()
		if me["displayName"] != name || me["username"] != "grace.h" {
			t.Fatalf("the API's profile = %v", me)
		}
		// The query names a notice; it never puts text on the page.
		if p := b.get("/settings?saved=<b>hi</b>"); strings.Contains(p.body, "hi</b>") || strings.Contains(p.body, `role="status"`) {
			t.Fatal("the saved notice took text from the query")
		}

		b.post("/settings/profile", "displayName", "Grace", "username", "x!").
			want(t, http.StatusBadRequest, "must be 3 to 30 characters", `value="x!"`)
		b.post("/settings/profile", "displayName", "  ", "username", "grace.h").want(t, http.StatusBadRequest, "display_name")
		if me := s.Do("GET", "/api/v1/auth/me", nil, tok).Want(t, http.StatusOK, "").Data(); me["displayName"] != name {
			t.Fatalf("a refused change changed the name: %v", me)
		}

		b.do("POST", "/settings/profile", url.Values{"displayName": {"Forged"}, "username": {"grace.h"}}).
			want(t, http.StatusForbidden, "did not come from this site")
		if me := s.Do("GET", "/api/v1/auth/me", nil, tok).Want(t, http.StatusOK, "").Data(); me["displayName"] != name {
			t.Fatal("a form without a CSRF token changed the name")
		}

		guest := newBrowser(t, s)
		guest.get("/settings").redirect(t, "/signin?next=%2Fsettings")
		guest.get("/settings", tok).redirect(t, "/signin?next=%2Fsettings")
		guest.get("/signin")
		guest.post("/settings/profile", "displayName", "Guest", "username", "guest").want(t, http.StatusUnauthorized)
	})
}

// TestSettingsPassword: a password change goes through the accounts
// service: the current password is checked, every console session of the
// user ends (another browser is signed out), and this browser is signed in
// again with a new session.
func TestSettingsPassword(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		const email = "hopper-settings@example.com"
		b := signUp(t, s, "Hopper", email)
		other := signIn(t, s, &testkit.User{Email: email, Password: "correct-horse-1"}, "/settings")
		other.get("/settings").want(t, http.StatusOK, "Change password")

		b.get("/settings").want(t, http.StatusOK, "Current password", "New password")
		b.post("/settings/password", "currentPassword", "wrong-password", "newPassword", "correct-horse-2", "confirmPassword", "correct-horse-2").
			want(t, http.StatusUnauthorized, "the current password is wrong")
		b.post("/settings/password", "currentPassword", "correct-horse-1", "newPassword", "correct-horse-2", "confirmPassword", "correct-horse-3").
			want(t, http.StatusBadRequest, "the two new passwords differ")
		b.post("/settings/password", "currentPassword", "correct-horse-1", "newPassword", "short", "confirmPassword", "short").
			want(t, http.StatusBadRequest, "new_password")
		other.get("/settings").want(t, http.StatusOK) // refusals end nothing

		before := sessionCookie(t, b)
		b.post("/settings/password", "currentPassword", "correct-horse-1", "newPassword", "correct-horse-2", "confirmPassword", "correct-horse-2").
			redirect(t, "/settings?saved=password")
		if after := sessionCookie(t, b); after == "" || after == before {
			t.Fatal("the browser was not given a new session")
		}
		b.get("/settings?saved=password").want(t, http.StatusOK, "Your password is changed.")
		other.get("/settings").redirect(t, "/signin?next=%2Fsettings")
		withSession(t, s, before).get("/settings").redirect(t, "/signin?next=%2Fsettings")

		s.Do("POST", "/api/v1/auth/login", map[string]any{"email": email, "password": "correct-horse-1"}).Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
		apiToken(t, s, email, "correct-horse-2")
	})
}

// TestSettingsNotifications: the preferences show as the API has them (all
// on by default) and are saved as PUT /auth/me/notification-prefs saves
// them: an unticked box is off.
func TestSettingsNotifications(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		b := signUp(t, s, "Lovelace", "lovelace-settings@example.com")
		tok := apiToken(t, s, "lovelace-settings@example.com", "correct-horse-1")
		p := b.get("/settings").want(t, http.StatusOK, "Notification preferences", `name="orders.email" type="checkbox" checked`)
		if n := strings.Count(p.body, `type="checkbox" checked`); n != 10 {
			t.Fatalf("%d boxes ticked by default, want 10", n)
		}
		b.post("/settings/notifications", "orders.webhook", "on", "offers.email", "on", "offers.webhook", "on",
			"messages.email", "on", "listings.webhook", "on", "account.email", "on", "account.webhook", "on").
			redirect(t, "/settings?saved=notifications")
		cats := s.Do("GET", "/api/v1/auth/me/notification-prefs", nil, tok).Want(t, http.StatusOK, "").Data()["categories"].(map[string]any)
		want := map[string][2]bool{"orders": {false, true}, "offers": {true, true}, "messages": {true, false},
			"listings": {false, true}, "account": {true, true}}
		for cat, w := range want {
			c := cats[cat].(map[string]any)
			if c["email"] != w[0] || c["webhook"] != w[1] {
				t.Fatalf("%s = %v, want email %v webhook %v", cat, c, w[0], w[1])
			}
		}
		p = b.get("/settings").want(t, http.StatusOK, `name="orders.email" type="checkbox">`, `name="orders.webhook" type="checkbox" checked`,
			`name="messages.webhook" type="checkbox">`)
		if n := strings.Count(p.body, `type="checkbox" checked`); n != 7 {
			t.Fatalf("%d boxes ticked, want 7", n)
		}
	})
}

// TestSettingsAddresses: addresses are added as POST /addresses adds them
// (the first is the default), checked by the same rules, made the default
// and removed; another user's address is not found.
func TestSettingsAddresses(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		b := signUp(t, s, "Turing", "turing-settings@example.com")
		b.get("/settings").want(t, http.StatusOK, "No saved addresses.")
		b.post("/settings/addresses", "name", "Alan <T>", "line1", "1 Main St", "city", "Portland", "state", "or", "zip", "97201").
			redirect(t, "/settings?saved=addresses")
		b.get("/settings").want(t, http.StatusOK, "Alan &lt;T&gt;, 1 Main St, Portland OR 97201, US", "<td>yes</td>")
		b.post("/settings/addresses", "line1", "2 Side St", "city", "Portland", "state", "XX", "zip", "97201").
			want(t, http.StatusBadRequest, "must be a US state code", `value="2 Side St"`)
		b.post("/settings/addresses", "line1", "2 Side St", "city", "Portland", "state", "OR", "zip", "97202").
			redirect(t, "/settings?saved=addresses")
		p := b.get("/settings").want(t, http.StatusOK, "2 Side St", "<td>no</td>")
		address := p.find(t, `action="/settings/addresses/([0-9a-f-]+)/default"`, "Make default button")
		b.post("/settings/addresses/"+address+"/default").redirect(t, "/settings?saved=addresses")
		if p := b.get("/settings"); strings.Contains(p.body, "/settings/addresses/"+address+"/default") {
			t.Fatal("the new default still offers to become the default")
		}

		other := signUp(t, s, "Other", "other-settings@example.com")
		other.get("/settings")
		other.post("/settings/addresses/"+address+"/default").want(t, http.StatusNotFound)
		other.post("/settings/addresses/"+address+"/delete").want(t, http.StatusNotFound)
		b.get("/settings").want(t, http.StatusOK, "2 Side St")
		b.post("/settings/addresses/"+address+"/delete").redirect(t, "/settings?saved=addresses")
		if p := b.get("/settings"); strings.Contains(p.body, "2 Side St") {
			t.Fatal("the removed address is still listed")
		}
	})
}

// TestSettingsShipFrom: the seller's ship-from address is set on the page
// as PUT /auth/me/address sets it; a bad one is refused with what was typed.
func TestSettingsShipFrom(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		b := signUp(t, s, "Shipper", "shipper-settings@example.com")
		b.get("/settings").want(t, http.StatusOK, "Ship-from address", "Save ship-from address")
		b.post("/settings/ship-from", "name", "Shop <1>", "line1", "9 Dock Rd", "city", "Seattle", "state", "XX", "zip", "98101").
			want(t, http.StatusBadRequest, "must be a US state code", `value="9 Dock Rd"`)
		b.post("/settings/ship-from", "name", "Shop <1>", "line1", "9 Dock Rd", "city", "Seattle", "state", "WA", "zip", "98101").
			redirect(t, "/settings?saved=shipFrom")
		b.get("/settings?saved=shipFrom").want(t, http.StatusOK, "labels for your sales ship from it", `value="9 Dock Rd"`, `value="Shop &lt;1&gt;"`)
		u, err := s.App.DB.Read().UserByEmail(t.Context(), "shipper-settings@example.com")
		if err != nil || u.ShipFrom == nil || u.ShipFrom.Line1 != "9 Dock Rd" || u.ShipFrom.State != "WA" {
			t.Fatalf("ship-from = %+v (%v)", u, err)
		}
	})
}
