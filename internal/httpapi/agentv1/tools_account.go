package agentv1

import (
	"context"

	"marketplace/internal/httpapi"
)

type noArgs struct{}

// accountTools are who the key is and what it may spend.
func (a *API) accountTools() []Tool {
	return []Tool{
		tool(Tool{Name: "whoami", Title: "Who am I", Area: "accounts", ReadOnly: true, Idempotent: true,
			Description: "The agent key in use (label, scope), its verified owner and what the key may still spend today, " +
				"this week and this month. Call it first in a session; it costs nothing."},
			func(ctx context.Context, p *httpapi.Principal, _ *noArgs) (any, error) {
				return a.KeyOps().Whoami(ctx, p)
			}),
	}
}
