package app

import (
	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/agentv1"
	"marketplace/internal/ratelimit"
)

// routeLimits are the router's per-route rate limits: requests counted by
// requests, refusals (toward the abuse freeze) by limiter. An MCP tool call counts in its tool's class: the search area's
// tools as search, other read-only tools as read, the rest as write.
func (a *App) routeLimits(limiter, requests ratelimit.Limiter, tools []agentv1.Tool) *httpapi.RateLimits {
	class := make(map[string]string, len(tools))
	for _, t := range tools {
		switch {
		case t.Area == "search":
			class[t.Name] = "search"
		case t.ReadOnly:
			class[t.Name] = "read"
		default:
			class[t.Name] = "write"
		}
	}
	return &httpapi.RateLimits{
		Limiter: limiter, Requests: requests, Scale: a.Config.LimitScale(), Settings: a.Settings, Freeze: a.Agents.SystemFreeze,
		MCPClass: func(tool string) string {
			if c, ok := class[tool]; ok {
				return c
			}
			return "write"
		},
	}
}
