package app_test

import (
	"slices"
	"strings"
	"testing"

	"marketplace/internal/config"
	"marketplace/internal/httpapi/openapi"
)

// TestRouteAreas checks the manifest's capabilities name every area the
// service offers: every route served (in either mode) is registered in an
// area (httpapi.Router.In), every agent tool's area is one a route serves,
// the manifest names exactly the areas of what the server serves, and its
// OpenAPI schema lists exactly the areas of the sandbox, which serves them
// all.
func TestRouteAreas(t *testing.T) {
	var areas []string // the sandbox's, every area
	for _, mode := range []config.Mode{config.Sandbox, config.Live} {
		t.Run(string(mode), func(t *testing.T) {
			a := newApp(t, mode)
			var served []string
			for _, r := range a.Router.Routes() {
				if len(r.Areas) == 0 {
					t.Errorf("%s %s belongs to no area: register it with Router.In", r.Method, r.Pattern)
				}
				served = append(served, r.Areas...)
			}
			slices.Sort(served)
			served = slices.Compact(served)
			if mode == config.Sandbox {
				areas = served
			}
			for _, tool := range a.MCP.Tools {
				if !slices.Contains(served, tool.Area) {
					t.Errorf("tool %s has the area %q, which no route serves", tool.Name, tool.Area)
				}
			}
			code, body := get(t, a, "/api/v1/manifest")
			var have []string
			for _, c := range body["data"].(map[string]any)["capabilities"].([]any) {
				have = append(have, c.(string))
			}
			if code != 200 || !slices.Equal(have, served) {
				t.Errorf("manifest capabilities\n\t%s\nwant\n\t%s", strings.Join(have, ","), strings.Join(served, ","))
			}
			for _, area := range []string{"payouts", "admin", "addresses", "profiles", "notifications", "activity"} {
				if !slices.Contains(have, area) {
					t.Errorf("the manifest leaves out %s", area)
				}
			}
			if slices.Contains(have, "sandbox") != (mode == config.Sandbox) {
				t.Errorf("sandbox named in %s mode: %v", mode, have)
			}
		})
	}

	doc, err := openapi.Load(openapi.A)
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, v := range doc.Components.Schemas["Manifest"].Value.Properties["capabilities"].Value.Items.Value.Enum {
		documented = append(documented, v.(string))
	}
	slices.Sort(documented)
	if !slices.Equal(documented, areas) {
		t.Errorf("the manifest's documented capabilities\n\t%s\nare not the areas\n\t%s", strings.Join(documented, ","), strings.Join(areas, ","))
	}
}
