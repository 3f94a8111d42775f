package console

import (
	"crypto/hmac"
	"net/http"
	"net/url"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
)

// Google sign-in on the console (CONTRACT.md sections 17 and 20): the same
// flow as GET /auth/google, ending in a console session. The provider
// comes back to the API's callback, which hands the flows the console
// started to GoogleSession.

// googleCookie binds a flow to the browser that started it: a callback
// reached in another browser (a link an attacker sends) signs nobody in.
const googleCookie = "mk_google"

// googleDone is the return address that marks a console flow.
const googleDone = "/signin/google/done"

// googleStart sends the browser to the provider, back to next afterwards.
func (c *Console) googleStart(v *visit) error {
	if !c.Google.Enabled() {
		return market.Errorf(market.CodeNotFound, "no such page")
	}
	nonce := randomToken()
	back := googleDone + "?" + url.Values{"next": {safeNext(v.r.URL.Query().Get("next"))}, "b": {c.googleBinding(nonce)}}.Encode()
	started, err := c.Google.Start(v.r.Context(), market.Actor{}, accounts.GoogleStart{ReturnTo: back})
	if err != nil {
		return err
	}
	c.setCookie(v.w, googleCookie, nonce, accounts.GoogleStateTTL)
	http.Redirect(v.w, v.r, started.URL, http.StatusSeeOther)
	return nil
}

func (c *Console) googleBinding(nonce string) string { return c.token("google\x00" + nonce) }

// GoogleSession finishes a console flow, for the API's callback: the
// browser must hold the cookie its start set; then a new console session
// begins and the browser goes to next. Other flows are not handled here.
func (c *Console) GoogleSession(w http.ResponseWriter, r *http.Request, done *accounts.SignedIn) (bool, error) {
	back, err := url.Parse(done.ReturnTo)
	if err != nil || back.Path != googleDone {
		return false, nil
	}
	return true, c.guest(func(v *visit) error {
		ck, err := r.Cookie(googleCookie)
		if err != nil || !hmac.Equal([]byte(c.googleBinding(ck.Value)), []byte(back.Query().Get("b"))) {
			return market.Errorf(market.CodeUnauthorized, "this sign-in was started in another browser: start it again here")
		}
		c.setCookie(w, googleCookie, "", -1)
		return c.signIn(v, done.User, back.Query().Get("next"))
	})(w, r)
}

// googleLink is what the sign-in and sign-up pages need to offer Google.
func (c *Console) googleLink(next string) string {
	if !c.Google.Enabled() {
		return ""
	}
	return "/signin/google?" + url.Values{"next": {next}}.Encode()
}
