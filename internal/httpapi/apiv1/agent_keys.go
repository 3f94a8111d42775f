package apiv1

import (
	"net/http"

	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
)

type createKeyBody struct {
	Label              string         `json:"label" minLength:"1" maxLength:"100" required:"true" doc:"Trimmed; 1 to 100 characters."`
	Scope              string         `json:"scope" ref:"ScopeInput" required:"true"`
	SpendingControls   *api.KeyLimits `json:"spendingControls" ref:"KeyLimitsInput"`
	Metadata           map[string]any `json:"metadata" nullable:"true" doc:"Free-form, at most 8 KiB of JSON."`
	AcceptedAgentTerms bool           `json:"acceptedAgentTerms" enum:"true" required:"true" doc:"Must be true."`
}

func (a *API) createKey(w http.ResponseWriter, r *http.Request) error {
	var b createKeyBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	k, err := a.KeyOps().Create(r.Context(), actor(r), agents.KeyInput{Label: b.Label, Scope: b.Scope,
		Limits: b.SpendingControls.Limits(), Metadata: b.Metadata, AcceptedAgentTerms: b.AcceptedAgentTerms})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "agent_key", k.ID)
	return httpapi.OK(w, r, http.StatusCreated, k)
}

func (a *API) listKeys(w http.ResponseWriter, r *http.Request) error {
	out, err := a.KeyOps().List(r.Context(), actor(r))
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, httpapi.Meta{"total": len(out)})
}

func (a *API) revokeKey(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "agent_key")
	return httpapi.Reply(w, r, http.StatusOK).With(a.KeyOps().Revoke(r.Context(), actor(r), id))
}

func (a *API) unfreezeKey(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "agent_key")
	return httpapi.Reply(w, r, http.StatusOK).With(a.KeyOps().Unfreeze(r.Context(), actor(r), id))
}

type freezeKeyBody struct {
	Reason string `json:"reason" maxLength:"500" doc:"Optional note, kept in the audit log; the key's frozenReason is 'owner'."`
}

// freezeKey is the owner's panic button (CONTRACT.md section 4).
func (a *API) freezeKey(w http.ResponseWriter, r *http.Request) error {
	var b freezeKeyBody
	if r.ContentLength != 0 {
		if err := httpapi.Decode(r, &b); err != nil {
			return err
		}
	}
	id := httpapi.PathEntity(r, "agent_key")
	if b.Reason != "" {
		httpapi.AuditDetails(r, map[string]any{"reason": httpapi.SafeText(b.Reason, 500)})
	}
	return httpapi.Reply(w, r, http.StatusOK).With(a.KeyOps().Freeze(r.Context(), actor(r), id))
}

func (a *API) adminFreezeKey(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("keyId")
	httpapi.Entity(r, "agent_key", id)
	return httpapi.Reply(w, r, http.StatusOK).With(a.KeyOps().AdminFreeze(r.Context(), actor(r), r.PathValue("userId"), id))
}

func (a *API) adminRevokeKey(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("keyId")
	httpapi.Entity(r, "agent_key", id)
	return httpapi.Reply(w, r, http.StatusOK).With(a.KeyOps().AdminRevoke(r.Context(), actor(r), r.PathValue("userId"), id))
}

func (a *API) getSpending(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.KeyOps().Spending(r.Context(), actor(r)))
}

type putSpendingBody struct {
	PerTransactionLimit  *int64             `json:"perTransactionLimit" ref:"NullableCents" nullable:"false"`
	DailyLimit           *int64             `json:"dailyLimit" ref:"NullableCents" nullable:"false"`
	WeeklyLimit          *int64             `json:"weeklyLimit" ref:"NullableCents" nullable:"false"`
	MonthlyLimit         *int64             `json:"monthlyLimit" ref:"NullableCents" nullable:"false"`
	CategoryRestrictions *[]string          `json:"categoryRestrictions" items.minLength:"1" items.maxLength:"100" doc:"Category ids or slugs, each 1 to 100 characters; replaces the list."`
	ApprovalThreshold    httpapi.Opt[int64] `json:"approvalThreshold" minimum:"1" maximum:"1000000000" nullable:"true" doc:"Purchases above it need the owner's approval; null removes it."`
}

func (a *API) putSpending(w http.ResponseWriter, r *http.Request) error {
	var b putSpendingBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	p := actor(r)
	httpapi.Entity(r, "user", p.User.ID)
	st, err := a.KeyOps().UpdateControls(r.Context(), p, agents.ControlsUpdate{
		PerTransaction: b.PerTransactionLimit, Daily: b.DailyLimit, Weekly: b.WeeklyLimit, Monthly: b.MonthlyLimit,
		CategoryRestrictions: b.CategoryRestrictions, ApprovalThreshold: b.ApprovalThreshold.Ptr(),
		ClearApproval: b.ApprovalThreshold.Set && b.ApprovalThreshold.Null,
	})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, st)
}
