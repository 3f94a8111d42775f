package agentv1

import (
	"context"

	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
)

// Onboarding over MCP. On HTTP, POST /api/v1/onboarding/agent-init is
// public: an agent without any key starts it. An MCP caller always holds
// a key (the /mcp endpoint and the stdio proxy both need one), so the tool
// serves what such an agent really needs: to have a person (its owner
// again, for a key of another scope or to replace a key about to be
// revoked; or another person it acts for) grant it a new key. The key in
// use gives no power over the new one: the person opens the magic link,
// signs in or signs up, accepts the agent terms and chooses; only then can
// the poll secret collect the new key. A key-less agent uses the public
// HTTP route.

type initiateOnboardingArgs struct {
	OwnerEmail     string         `json:"owner_email" format:"email" required:"true" doc:"The e-mail of the person who will own the new key; the magic link is mailed there when the service sends mail."`
	DesiredScope   string         `json:"desired_scope" enum:"buy,sell,buy_sell,buy_only,sell_only" required:"true" doc:"The scope the new key asks for; the person may grant it or not."`
	OwnerFirstName string         `json:"owner_first_name" maxLength:"80"`
	OwnerLastName  string         `json:"owner_last_name" maxLength:"80"`
	AgentLabel     string         `json:"agent_label" maxLength:"100" doc:"The new key's label, as the owner will see it."`
	AgentMetadata  map[string]any `json:"agent_metadata" doc:"Free-form (for example framework and version), at most 8 KiB of JSON."`
}

type onboardingStatusArgs struct {
	OnboardingID string `json:"onboarding_id" format:"uuid" required:"true"`
	PollSecret   string `json:"poll_secret" maxLength:"200" doc:"The poll_secret initiate_onboarding answered. Without it the status is answered, never the key."`
}

func (a *API) onboardingTools() []Tool {
	ops := api.Onboarding{Service: a.Agents, PublicURL: a.PublicURL}
	return []Tool{
		tool(Tool{Name: "initiate_onboarding", Title: "Ask a person for a new agent key", Area: "agent_onboarding", OpenWorld: true,
			Description: "Starts agent-initiated onboarding: a single-use magic link (24 hours) for a person to open, sign up or sign in, and grant a new " +
				"agent key with 'desired_scope' - for example when this key lacks a scope (INSUFFICIENT_SCOPE) or for another person the agent acts for. " +
				"The key in use grants nothing itself; give the link to the person, then poll check_onboarding_status with the poll_secret. " +
				"May e-mail the link. Errors: VALIDATION_ERROR, RATE_LIMITED."},
			func(ctx context.Context, _ *httpapi.Principal, in *initiateOnboardingArgs) (any, error) {
				return ops.Start(ctx, agents.AgentInitInput{OwnerEmail: in.OwnerEmail, DesiredScope: in.DesiredScope,
					OwnerFirstName: in.OwnerFirstName, OwnerLastName: in.OwnerLastName, AgentLabel: in.AgentLabel,
					AgentMetadata: in.AgentMetadata})
			}),
		tool(Tool{Name: "check_onboarding_status", Title: "Check onboarding", Area: "agent_onboarding",
			Description: "Where an onboarding started with initiate_onboarding stands: 'pending_human', 'human_completing', 'kyc_pending', 'complete' " +
				"or 'expired'. With the poll_secret, the first check after the person completed the link answers the new 'agent_key' (once, never " +
				"again: store it; so the call is not read-only). Poll every few seconds at most. Free. Errors: NOT_FOUND, UNAUTHORIZED (wrong poll secret)."},
			func(ctx context.Context, _ *httpapi.Principal, in *onboardingStatusArgs) (any, error) {
				return ops.Poll(ctx, in.OnboardingID, in.PollSecret)
			}),
	}
}
