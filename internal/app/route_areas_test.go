package app_test

import (
	"slices"
	"strings"
	"testing"

	"marketplace/internal/config"
	"marketplace/internal/httpapi/openapi"
	"marketplace/internal/httpapi/ops"
)

// TestRouteAreas checks the manifest's capabilities name every area the
// service offers: every route served (in either mode) belongs to an area of
// ops' table, every area of the table is served by a route and every prefix
// of it still covers one, every agent tool's area is one of the table's,
// the manifest's OpenAPI schema lists exactly those areas, and the manifest
// names exactly the areas of what the server serves.
func TestRouteAreas(t *testing.T) {
	areas := ops.Areas()
	for _, mode := range []config.Mode{config.Sandbox, config.Live} {
		t.Run(string(mode), func(t *testing.T) {
			a := newApp(t, mode)
			served := map[string]bool{}
			covered := map[string]bool{}
			for _, r := range a.Router.Routes() {
				got := ops.RouteAreas(r.Pattern)
				if len(got) == 0 {
					t.Errorf("%s %s belongs to no area: give it one in ops.routeAreas", r.Method, r.Pattern)
				}
				for _, area := range got {
					served[area] = true
				}
				covered[ops.RoutePrefix(r.Pattern)] = true
			}
			var tools []string
			for _, tool := range a.MCP.Tools {
				if !slices.Contains(areas, tool.Area) {
					t.Errorf("tool %s has the area %q, which ops.routeAreas does not know", tool.Name, tool.Area)
				}
				tools = append(tools, tool.Area)
			}
			if mode == config.Sandbox {
				for _, area := range areas {
					if !served[area] {
						t.Errorf("the area %s has no served route", area)
					}
				}
				for _, p := range ops.AreaPrefixes() {
					if !covered[p] {
						t.Errorf("the prefix %s of ops.routeAreas covers no served route", p)
					}
				}
			}
			for area := range served {
				tools = append(tools, area)
			}
			slices.Sort(tools)
			want := slices.Compact(tools)
			code, body := get(t, a, "/api/v1/manifest")
			var have []string
			for _, c := range body["data"].(map[string]any)["capabilities"].([]any) {
				have = append(have, c.(string))
			}
			if code != 200 || !slices.Equal(have, want) {
				t.Errorf("manifest capabilities\n\t%s\nwant\n\t%s", strings.Join(have, ","), strings.Join(want, ","))
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
