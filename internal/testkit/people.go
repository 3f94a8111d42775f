package testkit

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"marketplace/internal/accounts"
	"marketplace/internal/store"
)

// User is a registered person as a test knows them.
type User struct {
	ID       string
	Email    string
	Username string
	Password string
	Token    string
}

// Auth is the user's bearer header.
func (u *User) Auth() Header { return Bearer(u.Token) }

var seq atomic.Int64

// Register makes a new user with a unique e-mail.
func (s *Server) Register(name string) *User {
	s.T.Helper()
	n := seq.Add(1)
	email := fmt.Sprintf("%s%d@example.com", strings.ToLower(name), n)
	u := &User{Email: email, Password: "password-" + name + "-1234"}
	r := s.Do("POST", "/api/v1/auth/register", map[string]any{
		"email": email, "password": u.Password, "displayName": name, "acceptedTerms": true,
	}).Want(s.T, http.StatusCreated, "")
	d := r.Data()
	user := d["user"].(map[string]any)
	u.ID, u.Username, u.Token = user["id"].(string), user["username"].(string), d["accessToken"].(string)
	return u
}

// VerifiedOwner makes a user whose identity is verified, in one call: the
// sandbox payout onboarding, as an owner would do it.
func (s *Server) VerifiedOwner(name string) *User {
	s.T.Helper()
	u := s.Register(name)
	s.Verify(u)
	return u
}

// Verify completes identity verification for u through the sandbox page.
func (s *Server) Verify(u *User) {
	s.T.Helper()
	r := s.Do("POST", "/api/v1/seller/connect", nil, u.Auth()).Want(s.T, http.StatusOK, "")
	url := r.Data()["onboardingUrl"].(string)
	s.Do("POST", strings.TrimPrefix(url, s.URL), nil).Want(s.T, http.StatusOK, "")
}

// Key is an agent key as a test knows it.
type Key struct {
	ID     string
	Secret string
}

// Auth is the key's header.
func (k *Key) Auth() Header { return AgentKey(k.Secret) }

// NewKey creates an agent key for owner with scope (buy_only, sell_only,
// buy_sell).
func (s *Server) NewKey(owner *User, scope string) *Key {
	s.T.Helper()
	r := s.Do("POST", "/api/v1/agent-keys", map[string]any{
		"label": "test " + scope, "scope": scope, "acceptedAgentTerms": true,
	}, owner.Auth()).Want(s.T, http.StatusCreated, "")
	return &Key{ID: r.Data()["id"].(string), Secret: r.Data()["key"].(string)}
}

// Admin returns a user with role admin (bootstrapped the way the service
// does it at start-up).
func (s *Server) Admin() *User {
	s.T.Helper()
	u := s.Register("admin")
	s.UpdateUser(u.ID, func(au *accounts.User) { au.Role = accounts.RoleAdmin })
	return u
}

// SetStatus suspends, bans or reinstates a user directly in the store, as an
// admin's moderation would.
func (s *Server) SetStatus(userID string, status accounts.Status) {
	s.T.Helper()
	s.UpdateUser(userID, func(u *accounts.User) { u.Status = status })
}

// UpdateUser changes a user in the store.
func (s *Server) UpdateUser(userID string, change func(*accounts.User)) {
	s.T.Helper()
	ctx := s.T.Context()
	err := s.App.DB.InTx(ctx, func(tx *store.Tx) error {
		u, err := tx.UserByID(ctx, userID)
		if err != nil {
			return err
		}
		change(u)
		return tx.UpdateUser(ctx, u)
	})
	if err != nil {
		s.T.Fatal(err)
	}
}
