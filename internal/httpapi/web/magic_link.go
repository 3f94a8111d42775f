package web

import (
	"html/template"
	"net/http"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// The magic link an agent hands its owner is the API's onboarding URL; a
// browser opening it gets these pages instead of JSON.

var magicPages = template.Must(template.Must(pages.Clone()).Parse(`
{{define "magic"}}{{template "head" "Set up your account"}}
<h1>Your agent asked to work for you</h1>
<p>An agent called <strong>{{.AgentLabel}}</strong> wants a key with scope <code>{{.Scope}}</code> to act for <strong>{{.Email}}</strong> on the marketplace.</p>
{{if .Error}}<p class="note" role="alert">{{.Error}}</p>{{end}}
<form method="post">
{{if .AccountExists}}<p>You already have an account: enter its password to give the agent a key.</p>
{{else}}<p><label>Your name<br><input name="displayName" value="{{.DisplayName}}" maxlength="80" required></label></p>{{end}}
<p><label>Password{{if not .AccountExists}} (at least 10 characters){{end}}<br><input type="password" name="password" minlength="{{if .AccountExists}}1{{else}}10{{end}}" required autocomplete="{{if .AccountExists}}current-password{{else}}new-password{{end}}"></label></p>
<p><label><input type="checkbox" name="acceptedTerms" value="true" required> I accept the terms of service</label></p>
<p><label><input type="checkbox" name="acceptedAgentTerms" value="true" required> I accept the agent terms: I am responsible for what this agent does within the spending limits I set</label></p>
<p><button type="submit">Create the agent's key</button></p>
</form></body></html>{{end}}
{{define "magic-done"}}{{template "head" "Done"}}
<h1>Your agent's key is ready</h1>
<p>The agent will collect its key on its next check. It stays unable to buy, offer or sell until your identity is verified.</p>
{{if .VerificationURL}}<p><a href="{{.VerificationURL}}">Verify your identity now</a></p>{{end}}
</body></html>{{end}}
{{define "magic-closed"}}{{template "head" "Link not usable"}}
<h1>This link cannot be used</h1><p>{{.}}</p><p>Ask your agent to start onboarding again.</p></body></html>{{end}}
`))

// MagicForm is what the magic-link form shows.
type MagicForm struct {
	Email, AgentLabel, Scope, DisplayName string
	AccountExists                         bool
	Error                                 string
}

// WantsHTML reports whether the caller is a browser asking for a page.
func WantsHTML(r *http.Request) bool { return httpapi.WantsHTML(r) }

// RenderMagicForm shows the form to complete onboarding, with status.
func RenderMagicForm(w http.ResponseWriter, status int, f MagicForm) error {
	return renderStatus(w, status, magicPages, "magic", f)
}

// RenderMagicDone shows the completed page.
func RenderMagicDone(w http.ResponseWriter, verificationURL string) error {
	return renderStatus(w, http.StatusOK, magicPages, "magic-done", map[string]string{"VerificationURL": verificationURL})
}

// RenderMagicClosed shows why a link cannot be used, with the status of the
// error that closed it.
func RenderMagicClosed(w http.ResponseWriter, err error) error {
	e := market.ErrorOf(err)
	if e.Code == market.CodeInternal {
		return err
	}
	return renderStatus(w, httpapi.Status(e.Code), magicPages, "magic-closed", e.Message)
}

// pageCSP lets a page use its inline styles and post its own forms, nothing
// else.
const pageCSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"

func renderStatus(w http.ResponseWriter, status int, t *template.Template, name string, data any) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if w.Header().Get("Content-Security-Policy") == "" {
		w.Header().Set("Content-Security-Policy", pageCSP)
	}
	w.WriteHeader(status)
	if err := t.ExecuteTemplate(w, name, data); err != nil {
		return market.Internal(err)
	}
	return nil
}
