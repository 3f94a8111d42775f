package apiv1

import (
	"mime"
	"net/http"
	"strings"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/web"
	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// The onboarding answers use snake_case under /api/v1 too (CONTRACT.md
// section 4): they are read by agents of either surface.

type agentInitBody struct {
	OwnerEmail     string         `json:"ownerEmail" format:"email"`
	DesiredScope   string         `json:"desiredScope" enum:",buy_only,sell_only,buy_sell,buy,sell"`
	OwnerFirstName string         `json:"ownerFirstName" maxLength:"80"`
	OwnerLastName  string         `json:"ownerLastName" maxLength:"80"`
	AgentLabel     string         `json:"agentLabel" maxLength:"100"`
	AgentMetadata  map[string]any `json:"agentMetadata" nullable:"true" doc:"Free-form (for example framework and version), at most 8 KiB of JSON."`
	// snake_case spellings, for agents built against Variant B
	OwnerEmailB     string         `json:"owner_email" format:"email"`
	DesiredScopeB   string         `json:"desired_scope" enum:",buy_only,sell_only,buy_sell,buy,sell"`
	OwnerFirstNameB string         `json:"owner_first_name" maxLength:"80"`
	OwnerLastNameB  string         `json:"owner_last_name" maxLength:"80"`
	AgentLabelB     string         `json:"agent_label" maxLength:"100"`
	AgentMetadataB  map[string]any `json:"agent_metadata" nullable:"true"`
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (a *API) agentInit(w http.ResponseWriter, r *http.Request) error {
	var b agentInitBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	meta := b.AgentMetadata
	if meta == nil {
		meta = b.AgentMetadataB
	}
	out, err := a.OnboardingOps().Start(r.Context(), agents.AgentInitInput{
		OwnerEmail: first(b.OwnerEmail, b.OwnerEmailB), DesiredScope: first(b.DesiredScope, b.DesiredScopeB),
		OwnerFirstName: first(b.OwnerFirstName, b.OwnerFirstNameB), OwnerLastName: first(b.OwnerLastName, b.OwnerLastNameB),
		AgentLabel: first(b.AgentLabel, b.AgentLabelB), AgentMetadata: meta,
	})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "onboarding", out.OnboardingID)
	return httpapi.OK(w, r, http.StatusOK, out)
}

func (a *API) onboardingStatus(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.OnboardingOps().Poll(r.Context(), r.PathValue("id"), r.Header.Get("X-Onboarding-Secret")))
}

type prefilled struct {
	Email        string `json:"email"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name"`
	AgentLabel   string `json:"agent_label"`
	DesiredScope string `json:"desired_scope" ref:"Scope"`
}

type magicResponse struct {
	OnboardingID  string    `json:"onboarding_id"`
	Prefilled     prefilled `json:"prefilled"`
	MissingFields []string  `json:"missing_fields" doc:"Body fields the POST still needs (camelCase names)."`
	AccountExists bool      `json:"account_exists" doc:"The e-mail already has an account; the POST then needs its password."`
	Status        string    `json:"status" ref:"OnboardingStatusValue"`
	ExpiresAt     time.Time `json:"expires_at"`
}

func (a *API) openMagicLink(w http.ResponseWriter, r *http.Request) error {
	v, err := a.Agents.OpenMagicLink(r.Context(), r.PathValue("token"))
	if web.WantsHTML(r) {
		if err != nil {
			return web.RenderMagicClosed(w, err)
		}
		return web.RenderMagicForm(w, http.StatusOK, magicForm(v.Session, v.AccountExists, ""))
	}
	if err != nil {
		return err
	}
	o := v.Session
	return httpapi.OK(w, r, http.StatusOK, magicResponse{OnboardingID: o.ID,
		Prefilled:     prefilled{Email: o.OwnerEmail, FirstName: o.OwnerFirstName, LastName: o.OwnerLastName, AgentLabel: o.AgentLabel, DesiredScope: string(o.DesiredScope)},
		MissingFields: v.MissingFields, AccountExists: v.AccountExists, Status: string(o.Status), ExpiresAt: o.ExpiresAt})
}

type completeBody struct {
	Password           string `json:"password" minLength:"1" required:"true" doc:"A new account's password (at least 10 characters), or the existing account's."`
	AcceptedTerms      bool   `json:"acceptedTerms" enum:"true" required:"true"`
	AcceptedAgentTerms bool   `json:"acceptedAgentTerms" enum:"true" required:"true"`
	DisplayName        string `json:"displayName" doc:"For a new account; defaults to the owner's name the agent gave (1 to 80 characters)."`
}

type completeResponse struct {
	OnboardingID    string    `json:"onboarding_id"`
	Status          string    `json:"status" ref:"OnboardingStatusValue"`
	UserID          string    `json:"user_id"`
	KeyID           string    `json:"key_id"`
	VerificationURL *string   `json:"verification_url" doc:"The identity verification link; null when the owner is already verified."`
	NextSteps       []string  `json:"next_steps"`
	AccessToken     string    `json:"access_token" doc:"A bearer token for the owner."`
	TokenExpiresAt  time.Time `json:"token_expires_at"`
}

// magicForm fills the browser form of a magic link.
func magicForm(o *agents.Onboarding, exists bool, problem string) web.MagicForm {
	name := strings.TrimSpace(o.OwnerFirstName + " " + o.OwnerLastName)
	return web.MagicForm{Email: o.OwnerEmail, AgentLabel: o.AgentLabel, Scope: string(o.DesiredScope), DisplayName: name,
		AccountExists: exists, Error: problem}
}

// isForm reports whether the body is the browser form of the magic link.
func isForm(r *http.Request) bool {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return ct == "application/x-www-form-urlencoded"
}

func (a *API) completeMagicLink(w http.ResponseWriter, r *http.Request) error {
	var b completeBody
	form := isForm(r)
	if form {
		r.Body = http.MaxBytesReader(w, r.Body, httpapi.MaxBody)
		if err := r.ParseForm(); err != nil {
			return market.Invalid(market.FieldError{Field: "body", Message: "is not a valid form"})
		}
		b = completeBody{Password: r.PostForm.Get("password"), DisplayName: r.PostForm.Get("displayName"),
			AcceptedTerms: r.PostForm.Get("acceptedTerms") == "true", AcceptedAgentTerms: r.PostForm.Get("acceptedAgentTerms") == "true"}
	} else if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	done, err := a.Agents.CompleteMagicLink(r.Context(), a.Accounts, r.PathValue("token"), agents.CompleteInput{
		Password: b.Password, AcceptedTerms: b.AcceptedTerms, AcceptedAgentTerms: b.AcceptedAgentTerms, DisplayName: b.DisplayName,
		ClientIP: httpapi.ClientIP(r)})
	if err != nil && form {
		return a.magicFormError(w, r, err)
	}
	if err != nil {
		return err
	}
	httpapi.Entity(r, "onboarding", done.Session.ID)
	owner := market.Actor{Type: market.ActorUser, UserID: done.User.ID}
	out := completeResponse{OnboardingID: done.Session.ID, Status: string(done.Session.Status), UserID: done.User.ID,
		KeyID: done.Key.ID, NextSteps: done.Session.TodoList()}
	if !done.User.IdentityVerified {
		v, err := a.Payments.Connect(r.Context(), owner, payments.ConnectInput{})
		if err != nil {
			return err
		}
		out.VerificationURL = strOrNil(v.OnboardingURL)
	}
	tok, err := a.Accounts.Tokens().Issue(done.User)
	if err != nil {
		return market.Internal(err)
	}
	out.AccessToken, out.TokenExpiresAt = tok.Value, tok.ExpiresAt
	if form {
		verify := ""
		if out.VerificationURL != nil {
			verify = *out.VerificationURL
		}
		return web.RenderMagicDone(w, verify)
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// magicFormError shows the form again with what went wrong, or the closed
// page when the link can no longer be used.
func (a *API) magicFormError(w http.ResponseWriter, r *http.Request, err error) error {
	e := market.ErrorOf(err)
	if e.Code == market.CodeInvalidState || e.Code == market.CodeNotFound || e.Code == market.CodeInternal {
		return web.RenderMagicClosed(w, err)
	}
	v, verr := a.Agents.OpenMagicLink(r.Context(), r.PathValue("token"))
	if verr != nil {
		return web.RenderMagicClosed(w, verr)
	}
	problem := e.Message
	for _, f := range e.Fields {
		problem = f.Field + ": " + f.Message
	}
	return web.RenderMagicForm(w, httpapi.Status(e.Code), magicForm(v.Session, v.AccountExists, problem))
}

type humanBody struct {
	registerBody
	Role string `json:"role" enum:",buyer,seller" doc:"Default buyer."`
}

type humanResponse struct {
	User          api.User  `json:"user"`
	AccessToken   string    `json:"accessToken"`
	ExpiresAt     time.Time `json:"expiresAt"`
	Role          string    `json:"role" enum:"buyer,seller"`
	NextSteps     []string  `json:"nextSteps"`
	OnboardingURL *string   `json:"onboardingUrl" doc:"Sellers' identity verification link; null for buyers."`
}

func (a *API) humanOnboarding(w http.ResponseWriter, r *http.Request) error {
	var b humanBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	if b.Role == "" {
		b.Role = "buyer"
	}
	if b.Role != "buyer" && b.Role != "seller" {
		return market.Invalid(market.FieldError{Field: "role", Message: "must be buyer or seller"})
	}
	u, tok, err := a.Accounts.Register(r.Context(), accounts.RegisterInput{Email: b.Email, Password: b.Password,
		DisplayName: b.DisplayName, Username: b.Username, AcceptedTerms: b.AcceptedTerms})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "user", u.ID)
	out := humanResponse{User: *api.UserOf(u), AccessToken: tok.Value, ExpiresAt: tok.ExpiresAt, Role: b.Role,
		NextSteps: []string{"Add a payment method to buy", "Create an agent key if an agent will act for you"}}
	if b.Role == "seller" {
		v, err := a.Payments.Connect(r.Context(), market.Actor{Type: market.ActorUser, UserID: u.ID}, payments.ConnectInput{})
		if err != nil {
			return err
		}
		out.OnboardingURL = strOrNil(v.OnboardingURL)
		out.NextSteps = []string{"Verify your identity with the payment processor at onboardingUrl to list and get paid",
			"Set your ship-from address", "Create an agent key if an agent will sell for you"}
	}
	return httpapi.OK(w, r, http.StatusCreated, out)
}
