package ops

import (
	"slices"

	"marketplace/internal/httpapi"
)

// The manifest's capabilities are the areas of the service this server
// offers: an area is named when the router serves a route of it (each
// route is registered in its areas, httpapi.Router.In) or the tool
// catalogue has a tool of it (Tool.Area), so the manifest says what the
// running server offers rather than a list written once. TestRouteAreas
// (internal/app) fails for a route of no area and for a tool area that no
// route serves.

// capabilities are the areas of routes and of the tool areas, sorted and
// without repeats.
func capabilities(routes []httpapi.Route, toolAreas []string) []string {
	var out []string
	for _, r := range routes {
		out = append(out, r.Areas...)
	}
	for _, a := range toolAreas {
		if a != "" {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
