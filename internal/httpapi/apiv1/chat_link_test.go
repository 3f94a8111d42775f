package apiv1_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/testkit"
)

const (
	botSecret     = "bot-secret-0123456789abcdef"
	botCodesPath  = "/api/v1/integrations/discord/codes"
	verifyPath    = "/api/v1/auth/discord/verify"
	unlinkPath    = "/api/v1/auth/discord"
	codeAlphabet  = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
	discordTTL    = 15 * time.Minute
	discordUserA  = "112233445566778899"
	discordUserB  = "998877665544332211"
	discordUserC  = "555555555555555555"
	discordUserD  = "444444444444444444"
	discordUserE  = "333333333333333333"
	discordUserF  = "222222222222222222"
	discordUserG  = "121212121212121212"
	discordUserHn = "chatter"
)

var codeRE = regexp.MustCompile(`^[` + codeAlphabet + `]{8}$`)

var botAuth = testkit.Bearer(botSecret)

// botCode asks for a code as the chat bot and checks the answer.
func botCode(t *testing.T, s *testkit.Server, discordID, name string) string {
	t.Helper()
	d := s.Do("POST", botCodesPath, map[string]any{"discordUserId": discordID, "discordUsername": name}, botAuth).
		Want(t, http.StatusOK, "").Data()
	wantKeys(t, "code", d, "code", "expiresAt")
	code, _ := d["code"].(string)
	if !codeRE.MatchString(code) {
		t.Fatalf("code %q is not 8 characters of the unambiguous alphabet", code)
	}
	// 15 minutes of real time, not of the service clock (which tests
	// may have moved apart from it).
	wantTime(t, "expiresAt", d["expiresAt"], s.RealTime.Now().Add(discordTTL).Truncate(time.Second))
	return code
}

func verify(s *testkit.Server, u *testkit.User, code string) *testkit.Response {
	return s.Do("POST", verifyPath, map[string]any{"code": code}, u.Auth())
}

func me(t *testing.T, s *testkit.Server, u *testkit.User) map[string]any {
	t.Helper()
	return s.Do("GET", "/api/v1/auth/me", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
}

// wantLink checks a DiscordLink object (or null when id is "").
func wantLink(t *testing.T, what string, v any, id, name string, linkedAt time.Time) {
	t.Helper()
	if id == "" {
		if v != nil {
			t.Fatalf("%s = %v, want null", what, v)
		}
		return
	}
	l, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s = %v, want a link", what, v)
	}
	wantKeys(t, what, l, "discordUserId", "discordUsername", "linkedAt")
	wantEq(t, what+".discordUserId", l["discordUserId"], id)
	wantEq(t, what+".discordUsername", l["discordUsername"], name)
	wantTime(t, what+".linkedAt", l["linkedAt"], linkedAt)
}

func TestDiscordBotRoute(t *testing.T) {
	t.Parallel()
	t.Run("without a secret configured", func(t *testing.T) {
		testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
			body := map[string]any{"discordUserId": discordUserA, "discordUsername": "ann"}
			for _, h := range [][]testkit.Header{{botAuth}, nil} {
				r := s.Do("POST", botCodesPath, body, h...).Want(t, http.StatusServiceUnavailable, "FEATURE_DISABLED")
				d, _ := r.JSON["error"].(map[string]any)["details"].(map[string]any)
				wantEq(t, "details.flag", d["flag"], "discord")
			}
		})
	})
	testkit.Run(t, testkit.Options{DiscordBotSecret: botSecret}, func(t *testing.T, s *testkit.Server) {
		body := map[string]any{"discordUserId": discordUserA, "discordUsername": "ann"}
		u := s.Register("Botless")
		t.Run("secret missing or wrong", func(t *testing.T) {
			for name, h := range map[string][]testkit.Header{
				"none":          nil,
				"wrong":         {testkit.Bearer(botSecret + "x")},
				"prefix":        {testkit.Bearer(botSecret[:len(botSecret)-1])},
				"not bearer":    {{Name: "Authorization", Value: "Basic " + botSecret}},
				"a user's":      {u.Auth()},
				"as agent key":  {testkit.AgentKey(botSecret)},
				"empty bearer:": {{Name: "Authorization", Value: "Bearer "}},
			} {
				t.Run(name, func(t *testing.T) {
					s.Do("POST", botCodesPath, body, h...).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
				})
			}
			// The secret is checked before the body: a caller without it
			// learns nothing about what the body should be.
			s.Do("POST", botCodesPath, map[string]any{}, testkit.Bearer("nope")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		})
		t.Run("right secret", func(t *testing.T) {
			botCode(t, s, discordUserA, "ann")
			// A code is random: two in a row differ.
			if a, b := botCode(t, s, discordUserA, "ann"), botCode(t, s, discordUserA, "ann"); a == b {
				t.Fatalf("two codes alike: %s", a)
			}
		})
		t.Run("stored as a hash", func(t *testing.T) {
			code := botCode(t, s, discordUserB, "ben")
			rows, err := s.App.DB.ReadPool().Query(`SELECT code_hash FROM discord_link_codes`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				var h string
				if err := rows.Scan(&h); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(strings.ToUpper(h), code) || len(h) != 64 {
					t.Fatalf("stored code %q is not a SHA-256 hash", h)
				}
				n++
			}
			if n == 0 {
				t.Fatal("no code stored")
			}
		})
		t.Run("validation", func(t *testing.T) {
			for _, tc := range []struct {
				name   string
				body   any
				fields []string
			}{
				{"empty", map[string]any{}, []string{"discordUserId", "discordUsername"}},
				{"blank name", map[string]any{"discordUserId": discordUserA, "discordUsername": "  "}, []string{"discordUsername"}},
				{"id with a space", map[string]any{"discordUserId": "12 34", "discordUsername": "ann"}, []string{"discordUserId"}},
				{"id too long", map[string]any{"discordUserId": strings.Repeat("1", 65), "discordUsername": "ann"}, []string{"discordUserId"}},
				{"name too long", map[string]any{"discordUserId": discordUserA, "discordUsername": strings.Repeat("n", 101)}, []string{"discordUsername"}},
				{"id a number", map[string]any{"discordUserId": 12, "discordUsername": "ann"}, []string{"discordUserId"}},
				{"malformed", `{"discordUserId": `, []string{"body"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					testkit.WantFields(t, s.Do("POST", botCodesPath, tc.body, botAuth), tc.fields...)
				})
			}
		})
	})
}

func TestDiscordLink(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{DiscordBotSecret: botSecret}, func(t *testing.T, s *testkit.Server) {
		ann, bob := s.Register("Ann"), s.Register("Bob")
		wantLink(t, "new user's discord", me(t, s, ann)["discord"], "", "", time.Time{})

		// Ann links chat account A.
		codeA := botCode(t, s, discordUserA, "ann#1")
		d := verify(s, ann, codeA).Want(t, http.StatusOK, "").Data()
		wantLink(t, "verify", d, discordUserA, "ann#1", s.Clock.Now())

		t.Run("the user object shows it, on both surfaces", func(t *testing.T) {
			wantLink(t, "me.discord", me(t, s, ann)["discord"], discordUserA, "ann#1", s.Clock.Now())
			acct := s.Do("GET", "/v1/account", nil, ann.Auth()).Want(t, http.StatusOK, "").Data()
			l, _ := acct["discord"].(map[string]any)
			if l["discord_user_id"] != discordUserA || l["discord_username"] != "ann#1" || l["linked_at"] == nil {
				t.Fatalf("Variant B account discord = %v", acct["discord"])
			}
			// The owner's agent sees its owner's account as the owner does.
			key := s.NewKey(ann, "buy_only")
			acct = s.Do("GET", "/v1/account", nil, key.Auth()).Want(t, http.StatusOK, "").Data()
			if l, _ := acct["discord"].(map[string]any); l["discord_user_id"] != discordUserA {
				t.Fatalf("agent's view of the account: discord = %v", acct["discord"])
			}
			// A profile is public: no chat link there.
			p := s.Do("GET", "/api/v1/profiles/"+ann.Username, nil).Want(t, http.StatusOK, "").Data()
			if _, has := p["discord"]; has {
				t.Fatalf("public profile shows the chat link: %v", p)
			}
		})

		t.Run("a used code", func(t *testing.T) {
			testkit.WantFields(t, verify(s, ann, codeA), "code")
			testkit.WantFields(t, verify(s, bob, codeA), "code")
			wantLink(t, "bob's discord", me(t, s, bob)["discord"], "", "", time.Time{})
		})

		t.Run("another user's chat account", func(t *testing.T) {
			code := botCode(t, s, discordUserA, "ann#1")
			verify(s, bob, code).Want(t, http.StatusConflict, "INVALID_STATE")
			wantLink(t, "bob's discord", me(t, s, bob)["discord"], "", "", time.Time{})
			wantLink(t, "ann's discord", me(t, s, ann)["discord"], discordUserA, "ann#1", s.Clock.Now())

			// Unlinked, the chat account is free, and the refused code was
			// not used up.
			u := s.Do("DELETE", unlinkPath, nil, ann.Auth()).Want(t, http.StatusOK, "").Data()
			wantUser(t, u, ann.ID, ann.Email, ann.Username, "Ann")
			wantLink(t, "after unlink", me(t, s, ann)["discord"], "", "", time.Time{})
			verify(s, bob, code).Want(t, http.StatusOK, "")
			wantLink(t, "bob's discord", me(t, s, bob)["discord"], discordUserA, "ann#1", s.Clock.Now())
		})

		t.Run("unlink is idempotent", func(t *testing.T) {
			for range 2 {
				u := s.Do("DELETE", unlinkPath, nil, ann.Auth()).Want(t, http.StatusOK, "").Data()
				wantLink(t, "unlink answer", u["discord"], "", "", time.Time{})
			}
		})

		t.Run("expiry runs on real time", func(t *testing.T) {
			// The sandbox clock moving two hours ages no code...
			code := botCode(t, s, discordUserC, "cat")
			s.Do("POST", "/v1/sandbox/time-advance/2", nil, ann.Auth()).Want(t, http.StatusOK, "")
			verify(s, ann, code).Want(t, http.StatusOK, "")
			wantLink(t, "linked after the clock moved", me(t, s, ann)["discord"], discordUserC, "cat", s.Clock.Now())

			// ...but 15 minutes of real time end it.
			late := botCode(t, s, discordUserD, "dan")
			s.RealTime.Advance(discordTTL - time.Second)
			early := botCode(t, s, discordUserE, "eve")
			s.RealTime.Advance(time.Second)
			testkit.WantFields(t, verify(s, bob, late), "code")
			verify(s, bob, early).Want(t, http.StatusOK, "")
		})

		t.Run("a new code ends the chat account's earlier one", func(t *testing.T) {
			first := botCode(t, s, discordUserF, "fay")
			second := botCode(t, s, discordUserF, "fay")
			testkit.WantFields(t, verify(s, ann, first), "code")
			verify(s, ann, second).Want(t, http.StatusOK, "")
		})

		t.Run("linking another chat account moves the link", func(t *testing.T) {
			code := botCode(t, s, discordUserG, "gil")
			before := me(t, s, ann)["discord"].(map[string]any)["discordUserId"].(string)
			verify(s, ann, code).Want(t, http.StatusOK, "")
			wantLink(t, "moved", me(t, s, ann)["discord"], discordUserG, "gil", s.Clock.Now())
			// The one left behind is free for someone else.
			verify(s, bob, botCode(t, s, before, "again")).Want(t, http.StatusOK, "")
		})

		t.Run("codes as people type them", func(t *testing.T) {
			code := botCode(t, s, discordUserHn, "hal")
			typed := " " + strings.ToLower(code[:4]) + "-" + strings.ToLower(code[4:]) + " "
			cal := s.Register("Cal")
			verify(s, cal, typed).Want(t, http.StatusOK, "")
			wantLink(t, "cal", me(t, s, cal)["discord"], discordUserHn, "hal", s.Clock.Now())
		})

		t.Run("bad codes", func(t *testing.T) {
			dee := s.Register("Dee")
			for _, c := range []any{"", "ABC", "ABCDEFGHJ", "ABCDEFG0", "IIIIIIII", "ZZZZZZZZ", 12345678} {
				testkit.WantFields(t, s.Do("POST", verifyPath, map[string]any{"code": c}, dee.Auth()), "code")
			}
			testkit.WantFields(t, s.Do("POST", verifyPath, map[string]any{}, dee.Auth()), "code")
		})
	})
}

// Guessing codes is throttled per user, on real time.
func TestDiscordVerifyThrottle(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{DiscordBotSecret: botSecret}, func(t *testing.T, s *testkit.Server) {
		guesser, other := s.Register("Guesser"), s.Register("Other")
		for i := range 10 {
			testkit.WantFields(t, verify(s, guesser, strings.Repeat(string(codeAlphabet[i]), 8)), "code")
		}
		code := botCode(t, s, discordUserA, "target")
		r := verify(s, guesser, code).Want(t, http.StatusTooManyRequests, "RATE_LIMITED")
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("no Retry-After")
		}
		// Only the guesser is held back, and the code was not spent.
		verify(s, other, code).Want(t, http.StatusOK, "")
		// The window is 15 minutes of real time.
		s.RealTime.Advance(15 * time.Minute)
		testkit.WantFields(t, verify(s, guesser, "ZZZZZZZZ"), "code")
	})
}

// The chat link routes are a person's own: bearer tokens only.
func TestDiscordLinkAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{DiscordBotSecret: botSecret}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("Keyholder")
		key := s.NewKey(owner, "buy_sell")
		sus := s.Register("Suspended")
		s.SetStatus(sus.ID, accounts.StatusSuspended)
		code := botCode(t, s, discordUserA, "kay")
		for _, route := range []struct {
			method, path string
			body         any
		}{
			{"POST", verifyPath, map[string]any{"code": code}},
			{"DELETE", unlinkPath, nil},
		} {
			t.Run(route.method+" "+route.path, func(t *testing.T) {
				s.Do(route.method, route.path, route.body).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
				s.Do(route.method, route.path, route.body, testkit.Bearer("not-a-token")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
				s.Do(route.method, route.path, route.body, key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
				s.Do(route.method, route.path, route.body, sus.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
			})
		}
		// None of that spent the code.
		verify(s, owner, code).Want(t, http.StatusOK, "")
	})
}

// One code, many users at once: exactly one links the chat account.
func TestDiscordVerifyConcurrent(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{DiscordBotSecret: botSecret}, func(t *testing.T, s *testkit.Server) {
		const n = 6
		users := make([]*testkit.User, n)
		for i := range users {
			users[i] = s.Register("Racer")
		}
		code := botCode(t, s, discordUserA, "prize")
		got := testkit.Race(n, func(i int) *testkit.Response { return verify(s, users[i], code) })
		won := 0
		for _, r := range got {
			switch {
			case r.Status == http.StatusOK:
				won++
			case r.Status == http.StatusBadRequest && r.Code() == "VALIDATION_ERROR",
				r.Status == http.StatusConflict && r.Code() == "INVALID_STATE":
			default:
				t.Fatalf("answer %d %s", r.Status, r.Body)
			}
		}
		linked := 0
		for _, u := range users {
			if me(t, s, u)["discord"] != nil {
				linked++
			}
		}
		if won != 1 || linked != 1 {
			t.Fatalf("%d verified, %d linked; want one each", won, linked)
		}
	})
}
