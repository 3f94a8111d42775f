package accounts

import (
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestTokenLifetime: a token names its user until TokenTTL has passed on
// the token clock, and only with the secret, algorithm and issuer it was
// made with.
func TestTokenLifetime(t *testing.T) {
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	tokens := &Tokens{secret: []byte("secret-one"), now: func() time.Time { return now }}
	u := &User{ID: "user-1", Role: RoleUser}
	tok, err := tokens.Issue(u)
	if err != nil || !tok.ExpiresAt.Equal(now.Add(TokenTTL)) {
		t.Fatalf("issue: %+v %v", tok, err)
	}
	for _, tc := range []struct {
		at time.Time
		ok bool
	}{
		{now, true},
		{now.Add(TokenTTL - time.Second), true},
		{now.Add(TokenTTL), false},
		{now.Add(TokenTTL + time.Hour), false},
	} {
		at := tc.at
		check := &Tokens{secret: tokens.secret, now: func() time.Time { return at }}
		id, err := check.Subject(tok.Value)
		if (err == nil) != tc.ok || (tc.ok && id != u.ID) {
			t.Errorf("at +%v: %q %v, want ok=%v", at.Sub(now), id, err, tc.ok)
		}
	}
	if _, err := (&Tokens{secret: []byte("secret-two"), now: tokens.now}).Subject(tok.Value); err == nil {
		t.Error("a token checked with another secret")
	}

	sign := func(method jwt.SigningMethod, key any, c jwt.Claims) string {
		s, err := jwt.NewWithClaims(method, c).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	exp := jwt.NewNumericDate(now.Add(time.Hour))
	for name, raw := range map[string]string{
		"another issuer": sign(jwt.SigningMethodHS256, tokens.secret, jwt.RegisteredClaims{Subject: "u", Issuer: "elsewhere", ExpiresAt: exp}),
		"no expiry":      sign(jwt.SigningMethodHS256, tokens.secret, jwt.RegisteredClaims{Subject: "u", Issuer: "marketplace"}),
		"no subject":     sign(jwt.SigningMethodHS256, tokens.secret, jwt.RegisteredClaims{Issuer: "marketplace", ExpiresAt: exp}),
		"HS512":          sign(jwt.SigningMethodHS512, tokens.secret, jwt.RegisteredClaims{Subject: "u", Issuer: "marketplace", ExpiresAt: exp}),
		"alg none": sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType,
			jwt.RegisteredClaims{Subject: "u", Issuer: "marketplace", ExpiresAt: exp}),
	} {
		if id, err := tokens.Subject(raw); err == nil {
			t.Errorf("%s: accepted for %q", name, id)
		}
	}
	ok := sign(jwt.SigningMethodHS256, tokens.secret, jwt.RegisteredClaims{Subject: "u", Issuer: "marketplace", ExpiresAt: exp})
	if id, err := tokens.Subject(ok); err != nil || id != "u" {
		t.Errorf("a well-made token: %q %v", id, err)
	}
}
