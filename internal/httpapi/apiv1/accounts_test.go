package apiv1_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/audit"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
	"marketplace/internal/testkit"
)

// start is the fixed clock reading every test server begins at.
var start = time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)

// drop marks a key to remove in with.
type dropT struct{}

var drop = dropT{}

// with copies m and sets (or, for drop, removes) key.
func with(m map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, x := range m {
		out[k] = x
	}
	if _, ok := v.(dropT); ok {
		delete(out, key)
	} else {
		out[key] = v
	}
	return out
}

func validAddress() map[string]any {
	return map[string]any{
		"name": "Ada Lovelace", "line1": "1 Market St", "line2": "Suite 5", "city": "San Francisco",
		"state": "CA", "zip": "94105", "country": "US", "phone": "+1 415 555 0100",
	}
}

func registerBody(email string) map[string]any {
	return map[string]any{"email": email, "password": "correct-horse-battery", "displayName": "Someone", "acceptedTerms": true}
}

// wantKeys fails unless m has exactly keys.
func wantKeys(t *testing.T, what string, m map[string]any, keys ...string) {
	t.Helper()
	var got []string
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(keys)
	if !slices.Equal(got, keys) {
		t.Errorf("%s has keys %v, want %v", what, got, keys)
	}
}

// wantTime fails unless v is an RFC 3339 string for want.
func wantTime(t *testing.T, what string, v any, want time.Time) {
	t.Helper()
	s, _ := v.(string)
	got, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || !got.Equal(want) {
		t.Errorf("%s = %v, want %s", what, v, want.Format(time.RFC3339))
	}
}

func wantEq(t *testing.T, what string, got, want any) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

var userKeys = []string{"id", "email", "username", "displayName", "avatarUrl", "role", "status", "trustTier",
	"identityVerified", "passwordSet", "shipFromAddress", "createdAt", "discord"}

// wantUser checks every field of a User object; createdAt must be start.
func wantUser(t *testing.T, u map[string]any, id, email, username, displayName string) {
	t.Helper()
	wantKeys(t, "user", u, userKeys...)
	if id == "" {
		if s, _ := u["id"].(string); !market.ValidID(s) {
			t.Errorf("id = %v, want a UUID", u["id"])
		}
	} else {
		wantEq(t, "id", u["id"], id)
	}
	wantEq(t, "email", u["email"], email)
	wantEq(t, "username", u["username"], username)
	wantEq(t, "displayName", u["displayName"], displayName)
	wantEq(t, "avatarUrl", u["avatarUrl"], nil)
	wantEq(t, "role", u["role"], "user")
	wantEq(t, "status", u["status"], "active")
	wantEq(t, "trustTier", u["trustTier"], "new")
	wantEq(t, "identityVerified", u["identityVerified"], false)
	wantEq(t, "passwordSet", u["passwordSet"], true)
	wantEq(t, "shipFromAddress", u["shipFromAddress"], nil)
	wantEq(t, "discord", u["discord"], nil)
	wantTime(t, "createdAt", u["createdAt"], start)
}

// wantAuthResult checks {user, accessToken, expiresAt} and returns user and
// token.
func wantAuthResult(t *testing.T, r *testkit.Response) (map[string]any, string) {
	t.Helper()
	d := r.Data()
	wantKeys(t, "auth result", d, "user", "accessToken", "expiresAt")
	tok, _ := d["accessToken"].(string)
	if strings.Count(tok, ".") != 2 {
		t.Errorf("accessToken %q is not a JWT", tok)
	}
	// Tokens expire on the real clock (sandbox time must not log people out).
	exp, err := time.Parse(time.RFC3339, d["expiresAt"].(string))
	if want := time.Now().Add(accounts.TokenTTL); err != nil || exp.Before(want.Add(-time.Minute)) || exp.After(want.Add(time.Minute)) {
		t.Errorf("expiresAt = %v, want about %s", d["expiresAt"], want.UTC().Format(time.RFC3339))
	}
	u, _ := d["user"].(map[string]any)
	return u, tok
}

func eventTypes(t *testing.T, s *testkit.Server, entityType, id string) []string {
	t.Helper()
	evs, err := s.App.DB.Read().EventsFor(t.Context(), entityType, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func login(s *testkit.Server, email, password string) *testkit.Response {
	s.T.Helper()
	return s.Do("POST", "/api/v1/auth/login", map[string]any{"email": email, "password": password})
}

func TestRegister(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		t.Run("every field", func(t *testing.T) {
			r := s.Do("POST", "/api/v1/auth/register", map[string]any{
				"email": "  Ada.Lovelace@Example.COM ", "password": "correct-horse-battery", "displayName": "  Ada Lovelace ",
				"username": "Ada_L", "acceptedTerms": true, "unknownField": 7,
			}, testkit.Header{Name: "X-Request-Id", Value: "reg-1"}).Want(t, http.StatusCreated, "")
			wantEq(t, "success", r.JSON["success"], true)
			meta := r.JSON["meta"].(map[string]any)
			wantEq(t, "meta.requestId", meta["requestId"], "reg-1")
			wantEq(t, "X-Request-Id", r.Header.Get("X-Request-Id"), "reg-1")
			u, tok := wantAuthResult(t, r)
			wantUser(t, u, "", "ada.lovelace@example.com", "ada_l", "Ada Lovelace")
			id := u["id"].(string)

			me := s.Do("GET", "/api/v1/auth/me", nil, testkit.Bearer(tok)).Want(t, http.StatusOK, "")
			wantUser(t, me.Data(), id, "ada.lovelace@example.com", "ada_l", "Ada Lovelace")

			if got := eventTypes(t, s, "user", id); !slices.Contains(got, "user.registered") {
				t.Errorf("events of the new user = %v, want user.registered", got)
			}
			evs, _ := s.App.DB.Read().EventsFor(t.Context(), "user", id)
			for _, e := range evs {
				if e.Type == "user.registered" && (e.ActorID != id || string(e.ActorType) != "user") {
					t.Errorf("user.registered actor = %s %s, want user %s", e.ActorType, e.ActorID, id)
				}
			}
			rows, _, err := s.App.DB.Read().ListAudit(t.Context(), audit.Filter{Action: "POST /api/v1/auth/register", EntityID: id})
			if err != nil || len(rows) != 1 {
				t.Fatalf("audit rows for the registration: %v, %v", rows, err)
			}
			a := rows[0]
			if a.Result != audit.Allowed || a.Status != 201 || a.RequestID != "reg-1" || a.EntityType != "user" || a.ActorType != "anonymous" {
				t.Errorf("audit row = %+v", a)
			}
		})

		t.Run("concurrent derived usernames", func(t *testing.T) {
			// People who leave the username out must never get USERNAME_TAKEN,
			// even when their derived names collide at the same moment.
			const n = 12
			statuses := make([]int, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					r := s.Do("POST", "/api/v1/auth/register", registerBody("same.person@host"+strconv.Itoa(i)+".example"))
					statuses[i] = r.Status
				})
			}
			wg.Wait()
			for i, st := range statuses {
				if st != http.StatusCreated {
					t.Errorf("registration %d answered %d, want 201", i, st)
				}
			}
		})

		t.Run("conflicts", func(t *testing.T) {
			body := with(registerBody("Dup@Example.com"), "username", "dup_user")
			s.Do("POST", "/api/v1/auth/register", body).Want(t, http.StatusCreated, "")
			for _, tc := range []struct {
				name string
				body map[string]any
				code string
			}{
				{"same e-mail", with(body, "username", "other_user"), "EMAIL_TAKEN"},
				{"same username", with(body, "email", "dup2@example.com"), "USERNAME_TAKEN"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					r := s.Do("POST", "/api/v1/auth/register", tc.body).Want(t, http.StatusConflict, tc.code)
					if msg, _ := r.JSON["error"].(map[string]any)["message"].(string); msg == "" {
						t.Error("no message")
					}
				})
			}
		})
	})
}

func TestRegisterValidation(t *testing.T) {
	t.Parallel()
	ok := registerBody("valid@example.com")
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name   string
		body   any // a map is sent as JSON, a string as is
		fields []string
	}{
		{"malformed JSON", `{"email": "a@b.co", `, []string{"body"}},
		{"trailing comma", `{"email": "a@b.co",}`, []string{"body"}},
		{"empty body", "", []string{"body"}},
		{"blank body", "  \n ", []string{"body"}},
		{"array", `[]`, []string{"body"}},
		{"string", `"register me"`, []string{"body"}},
		{"two values", `{} {}`, []string{"body"}},
		{"acceptedTerms a string", with(ok, "acceptedTerms", "yes"), []string{"acceptedTerms"}},
		{"email a number", with(ok, "email", 5), []string{"email"}},
		{"password a boolean", with(ok, "password", true), []string{"password"}},
		{"displayName an object", with(ok, "displayName", map[string]any{}), []string{"displayName"}},
		{"username a number", with(ok, "username", 12345), []string{"username"}},
		{"nothing", map[string]any{}, []string{"email", "password", "displayName", "acceptedTerms"}},
		{"no email", with(ok, "email", drop), []string{"email"}},
		{"no password", with(ok, "password", drop), []string{"password"}},
		{"no displayName", with(ok, "displayName", drop), []string{"displayName"}},
		{"no acceptedTerms", with(ok, "acceptedTerms", drop), []string{"acceptedTerms"}},
		{"password of 9", with(ok, "password", "123456789"), []string{"password"}},
		{"email without at", with(ok, "email", "not-an-email"), []string{"email"}},
		{"username too short", with(ok, "username", "ab"), []string{"username"}},
		{"blank displayName", with(ok, "displayName", "   "), []string{"displayName"}},
	}
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				testkit.WantFields(t, s.Do("POST", "/api/v1/auth/register", tc.body), tc.fields...)
			})
		}
		t.Run("null body", func(t *testing.T) {
			r := s.Do("POST", "/api/v1/auth/register", "null").Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
			if len(r.Fields()) == 0 {
				t.Errorf("no fields named: %s", r.Body)
			}
		})
		t.Run("body over 1 MiB", func(t *testing.T) {
			big := `{"email": "big@example.com", "displayName": "` + long(1<<20) + `"}`
			s.Do("POST", "/api/v1/auth/register", big).Want(t, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
		})
		t.Run("nothing was created", func(t *testing.T) {
			if _, err := s.App.DB.Read().UserByEmail(t.Context(), "valid@example.com"); market.CodeOf(err) != market.CodeNotFound {
				t.Errorf("a refused registration left a user behind: %v", err)
			}
		})
	})
}

func TestLogin(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("Lena")

		t.Run("e-mail in any case", func(t *testing.T) {
			r := login(s, "  "+strings.ToUpper(u.Email)+" ", u.Password).Want(t, http.StatusOK, "")
			got, tok := wantAuthResult(t, r)
			wantUser(t, got, u.ID, u.Email, u.Username, "Lena")
			me := s.Do("GET", "/api/v1/auth/me", nil, testkit.Bearer(tok)).Want(t, http.StatusOK, "")
			wantEq(t, "me.id", me.Data()["id"], u.ID)
		})

		t.Run("no enumeration", func(t *testing.T) {
			wrong := login(s, u.Email, "wrong-password-123").Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
			unknown := login(s, "nobody@example.com", "wrong-password-123").Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
			we, ue := wrong.JSON["error"].(map[string]any), unknown.JSON["error"].(map[string]any)
			if we["message"] != ue["message"] || we["message"] == "" {
				t.Errorf("messages differ: %q vs %q", we["message"], ue["message"])
			}
			if _, ok := we["details"]; ok {
				t.Errorf("wrong password has details: %v", we)
			}
			if _, ok := ue["details"]; ok {
				t.Errorf("unknown e-mail has details: %v", ue)
			}
		})

		t.Run("validation", func(t *testing.T) {
			for _, tc := range []struct {
				name   string
				body   any
				fields []string
			}{
				{"nothing", map[string]any{}, []string{"email", "password"}},
				{"no password", map[string]any{"email": u.Email}, []string{"password"}},
				{"no email", map[string]any{"password": u.Password}, []string{"email"}},
				{"email a number", map[string]any{"email": 5, "password": u.Password}, []string{"email"}},
				{"password a number", map[string]any{"email": u.Email, "password": 1234567890}, []string{"password"}},
				{"malformed", `{"email":`, []string{"body"}},
				{"empty", "", []string{"body"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					testkit.WantFields(t, s.Do("POST", "/api/v1/auth/login", tc.body), tc.fields...)
				})
			}
		})

		t.Run("suspended or banned", func(t *testing.T) { blockedLogin(t, s) })
	})
}

func TestLoginThrottle(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("Theo")

		// A failure and a success: the success clears the count, so ten more
		// failures are still answered normally (without the reset the tenth
		// of them would be the twelfth attempt).
		login(s, u.Email, "wrong-password-123").Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
		login(s, u.Email, u.Password).Want(t, http.StatusOK, "")
		for i := 0; i < 10; i++ {
			login(s, u.Email, "wrong-password-123").Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
		}

		// The eleventh attempt in the window is refused, right password or not,
		// and whatever the e-mail's case.
		for _, pw := range []string{"wrong-password-123", u.Password} {
			r := login(s, strings.ToUpper(u.Email), pw).Want(t, http.StatusTooManyRequests, "RATE_LIMITED")
			if got := r.Header.Get("Retry-After"); got != "900" {
				t.Errorf("Retry-After = %q, want 900 (the whole window)", got)
			}
		}

		// Sandbox time does not lift a lockout: throttles run on real time.
		other := s.Register("Otto")
		k := s.NewKey(other, "buy_sell")
		s.Do("POST", "/v1/sandbox/time-advance/720", nil, k.Auth()).Want(t, http.StatusOK, "")
		login(s, u.Email, u.Password).Want(t, http.StatusTooManyRequests, "RATE_LIMITED")
		s.RealTime.Advance(15 * time.Minute)
		login(s, u.Email, u.Password).Want(t, http.StatusOK, "")
	})
}

func blockedLogin(t *testing.T, s *testkit.Server) {
	for _, status := range []accounts.Status{accounts.StatusSuspended, accounts.StatusBanned} {
		t.Run(string(status), func(t *testing.T) {
			u := s.Register("Blocked")
			s.SetStatus(u.ID, status)
			login(s, u.Email, u.Password).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
			// Without the password nothing about the account is revealed.
			login(s, u.Email, "wrong-password-123").Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
			s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")

			s.SetStatus(u.ID, accounts.StatusActive)
			login(s, u.Email, u.Password).Want(t, http.StatusOK, "")
			s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusOK, "")
		})
	}
}

func TestAdminBootstrap(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		opts := testkit.Options{AdminEmail: "Root@Example.com", Password: "root-password-123"}
		s1 := testkit.Start(t, db, opts)
		r := login(s1, "root@example.com", opts.Password).Want(t, http.StatusOK, "")
		u, tok := wantAuthResult(t, r)
		wantEq(t, "role", u["role"], "admin")
		wantEq(t, "email", u["email"], "root@example.com")
		wantEq(t, "status", u["status"], "active")
		id := u["id"].(string)
		s1.Do("GET", "/api/v1/auth/me", nil, testkit.Bearer(tok)).Want(t, http.StatusOK, "")

		// A second start on the same database keeps the one account.
		s2 := testkit.Start(t, db, opts)
		r = login(s2, opts.AdminEmail, opts.Password).Want(t, http.StatusOK, "")
		u, _ = wantAuthResult(t, r)
		wantEq(t, "id after restart", u["id"], id)
		wantEq(t, "role after restart", u["role"], "admin")
		reg := s2.Do("POST", "/api/v1/auth/register", registerBody("root@example.com"))
		reg.Want(t, http.StatusConflict, "EMAIL_TAKEN")

		// An existing person named as admin is promoted, not duplicated.
		p := s2.Register("Promoted")
		s3 := testkit.Start(t, db, testkit.Options{AdminEmail: strings.ToUpper(p.Email), Password: "ignored-password-1"})
		r = login(s3, p.Email, p.Password).Want(t, http.StatusOK, "")
		u, _ = wantAuthResult(t, r)
		wantEq(t, "promoted id", u["id"], p.ID)
		wantEq(t, "promoted role", u["role"], "admin")
	})
}

func TestMe(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("Mia")
		key := s.NewKey(owner, "buy_only")

		t.Run("agent form", func(t *testing.T) {
			d := s.Do("GET", "/api/v1/auth/me", nil, key.Auth()).Want(t, http.StatusOK, "").Data()
			wantKeys(t, "agent me", d, "userId", "email", "username", "displayName", "trustTier", "identityVerified",
				"keyId", "label", "scope", "spendingControls", "keyLimits", "remaining")
			wantEq(t, "userId", d["userId"], owner.ID)
			wantEq(t, "email", d["email"], owner.Email)
			wantEq(t, "username", d["username"], owner.Username)
			wantEq(t, "displayName", d["displayName"], "Mia")
			wantEq(t, "trustTier", d["trustTier"], "new")
			wantEq(t, "identityVerified", d["identityVerified"], false)
			wantEq(t, "keyId", d["keyId"], key.ID)
			wantEq(t, "label", d["label"], "test buy_only")
			wantEq(t, "scope", d["scope"], "buy_only")
			wantEq(t, "keyLimits", d["keyLimits"], nil)
			sc := d["spendingControls"].(map[string]any)
			wantKeys(t, "spendingControls", sc, "perTransactionLimit", "dailyLimit", "weeklyLimit", "monthlyLimit",
				"categoryRestrictions", "approvalThreshold")
			wantEq(t, "perTransactionLimit", sc["perTransactionLimit"], 10000.0)
			wantEq(t, "dailyLimit", sc["dailyLimit"], 50000.0)
			wantEq(t, "weeklyLimit", sc["weeklyLimit"], 200000.0)
			wantEq(t, "monthlyLimit", sc["monthlyLimit"], 500000.0)
			wantEq(t, "approvalThreshold", sc["approvalThreshold"], nil)
			if cr, ok := sc["categoryRestrictions"].([]any); !ok || len(cr) != 0 {
				t.Errorf("categoryRestrictions = %#v, want []", sc["categoryRestrictions"])
			}
			rem := d["remaining"].(map[string]any)
			wantKeys(t, "remaining", rem, "daily", "weekly", "monthly")
			wantEq(t, "remaining.daily", rem["daily"], 50000.0)
			wantEq(t, "remaining.weekly", rem["weekly"], 200000.0)
			wantEq(t, "remaining.monthly", rem["monthly"], 500000.0)
		})

		t.Run("agent of a verified owner", func(t *testing.T) {
			s.Verify(owner)
			d := s.Do("GET", "/api/v1/auth/me", nil, key.Auth()).Want(t, http.StatusOK, "").Data()
			wantEq(t, "trustTier", d["trustTier"], "verified")
			wantEq(t, "identityVerified", d["identityVerified"], true)
			h := s.Do("GET", "/api/v1/auth/me", nil, owner.Auth()).Want(t, http.StatusOK, "").Data()
			wantEq(t, "owner trustTier", h["trustTier"], "verified")
			wantEq(t, "owner identityVerified", h["identityVerified"], true)
		})

		t.Run("both credentials", func(t *testing.T) {
			// Both credentials on an Either route: the agent key decides.
			d := s.Do("GET", "/api/v1/auth/me", nil, owner.Auth(), key.Auth()).Want(t, http.StatusOK, "").Data()
			wantEq(t, "keyId", d["keyId"], key.ID)
		})
	})
}

func TestUpdateMe(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("Uma")
		other := s.Register("Omar")
		patch := func(body any, h ...testkit.Header) *testkit.Response {
			return s.Do("PATCH", "/api/v1/auth/me", body, append(h, u.Auth())...)
		}

		t.Run("display name", func(t *testing.T) {
			d := patch(map[string]any{"displayName": "  Uma Thurman "}).Want(t, http.StatusOK, "").Data()
			wantUser(t, d, u.ID, u.Email, u.Username, "Uma Thurman")
		})

		t.Run("avatar set and cleared", func(t *testing.T) {
			// Only an avatar uploaded here (avatars_test.go has the rest).
			testkit.WantFields(t, patch(map[string]any{"avatarUrl": "https://img.example.com/uma.png"}), "avatarUrl")
			avatar := uploadAvatar(t, s, u, testJPEG(t, 64, 64))
			d := patch(map[string]any{"avatarUrl": avatar}).Want(t, http.StatusOK, "").Data()
			wantEq(t, "avatarUrl", d["avatarUrl"], avatar)
			wantEq(t, "displayName kept", d["displayName"], "Uma Thurman")
			d = s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
			wantEq(t, "avatarUrl on me", d["avatarUrl"], avatar)
			d = patch(map[string]any{"avatarUrl": nil}).Want(t, http.StatusOK, "").Data()
			wantEq(t, "avatarUrl cleared", d["avatarUrl"], nil)
		})

		t.Run("empty patch changes nothing; e-mail is not changeable here", func(t *testing.T) {
			d := patch(map[string]any{}).Want(t, http.StatusOK, "").Data()
			wantUser(t, d, u.ID, u.Email, u.Username, "Uma Thurman")
			d = patch(map[string]any{"email": "new@example.com", "role": "admin"}).Want(t, http.StatusOK, "").Data()
			wantUser(t, d, u.ID, u.Email, u.Username, "Uma Thurman")
		})

		t.Run("username", func(t *testing.T) {
			old := u.Username
			d := patch(map[string]any{"username": "Uma_Renamed"}).Want(t, http.StatusOK, "").Data()
			wantEq(t, "username", d["username"], "uma_renamed")
			s.Do("GET", "/api/v1/profiles/uma_renamed", nil).Want(t, http.StatusOK, "")
			s.Do("GET", "/api/v1/profiles/"+old, nil).Want(t, http.StatusNotFound, "NOT_FOUND")
			c := s.Do("GET", "/api/v1/auth/check-username/"+old, nil).Want(t, http.StatusOK, "").Data()
			wantEq(t, "old name available", c["available"], true)
			// Keeping one's own name is no conflict.
			patch(map[string]any{"username": "uma_renamed"}).Want(t, http.StatusOK, "")
			u.Username = "uma_renamed"
		})

		t.Run("username taken", func(t *testing.T) {
			patch(map[string]any{"username": strings.ToUpper(other.Username)}).Want(t, http.StatusConflict, "USERNAME_TAKEN")
			d := s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
			wantEq(t, "username unchanged", d["username"], u.Username)
		})

		t.Run("validation", func(t *testing.T) {
			for _, tc := range []struct {
				name   string
				body   any
				fields []string
			}{
				{"blank displayName", map[string]any{"displayName": " "}, []string{"displayName"}},
				{"displayName a number", map[string]any{"displayName": 5}, []string{"displayName"}},
				{"bad username", map[string]any{"username": "x"}, []string{"username"}},
				{"username a boolean", map[string]any{"username": true}, []string{"username"}},
				{"avatar not http", map[string]any{"avatarUrl": "ftp://img.example.com/a.png"}, []string{"avatarUrl"}},
				{"avatar a number", map[string]any{"avatarUrl": 5}, []string{"avatarUrl"}},
				{"malformed", `{"displayName": `, []string{"body"}},
				{"empty", "", []string{"body"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					testkit.WantFields(t, patch(tc.body), tc.fields...)
				})
			}
			d := s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
			wantUser(t, d, u.ID, u.Email, u.Username, "Uma Thurman")
		})

		t.Run("events", func(t *testing.T) {
			if got := eventTypes(t, s, "user", u.ID); !slices.Contains(got, "user.updated") {
				t.Errorf("events = %v, want user.updated", got)
			}
		})
	})
}

// addressRoutes are the two places that take a postal address.
var addressRoutes = []struct{ method, path string }{
	{"POST", "/api/v1/addresses"},
	{"PUT", "/api/v1/auth/me/address"},
}

func TestAddresses(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		t.Run("validation", func(t *testing.T) { addressValidation(t, s) })
		t.Run("lifecycle", func(t *testing.T) { addressLifecycle(t, s) })
		t.Run("ship-from", func(t *testing.T) { shipFrom(t, s) })
		t.Run("concurrent adds", func(t *testing.T) { addressConcurrency(t, s) })
	})
}

// addressConcurrency races more adds than the limit allows for a new
// account: exactly MaxAddresses land, and exactly one of them is the default.
func addressConcurrency(t *testing.T, s *testkit.Server) {
	u := s.Register("Racer")
	const n = accounts.MaxAddresses + 4
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			statuses[i] = s.Do("POST", "/api/v1/addresses", with(validAddress(), "line1", strconv.Itoa(i+1)+" Race St"), u.Auth()).Status
		})
	}
	wg.Wait()
	created := 0
	for _, st := range statuses {
		switch st {
		case http.StatusCreated:
			created++
		case http.StatusBadRequest:
		default:
			t.Errorf("an add answered %d", st)
		}
	}
	ids, def := listAddresses(t, s, u)
	if created != accounts.MaxAddresses || len(ids) != accounts.MaxAddresses || def == "" {
		t.Errorf("%d created, %d listed, default %q; want %d and one default", created, len(ids), def, accounts.MaxAddresses)
	}
}

func addressValidation(t *testing.T, s *testkit.Server) {
	ok := validAddress()
	long := func(n int) string { return strings.Repeat("x", n) }
	cases := []struct {
		name   string
		body   any
		fields []string
	}{
		{"nothing", map[string]any{}, []string{"line1", "city", "state", "zip"}},
		{"no line1", with(ok, "line1", drop), []string{"line1"}},
		{"null line1", with(ok, "line1", nil), []string{"line1"}},
		{"line2 of 201", with(ok, "line2", long(201)), []string{"line2"}},
		{"name of 81", with(ok, "name", long(81)), []string{"name"}},
		{"phone of 33", with(ok, "phone", long(33)), []string{"phone"}},
		{"zip a number", with(ok, "zip", 94105), []string{"zip"}},
		{"country of 3", with(ok, "country", "USA"), []string{"country"}},
		{"malformed", `{"line1": "1 Main St"`, []string{"body"}},
		{"empty", "", []string{"body"}},
		{"array", `[{"line1": "1 Main St"}]`, []string{"body"}},
	}
	u := s.Register("Val")
	for _, rt := range addressRoutes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					testkit.WantFields(t, s.Do(rt.method, rt.path, tc.body, u.Auth()), tc.fields...)
				})
			}
			t.Run("body over 1 MiB", func(t *testing.T) {
				s.Do(rt.method, rt.path, with(ok, "line2", long(1<<20)), u.Auth()).
					Want(t, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
			})
		})
	}
	t.Run("isDefault a string", func(t *testing.T) {
		testkit.WantFields(t, s.Do("POST", "/api/v1/addresses", with(ok, "isDefault", "yes"), u.Auth()), "isDefault")
	})
	t.Run("nothing was saved", func(t *testing.T) {
		r := s.Do("GET", "/api/v1/addresses", nil, u.Auth()).Want(t, http.StatusOK, "")
		if len(r.List()) != 0 {
			t.Errorf("refused addresses were saved: %s", r.Body)
		}
		d := s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		wantEq(t, "shipFromAddress", d["shipFromAddress"], nil)
	})
}

// wantAddress checks every field of a saved address against the body it was
// made from (after normalisation by the caller).
func wantAddress(t *testing.T, got, want map[string]any, isDefault bool) {
	t.Helper()
	wantKeys(t, "address", got, "id", "name", "line1", "line2", "city", "state", "zip", "country", "phone", "isDefault", "createdAt")
	if id, _ := got["id"].(string); !market.ValidID(id) {
		t.Errorf("address id = %v", got["id"])
	}
	for _, k := range []string{"name", "line1", "line2", "city", "state", "zip", "country", "phone"} {
		wantEq(t, k, got[k], want[k])
	}
	wantEq(t, "isDefault", got["isDefault"], isDefault)
	wantTime(t, "createdAt", got["createdAt"], start)
}

// listAddresses returns the address ids of u in answer order and the default
// one, checking that at most one is the default and that it comes first.
func listAddresses(t *testing.T, s *testkit.Server, u *testkit.User) (ids []string, def string) {
	t.Helper()
	r := s.Do("GET", "/api/v1/addresses", nil, u.Auth()).Want(t, http.StatusOK, "")
	for _, x := range r.List() {
		a := x.(map[string]any)
		ids = append(ids, a["id"].(string))
		if a["isDefault"] == true {
			if def != "" {
				t.Errorf("more than one default address: %s and %s", def, a["id"])
			}
			def = a["id"].(string)
		}
	}
	if total := r.JSON["meta"].(map[string]any)["total"]; total != float64(len(ids)) {
		t.Errorf("meta.total = %v, want %d", total, len(ids))
	}
	if len(ids) > 0 && ids[0] != def {
		t.Errorf("the default address %s is not listed first: %v", def, ids)
	}
	return ids, def
}

func addressLifecycle(t *testing.T, s *testkit.Server) {
	u := s.Register("Addy")
	add := func(t *testing.T, body map[string]any) map[string]any {
		t.Helper()
		return s.Do("POST", "/api/v1/addresses", body, u.Auth()).Want(t, http.StatusCreated, "").Data()
	}

	if ids, _ := listAddresses(t, s, u); len(ids) != 0 {
		t.Fatalf("a new account has addresses: %v", ids)
	}

	// The first address becomes the default even when not asked; input is
	// trimmed and the state upper-cased.
	first := add(t, with(with(validAddress(), "state", " ca "), "city", "  San Francisco "))
	wantAddress(t, first, validAddress(), true)
	a1 := first["id"].(string)

	// Country defaults to US; a later address is not the default.
	second := add(t, with(with(validAddress(), "country", drop), "line2", drop))
	wantAddress(t, second, with(validAddress(), "line2", ""), false)
	a2 := second["id"].(string)

	// A foreign address has free-form state and postcode.
	gb := map[string]any{"name": "Alan", "line1": "10 Downing St", "city": "London", "zip": "SW1A 2AA", "country": "gb", "isDefault": true}
	third := add(t, gb)
	wantAddress(t, third, map[string]any{"name": "Alan", "line1": "10 Downing St", "line2": "", "city": "London",
		"state": "", "zip": "SW1A 2AA", "country": "GB", "phone": ""}, true)
	a3 := third["id"].(string)
	if _, def := listAddresses(t, s, u); def != a3 {
		t.Errorf("isDefault: true did not move the default to %s (default %s)", a3, def)
	}

	t.Run("switch default", func(t *testing.T) {
		d := s.Do("PATCH", "/api/v1/addresses/"+a2+"/default", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		wantEq(t, "id", d["id"], a2)
		wantEq(t, "isDefault", d["isDefault"], true)
		ids, def := listAddresses(t, s, u)
		if def != a2 || len(ids) != 3 {
			t.Errorf("after PATCH default: ids %v, default %s; want default %s", ids, def, a2)
		}
		// Doing it again is fine.
		s.Do("PATCH", "/api/v1/addresses/"+a2+"/default", nil, u.Auth()).Want(t, http.StatusOK, "")
	})

	t.Run("delete a non-default address", func(t *testing.T) {
		d := s.Do("DELETE", "/api/v1/addresses/"+a1, nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		wantEq(t, "id", d["id"], a1)
		wantEq(t, "deleted", d["deleted"], true)
		ids, def := listAddresses(t, s, u)
		if def != a2 || len(ids) != 2 || slices.Contains(ids, a1) {
			t.Errorf("after delete: ids %v, default %s", ids, def)
		}
		s.Do("DELETE", "/api/v1/addresses/"+a1, nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("PATCH", "/api/v1/addresses/"+a1+"/default", nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
	})

	t.Run("delete the default promotes another", func(t *testing.T) {
		s.Do("DELETE", "/api/v1/addresses/"+a2, nil, u.Auth()).Want(t, http.StatusOK, "")
		ids, def := listAddresses(t, s, u)
		if def != a3 || len(ids) != 1 {
			t.Errorf("after deleting the default: ids %v, default %s; want %s", ids, def, a3)
		}
		s.Do("DELETE", "/api/v1/addresses/"+a3, nil, u.Auth()).Want(t, http.StatusOK, "")
		if ids, _ := listAddresses(t, s, u); len(ids) != 0 {
			t.Errorf("addresses left: %v", ids)
		}
		// With none left, the next one is the default again.
		wantAddress(t, add(t, validAddress()), validAddress(), true)
	})

	t.Run("unknown and malformed ids", func(t *testing.T) {
		for _, id := range []string{market.NewID(), "not-an-id", "1", strings.Repeat("a", 36), "%20"} {
			s.Do("DELETE", "/api/v1/addresses/"+id, nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("PATCH", "/api/v1/addresses/"+id+"/default", nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		}
	})

	t.Run("events", func(t *testing.T) {
		for id, want := range map[string][]string{
			a1: {"address.created", "address.deleted"},
			a2: {"address.created", "address.default_set", "address.default_set", "address.deleted"},
		} {
			if got := eventTypes(t, s, "address", id); !slices.Equal(got, want) {
				t.Errorf("events of %s = %v, want %v", id, got, want)
			}
		}
	})
}

func shipFrom(t *testing.T, s *testkit.Server) {
	u := s.Register("Sela")
	shipKeys := []string{"name", "line1", "line2", "city", "state", "zip", "country", "phone"}

	d := s.Do("PUT", "/api/v1/auth/me/address", with(validAddress(), "state", "ca"), u.Auth()).Want(t, http.StatusOK, "").Data()
	wantKeys(t, "user", d, userKeys...)
	wantEq(t, "id", d["id"], u.ID)
	sf, _ := d["shipFromAddress"].(map[string]any)
	wantKeys(t, "shipFromAddress", sf, shipKeys...)
	for _, k := range shipKeys {
		wantEq(t, k, sf[k], validAddress()[k])
	}

	me := s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
	wantKeys(t, "user", me, userKeys...)
	sf, _ = me["shipFromAddress"].(map[string]any)
	wantKeys(t, "shipFromAddress on me", sf, shipKeys...)
	for _, k := range shipKeys {
		wantEq(t, "me "+k, sf[k], validAddress()[k])
	}

	// A second PUT replaces the whole address.
	next := map[string]any{"line1": "2 Harbor Way", "city": "Oakland", "state": "CA", "zip": "94607-1234"}
	s.Do("PUT", "/api/v1/auth/me/address", next, u.Auth()).Want(t, http.StatusOK, "")
	sf = s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusOK, "").Data()["shipFromAddress"].(map[string]any)
	want := map[string]any{"name": "", "line1": "2 Harbor Way", "line2": "", "city": "Oakland", "state": "CA",
		"zip": "94607-1234", "country": "US", "phone": ""}
	for _, k := range shipKeys {
		wantEq(t, "replaced "+k, sf[k], want[k])
	}

	// The ship-from address is not a saved shipping address.
	if ids, _ := listAddresses(t, s, u); len(ids) != 0 {
		t.Errorf("the ship-from address shows in /addresses: %v", ids)
	}
	if got := eventTypes(t, s, "user", u.ID); !slices.Contains(got, "user.ship_from_updated") {
		t.Errorf("events = %v, want user.ship_from_updated", got)
	}
}

// serveFrom sends a request straight to the handler as if from remote.
func serveFrom(s *testkit.Server, remote, method, path, body string, h ...testkit.Header) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.RemoteAddr = remote
	req.Header.Set("Content-Type", "application/json")
	for _, x := range h {
		req.Header.Set(x.Name, x.Value)
	}
	rec := httptest.NewRecorder()
	s.App.Handler().ServeHTTP(rec, req)
	return rec
}

func TestSetPassword(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("Pat")
		const next = "a-brand-new-password"
		set := func(body any) *testkit.Response {
			return s.Do("POST", "/api/v1/auth/set-password", body, u.Auth())
		}

		t.Run("wrong or missing current password", func(t *testing.T) {
			set(map[string]any{"currentPassword": "not-my-password", "newPassword": next}).
				Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
			set(map[string]any{"newPassword": next}).Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
			// A refused change leaves the old password working, and the
			// bearer token that asked is still good.
			login(s, u.Email, u.Password).Want(t, http.StatusOK, "")
			s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusOK, "")
		})

		t.Run("validation", func(t *testing.T) {
			testkit.WantFields(t, set(map[string]any{"currentPassword": u.Password, "newPassword": "short"}), "newPassword")
			testkit.WantFields(t, set(map[string]any{"currentPassword": u.Password}), "newPassword")
			testkit.WantFields(t, set(map[string]any{"currentPassword": u.Password, "newPassword": 1234567890123}), "newPassword")
			testkit.WantFields(t, set(map[string]any{"currentPassword": 5, "newPassword": next}), "currentPassword")
			testkit.WantFields(t, set(`{"newPassword"`), "body")
		})

		t.Run("from a public address", func(t *testing.T) {
			body := `{"currentPassword": "` + u.Password + `", "newPassword": "` + next + `"}`
			for _, remote := range []string{"203.0.113.9:4000", "[2001:db8::1]:4000", "8.8.8.8:53"} {
				rec := serveFrom(s, remote, "POST", "/api/v1/auth/set-password", body, u.Auth(),
					testkit.Header{Name: "X-Request-Id", Value: "setpw-public"})
				if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), `"FORBIDDEN"`) {
					t.Errorf("from %s: %d %s, want 403 FORBIDDEN", remote, rec.Code, rec.Body)
				}
			}
			// Proxy headers are not trusted to make a request look local.
			rec := serveFrom(s, "203.0.113.9:4000", "POST", "/api/v1/auth/set-password", body, u.Auth(),
				testkit.Header{Name: "X-Forwarded-For", Value: "127.0.0.1"})
			if rec.Code != http.StatusForbidden {
				t.Errorf("with X-Forwarded-For: %d, want 403", rec.Code)
			}
			login(s, u.Email, u.Password).Want(t, http.StatusOK, "")
			rows, _, err := s.App.DB.Read().ListAudit(t.Context(), audit.Filter{Action: "POST /api/v1/auth/set-password", ActorID: u.ID})
			if err != nil {
				t.Fatal(err)
			}
			var seen bool
			for _, a := range rows {
				if a.RequestID == "setpw-public" {
					seen = true
					if a.Result != audit.Refused || a.Status != 403 || a.ErrorCode != "FORBIDDEN" || a.IP != "2001:db8::1" && a.IP != "203.0.113.9" && a.IP != "8.8.8.8" {
						t.Errorf("audit row = %+v", a)
					}
				}
			}
			if !seen {
				t.Error("no audit row for the refused change")
			}
		})

		t.Run("from loopback", func(t *testing.T) {
			d := set(map[string]any{"currentPassword": u.Password, "newPassword": next}).Want(t, http.StatusOK, "").Data()
			wantEq(t, "passwordSet", d["passwordSet"], true)
			login(s, u.Email, u.Password).Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
			login(s, u.Email, next).Want(t, http.StatusOK, "")
			if got := eventTypes(t, s, "user", u.ID); !slices.Contains(got, "user.password_set") {
				t.Errorf("events = %v, want user.password_set", got)
			}
		})

		t.Run("from a private network", func(t *testing.T) {
			body := `{"currentPassword": "` + next + `", "newPassword": "private-net-password"}`
			rec := serveFrom(s, "192.168.1.20:5000", "POST", "/api/v1/auth/set-password", body, u.Auth())
			if rec.Code != http.StatusOK {
				t.Fatalf("from 192.168.1.20: %d %s", rec.Code, rec.Body)
			}
			login(s, u.Email, "private-net-password").Want(t, http.StatusOK, "")
		})
	})
}

func TestProfiles(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("Pia")

		t.Run("public, without e-mail", func(t *testing.T) {
			for _, name := range []string{u.Username, strings.ToUpper(u.Username)} {
				r := s.Do("GET", "/api/v1/profiles/"+name, nil).Want(t, http.StatusOK, "")
				d := r.Data()
				wantKeys(t, "profile", d, "id", "username", "displayName", "avatarUrl", "trustTier", "identityVerified", "createdAt")
				wantEq(t, "id", d["id"], u.ID)
				wantEq(t, "username", d["username"], u.Username)
				wantEq(t, "displayName", d["displayName"], "Pia")
				wantEq(t, "avatarUrl", d["avatarUrl"], nil)
				wantEq(t, "trustTier", d["trustTier"], "new")
				wantEq(t, "identityVerified", d["identityVerified"], false)
				wantTime(t, "createdAt", d["createdAt"], start)
				if strings.Contains(strings.ToLower(string(r.Body)), strings.ToLower(u.Email)) {
					t.Errorf("the profile reveals the e-mail: %s", r.Body)
				}
			}
		})

		t.Run("check username", func(t *testing.T) { checkUsername(t, s) })
	})
}

func checkUsername(t *testing.T, s *testkit.Server) {
	u := s.Register("Cher")
	for _, tc := range []struct {
		name, path, username string
		available            bool
		reason               any
	}{
		{"taken", u.Username, u.Username, false, "taken"},
		{"available", "Free_Name.42", "free_name.42", true, nil},
		{"space", "ab%20cd", "ab cd", false, "invalid"},
		{"not ASCII", "%C3%A4bc", "äbc", false, "invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := s.Do("GET", "/api/v1/auth/check-username/"+tc.path, nil).Want(t, http.StatusOK, "").Data()
			wantKeys(t, "check", d, "username", "available", "reason")
			wantEq(t, "username", d["username"], tc.username)
			wantEq(t, "available", d["available"], tc.available)
			wantEq(t, "reason", d["reason"], tc.reason)
		})
	}
}

func TestAudit(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("Audrey")
		reqID := func(id string) testkit.Header { return testkit.Header{Name: "X-Request-Id", Value: id} }
		find := func(t *testing.T, action, requestID string) audit.Entry {
			t.Helper()
			rows, _, err := s.App.DB.Read().ListAudit(t.Context(), audit.Filter{Action: action})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range rows {
				if a.RequestID == requestID {
					return a
				}
			}
			t.Fatalf("no audit row for %s with request id %s among %d", action, requestID, len(rows))
			return audit.Entry{}
		}

		s.Do("PATCH", "/api/v1/auth/me", map[string]any{"displayName": "Audrey H"}, u.Auth(), reqID("audit-ok")).Want(t, http.StatusOK, "")
		a := find(t, "PATCH /api/v1/auth/me", "audit-ok")
		if string(a.ActorType) != "user" || a.ActorID != u.ID || a.Result != audit.Allowed || a.Status != 200 ||
			a.ErrorCode != "" || a.EntityType != "user" || a.EntityID != u.ID || a.IP != "127.0.0.1" || !a.CreatedAt.Equal(start) {
			t.Errorf("allowed row = %+v", a)
		}

		s.Do("POST", "/api/v1/addresses", map[string]any{"line1": ""}, u.Auth(), reqID("audit-bad")).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		a = find(t, "POST /api/v1/addresses", "audit-bad")
		if string(a.ActorType) != "user" || a.ActorID != u.ID || a.Result != audit.Refused || a.Status != 400 || a.ErrorCode != "VALIDATION_ERROR" {
			t.Errorf("refused row = %+v", a)
		}

		s.Do("PATCH", "/api/v1/auth/me", map[string]any{"displayName": "X"}, reqID("audit-anon")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		a = find(t, "PATCH /api/v1/auth/me", "audit-anon")
		if string(a.ActorType) != "anonymous" || a.ActorID != "" || a.Result != audit.Refused || a.Status != 401 || a.ErrorCode != "UNAUTHORIZED" {
			t.Errorf("anonymous row = %+v", a)
		}

		s.Do("POST", "/api/v1/auth/login", map[string]any{"email": u.Email, "password": "wrong-password-123"}, reqID("audit-login")).
			Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
		a = find(t, "POST /api/v1/auth/login", "audit-login")
		if a.Result != audit.Refused || a.ErrorCode != "INVALID_CREDENTIALS" {
			t.Errorf("failed login row = %+v", a)
		}

		// Reads are not audited.
		s.Do("GET", "/api/v1/auth/me", nil, u.Auth(), reqID("audit-read")).Want(t, http.StatusOK, "")
		rows, _, _ := s.App.DB.Read().ListAudit(t.Context(), audit.Filter{Action: "GET /api/v1/auth/me"})
		if len(rows) != 0 {
			t.Errorf("reads were audited: %+v", rows)
		}
	})
}
