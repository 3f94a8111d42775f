package httpapi

import (
	"context"
	"net/http"
	"strings"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/checkouts"
	"marketplace/internal/market"
)

// Principal is the authenticated caller: the Caller of the operations.
type Principal = api.Caller

// PrincipalOf returns the caller of an authenticated route.
func PrincipalOf(r *http.Request) *Principal {
	p, _ := r.Context().Value(keyPrincipal).(*Principal)
	return p
}

// Authenticator resolves credentials.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (*accounts.User, error)
	AuthenticateKey(ctx context.Context, secret string) (*agents.Key, *accounts.User, error)
	// AuthenticatePlatform answers the id of the agent platform whose
	// credential secret is.
	AuthenticatePlatform(ctx context.Context, secret string) (string, error)
}

// Services adapts the services to Authenticator.
type Services struct {
	Accounts  *accounts.Service
	Agents    *agents.Service
	Platforms *checkouts.Service
}

func (s Services) Authenticate(ctx context.Context, token string) (*accounts.User, error) {
	return s.Accounts.Authenticate(ctx, token)
}

func (s Services) AuthenticateKey(ctx context.Context, secret string) (*agents.Key, *accounts.User, error) {
	return s.Agents.Authenticate(ctx, secret)
}

func (s Services) AuthenticatePlatform(ctx context.Context, secret string) (string, error) {
	if s.Platforms == nil {
		return "", market.Errorf(market.CodeUnauthorized, "the platform credential is not valid")
	}
	p, err := s.Platforms.AuthenticatePlatform(ctx, secret)
	if err != nil {
		return "", err
	}
	return p.ID, nil
}

// BearerToken is the token of an "Authorization: Bearer" header, and
// whether the request has an Authorization header at all; routes that take
// a secret of their own (the chat bot's) read it with this.
func BearerToken(r *http.Request) (string, bool) { return bearerToken(r) }

func bearerToken(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", true
	}
	return strings.TrimSpace(token), true
}

// caller is who the credentials of a request to a public route name, or
// nil: a public route ignores credentials that do not authenticate, but
// one that do identify the caller, so an agent searching counts against its
// own rate limit and is told which text is another party's (contentTrust).
func (rt *Router) caller(r *http.Request) *Principal {
	if r.Header.Get("X-Agent-Key") == "" && r.Header.Get("Authorization") == "" {
		return nil
	}
	p, err := rt.authenticate(r, Either)
	if err != nil {
		return nil
	}
	return p
}

func (rt *Router) authenticate(r *http.Request, auth Auth) (*Principal, error) {
	if auth == Public {
		return nil, nil
	}
	ctx := r.Context()
	key, hasKey := r.Header.Get("X-Agent-Key"), r.Header.Get("X-Agent-Key") != ""
	token, hasBearer := bearerToken(r)
	if !hasKey && agents.LooksLikeKey(token) {
		// An agent key may come as "Authorization: Bearer mk_..." too, as
		// MCP hosts send credentials (CONTRACT.md section 13).
		key, hasKey, token, hasBearer = token, true, "", false
	}

	asAgent := func() (*Principal, error) { return rt.AgentPrincipal(ctx, key) }
	asHuman := func() (*Principal, error) {
		if token == "" {
			return nil, market.Errorf(market.CodeUnauthorized, "a bearer token is required")
		}
		u, err := rt.auth.Authenticate(ctx, token)
		if err != nil {
			return nil, err
		}
		t := market.ActorUser
		if u.IsAdmin() {
			t = market.ActorAdmin
		}
		return &Principal{Actor: market.Actor{Type: t, UserID: u.ID, Admin: u.IsAdmin()}, User: u}, nil
	}

	if auth == Optional {
		if !hasKey && !hasBearer {
			return nil, nil
		}
		auth = Either
	}
	if auth == Platform {
		if !hasKey && checkouts.LooksLikePlatformSecret(token) {
			id, err := rt.auth.AuthenticatePlatform(ctx, token)
			if err != nil {
				return nil, err
			}
			return &Principal{Actor: market.Actor{Type: market.ActorPlatform, KeyID: id}, PlatformID: id}, nil
		}
		auth = Agent
	}
	switch auth {
	case Agent:
		if !hasKey {
			return nil, market.Errorf(market.CodeInvalidAgentKey, "the X-Agent-Key header is required")
		}
		return asAgent()
	case Either:
		if hasKey {
			return asAgent()
		}
		if !hasBearer {
			return nil, market.Errorf(market.CodeUnauthorized, "a bearer token or an X-Agent-Key is required")
		}
		return asHuman()
	default: // Bearer, Admin
		if !hasBearer && hasKey {
			if _, err := asAgent(); err != nil {
				return nil, err
			}
			return nil, market.Errorf(market.CodeForbidden, "agents cannot do this; the owner must use a bearer token")
		}
		p, err := asHuman()
		if err != nil {
			return nil, err
		}
		if auth == Admin && !p.User.IsAdmin() {
			return nil, market.Errorf(market.CodeForbidden, "this needs an administrator")
		}
		return p, nil
	}
}

// AgentPrincipal authenticates an agent key secret: the key and its owner,
// or INVALID_AGENT_KEY, AGENT_FROZEN, ... as every agent route answers.
func (rt *Router) AgentPrincipal(ctx context.Context, secret string) (*Principal, error) {
	k, u, err := rt.auth.AuthenticateKey(ctx, strings.TrimSpace(secret))
	if err != nil {
		return nil, err
	}
	// An agent acts as its owner, never with the owner's admin rights:
	// those belong to the admin's own bearer token.
	return &Principal{Actor: market.Actor{Type: market.ActorAgent, UserID: u.ID, KeyID: k.ID}, User: u, Key: k}, nil
}

// ActorOf is the caller's actor, the zero Actor for anonymous callers.
func ActorOf(r *http.Request) market.Actor {
	if p := PrincipalOf(r); p != nil {
		return p.Actor
	}
	return market.Actor{}
}
