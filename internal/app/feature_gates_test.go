package app_test

import (
	"encoding/json"
	"marketplace/internal/settings"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"marketplace/internal/httpapi"
	"marketplace/internal/testkit"
)

// Every route a feature flag closes answers 503 FEATURE_DISABLED naming the
// flag, and the published documents say so: testkit checks each answer
// against them, so a gated operation without its documented 503 fails here.
func TestFeatureGatesDocumented(t *testing.T) {
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		adm := s.Admin()
		for _, f := range settings.Features() {
			flag := string(f)
			s.Do("PATCH", "/api/v1/admin/feature-flags/"+flag, map[string]any{"enabled": false}, adm.Auth()).Want(t, http.StatusOK, "")
		}
		served := map[string]map[string]any{}
		for _, doc := range []string{"/api/v1/openapi.json", "/v1/openapi.json"} {
			var m map[string]any
			if err := json.Unmarshal(s.Do("GET", doc, nil).Want(t, http.StatusOK, "").Body, &m); err != nil {
				t.Fatal(err)
			}
			served[doc] = m
		}
		params := regexp.MustCompile(`\{[^}]+\}`)
		routes := make([]string, 0, len(httpapi.FeatureRoutes))
		for r := range httpapi.FeatureRoutes {
			routes = append(routes, r)
		}
		sort.Strings(routes)
		for _, route := range routes {
			flag := string(httpapi.FeatureRoutes[route])
			method, pattern, _ := strings.Cut(route, " ")
			var body any
			if method != "GET" && method != "DELETE" {
				body = map[string]any{}
			}
			// The gate answers before authentication, so no credentials.
			r := s.Do(method, params.ReplaceAllString(pattern, "x1"), body).Want(t, http.StatusServiceUnavailable, "FEATURE_DISABLED")
			if d, _ := r.JSON["error"].(map[string]any)["details"].(map[string]any); d["flag"] != flag {
				t.Errorf("%s: details = %v, want flag %q", route, d, flag)
			}
			// The served document names the flag on the operation's 503.
			doc, path := "/api/v1/openapi.json", strings.TrimPrefix(pattern, "/api/v1")
			if strings.HasPrefix(pattern, "/v1/") {
				doc, path = "/v1/openapi.json", strings.TrimPrefix(pattern, "/v1")
			}
			paths, _ := served[doc]["paths"].(map[string]any)
			item, _ := paths[path].(map[string]any)
			op, _ := item[strings.ToLower(method)].(map[string]any)
			resp, _ := op["responses"].(map[string]any)["503"].(map[string]any)
			if desc, _ := resp["description"].(string); !strings.Contains(desc, "FEATURE_DISABLED") || resp["x-feature-flag"] != flag {
				t.Errorf("%s: the served 503 does not name FEATURE_DISABLED and %q: %v", route, flag, resp)
			}
		}
	})
}
