package httpapi

import (
	"fmt"
	"reflect"
)

// DeclareTwin makes twin's type, a struct declared by hand, the snake_case
// twin of view's type, for a view that refers to itself (a category
// tree): reflect.StructOf cannot make a type that refers to itself, so
// Spell cannot make that twin. The declared twin must be the one Spell
// would make: the same fields at the same offsets, each tag spelled as
// Spell spells it (json name, snake override, doc text), each field's
// type the twin of the view's (the view itself standing for the twin).
// Anything else panics, at start-up when called from a package variable's
// initializer. It answers twin, for the documents.
func DeclareTwin(view, twin any) any {
	t, tw := reflect.TypeOf(view), reflect.TypeOf(twin)
	twinsMu.Lock()
	defer twinsMu.Unlock()
	if got, ok := twins.Load(t); ok {
		if got.(reflect.Type) != tw {
			panic(fmt.Sprintf("httpapi: %v already has the twin %v, not %v", t, got, tw))
		}
		return twin
	}
	if t.Kind() != reflect.Struct || tw.Kind() != reflect.Struct || t.NumField() != tw.NumField() ||
		t.Size() != tw.Size() || t.Align() != tw.Align() {
		panic(fmt.Sprintf("httpapi: %v cannot be the snake_case twin of %v: another shape", tw, t))
	}
	twins.Store(t, tw) // first: the fields refer to t
	for i := range t.NumField() {
		f, g := t.Field(i), tw.Field(i)
		var want reflect.Type
		if f.IsExported() {
			want = makeTwin(f.Type)
		}
		if want == nil || f.Name != g.Name || f.Offset != g.Offset || f.Anonymous != g.Anonymous || g.Type != want ||
			g.Tag != snakeTag(f.Tag) {
			twins.Delete(t)
			panic(fmt.Sprintf("httpapi: field %s of %v is not the snake_case twin of %v's (want type %v, tag `%s`)",
				g.Name, tw, t, want, snakeTag(f.Tag)))
		}
	}
	return twin
}
