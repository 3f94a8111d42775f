package accounts_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/ratelimit"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

func init() { accounts.UseTestPasswordCost() }

var t0 = time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)

const goodPassword = "correct-horse-battery"

// fixture is the accounts service on a fresh store. The limiter runs on
// its own clock, as the login throttles do on real time.
type fixture struct {
	t        *testing.T
	db       *store.DB
	clock    *market.FixedClock
	realTime *market.FixedClock
	svc      *accounts.Service
}

func newFixture(t *testing.T, db *store.DB) *fixture {
	clock, realTime := market.NewFixedClock(t0), market.NewFixedClock(t0)
	svc := accounts.NewService(store.Accounts(db), clock, accounts.NewTokens("test-secret-0123456789abcdef0123456789"),
		ratelimit.NewMemory(realTime.Now), nil)
	return &fixture{t: t, db: db, clock: clock, realTime: realTime, svc: svc}
}

func registration(email string) accounts.RegisterInput {
	return accounts.RegisterInput{Email: email, Password: goodPassword, DisplayName: "Someone", AcceptedTerms: true}
}

// register opens an account and fails the test unless it opens.
func (f *fixture) register(in accounts.RegisterInput) *accounts.User {
	f.t.Helper()
	u, tok, err := f.svc.Register(context.Background(), in)
	if err != nil {
		f.t.Fatalf("register %q: %v", in.Email, err)
	}
	if tok.Value == "" {
		f.t.Fatal("no token")
	}
	return u
}

func (f *fixture) setStatus(id string, st accounts.Status) {
	f.t.Helper()
	ctx := context.Background()
	if err := f.db.InTx(ctx, func(tx *store.Tx) error {
		u, err := tx.UserByID(ctx, id)
		if err != nil {
			return err
		}
		u.Status = st
		return tx.UpdateUser(ctx, u)
	}); err != nil {
		f.t.Fatal(err)
	}
}

func actor(u *accounts.User) market.Actor { return market.Actor{Type: market.ActorUser, UserID: u.ID} }

// fieldsOf lists the invalid fields of a VALIDATION_ERROR, sorted ("" and
// the code when err is some other error).
func fieldsOf(err error) []string {
	e := market.ErrorOf(err)
	if err == nil {
		return nil
	}
	if e.Code != market.CodeValidation {
		return []string{"code " + string(e.Code)}
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Field)
	}
	slices.Sort(out)
	return out
}

func wantCode(t *testing.T, what string, err error, code market.Code) {
	t.Helper()
	if market.CodeOf(err) != code {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}

// TestPrepareUser: what a registration must hold, and how it is
// normalised before anything is stored.
func TestPrepareUser(t *testing.T) {
	ok := registration("valid@example.com")
	with := func(f func(*accounts.RegisterInput)) accounts.RegisterInput {
		in := ok
		f(&in)
		return in
	}
	long := func(n int) string { return strings.Repeat("a", n) }
	for _, tc := range []struct {
		name   string
		in     accounts.RegisterInput
		fields []string
	}{
		{"valid", ok, nil},
		{"nothing", accounts.RegisterInput{}, []string{"accepted_terms", "display_name", "email", "password"}},
		{"terms not accepted", with(func(in *accounts.RegisterInput) { in.AcceptedTerms = false }), []string{"accepted_terms"}},
		{"password of 10", with(func(in *accounts.RegisterInput) { in.Password = "1234567890" }), nil},
		{"password of 9", with(func(in *accounts.RegisterInput) { in.Password = "123456789" }), []string{"password"}},
		{"password of 9 runes in 18 bytes", with(func(in *accounts.RegisterInput) { in.Password = "ééééééééé" }), []string{"password"}},
		{"password of 10 runes in 20 bytes", with(func(in *accounts.RegisterInput) { in.Password = "éééééééééé" }), nil},
		{"password of 256 bytes", with(func(in *accounts.RegisterInput) { in.Password = long(256) }), nil},
		{"password of 257 bytes", with(func(in *accounts.RegisterInput) { in.Password = long(257) }), []string{"password"}},
		{"password of 129 runes in 258 bytes", with(func(in *accounts.RegisterInput) { in.Password = strings.Repeat("é", 129) }), []string{"password"}},
		{"email without at", with(func(in *accounts.RegisterInput) { in.Email = "not-an-email" }), []string{"email"}},
		{"email without dot in domain", with(func(in *accounts.RegisterInput) { in.Email = "a@localhost" }), []string{"email"}},
		{"email with display name", with(func(in *accounts.RegisterInput) { in.Email = "Ada <ada@example.com>" }), []string{"email"}},
		{"email with space", with(func(in *accounts.RegisterInput) { in.Email = "ada lovelace@example.com" }), []string{"email"}},
		{"email of 255", with(func(in *accounts.RegisterInput) { in.Email = long(243) + "@example.com" }), []string{"email"}},
		{"email of 254", with(func(in *accounts.RegisterInput) {
			in.Email = long(64) + "@" + long(63) + "." + long(63) + "." + long(57) + ".com"
		}), nil},
		{"email padded and upper case", with(func(in *accounts.RegisterInput) { in.Email = "  Ada@Example.COM " }), nil},
		{"username of 3", with(func(in *accounts.RegisterInput) { in.Username = "abc" }), nil},
		{"username of 2", with(func(in *accounts.RegisterInput) { in.Username = "ab" }), []string{"username"}},
		{"username of 30", with(func(in *accounts.RegisterInput) { in.Username = long(30) }), nil},
		{"username of 31", with(func(in *accounts.RegisterInput) { in.Username = long(31) }), []string{"username"}},
		{"username with _ . - inside", with(func(in *accounts.RegisterInput) { in.Username = "a_b.c-d" }), nil},
		{"username starts with a dash", with(func(in *accounts.RegisterInput) { in.Username = "-ada" }), []string{"username"}},
		{"username ends with a dot", with(func(in *accounts.RegisterInput) { in.Username = "ada." }), []string{"username"}},
		{"username with a space", with(func(in *accounts.RegisterInput) { in.Username = "ada l" }), []string{"username"}},
		{"username not ASCII", with(func(in *accounts.RegisterInput) { in.Username = "ädä" }), []string{"username"}},
		{"username in upper case", with(func(in *accounts.RegisterInput) { in.Username = " Ada_L " }), nil},
		{"blank display name", with(func(in *accounts.RegisterInput) { in.DisplayName = "   " }), []string{"display_name"}},
		{"display name of 80 runes", with(func(in *accounts.RegisterInput) { in.DisplayName = strings.Repeat("é", 80) }), nil},
		{"display name of 81", with(func(in *accounts.RegisterInput) { in.DisplayName = long(81) }), []string{"display_name"}},
		{"several", with(func(in *accounts.RegisterInput) { in.Email, in.Password = "nope", "short" }), []string{"email", "password"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nu, err := accounts.PrepareUser(tc.in)
			if got := fieldsOf(err); !slices.Equal(got, tc.fields) {
				t.Fatalf("fields %v, want %v (%v)", got, tc.fields, err)
			}
			if err != nil {
				return
			}
			if nu.Email != strings.ToLower(strings.TrimSpace(tc.in.Email)) || nu.Username != strings.ToLower(strings.TrimSpace(tc.in.Username)) ||
				nu.DisplayName != strings.TrimSpace(tc.in.DisplayName) {
				t.Errorf("not normalised: %+v", nu)
			}
			if nu.PasswordHash == "" || strings.Contains(nu.PasswordHash, tc.in.Password) || !accounts.CheckPassword(nu.PasswordHash, tc.in.Password) {
				t.Errorf("password hash %q does not check", nu.PasswordHash)
			}
		})
	}
}

// TestRegisterUniqueness: e-mails and usernames are unique whatever their
// case; a username left out is derived from the e-mail's local part, made
// valid and unused.
func TestRegisterUniqueness(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		first := registration("Dup@Example.com")
		first.Username = "Dup_User"
		u := f.register(first)
		if u.Email != "dup@example.com" || u.Username != "dup_user" || u.Role != accounts.RoleUser ||
			u.Status != accounts.StatusActive || u.TrustTier != accounts.TierNew || !u.CreatedAt.Equal(t0) {
			t.Fatalf("registered %+v", u)
		}
		for _, tc := range []struct {
			name, email, username string
			code                  market.Code
		}{
			{"same e-mail", "dup@example.com", "other_user", market.CodeEmailTaken},
			{"e-mail in other case", " DUP@example.COM", "", market.CodeEmailTaken},
			{"same username", "dup2@example.com", "dup_user", market.CodeUsernameTaken},
			{"username in other case", "dup3@example.com", "DUP_User", market.CodeUsernameTaken},
		} {
			in := registration(tc.email)
			in.Username = tc.username
			_, _, err := f.svc.Register(ctx, in)
			wantCode(t, tc.name, err, tc.code)
		}
		if _, err := db.Read().UserByEmail(ctx, "dup2@example.com"); market.CodeOf(err) != market.CodeNotFound {
			t.Errorf("a refused registration left a user: %v", err)
		}

		for _, tc := range []struct{ email, want string }{
			{"Grace.Hopper+shop@Example.com", `^grace\.hoppershop$`},
			{"grace.hopper+shop@other.example", `^grace\.hoppershop-[0-9a-f]{6}$`}, // taken: suffixed
			{"abcdefghijklmnopqrs.tuvwxyz@example.com", `^abcdefghijklmnopqrs$`},   // cut to 20, separator trimmed
			{"a@example.com", `^a00$`},                                             // padded to 3
			{"-x-@example.com", `^x00$`},                                           // separators trimmed at both ends
			{"dup_user@example.org", `^dup_user-[0-9a-f]{6}$`},                     // another's chosen name
		} {
			u := f.register(registration(tc.email))
			if !regexp.MustCompile(tc.want).MatchString(u.Username) || !accounts.ValidUsername(u.Username) {
				t.Errorf("%s: derived username %q, want %s", tc.email, u.Username, tc.want)
			}
			// The derived name is a profile's, and taken.
			if p, err := f.svc.Profile(ctx, u.Username); err != nil || p.ID != u.ID {
				t.Errorf("%s: profile %q: %v", tc.email, u.Username, err)
			}
			if c, err := f.svc.CheckUsername(ctx, u.Username); err != nil || c.Available || c.Reason != "taken" {
				t.Errorf("%s: check %q: %+v %v", tc.email, u.Username, c, err)
			}
		}
	})
}

// TestLogin: credentials, what a refusal reveals, blocked accounts, and
// the per-account throttle.
func TestLogin(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		u := f.register(registration("lena@example.com"))
		other := f.register(registration("otto@example.com"))

		got, tok, err := f.svc.Login(ctx, "  LENA@Example.com ", goodPassword, "1.2.3.4")
		if err != nil || got.ID != u.ID {
			t.Fatalf("login in other case: %v %v", got, err)
		}
		if want := time.Now().Add(accounts.TokenTTL); tok.ExpiresAt.Before(want.Add(-time.Minute)) || tok.ExpiresAt.After(want.Add(time.Minute)) {
			t.Errorf("token expires %v, want about %v (real time, not the service clock)", tok.ExpiresAt, want)
		}
		if who, err := f.svc.Authenticate(ctx, tok.Value); err != nil || who.ID != u.ID {
			t.Errorf("authenticate: %v %v", who, err)
		}

		// A wrong password and an unknown e-mail are the same refusal.
		_, _, wrong := f.svc.Login(ctx, u.Email, "wrong-password-123", "1.2.3.4")
		_, _, unknown := f.svc.Login(ctx, "nobody@example.com", "wrong-password-123", "1.2.3.4")
		we, ue := market.ErrorOf(wrong), market.ErrorOf(unknown)
		if we.Code != market.CodeInvalidCredentials || ue.Code != market.CodeInvalidCredentials || we.Message != ue.Message ||
			we.Details != nil || ue.Details != nil {
			t.Errorf("wrong password %+v, unknown e-mail %+v", we, ue)
		}

		for _, tc := range []struct {
			name, email, password string
			fields                []string
		}{
			{"nothing", "", "", []string{"email", "password"}},
			{"blank e-mail", "  ", goodPassword, []string{"email"}},
			{"no password", u.Email, "", []string{"password"}},
			{"password over 256 bytes", u.Email, strings.Repeat("p", 257), []string{"password"}},
		} {
			_, _, err := f.svc.Login(ctx, tc.email, tc.password, "1.2.3.4")
			if got := fieldsOf(err); !slices.Equal(got, tc.fields) {
				t.Errorf("%s: fields %v, want %v", tc.name, got, tc.fields)
			}
		}

		for _, st := range []accounts.Status{accounts.StatusSuspended, accounts.StatusBanned} {
			b := f.register(registration(string(st) + "@example.com"))
			_, tok, _ := f.svc.Login(ctx, b.Email, goodPassword, "1.2.3.5")
			f.setStatus(b.ID, st)
			_, _, err := f.svc.Login(ctx, b.Email, goodPassword, "1.2.3.5")
			wantCode(t, string(st)+" login", err, market.CodeAccountSuspended)
			// Without the password nothing about the account is revealed.
			_, _, err = f.svc.Login(ctx, b.Email, "wrong-password-123", "1.2.3.5")
			wantCode(t, string(st)+" wrong password", err, market.CodeInvalidCredentials)
			_, err = f.svc.Authenticate(ctx, tok.Value)
			wantCode(t, string(st)+" token", err, market.CodeAccountSuspended)
			f.setStatus(b.ID, accounts.StatusActive)
			if _, err := f.svc.Authenticate(ctx, tok.Value); err != nil {
				t.Errorf("%s, active again: %v", st, err)
			}
		}

		for _, bad := range []string{"", "not-a-jwt", tok.Value + "x"} {
			_, err := f.svc.Authenticate(ctx, bad)
			wantCode(t, "token "+bad, err, market.CodeUnauthorized)
		}
		// A token of an account that is gone.
		ghost, _ := f.svc.Tokens().Issue(&accounts.User{ID: market.NewID(), Role: accounts.RoleUser})
		_, err = f.svc.Authenticate(ctx, ghost.Value)
		wantCode(t, "token of no account", err, market.CodeUnauthorized)

		// Throttle: a success clears the account's count, so ten more
		// failures are answered normally; the eleventh attempt in fifteen
		// minutes is refused, right password or not, in any case.
		if _, _, err := f.svc.Login(ctx, u.Email, goodPassword, "5.6.7.8"); err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			_, _, err := f.svc.Login(ctx, u.Email, "wrong-password-123", "5.6.7.8")
			wantCode(t, "failure "+string(rune('0'+i)), err, market.CodeInvalidCredentials)
		}
		_, _, err = f.svc.Login(ctx, strings.ToUpper(u.Email), goodPassword, "5.6.7.8")
		if e := market.ErrorOf(err); e.Code != market.CodeRateLimited || e.Details["retry_after"] != int64(900) {
			t.Fatalf("eleventh attempt: %+v", e)
		}
		// Per account: another person logs in from the same address.
		if _, _, err := f.svc.Login(ctx, other.Email, goodPassword, "5.6.7.8"); err != nil {
			t.Errorf("another account: %v", err)
		}
		// The service clock does not lift a lockout; real time does.
		f.clock.Advance(24 * time.Hour)
		f.realTime.Advance(14 * time.Minute)
		_, _, err = f.svc.Login(ctx, u.Email, goodPassword, "5.6.7.8")
		if e := market.ErrorOf(err); e.Code != market.CodeRateLimited || e.Details["retry_after"] != int64(60) {
			t.Fatalf("after 14 minutes: %+v", e)
		}
		f.realTime.Advance(time.Minute)
		if _, _, err := f.svc.Login(ctx, u.Email, goodPassword, "5.6.7.8"); err != nil {
			t.Errorf("after the window: %v", err)
		}
	})
}

// TestLoginThrottlePerAddress: fifty attempts per address in the window,
// whatever the accounts. (Known accounts: an unknown e-mail costs a
// full-cost hash.)
func TestLoginThrottlePerAddress(t *testing.T) {
	f := newFixture(t, storetest.OpenSQLite(t))
	ctx := context.Background()
	var users []*accounts.User
	for i := range 6 {
		users = append(users, f.register(registration(fmt.Sprintf("p%d@example.com", i))))
	}
	for i := range 50 {
		_, _, err := f.svc.Login(ctx, users[i%5].Email, "wrong-password-123", "9.9.9.9")
		wantCode(t, "attempt", err, market.CodeInvalidCredentials)
	}
	_, _, err := f.svc.Login(ctx, users[5].Email, goodPassword, "9.9.9.9")
	wantCode(t, "51st from one address", err, market.CodeRateLimited)
	if _, _, err := f.svc.Login(ctx, users[5].Email, goodPassword, "9.9.9.10"); err != nil {
		t.Errorf("another address: %v", err)
	}
}

// TestProfileAndUsernames: profile lookup and the username check follow
// the username rules, ignore case, and hide banned accounts.
func TestProfileAndUsernames(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		in := registration("pia@example.com")
		in.Username = "pia"
		u := f.register(in)
		for _, name := range []string{"pia", " PIA "} {
			if p, err := f.svc.Profile(ctx, name); err != nil || p.ID != u.ID {
				t.Errorf("profile %q: %v %v", name, p, err)
			}
		}
		for _, name := range []string{"nobody_here", "x", "-bad-", strings.Repeat("n", 31)} {
			_, err := f.svc.Profile(ctx, name)
			wantCode(t, "profile "+name, err, market.CodeNotFound)
		}
		f.setStatus(u.ID, accounts.StatusSuspended)
		if _, err := f.svc.Profile(ctx, "pia"); err != nil {
			t.Errorf("a suspended account's profile: %v", err)
		}
		f.setStatus(u.ID, accounts.StatusBanned)
		_, err := f.svc.Profile(ctx, "pia")
		wantCode(t, "banned profile", err, market.CodeNotFound)

		for _, tc := range []struct {
			in, username string
			available    bool
			reason       string
		}{
			{"pia", "pia", false, "taken"},
			{"PIA", "pia", false, "taken"},
			{" Free_Name.42 ", "free_name.42", true, ""},
			{"ab", "ab", false, "invalid"},
			{strings.Repeat("a", 31), strings.Repeat("a", 31), false, "invalid"},
			{"-abc", "-abc", false, "invalid"},
			{"abc_", "abc_", false, "invalid"},
			{"ab cd", "ab cd", false, "invalid"},
			{"äbc", "äbc", false, "invalid"},
		} {
			got, err := f.svc.CheckUsername(ctx, tc.in)
			if err != nil || got != (accounts.UsernameCheck{Username: tc.username, Available: tc.available, Reason: tc.reason}) {
				t.Errorf("check %q: %+v %v", tc.in, got, err)
			}
		}
	})
}

// TestUpdateProfile: the fields it takes, their rules, and a username
// another account holds.
func TestUpdateProfile(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		u := f.register(registration("uma@example.com"))
		other := f.register(registration("omar@example.com"))
		s := func(v string) *string { return &v }

		got, err := f.svc.UpdateProfile(ctx, actor(u), accounts.ProfileUpdate{DisplayName: s("  Uma T "), Username: s(" Uma_Renamed ")})
		if err != nil || got.DisplayName != "Uma T" || got.Username != "uma_renamed" || got.Email != u.Email {
			t.Fatalf("update: %+v %v", got, err)
		}
		// An empty update changes nothing; keeping one's own name is no conflict.
		if got, err := f.svc.UpdateProfile(ctx, actor(u), accounts.ProfileUpdate{}); err != nil || got.Username != "uma_renamed" || got.DisplayName != "Uma T" {
			t.Errorf("empty update: %+v %v", got, err)
		}
		if _, err := f.svc.UpdateProfile(ctx, actor(u), accounts.ProfileUpdate{Username: s("UMA_RENAMED")}); err != nil {
			t.Errorf("own name again: %v", err)
		}
		if c, _ := f.svc.CheckUsername(ctx, u.Username); !c.Available {
			t.Errorf("the old name is not free again: %+v", c)
		}
		_, err = f.svc.UpdateProfile(ctx, actor(u), accounts.ProfileUpdate{Username: s(strings.ToUpper(other.Username))})
		wantCode(t, "another's username", err, market.CodeUsernameTaken)

		for _, tc := range []struct {
			name   string
			upd    accounts.ProfileUpdate
			fields []string
		}{
			{"blank display name", accounts.ProfileUpdate{DisplayName: s(" ")}, []string{"display_name"}},
			{"display name of 81", accounts.ProfileUpdate{DisplayName: s(strings.Repeat("d", 81))}, []string{"display_name"}},
			{"bad username", accounts.ProfileUpdate{Username: s("x")}, []string{"username"}},
			{"avatar not uploaded here", accounts.ProfileUpdate{AvatarURL: s("https://img.example.com/uma.png")}, []string{"avatar_url"}},
			{"several", accounts.ProfileUpdate{DisplayName: s(""), Username: s("-x-")}, []string{"display_name", "username"}},
		} {
			_, err := f.svc.UpdateProfile(ctx, actor(u), tc.upd)
			if got := fieldsOf(err); !slices.Equal(got, tc.fields) {
				t.Errorf("%s: fields %v, want %v", tc.name, got, tc.fields)
			}
		}
		if got, _ := f.svc.User(ctx, u.ID); got.DisplayName != "Uma T" || got.Username != "uma_renamed" {
			t.Errorf("a refused update changed the user: %+v", got)
		}
		// "" clears the avatar.
		if got, err := f.svc.UpdateProfile(ctx, actor(u), accounts.ProfileUpdate{AvatarURL: s(" ")}); err != nil || got.AvatarURL != "" {
			t.Errorf("clearing the avatar: %+v %v", got, err)
		}
	})
}

// TestSetPassword: the current password is required when one is set, the
// new one follows the password rules, and only a success changes it.
func TestSetPassword(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		u := f.register(registration("pat@example.com"))
		const next = "a-brand-new-password"
		wantCode(t, "wrong current", f.svc.SetPassword(ctx, actor(u), "not-my-password", next), market.CodeInvalidCredentials)
		wantCode(t, "no current", f.svc.SetPassword(ctx, actor(u), "", next), market.CodeInvalidCredentials)
		for _, bad := range []string{"", "short", strings.Repeat("p", 257)} {
			if got := fieldsOf(f.svc.SetPassword(ctx, actor(u), goodPassword, bad)); !slices.Equal(got, []string{"new_password"}) {
				t.Errorf("new password of %d bytes: fields %v", len(bad), got)
			}
		}
		if _, _, err := f.svc.Login(ctx, u.Email, goodPassword, "1.1.1.1"); err != nil {
			t.Fatalf("a refused change broke the old password: %v", err)
		}
		if err := f.svc.SetPassword(ctx, actor(u), goodPassword, next); err != nil {
			t.Fatal(err)
		}
		_, _, err := f.svc.Login(ctx, u.Email, goodPassword, "1.1.1.1")
		wantCode(t, "old password", err, market.CodeInvalidCredentials)
		if _, _, err := f.svc.Login(ctx, u.Email, next, "1.1.1.1"); err != nil {
			t.Errorf("new password: %v", err)
		}

		// An account without a password (signed up elsewhere) sets one
		// without giving a current one.
		var bare *accounts.User
		if err := store.Accounts(db).InTx(ctx, func(tx accounts.Tx) error {
			var err error
			bare, err = f.svc.CreateUserTx(ctx, tx, accounts.NewUser{Email: "bare@example.com", DisplayName: "Bare"})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		_, _, err = f.svc.Login(ctx, bare.Email, "anything-at-all", "1.1.1.1")
		wantCode(t, "login without a password", err, market.CodeInvalidCredentials)
		if err := f.svc.SetPassword(ctx, actor(bare), "", next); err != nil {
			t.Fatalf("first password: %v", err)
		}
		if _, _, err := f.svc.Login(ctx, bare.Email, next, "1.1.1.1"); err != nil {
			t.Errorf("login with the first password: %v", err)
		}
	})
}

// TestEnsureAdmin: the configured admin is created once, an existing
// account is promoted (keeping its password), and a blocked admin is
// made active again.
func TestEnsureAdmin(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		if err := f.svc.EnsureAdmin(ctx, "Root@Example.com", "root-password-123"); err != nil {
			t.Fatal(err)
		}
		root, _, err := f.svc.Login(ctx, "root@example.com", "root-password-123", "1.1.1.1")
		if err != nil || !root.IsAdmin() || root.Status != accounts.StatusActive {
			t.Fatalf("admin: %+v %v", root, err)
		}
		f.setStatus(root.ID, accounts.StatusSuspended)
		if err := f.svc.EnsureAdmin(ctx, "root@example.com", "root-password-123"); err != nil {
			t.Fatal(err)
		}
		if again, _ := f.svc.User(ctx, root.ID); again.Status != accounts.StatusActive || !again.IsAdmin() {
			t.Errorf("second run: %+v", again)
		}
		_, _, err = f.svc.Register(ctx, registration("root@example.com"))
		wantCode(t, "register the admin's e-mail", err, market.CodeEmailTaken)

		p := f.register(registration("promoted@example.com"))
		if err := f.svc.EnsureAdmin(ctx, "PROMOTED@example.com", "ignored-password-1"); err != nil {
			t.Fatal(err)
		}
		got, _, err := f.svc.Login(ctx, p.Email, goodPassword, "1.1.1.1")
		if err != nil || got.ID != p.ID || !got.IsAdmin() {
			t.Errorf("promoted: %+v %v", got, err)
		}
		// A new admin's password follows the rules.
		if got := fieldsOf(f.svc.EnsureAdmin(ctx, "new-admin@example.com", "short")); !slices.Equal(got, []string{"password"}) {
			t.Errorf("short admin password: fields %v", got)
		}
	})
}
