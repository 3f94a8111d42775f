package api

// Casing is the spelling of the surface a view is made for. A view's json
// names are spelled by httpapi.Spell, on the way out; Casing is for what
// a name's spelling cannot say, a value that differs by surface: a word
// of one surface alone (Variant B's 'processing' for pending_ai), or a
// value that names a field (a contentTrust's 'fields'). An operation
// takes it from the surface that calls it, and the view's constructor
// decides the value, in one place.
type Casing int

const (
	Camel Casing = iota // Variant A, and the pages
	Snake               // Variant B and the MCP tools
)
