package app

import (
	"marketplace/internal/httpapi/acp"
	"marketplace/internal/httpapi/agentv1"
)

// acpTools are the ACP binding's MCP tools (ACP's MCP binding: the five
// checkout operations) as catalogue entries, in the area of the /acp
// routes. They speak ACP's shapes: the binding reads their arguments and
// shapes their refusals (ACP's flat error).
func acpTools(b *acp.Binding) []agentv1.Tool {
	var out []agentv1.Tool
	for _, t := range b.Tools() {
		out = append(out, agentv1.RawTool(agentv1.Tool{Name: t.Name, Title: t.Title, Description: t.Description, Area: "acp",
			Scope: t.Scope, ReadOnly: t.ReadOnly, Destructive: t.Destructive, Idempotent: t.Idempotent, OpenWorld: t.OpenWorld},
			t.InputSchema, t.Call, acp.ErrorBody))
	}
	return out
}
