// Package console serves the web console (CONTRACT.md section 20): pages
// for people in a browser, rendered on the server from the same operations
// as the API (internal/api), so every rule and refusal is the same. It
// works without JavaScript.
//
// A page knows its visitor by the console's own session cookie, never by
// an API bearer token or agent key; every form carries a CSRF token bound
// to the session (or, before sign-in, to a guest cookie); every answer
// carries a strict Content-Security-Policy.
package console

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/shipping"
)

// Cookie names: the session, and the guest token forms are bound to before
// sign-in.
const (
	SessionCookie = "mk_session"
	GuestCookie   = "mk_guest"
)

// CSP is the console's Content-Security-Policy: nothing inline, nothing
// from elsewhere, no framing.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Console is the web console.
type Console struct {
	Ops api.Ops
	// Admin are the admin services the admin pages call (admin.go).
	Admin AdminOps
	// Secure marks the cookies Secure (live mode: served over https).
	Secure bool
	// Secret keys the CSRF tokens (the service's JWT secret).
	Secret string
	Log    *slog.Logger
	// Google is Google sign-in (its link shows when it is configured).
	Google *accounts.GoogleSignIn

	pages map[string]*template.Template
}

// Register adds the console's pages to rt. The home page is served at "/"
// by ops for browsers (Home).
func (c *Console) Register(rt *httpapi.Router) {
	c.pages = parsePages()
	rt = rt.In("console")
	static, _ := fs.Sub(staticFiles, "static")
	files := http.StripPrefix("/assets/", http.FileServerFS(static))
	rt.HandleRaw("GET", "/assets/{file...}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	}))
	rt.Handle("GET", "/signup", httpapi.Public, c.guest(c.signupPage))
	rt.Handle("POST", "/signup", httpapi.Public, c.guest(c.signup))
	rt.Handle("GET", "/signin", httpapi.Public, c.guest(c.signinPage))
	rt.Handle("POST", "/signin", httpapi.Public, c.guest(c.signin))
	rt.Handle("GET", "/signin/google", httpapi.Public, c.guest(c.googleStart))
	rt.Handle("POST", "/signout", httpapi.Public, c.member(c.signout))
	rt.Handle("GET", "/agents", httpapi.Public, c.member(c.agentsPage))
	rt.Handle("POST", "/agents/keys", httpapi.Public, c.member(c.createKey))
	rt.Handle("GET", "/agents/keys/{id}", httpapi.Public, c.member(c.keyPage))
	rt.Handle("POST", "/agents/keys/{id}/{action}", httpapi.Public, c.member(c.keyAction))
	rt.Handle("POST", "/agents/controls", httpapi.Public, c.member(c.updateControls))
	rt.Handle("GET", "/approvals", httpapi.Public, c.member(c.approvalsPage))
	rt.Handle("POST", "/approvals/{id}/{action}", httpapi.Public, c.member(c.decide))
	c.buyingRoutes(rt)
	c.orderRoutes(rt)
	c.sellingRoutes(rt)
	c.settingsRoutes(rt)
	c.adminRoutes(rt)
}

// Home is the console's front page, which ops serves at "/" to a browser.
func (c *Console) Home(w http.ResponseWriter, r *http.Request) error {
	return c.guest(c.homePage)(w, r)
}

// visit is one request to the console: who is signed in (nil for a
// guest), and the CSRF token its forms carry.
type visit struct {
	w      http.ResponseWriter
	r      *http.Request
	user   *accounts.User
	secret string // the session's cookie value
	csrf   string
}

// caller is the signed-in person as the operations take them.
func (v *visit) caller() *api.Caller {
	t := market.ActorUser
	if v.user.IsAdmin() {
		t = market.ActorAdmin
	}
	return &api.Caller{Actor: market.Actor{Type: t, UserID: v.user.ID, Admin: v.user.IsAdmin()}, User: v.user}
}

type pageFunc func(v *visit) error

// guest serves a page anyone may open, knowing the visitor if signed in.
func (c *Console) guest(h pageFunc) httpapi.HandlerFunc {
	return c.serve(h, false)
}

// member serves a page for signed-in people only: a guest goes to
// "Sign in", and back here afterwards.
func (c *Console) member(h pageFunc) httpapi.HandlerFunc {
	return c.serve(h, true)
}

func (c *Console) serve(h pageFunc, members bool) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		headers(w)
		v := &visit{w: w, r: r}
		if ck, err := r.Cookie(SessionCookie); err == nil {
			u, _, err := c.Ops.Accounts.SessionUser(r.Context(), ck.Value)
			if err == nil {
				v.user, v.secret = u, ck.Value
				httpapi.Acting(r, v.caller().Actor) // the audit log names the person, not "anonymous"
			} else if market.CodeOf(err) != market.CodeUnauthorized {
				return c.fail(v, err)
			}
		}
		if members && v.user == nil {
			if r.Method != http.MethodGet {
				return c.fail(v, market.Errorf(market.CodeUnauthorized, "sign in first"))
			}
			http.Redirect(w, r, "/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return nil
		}
		binding := v.secret
		if v.user == nil {
			binding = c.guestToken(w, r)
		}
		v.csrf = c.token(binding)
		if r.Method == http.MethodPost {
			if err := r.ParseForm(); err != nil {
				return c.fail(v, market.Invalid(market.FieldError{Field: "form", Message: "the form could not be read"}))
			}
			if !hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(v.csrf)) {
				return c.fail(v, market.Errorf(market.CodeForbidden, "the form has expired or did not come from this site: reload the page and try again"))
			}
		}
		if err := h(v); err != nil {
			return c.fail(v, err)
		}
		return nil
	}
}

// headers are the security headers of every console answer.
func headers(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// guestToken is the guest cookie's value, set now if the visitor has none.
func (c *Console) guestToken(w http.ResponseWriter, r *http.Request) string {
	if ck, err := r.Cookie(GuestCookie); err == nil && len(ck.Value) >= 32 && len(ck.Value) <= 64 {
		return ck.Value
	}
	v := randomToken()
	c.setCookie(w, GuestCookie, v, 0)
	return v
}

// token is the CSRF token of a session or guest cookie value: an attacker
// who cannot read the cookie cannot make it.
func (c *Console) token(binding string) string {
	m := hmac.New(sha256.New, []byte("console-csrf\x00"+c.Secret))
	m.Write([]byte(binding))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (c *Console) setCookie(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	ck := &http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: true, Secure: c.Secure, SameSite: http.SameSiteLaxMode}
	switch {
	case maxAge < 0:
		ck.MaxAge = -1
	case maxAge > 0:
		ck.MaxAge = int(maxAge / time.Second)
	}
	http.SetCookie(w, ck)
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// signIn starts a new session for u (a fresh secret: no session fixation)
// and sends the browser to next.
func (c *Console) signIn(v *visit, u *accounts.User, next string) error {
	secret, _, err := c.Ops.Accounts.StartSession(v.r.Context(), u.ID)
	if err != nil {
		return err
	}
	c.setCookie(v.w, SessionCookie, secret, accounts.SessionTTL)
	http.Redirect(v.w, v.r, safeNext(next), http.StatusSeeOther)
	return nil
}

// safeNext is next if it is a path on this site, else "/": sign-in's
// return address never leads elsewhere (no open redirect).
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") ||
		strings.ContainsAny(next, "\\\r\n\t") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return "/"
	}
	return next
}

// fail answers an error as a page, with the status the API would give.
func (c *Console) fail(v *visit, err error) error {
	e := market.ErrorOf(err)
	status := httpapi.Status(e.Code)
	if e.Code == market.CodeInternal && c.Log != nil {
		c.Log.Error("console", "request_id", httpapi.RequestID(v.r.Context()), "err", err.Error())
	}
	return c.render(v, status, "error", map[string]any{"Status": status, "Code": e.Code, "Message": e.Message, "Fields": e.Fields})
}

// render writes page name with data, inside the layout.
func (c *Console) render(v *visit, status int, name string, data any) error {
	t := c.pages[name]
	if t == nil {
		return errors.New("console: no page " + name)
	}
	// Rendered whole before anything is sent: a template that fails
	// leaves an error page, not half a page.
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", page{Visit: v, Data: data}); err != nil {
		return market.Internal(err)
	}
	v.w.Header().Set("Content-Type", "text/html; charset=utf-8")
	v.w.WriteHeader(status)
	_, _ = buf.WriteTo(v.w)
	return nil
}

// page is what every template gets: the visit (for the header and the
// CSRF field) and the page's own data.
type page struct {
	Visit *visit
	Data  any
}

// User is the signed-in person, or nil.
func (p page) User() *accounts.User { return p.Visit.user }

// CSRF is the token to put in every form.
func (p page) CSRF() string { return p.Visit.csrf }

// Path is the page's path, for links back to it.
func (p page) Path() string { return p.Visit.r.URL.Path }

var funcs = template.FuncMap{
	"dollars":      func(c int64) string { return "$" + shipping.FormatCents(c) },
	"dollarsPlain": shipping.FormatCents,
	"amount":       amount,
	"when": func(t any) string {
		switch t := t.(type) {
		case time.Time:
			return t.UTC().Format("2 Jan 2006 15:04 UTC")
		case *time.Time:
			if t != nil {
				return t.UTC().Format("2 Jan 2006 15:04 UTC")
			}
		}
		return ""
	},
}

// amount is an optional amount in dollars and cents, as a form's field
// holds it: "" for none.
func amount(c *int64) string {
	if c == nil {
		return ""
	}
	return shipping.FormatCents(*c)
}

// shared are the template files every page has: the layout and the parts
// pages include.
var shared = []string{"templates/layout.html", "templates/refusal.html", "templates/parts.html"}

// parsePages parses each page with the layout around it.
func parsePages() map[string]*template.Template {
	base := template.Must(template.New("").Funcs(funcs).ParseFS(templateFiles, shared...))
	names, _ := fs.Glob(templateFiles, "templates/*.html")
	out := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if slices.Contains(shared, n) {
			continue
		}
		out[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFiles, n))
	}
	return out
}

// answer ends the post of a page's form: done (err nil), the browser goes
// to next; refused, the form's page is shown again by show, at the API's
// status, with the refusal. An internal error, or something not found
// (another person's, as on the API), is the error page.
func (c *Console) answer(v *visit, err error, next string, show func(v *visit, status int, refusal *market.Error) error) error {
	if err != nil {
		e := refusal(err)
		if e == nil || e.Code == market.CodeNotFound {
			return err
		}
		return show(v, httpapi.Status(e.Code), e)
	}
	http.Redirect(v.w, v.r, next, http.StatusSeeOther)
	return nil
}

// renamed is a copy of e with each field named by name (e may be shared);
// e itself when it names no field.
func renamed(e *market.Error, name func(market.FieldError) string) *market.Error {
	if e == nil || len(e.Fields) == 0 {
		return e
	}
	out := *e
	out.Fields = make([]market.FieldError, len(e.Fields))
	for i, f := range e.Fields {
		f.Field = name(f)
		out.Fields[i] = f
	}
	return &out
}

// refusal is err as a refusal to show on the page it came from, or nil for
// an internal error, which the error page shows instead.
func refusal(err error) *market.Error {
	if e := market.ErrorOf(err); e.Code != market.CodeInternal {
		return e
	}
	return nil
}
