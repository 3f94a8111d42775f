// Package apidoc turns the Go wire types of the JSON surfaces into the
// component schemas of the published OpenAPI 3.0 documents, so a field is
// written once: in its wire struct. A surface lists its components (a name
// and a value of the wire type); Build reflects over them at start-up.
//
// What a schema says comes from the Go type and its json tag:
//
//   - the JSON name, and whether the field may be left out (omitempty);
//   - string, boolean, integer (format int64 for int64), number, array,
//     object (a map; a struct, inline or by reference), date-time (time.Time);
//   - a pointer may be null unless omitempty leaves it out instead;
//     market.Opt[T] (absent, null or a value) is described as T;
//   - an embedded struct's fields are promoted, as encoding/json does.
//
// A field of a response is required unless omitempty; a field of a request
// body is optional unless tagged required:"true". Further struct tags say
// what the type cannot:
//
//	doc:"..."          the description (see below for code spans)
//	ref:"Name"         the schema is the named component (an enum or scalar
//	                   of the document, or one of several names of a type)
//	enum:"a,b,c"       the allowed values ("" is written as a leading comma)
//	format:"uuid"      a format the Go type does not imply
//	example:"..."      an example value, read as the field's JSON type
//	minimum, maximum, exclusiveMinimum ("true"), minLength, maxLength,
//	minItems, maxItems, uniqueItems ("true"), pattern, default
//	nullable:"true"    may be null though the Go type does not say so
//	                   (a map or slice left nil), or "false"
//	required:"true"    overrides the default above, or "false"
//	items.<key>:"..."  any of the above for the items of an array
//
// Descriptions are Markdown. A struct tag cannot hold a backquote, so in
// doc texts a quoted 'span' is published as a code span: a single quote that
// follows no letter or digit opens one, and the next single quote followed by
// no letter or digit closes it. Apostrophes (the seller's) stay as they are.
package apidoc

// Component is one named schema of a document.
type Component struct {
	// Name is the component's name under #/components/schemas.
	Name string
	// Of is a value of the wire type, e.g. order{} or []order{}.
	Of any
	// Doc is the schema's description.
	Doc string
	// Request marks a request body: its fields are optional unless tagged
	// required:"true".
	Request bool
	// Fields gives tags, by JSON name, that override the type's own for this
	// component: one type may be published under two names that differ in
	// their bounds or texts.
	Fields map[string]string
	// Extra holds schema keywords the Go type cannot express, such as an
	// anyOf of alternative required fields; it may not replace a keyword the
	// type produced.
	Extra map[string]any
	// Closed forbids properties beyond the listed ones, in every object of
	// the schema (additionalProperties: false).
	Closed bool

	envelope *envelope
}

// envelope describes a success envelope {success: true, data, meta}.
type envelope struct {
	data any    // a value of the data's Go type
	meta string // the component that describes meta
}

// Envelope declares the component name as the success envelope around data,
// with meta described by the named component. Data is a value of its Go type
// (a component's type, a slice of one, ...), OneOf, or a component's name
// for a type published under several.
func Envelope(name string, data any, meta string) Component {
	return Component{Name: name, envelope: &envelope{data: data, meta: meta}}
}

// OneOf is data that is exactly one of several wire types.
type OneOf []any

// AnyRequired is an anyOf (for Component.Extra) that asks for at least one
// of the named fields: one value with several accepted spellings.
func AnyRequired(names ...string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = Schema{"required": []string{n}}
	}
	return out
}

// Each gives the named fields the same override tags, for Component.Fields.
func Each(tags string, names ...string) map[string]string {
	out := make(map[string]string, len(names))
	for _, n := range names {
		out[n] = tags
	}
	return out
}
