package accounts

import (
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TokenTTL is how long an access token is good for.
const TokenTTL = 24 * time.Hour

// Tokens issues and checks JWT access tokens (HS256). Expiry uses the real
// clock, not the sandbox clock: advancing sandbox time must not log people out.
type Tokens struct {
	secret []byte
	now    func() time.Time
}

// NewTokens signs with secret.
func NewTokens(secret string) *Tokens {
	return &Tokens{secret: []byte(secret), now: time.Now}
}

// Token is an issued access token.
type Token struct {
	Value     string
	ExpiresAt time.Time
}

type claims struct {
	Role string `json:"role"`
	jwt.RegisteredClaims
}

// Issue makes a token for u.
func (t *Tokens) Issue(u *User) (Token, error) {
	now := t.now().UTC().Truncate(time.Second)
	exp := now.Add(TokenTTL)
	c := claims{
		Role: string(u.Role),
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   u.ID,
			Issuer:    "marketplace",
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(exp),
		},
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(t.secret)
	return Token{Value: s, ExpiresAt: exp}, err
}

var errBadToken = errors.New("bad token")

// Subject checks a token and returns the user id it was issued to.
func (t *Tokens) Subject(token string) (string, error) {
	var c claims
	parsed, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return t.secret, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithIssuer("marketplace"), jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(t.now))
	if err != nil || !parsed.Valid || c.Subject == "" {
		return "", errBadToken
	}
	return c.Subject, nil
}
