package openapi

import (
	"fmt"
	"strings"

	"marketplace/internal/httpapi"
)

// rateLimitHeaders are the headers every response of a rate-limited route
// carries (httpapi.RateLimited), by component name.
var rateLimitHeaders = []struct{ header, component, description string }{
	{"X-RateLimit-Limit", "RateLimitLimit", "Requests the window allows the caller (the limit in force, after MARKETPLACE_RATE_LIMIT_SCALE)."},
	{"X-RateLimit-Remaining", "RateLimitRemaining", "Requests still allowed in the window, after this one."},
	{"X-RateLimit-Reset", "RateLimitReset", "When the next slot frees, in Unix seconds (the oldest counted request leaves the sliding window)."},
}

// addRateLimits documents the per-route rate limits from the router's own
// rule (httpapi.RateLimited): the X-RateLimit-* headers on the answers of
// every limited operation, and a 429 RATE_LIMITED answer with Retry-After
// where the operation documents none of its own (login keeps its throttle's).
func addRateLimits(doc map[string]any) error {
	comps, _ := doc["components"].(map[string]any)
	if comps == nil {
		return fmt.Errorf("rate limits: the document has no components")
	}
	headers := ensureMap(comps, "headers")
	for _, h := range rateLimitHeaders {
		headers[h.component] = map[string]any{"description": h.description, "schema": map[string]any{"type": "integer"}}
	}
	if _, ok := headers["RetryAfter"]; !ok {
		headers["RetryAfter"] = map[string]any{"description": "Seconds to wait before trying again.", "schema": map[string]any{"type": "integer"}}
	}
	limited := map[string]any{"Retry-After": map[string]any{"$ref": "#/components/headers/RetryAfter"}}
	for _, h := range rateLimitHeaders {
		limited[h.header] = map[string]any{"$ref": "#/components/headers/" + h.component}
	}
	ensureMap(comps, "responses")["RateLimited"] = map[string]any{
		"description": "`RATE_LIMITED`: the caller's rate limit is reached; wait `Retry-After` seconds " +
			"(also in the error's details). An agent key that keeps sending after 429s is frozen " +
			"(`AGENT_FROZEN`, frozenReason `rate_limit_abuse`).",
		"headers": limited,
		"content": map[string]any{"application/json": map[string]any{
			"schema": map[string]any{"$ref": "#/components/schemas/ErrorEnvelope"}}},
	}
	for url, item := range pathsByURL(doc) {
		for method, v := range item {
			op, ok := v.(map[string]any)
			if !ok || method == "parameters" || method == "servers" || !httpapi.RateLimited(strings.ToUpper(method), url) {
				continue
			}
			responses := ensureMap(op, "responses")
			for _, r := range responses {
				resp, _ := r.(map[string]any)
				if resp == nil || resp["$ref"] != nil { // a shared answer: its own headers stand
					continue
				}
				hs := ensureMap(resp, "headers")
				for _, h := range rateLimitHeaders {
					if _, has := hs[h.header]; !has {
						hs[h.header] = map[string]any{"$ref": "#/components/headers/" + h.component}
					}
				}
			}
			if _, has := responses["429"]; !has {
				responses["429"] = map[string]any{"$ref": "#/components/responses/RateLimited"}
			}
		}
	}
	return nil
}

func ensureMap(parent map[string]any, key string) map[string]any {
	m, _ := parent[key].(map[string]any)
	if m == nil {
		m = map[string]any{}
		parent[key] = m
	}
	return m
}
