package console

import (
	"net/http"
	"strings"

	"marketplace/internal/accounts"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// authForm is what the sign-up and sign-in pages show again after a
// refusal: what was typed (never the password) and why it was refused.
type authForm struct {
	Email, DisplayName, Next string
	Google                   string // the Google sign-in link, when configured
	Error                    *market.Error
}

func (c *Console) signupPage(v *visit) error {
	next := safeNext(v.r.URL.Query().Get("next"))
	return c.render(v, http.StatusOK, "signup", authForm{Next: next, Google: c.googleLink(next)})
}

func (c *Console) signinPage(v *visit) error {
	if v.user != nil {
		http.Redirect(v.w, v.r, safeNext(v.r.URL.Query().Get("next")), http.StatusSeeOther)
		return nil
	}
	next := safeNext(v.r.URL.Query().Get("next"))
	return c.render(v, http.StatusOK, "signin", authForm{Next: next, Google: c.googleLink(next)})
}

// signup opens an account as POST /auth/register does and signs in.
func (c *Console) signup(v *visit) error {
	f := v.r.PostForm
	form := authForm{Email: f.Get("email"), DisplayName: f.Get("displayName"), Next: safeNext(f.Get("next"))}
	u, _, err := c.Ops.Accounts.Register(v.r.Context(), accounts.RegisterInput{Email: form.Email, Password: f.Get("password"),
		DisplayName: strings.TrimSpace(form.DisplayName), AcceptedTerms: f.Get("acceptTerms") == "on"})
	if err != nil {
		return c.refused(v, "signup", form, err)
	}
	return c.signIn(v, u, form.Next)
}

// signin checks the password as POST /auth/login does (with its throttle).
func (c *Console) signin(v *visit) error {
	f := v.r.PostForm
	form := authForm{Email: f.Get("email"), Next: safeNext(f.Get("next"))}
	u, _, err := c.Ops.Accounts.Login(v.r.Context(), form.Email, f.Get("password"), httpapi.ClientIP(v.r))
	if err != nil {
		return c.refused(v, "signin", form, err)
	}
	return c.signIn(v, u, form.Next)
}

// refused shows a form again with the refusal, at the API's status; an
// internal error is the error page's.
func (c *Console) refused(v *visit, name string, form authForm, err error) error {
	e := refusal(err)
	if e == nil {
		return err
	}
	form.Error, form.Google = e, c.googleLink(form.Next)
	return c.render(v, httpapi.Status(e.Code), name, form)
}

// signout ends this session.
func (c *Console) signout(v *visit) error {
	if err := c.Ops.Accounts.EndSession(v.r.Context(), v.secret); err != nil {
		return err
	}
	c.setCookie(v.w, SessionCookie, "", -1)
	http.Redirect(v.w, v.r, "/", http.StatusSeeOther)
	return nil
}
