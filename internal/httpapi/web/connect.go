// Package web serves the pages humans open: in sandbox mode, the hosted
// pages that stand in for the payment processor's.
package web

import (
	"html/template"
	"net/http"
	"strings"

	"marketplace/internal/httpapi"
	"marketplace/internal/payments"
)

// Sandbox serves the sandbox processor's hosted pages.
type Sandbox struct {
	Payments *payments.Service
}

// Register adds the sandbox pages.
func (s *Sandbox) Register(rt *httpapi.Router) {
	rt = rt.In("identity_verification", "payouts")
	p := strings.TrimSuffix(payments.SandboxOnboardingPath, "/")
	rt.Handle("GET", p+"/{token}", httpapi.Public, s.onboardingPage)
	rt.Handle("POST", p+"/{token}", httpapi.Public, s.completeOnboarding)
}

var pages = template.Must(template.New("").Parse(`
{{define "head"}}<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{{.}}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#222}
.note{background:#fff7d6;border:1px solid #e9d98a;padding:.6rem .8rem;border-radius:6px}button{font:inherit;padding:.5rem 1.2rem;border-radius:6px;border:0;background:#2754c5;color:#fff;cursor:pointer}</style></head><body>{{end}}
{{define "onboarding"}}{{template "head" "Verify your identity"}}
<h1>Verify your identity</h1>
<p class="note">Sandbox: this page stands in for the payment processor's hosted onboarding. No real identity check happens.</p>
{{if .Verified}}<p>Account <code>{{.AccountID}}</code> is already verified. Payouts are enabled.</p>
{{else}}<p>Account <code>{{.AccountID}}</code> needs identity verification before your agents can buy, offer or sell.</p>
<form method="post"><button type="submit">Verify (sandbox)</button></form>{{end}}
</body></html>{{end}}
{{define "done"}}{{template "head" "Verified"}}<h1>Identity verified</h1><p>Account <code>{{.AccountID}}</code> is verified and payouts are enabled. You can close this page.</p></body></html>{{end}}
`))

type pageData struct {
	AccountID string
	Verified  bool
}

func render(w http.ResponseWriter, name string, data any) error {
	return renderStatus(w, http.StatusOK, pages, name, data)
}

func (s *Sandbox) onboardingPage(w http.ResponseWriter, r *http.Request) error {
	a, err := s.Payments.PendingOnboarding(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	if !httpapi.WantsHTML(r) {
		return httpapi.OK(w, r, http.StatusOK, onboardingJSON(a))
	}
	return render(w, "onboarding", pageData{AccountID: a.ExternalID, Verified: a.Status == payments.AccountVerified})
}

// onboardingView is the onboarding page's JSON answer; the fields are in the
// order of the map it replaces.
type onboardingView struct {
	AccountID        string `json:"accountId"`
	IdentityVerified bool   `json:"identityVerified"`
	PayoutsEnabled   bool   `json:"payoutsEnabled"`
	Status           string `json:"status" ref:"PayoutAccountStatus"`
}

func onboardingJSON(a *payments.PayoutAccount) onboardingView {
	return onboardingView{AccountID: a.ExternalID, Status: string(a.Status), PayoutsEnabled: a.PayoutsEnabled,
		IdentityVerified: a.Status == payments.AccountVerified}
}

// completeOnboarding is the sandbox's "the processor verified this person".
func (s *Sandbox) completeOnboarding(w http.ResponseWriter, r *http.Request) error {
	a, err := s.Payments.CompleteOnboarding(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	httpapi.Entity(r, "payout_account", a.ID)
	if !httpapi.WantsHTML(r) {
		return httpapi.OK(w, r, http.StatusOK, onboardingJSON(a))
	}
	return render(w, "done", pageData{AccountID: a.ExternalID, Verified: true})
}
