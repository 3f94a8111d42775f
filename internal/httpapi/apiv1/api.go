package apiv1

import (
	"net/http"

	"marketplace/internal/accounts"
	"marketplace/internal/activity"
	"marketplace/internal/admin/users"
	"marketplace/internal/api"
	"marketplace/internal/audit"
	"marketplace/internal/httpapi"
	"marketplace/internal/settings"
)

// Prefix is where Variant A lives.
const Prefix = "/api/v1"

// Surface is Variant A's spelling: camelCase, but for the spending
// details, which CONTRACT.md section 2 spells in snake_case on both
// surfaces.
var Surface = &httpapi.Surface{Prefix: Prefix, Casing: httpapi.Camel, Names: map[string]string{
	"requested_amount": "requested_amount",
	"limit_type":       "limit_type",
}}

// API holds the operations Variant A calls (api.Ops: the services every
// surface shares, in camelCase) and the services of its own routes.
type API struct {
	api.Ops
	Avatars *accounts.Avatars
	Google  *accounts.GoogleSignIn
	// GoogleSession, when set, is offered each finished Google sign-in
	// first: the web console takes the flows it started (handled) and
	// answers them with a console session instead of a token.
	GoogleSession func(w http.ResponseWriter, r *http.Request, done *accounts.SignedIn) (handled bool, err error)
	Activity      *activity.Service
	Users         *users.Users // the admin's user tools
	Audit         *audit.Log
	Settings      *settings.Service
}

func actor(r *http.Request) *httpapi.Principal { return httpapi.PrincipalOf(r) }
