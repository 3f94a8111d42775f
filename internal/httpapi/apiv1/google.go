package apiv1

import (
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// Google sign-in (CONTRACT.md section 17): the start sends the browser to
// Google; the callback comes back from there and signs the person in.

// RegisterGoogle adds the two routes. Start reads credentials when sent:
// linking (link=true) needs the owner's bearer token.
func (a *API) RegisterGoogle(rt *httpapi.Router) {
	rt = rt.In("accounts")
	rt.Handle("GET", Prefix+"/auth/google", httpapi.Optional, a.googleStart)
	rt.Handle("GET", Prefix+"/auth/google/callback", httpapi.Public, a.googleCallback)
}

type googleStarted struct {
	AuthorizationURL string    `json:"authorizationUrl" format:"uri" doc:"The provider's consent screen; send the browser there."`
	ExpiresAt        time.Time `json:"expiresAt" doc:"The sign-in must come back to the callback before this (10 minutes)."`
}

func (a *API) googleStart(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	link, err := queryBool(q, "link")
	if err != nil {
		return err
	}
	in := accounts.GoogleStart{ReturnTo: q.Get("returnTo"), Link: link}
	started, err := a.Google.Start(r.Context(), httpapi.ActorOf(r), in)
	if err != nil {
		return err
	}
	if wantsJSON(r) {
		return httpapi.OK(w, r, http.StatusOK, googleStarted{AuthorizationURL: started.URL, ExpiresAt: started.ExpiresAt})
	}
	redirect(w, started.URL)
	return nil
}

func (a *API) googleCallback(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	done, err := a.Google.Finish(r.Context(), accounts.GoogleCallback{State: q.Get("state"), Code: q.Get("code"), Error: q.Get("error")})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "user", done.User.ID)
	if a.GoogleSession != nil {
		if handled, err := a.GoogleSession(w, r, done); handled || err != nil {
			return err
		}
	}
	if wantsJSON(r) {
		return httpapi.OK(w, r, http.StatusOK, authResult{User: *api.UserOf(done.User), AccessToken: done.Token.Value, ExpiresAt: done.Token.ExpiresAt})
	}
	// The session rides in the fragment, which browsers never send to a
	// server (nor in a Referer). A JWT and an RFC 3339 time in UTC are
	// fragment-safe as they are, so they are written unescaped.
	redirect(w, done.ReturnTo+"#accessToken="+url.QueryEscape(done.Token.Value)+
		"&expiresAt="+done.Token.ExpiresAt.UTC().Format(time.RFC3339))
	return nil
}

// redirect answers 302 to location, never cached.
func redirect(w http.ResponseWriter, location string) {
	w.Header().Set("Location", location)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusFound)
}

// wantsJSON reports whether the caller asked for JSON (Accept:
// application/json) rather than a browser's redirect; a browser's
// navigation lists text/html and gets the redirect.
func wantsJSON(r *http.Request) bool {
	json := false
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["q"] == "0" {
			continue
		}
		switch mt {
		case "application/json":
			json = true
		case "text/html":
			return false
		}
	}
	return json
}

// queryBool reads an optional true/false query parameter.
func queryBool(q url.Values, name string) (bool, error) {
	switch q.Get(name) {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, market.Invalid(market.FieldError{Field: name, Message: "must be true or false", AsSent: true})
}
