package apiv1

import (
	"context"
	"net/http"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/admin/users"
	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// The admin's user routes (CONTRACT.md section 14).

// RegisterAdminUsers adds the admin's user routes; Users must be set.
func (a *API) RegisterAdminUsers(rt *httpapi.Router) {
	rt = rt.In("admin")
	p := Prefix
	rt.Handle("GET", p+"/admin/users", httpapi.Admin, a.adminUsers)
	rt.Handle("GET", p+"/admin/users/{id}", httpapi.Admin, a.adminUser)
	rt.Handle("PATCH", p+"/admin/users/{id}", httpapi.Admin, a.adminUpdateUser)
	rt.Handle("POST", p+"/admin/users/{id}/suspend", httpapi.Admin, a.adminModerateUser("suspend"))
	rt.Handle("POST", p+"/admin/users/{id}/ban", httpapi.Admin, a.adminModerateUser("ban"))
	rt.Handle("POST", p+"/admin/users/{id}/reinstate", httpapi.Admin, a.adminModerateUser("reinstate"))
	rt.Handle("GET", p+"/admin/users/{id}/agent-keys", httpapi.Admin, a.adminUserKeys)
	rt.Handle("PATCH", p+"/admin/users/{id}/spending-controls", httpapi.Admin, a.adminUserSpending)
}

// adminUsers is GET /admin/users?status=&trustTier=&role=&search=&limit=&offset=.
func (a *API) adminUsers(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	us, total, err := a.Users.List(r.Context(), actor(r).Actor, users.UserFilter{Status: q.Get("status"),
		TrustTier: q.Get("trustTier"), Role: q.Get("role"), Search: q.Get("search"), Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	out := make([]api.User, len(us))
	for i := range us {
		out[i] = *api.UserOf(&us[i])
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, adminPageMeta(total, limit, offset, market.CountBound, q.Get("status"), q.Get("trustTier"), q.Get("role"), q.Get("search")))
}

// adminProcessor is what the payment processor holds of a user.
type adminProcessor struct {
	PayoutAccount       *adminPayoutAccount `json:"payoutAccount" doc:"Null when the user never started identity verification (POST /seller/connect)."`
	PaymentMethodsCount int                 `json:"paymentMethodsCount" minimum:"0"`
	PaymentMethods      []api.PaymentMethod `json:"paymentMethods" doc:"The saved cards, the default first."`
}

type adminPayoutAccount struct {
	AccountID      string     `json:"accountId" doc:"The processor's account id."`
	Processor      string     `json:"processor" enum:"sandbox,stripe"`
	Status         string     `json:"status" ref:"PayoutAccountStatus"`
	PayoutsEnabled bool       `json:"payoutsEnabled"`
	Country        string     `json:"country"`
	BusinessType   string     `json:"businessType" enum:"individual,company"`
	CreatedAt      time.Time  `json:"createdAt"`
	VerifiedAt     *time.Time `json:"verifiedAt"`
}

// adminUserDetail is the admin's view of one user.
type adminUserDetail struct {
	User             api.User           `json:"user"`
	AgentKeys        []api.AgentKey     `json:"agentKeys" doc:"Every key of the user, newest first."`
	Processor        adminProcessor     `json:"processor"`
	SpendingControls api.SpendingStatus `json:"spendingControls" doc:"The owner's controls and what their agents spent."`
}

// adminUser is GET /admin/users/{id}.
func (a *API) adminUser(w http.ResponseWriter, r *http.Request) error {
	d, err := a.Users.Detail(r.Context(), actor(r).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	out := adminUserDetail{User: *api.UserOf(d.User), AgentKeys: api.KeysOf(d.Keys, api.Camel), SpendingControls: *api.SpendingOf(d.Spending),
		Processor: adminProcessor{PaymentMethodsCount: len(d.PaymentMethods), PaymentMethods: make([]api.PaymentMethod, len(d.PaymentMethods))}}
	for i := range d.PaymentMethods {
		out.Processor.PaymentMethods[i] = *api.PaymentMethodOf(&d.PaymentMethods[i])
	}
	if pa := d.PayoutAccount; pa != nil {
		out.Processor.PayoutAccount = &adminPayoutAccount{AccountID: pa.ExternalID, Processor: pa.Processor, Status: string(pa.Status),
			PayoutsEnabled: pa.PayoutsEnabled, Country: pa.Country, BusinessType: pa.BusinessType, CreatedAt: pa.CreatedAt, VerifiedAt: pa.VerifiedAt}
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

type adminUpdateUserBody struct {
	Status           *string `json:"status" ref:"UserStatus" nullable:"false"`
	TrustTier        *string `json:"trustTier" ref:"TrustTier" nullable:"false"`
	Role             *string `json:"role" ref:"Role" nullable:"false"`
	IdentityVerified *bool   `json:"identityVerified" nullable:"false" doc:"true also lifts trust tier 'new' to 'verified' unless 'trustTier' is given."`
}

// adminUpdateUser is PATCH /admin/users/{id}.
func (a *API) adminUpdateUser(w http.ResponseWriter, r *http.Request) error {
	var b adminUpdateUserBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := httpapi.PathEntity(r, "user")
	u, err := a.Users.Update(r.Context(), actor(r).Actor, id, users.UserUpdate{Status: b.Status,
		TrustTier: b.TrustTier, Role: b.Role, IdentityVerified: b.IdentityVerified})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, api.UserOf(u))
}

type adminReasonBody struct {
	Reason string `json:"reason" minLength:"1" maxLength:"500" required:"true" doc:"Why; kept in the audit log. Trimmed."`
}

// adminModerateUser is POST /admin/users/{id}/suspend|ban|reinstate.
func (a *API) adminModerateUser(action string) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var b adminReasonBody
		if err := httpapi.Decode(r, &b); err != nil {
			return err
		}
		id := httpapi.PathEntity(r, "user")
		do := map[string]func(context.Context, market.Actor, string, string) (*accounts.User, error){
			"suspend": a.Users.Suspend, "ban": a.Users.Ban, "reinstate": a.Users.Reinstate}[action]
		u, err := do(r.Context(), actor(r).Actor, id, b.Reason)
		if err != nil {
			return err
		}
		return httpapi.OK(w, r, http.StatusOK, api.UserOf(u))
	}
}

// adminUserKeys is GET /admin/users/{id}/agent-keys.
func (a *API) adminUserKeys(w http.ResponseWriter, r *http.Request) error {
	ks, err := a.Users.Keys(r.Context(), actor(r).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, api.KeysOf(ks, api.Camel), httpapi.Meta{"total": len(ks)})
}

// adminUserSpending is PATCH /admin/users/{id}/spending-controls: the body
// of PUT /spending-controls, applied to the user's controls.
func (a *API) adminUserSpending(w http.ResponseWriter, r *http.Request) error {
	var b putSpendingBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := httpapi.PathEntity(r, "user")
	st, err := a.Users.SpendingOverride(r.Context(), actor(r).Actor, id, agents.ControlsUpdate{
		PerTransaction: b.PerTransactionLimit, Daily: b.DailyLimit, Weekly: b.WeeklyLimit, Monthly: b.MonthlyLimit,
		CategoryRestrictions: b.CategoryRestrictions, ApprovalThreshold: b.ApprovalThreshold.Ptr(),
		ClearApproval: b.ApprovalThreshold.Set && b.ApprovalThreshold.Null,
	})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, api.SpendingOf(st))
}
