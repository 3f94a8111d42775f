package openapi

import (
	"fmt"
	"sort"
	"strings"

	"marketplace/internal/settings"
)

// addFeatureGates documents the 503 FEATURE_DISABLED answer of every route a
// feature flag switches off, from the router's own table
// (httpapi.FeatureRoutes), so the documents cannot forget a gate. An
// operation that already answers 503 for another reason
// (SERVICE_UNAVAILABLE) keeps its response and gains the flag. A gated route
// of this document's surface that the document lacks is an error.
func addFeatureGates(doc map[string]any, name string, gates map[string]settings.Feature) error {
	items := pathsByURL(doc)
	routes := make([]string, 0, len(gates))
	for route := range gates {
		routes = append(routes, route)
	}
	sort.Strings(routes)
	for _, route := range routes {
		method, path, ok := strings.Cut(route, " ")
		if !ok {
			return fmt.Errorf("feature gate %q: want \"METHOD path\"", route)
		}
		if docFor(path) != name {
			continue
		}
		item := items[path]
		op, _ := item[strings.ToLower(method)].(map[string]any)
		if op == nil {
			return fmt.Errorf("feature gate %q: the document has no such operation", route)
		}
		responses, _ := op["responses"].(map[string]any)
		if responses == nil {
			responses = map[string]any{}
			op["responses"] = responses
		}
		flag := string(gates[route])
		if existing, has := responses["503"]; has {
			merged, err := withFlag(doc, existing, flag)
			if err != nil {
				return fmt.Errorf("feature gate %q: %w", route, err)
			}
			responses["503"] = merged
			continue
		}
		responses["503"] = featureDisabled(flag)
	}
	return nil
}

// pathsByURL indexes a document's path items by the full URL path they
// serve: the item's own server, else the document's, before its path.
func pathsByURL(doc map[string]any) map[string]map[string]any {
	base := serverURL(doc["servers"])
	paths, _ := doc["paths"].(map[string]any)
	out := make(map[string]map[string]any, len(paths))
	for p, v := range paths {
		item, _ := v.(map[string]any)
		b := base
		if own := serverURL(item["servers"]); own != "" {
			b = own
		}
		out[strings.TrimSuffix(b, "/")+p] = item
	}
	return out
}

func serverURL(servers any) string {
	list, _ := servers.([]any)
	if len(list) == 0 {
		return ""
	}
	first, _ := list[0].(map[string]any)
	url, _ := first["url"].(string)
	return url
}

// docFor names the document that describes path.
func docFor(path string) string {
	if strings.HasPrefix(path, "/v1/") {
		return B
	}
	return A
}

func disabledText(flag string) string {
	return fmt.Sprintf("`FEATURE_DISABLED`: an administrator switched the `%s` feature off "+
		"(`details.flag` is `%s`); the route answers again once it is switched back on.", flag, flag)
}

// featureDisabled is the 503 answer of a route behind flag: the error
// envelope, as every error answer; the flag is named in the description and,
// for programs, in x-feature-flag.
func featureDisabled(flag string) map[string]any {
	return map[string]any{
		"description":    disabledText(flag),
		"x-feature-flag": flag,
		"content": map[string]any{
			"application/json": map[string]any{
				"schema": map[string]any{"$ref": "#/components/schemas/ErrorEnvelope"},
			},
		},
	}
}

// withFlag copies an operation's own 503 answer (inline or a reference to a
// shared response, which other operations use unchanged) with the flag
// added to its description.
func withFlag(doc map[string]any, resp any, flag string) (map[string]any, error) {
	m, _ := resp.(map[string]any)
	if ref, _ := m["$ref"].(string); ref != "" {
		name, ok := strings.CutPrefix(ref, "#/components/responses/")
		comps, _ := doc["components"].(map[string]any)
		shared, _ := comps["responses"].(map[string]any)
		if m, _ = shared[name].(map[string]any); !ok || m == nil {
			return nil, fmt.Errorf("503 refers to %q, not a shared response", ref)
		}
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	desc, _ := out["description"].(string)
	out["description"] = strings.TrimSpace(desc) + " Or " + disabledText(flag)
	out["x-feature-flag"] = flag
	return out, nil
}
