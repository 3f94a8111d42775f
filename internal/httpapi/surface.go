package httpapi

import (
	"net/http"
	"strings"

	"marketplace/internal/market"
)

// Surface is one spelling of the interface: the path its routes live under
// and how it spells the names the domain gives in canonical form
// (snake_case, dotted for nested fields: "spending_controls.daily_limit").
// Each surface package declares its own; the router hands it to every
// route registered through Router.Mount, so the envelope spells a
// response by the route that made it.
type Surface struct {
	Prefix string
	Casing Casing
	// Names spells the canonical names whose spelling here is not the
	// casing's ("photo_urls" -> "photos"). A key "METHOD /path name"
	// applies on that route only.
	Names map[string]string
	// WriteError, when set, writes the surface's errors in a shape of its
	// own (the Agentic Commerce Protocol's flat error) instead of the
	// envelope. Its e is safe to show: an internal error's message is
	// already the generic one.
	WriteError func(w http.ResponseWriter, r *http.Request, e *market.Error)
}

// Casing is how a surface spells a canonical name.
type Casing int

const (
	Camel Casing = iota // spendingControls.dailyLimit
	Snake               // spending_controls.daily_limit (the canonical form)
)

// plain is the surface of routes mounted on none (pages, documents,
// operations): camelCase, as Variant A.
var plain = &Surface{Casing: Camel}

// Name spells a canonical field or detail name for a response of route.
func (s *Surface) Name(route, canonical string) string {
	if n, ok := s.Names[route+" "+canonical]; ok {
		return n
	}
	if n, ok := s.Names[canonical]; ok {
		return n
	}
	if s.Casing == Camel {
		return CamelCase(canonical)
	}
	return canonical
}

// Details spells an error's details and its invalid fields ("fields") as
// the error envelope of route shows them; an answer that carries an error
// inside its data (the purchase dry run) spells it the same way.
func (s *Surface) Details(route string, e *market.Error) map[string]any {
	details := map[string]any{}
	for k, v := range e.Details {
		details[s.Name(route, k)] = v
	}
	if len(e.Fields) > 0 {
		fields := make([]map[string]string, len(e.Fields))
		for i, f := range e.Fields {
			fields[i] = map[string]string{"field": s.field(route, f), "message": f.Message}
		}
		details["fields"] = fields
	}
	return details
}

// DetailsOf is Details for one route, as the function an operation that
// answers a refusal inside its data (the purchase dry run) is given.
func (s *Surface) DetailsOf(route string) func(*market.Error) map[string]any {
	return func(e *market.Error) map[string]any { return s.Details(route, e) }
}

// field spells one invalid field: a name as the client sent it stays.
func (s *Surface) field(route string, f market.FieldError) string {
	if f.AsSent {
		return f.Field
	}
	return s.Name(route, f.Field)
}

// CamelCase turns a canonical name ("spending_controls.daily_limit") into
// camelCase ("spendingControls.dailyLimit"); camelCase stays as it is.
func CamelCase(s string) string { return market.CamelName(s) }

// surfaceFor is the surface whose prefix holds path, for a request that
// matches no route: its 404 or 405 is spelled as the routes beside it.
func (rt *Router) surfaceFor(path string) *Surface {
	best := plain
	for _, s := range rt.surfaces {
		if (path == s.Prefix || strings.HasPrefix(path, s.Prefix+"/")) && len(s.Prefix) > len(best.Prefix) {
			best = s
		}
	}
	return best
}

// Mount returns a view of rt whose routes are s's: registered on the same
// mux, answered in s's spelling.
func (rt *Router) Mount(s *Surface) *Router {
	rt.surfaces = append(rt.surfaces, s)
	return &Router{routing: rt.routing, surface: s, areas: rt.areas}
}
