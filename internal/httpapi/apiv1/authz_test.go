package apiv1_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

// sign makes an HS256 token with the given claims.
func sign(t *testing.T, secret string, claims jwt.MapClaims) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// tamper changes one character in the middle of a token's signature (the
// last character only carries padding bits, so changing it may not count).
func tamper(tok string) string {
	i := strings.LastIndexByte(tok, '.') + 10
	c := byte('A')
	if tok[i] == 'A' {
		c = 'B'
	}
	return tok[:i] + string(c) + tok[i+1:]
}

type authMode int

const (
	public authMode = iota
	bearerOnly
	either
)

// route is one accounts route with a request that succeeds for the right
// caller.
type route struct {
	method, path string
	mode         authMode
	body         any
	status       int // for the owner's valid bearer token
}

func TestAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		owner := s.Register("Owen")
		other := s.Register("Bea")
		suspended := s.Register("Sus")
		banned := s.Register("Bann")

		addr := s.Do("POST", "/api/v1/addresses", validAddress(), owner.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		otherAddr := s.Do("POST", "/api/v1/addresses", validAddress(), other.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)

		// The owner's thread with a seller, for the messaging routes.
		msgSeller := s.VerifiedOwner("Msgs")
		msgListing := s.ActiveListing(msgSeller, "Brass desk lamp with a green glass shade", 4500)
		thread := s.Do("POST", "/api/v1/messages", map[string]any{"listingId": msgListing, "content": "Still there?"},
			owner.Auth()).Want(t, http.StatusCreated, "").Data()["threadId"].(string)

		active := s.NewKey(owner, "buy_sell")
		revoked := s.NewKey(owner, "buy_only")
		s.Do("DELETE", "/api/v1/agent-keys/"+revoked.ID, nil, owner.Auth()).Want(t, http.StatusOK, "")
		frozen := s.NewKey(owner, "sell_only")
		s.Do("POST", "/api/v1/admin/users/"+owner.ID+"/agent-keys/"+frozen.ID+"/freeze", nil, adm.Auth()).Want(t, http.StatusOK, "")
		suspendedKey := s.NewKey(suspended, "buy_sell")
		bannedKey := s.NewKey(banned, "buy_sell")
		s.SetStatus(suspended.ID, accounts.StatusSuspended)
		s.SetStatus(banned.ID, accounts.StatusBanned)

		secret := s.App.Config.JWTSecret
		now := time.Now()
		claims := func(sub string, exp time.Time) jwt.MapClaims {
			return jwt.MapClaims{"sub": sub, "iss": "marketplace", "role": "user", "iat": now.Unix(), "exp": exp.Unix()}
		}
		// A token made here with the service's secret works: so the forged
		// variants below fail for what is wrong with them, nothing else.
		handmade := sign(t, secret, claims(owner.ID, now.Add(time.Hour)))
		s.Do("GET", "/api/v1/auth/me", nil, testkit.Bearer(handmade)).Want(t, http.StatusOK, "")
		noneTok, err := jwt.NewWithClaims(jwt.SigningMethodNone, claims(owner.ID, now.Add(time.Hour))).SignedString(jwt.UnsafeAllowNoneSignatureType)
		if err != nil {
			t.Fatal(err)
		}
		noExp := jwt.MapClaims{"sub": owner.ID, "iss": "marketplace", "iat": now.Unix()}
		otherIss := claims(owner.ID, now.Add(time.Hour))
		otherIss["iss"] = "someone-else"

		creds := []struct {
			name   string
			h      []testkit.Header
			status map[authMode]int // expected per mode; 0 means the route's own success status
			code   map[authMode]string
		}{
			{"no credentials", nil, both(401), codes("UNAUTHORIZED")},
			{"garbage bearer", []testkit.Header{testkit.Bearer("garbage")}, both(401), codes("UNAUTHORIZED")},
			{"other scheme", []testkit.Header{{Name: "Authorization", Value: "Basic " + owner.Token}}, both(401), codes("UNAUTHORIZED")},
			{"scheme alone", []testkit.Header{{Name: "Authorization", Value: "Bearer"}}, both(401), codes("UNAUTHORIZED")},
			{"tampered signature", []testkit.Header{testkit.Bearer(tamper(owner.Token))}, both(401), codes("UNAUTHORIZED")},
			{"expired", []testkit.Header{testkit.Bearer(sign(t, secret, claims(owner.ID, now.Add(-time.Minute))))}, both(401), codes("UNAUTHORIZED")},
			{"no expiry", []testkit.Header{testkit.Bearer(sign(t, secret, noExp))}, both(401), codes("UNAUTHORIZED")},
			{"other issuer", []testkit.Header{testkit.Bearer(sign(t, secret, otherIss))}, both(401), codes("UNAUTHORIZED")},
			{"other secret", []testkit.Header{testkit.Bearer(sign(t, secret+"x", claims(owner.ID, now.Add(time.Hour))))}, both(401), codes("UNAUTHORIZED")},
			{"alg none", []testkit.Header{testkit.Bearer(noneTok)}, both(401), codes("UNAUTHORIZED")},
			{"unknown subject", []testkit.Header{testkit.Bearer(sign(t, secret, claims(market.NewID(), now.Add(time.Hour))))}, both(401), codes("UNAUTHORIZED")},
			{"suspended user", []testkit.Header{suspended.Auth()}, both(403), codes("ACCOUNT_SUSPENDED")},
			{"banned user", []testkit.Header{banned.Auth()}, both(403), codes("ACCOUNT_SUSPENDED")},
			{"agent key", []testkit.Header{active.Auth()},
				map[authMode]int{bearerOnly: 403, either: 0}, map[authMode]string{bearerOnly: "FORBIDDEN"}},
			{"unknown agent key", []testkit.Header{testkit.AgentKey("mk_test_" + strings.Repeat("z", 40))}, both(401), codes("INVALID_AGENT_KEY")},
			{"malformed agent key", []testkit.Header{testkit.AgentKey("not a key")}, both(401), codes("INVALID_AGENT_KEY")},
			{"revoked agent key", []testkit.Header{revoked.Auth()}, both(401), codes("INVALID_AGENT_KEY")},
			{"frozen agent key", []testkit.Header{frozen.Auth()}, both(403), codes("AGENT_FROZEN")},
			{"agent of a suspended owner", []testkit.Header{suspendedKey.Auth()}, both(403), codes("ACCOUNT_SUSPENDED")},
			{"agent of a banned owner", []testkit.Header{bannedKey.Auth()}, both(403), codes("ACCOUNT_SUSPENDED")},
		}

		// DELETE comes last: the valid pass below deletes the address.
		routes := []route{
			{"GET", "/api/v1/auth/me", either, nil, 200},
			{"PATCH", "/api/v1/auth/me", bearerOnly, map[string]any{"displayName": "Owen Again"}, 200},
			{"PUT", "/api/v1/auth/me/address", bearerOnly, validAddress(), 200},
			{"POST", "/api/v1/auth/set-password", bearerOnly, map[string]any{"currentPassword": owner.Password, "newPassword": owner.Password}, 200},
			{"GET", "/api/v1/addresses", bearerOnly, nil, 200},
			{"GET", "/api/v1/offers/buyer/me", bearerOnly, nil, 200},
			{"GET", "/api/v1/offers/seller/me", bearerOnly, nil, 200},
			{"POST", "/api/v1/addresses", bearerOnly, validAddress(), 201},
			{"PATCH", "/api/v1/addresses/" + addr + "/default", bearerOnly, nil, 200},
			{"POST", "/api/v1/messages", bearerOnly, map[string]any{"listingId": msgListing, "content": "Hello"}, 201},
			{"POST", "/api/v1/messages/threads/" + thread + "/reply", bearerOnly, map[string]any{"content": "Hello"}, 201},
			{"GET", "/api/v1/messages/threads", bearerOnly, nil, 200},
			{"GET", "/api/v1/messages/threads/" + thread, bearerOnly, nil, 200},
			{"GET", "/api/v1/messages/unread", bearerOnly, nil, 200},
			{"DELETE", "/api/v1/addresses/" + addr, bearerOnly, nil, 200},
		}

		for _, c := range creds {
			t.Run(c.name, func(t *testing.T) {
				for _, rt := range routes {
					r := s.Do(rt.method, rt.path, rt.body, c.h...)
					status, code := c.status[rt.mode], c.code[rt.mode]
					if status == 0 {
						status = rt.status
					}
					if r.Status != status || r.Code() != code {
						t.Errorf("%s %s: got %d %q, want %d %q\n%s", rt.method, rt.path, r.Status, r.Code(), status, code, r.Body)
					}
				}
			})
		}

		// Public routes ignore credentials, good or bad.
		t.Run("public routes", func(t *testing.T) {
			for _, h := range [][]testkit.Header{nil, {testkit.Bearer("garbage")}, {revoked.Auth()}, {suspended.Auth()}, {owner.Auth()}} {
				s.Do("GET", "/api/v1/profiles/"+owner.Username, nil, h...).Want(t, http.StatusOK, "")
				s.Do("GET", "/api/v1/auth/check-username/"+owner.Username, nil, h...).Want(t, http.StatusOK, "")
				// Bodies that fail validation: answered 400, never 401 or 403.
				testkit.WantFields(t, s.Do("POST", "/api/v1/auth/register", map[string]any{}, h...),
					"email", "password", "displayName", "acceptedTerms")
				testkit.WantFields(t, s.Do("POST", "/api/v1/auth/login", map[string]any{}, h...), "email", "password")
			}
		})

		t.Run("wrong user", func(t *testing.T) {
			// Another person's address does not exist for the caller.
			s.Do("DELETE", "/api/v1/addresses/"+otherAddr, nil, owner.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("PATCH", "/api/v1/addresses/"+otherAddr+"/default", nil, owner.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			for _, x := range s.Do("GET", "/api/v1/addresses", nil, owner.Auth()).Want(t, http.StatusOK, "").List() {
				if x.(map[string]any)["id"] == otherAddr {
					t.Errorf("another person's address is listed")
				}
			}
			// Another person's thread does not exist for the caller.
			s.Do("GET", "/api/v1/messages/threads/"+thread, nil, other.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("POST", "/api/v1/messages/threads/"+thread+"/reply", map[string]any{"content": "x"}, other.Auth()).
				Want(t, http.StatusNotFound, "NOT_FOUND")
			if ids, def := listAddresses(t, s, other); len(ids) != 1 || def != otherAddr {
				t.Errorf("the other person's addresses changed: %v (default %s)", ids, def)
			}
		})

		// The same requests with the owner's bearer token succeed, so the
		// refusals above are about the credentials alone.
		t.Run("valid bearer", func(t *testing.T) {
			for _, rt := range routes {
				s.Do(rt.method, rt.path, rt.body, owner.Auth()).Want(t, rt.status, "")
			}
		})

		t.Run("unfrozen key works again", func(t *testing.T) {
			s.Do("PATCH", "/api/v1/agent-keys/"+frozen.ID+"/unfreeze", nil, owner.Auth()).Want(t, http.StatusOK, "")
			d := s.Do("GET", "/api/v1/auth/me", nil, frozen.Auth()).Want(t, http.StatusOK, "").Data()
			wantEq(t, "keyId", d["keyId"], frozen.ID)
		})
	})
}

func both(status int) map[authMode]int { return map[authMode]int{bearerOnly: status, either: status} }

func codes(code string) map[authMode]string {
	return map[authMode]string{bearerOnly: code, either: code}
}
