package httpapi

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"marketplace/internal/market"
)

// A view (one struct per resource, shared by every surface) is written
// once, with the camelCase json names of Variant A. Variant B spells it in
// snake_case through a twin type made once per type with reflect.StructOf:
// the same fields, of the same types (their own twins for nested views), in
// the same memory layout, with the json names rewritten. Spelling a value
// reinterprets its memory as the twin, so no field is copied and no map is
// re-keyed; encoding/json then sees the twin's tags.
//
// A field whose Variant B name is not the snake_case of its Variant A name
// says so with a snake:"name" tag; snake:"-" leaves it out of Variant B.
// Types that marshal themselves (time.Time, json.RawMessage, market.Opt)
// and types with no json names of ours are kept as they are; a view may
// not refer to itself, nor have unexported fields (StructOf cannot make
// either), and is refused at its first use if it does.

// Spell is v as a response of casing c spells it: v itself for camelCase,
// and for snake_case a pointer to v's memory as its twin type (v's own
// memory when v is a pointer, else a copy of v).
func Spell(v any, c Casing) any {
	if c != Snake || v == nil {
		return v
	}
	t := reflect.TypeOf(v)
	tw := snakeTwin(t)
	if tw == t {
		return v
	}
	rv := reflect.ValueOf(v)
	if t.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return reflect.Zero(tw).Interface()
		}
		return reflect.NewAt(tw.Elem(), rv.UnsafePointer()).Interface()
	}
	p := reflect.New(t)
	p.Elem().Set(rv)
	return reflect.NewAt(tw, p.UnsafePointer()).Interface()
}

// SnakeOf is the zero value of v's snake_case twin type, for the published
// documents of Variant B (apidoc reads its tags).
func SnakeOf(v any) any { return reflect.Zero(snakeTwin(reflect.TypeOf(v))).Interface() }

// SnakeCase turns a camelCase name into snake_case ("listingId" ->
// "listing_id"); a snake_case name stays as it is.
func SnakeCase(s string) string { return market.SnakeName(s) }

var (
	twins    sync.Map // reflect.Type -> reflect.Type
	twinsMu  sync.Mutex
	building = map[reflect.Type]bool{} // under twinsMu: types being made, to refuse recursion
)

func snakeTwin(t reflect.Type) reflect.Type {
	if tw, ok := twins.Load(t); ok {
		return tw.(reflect.Type)
	}
	twinsMu.Lock()
	defer twinsMu.Unlock()
	return makeTwin(t)
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// marshalsItself reports whether encoding/json leaves t's fields alone.
func marshalsItself(t reflect.Type) bool {
	for _, m := range []reflect.Type{jsonMarshaler, textMarshaler} {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return true
		}
	}
	return false
}

// renames reports whether a json name changes anywhere in t (a type
// already in snake_case has no twin, whatever its doc texts say); a type
// that refers to itself (a category tree) is left alone unless it does.
func renames(t reflect.Type, seen map[reflect.Type]bool) bool {
	if tw, ok := twins.Load(t); ok {
		return tw.(reflect.Type) != t
	}
	if seen[t] {
		return false // the answer is the one being worked out
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return renames(t.Elem(), seen)
	case reflect.Struct:
		if marshalsItself(t) {
			return false
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if f.IsExported() && (snakeTag(f.Tag).Get("json") != f.Tag.Get("json") || renames(f.Type, seen)) {
				return true
			}
		}
	}
	return false
}

// makeTwin builds (under twinsMu) and caches t's twin: t itself when no
// name in it changes.
func makeTwin(t reflect.Type) reflect.Type {
	if tw, ok := twins.Load(t); ok {
		return tw.(reflect.Type)
	}
	if !renames(t, map[reflect.Type]bool{}) {
		twins.Store(t, t)
		return t
	}
	if building[t] {
		panic(fmt.Sprintf("httpapi: %v refers to itself; its snake_case spelling needs a type of its own", t))
	}
	building[t] = true
	defer delete(building, t)
	tw := t
	switch t.Kind() {
	case reflect.Pointer:
		if e := makeTwin(t.Elem()); e != t.Elem() {
			tw = reflect.PointerTo(e)
		}
	case reflect.Slice:
		if e := makeTwin(t.Elem()); e != t.Elem() {
			tw = reflect.SliceOf(e)
		}
	case reflect.Array:
		if e := makeTwin(t.Elem()); e != t.Elem() {
			tw = reflect.ArrayOf(t.Len(), e)
		}
	case reflect.Map:
		if e := makeTwin(t.Elem()); e != t.Elem() {
			tw = reflect.MapOf(t.Key(), e)
		}
	case reflect.Struct:
		tw = structTwin(t)
	}
	twins.Store(t, tw)
	return tw
}

func structTwin(t reflect.Type) reflect.Type {
	if marshalsItself(t) {
		return t
	}
	fields := make([]reflect.StructField, t.NumField())
	changed, hidden := false, false
	for i := range fields {
		f := t.Field(i)
		if !f.IsExported() {
			hidden = true
			continue
		}
		ft := makeTwin(f.Type)
		tag := snakeTag(f.Tag)
		changed = changed || ft != f.Type || tag != f.Tag
		fields[i] = reflect.StructField{Name: f.Name, Type: ft, Tag: tag, Anonymous: f.Anonymous}
	}
	if !changed {
		return t
	}
	if hidden { // StructOf takes exported fields only
		panic(fmt.Sprintf("httpapi: %v has unexported fields; a view's fields are all exported", t))
	}
	tw := reflect.StructOf(fields)
	// The twin must lie over t's memory exactly.
	if tw.Size() != t.Size() || tw.Align() != t.Align() {
		panic(fmt.Sprintf("httpapi: the snake_case twin of %v has another layout", t))
	}
	for i := range fields {
		if tw.Field(i).Offset != t.Field(i).Offset {
			panic(fmt.Sprintf("httpapi: the snake_case twin of %v has field %s elsewhere", t, fields[i].Name))
		}
	}
	return tw
}

// snakeTag rewrites a field's json name in snake_case, or to its snake
// tag.
func snakeTag(tag reflect.StructTag) reflect.StructTag {
	js, ok := tag.Lookup("json")
	if !ok {
		return tag
	}
	name, opts, _ := strings.Cut(js, ",")
	snake, named := tag.Lookup("snake")
	switch {
	case named:
		name = snake
	case name == "-" || name == "":
		return tag
	default:
		name = SnakeCase(name)
	}
	if name != "-" && opts != "" {
		name += "," + opts
	}
	tag = replaceTag(tag, "json", name)
	if doc, ok := tag.Lookup("doc"); ok {
		tag = replaceTag(tag, "doc", docSpans.ReplaceAllStringFunc(doc, snakeSpan))
	}
	return tag
}

// docSpans are the camelCase names in a doc text, quoted or not ('offerId',
// 'shippingAddress.city', 'itemPrice - commission', meta.requestId): a
// field's description names other fields in the casing of its surface.
var docSpans = regexp.MustCompile(`\b[a-z][a-z0-9]*([A-Z][a-z0-9]*)+\b`)

func snakeSpan(name string) string {
	if name == "camelCase" { // the name of a casing, not of a field
		return name
	}
	return SnakeCase(name)
}

// replaceTag sets key's value in tag, keeping the others as they are.
func replaceTag(tag reflect.StructTag, key, value string) reflect.StructTag {
	s := string(tag)
	var b strings.Builder
	for s != "" {
		s = strings.TrimLeft(s, " ")
		i := strings.Index(s, ":\"")
		if i < 0 {
			break
		}
		k := s[:i]
		rest := s[i+1:]
		// the quoted value, with escapes
		j := 1
		for j < len(rest) && rest[j] != '"' {
			if rest[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(rest) {
			break
		}
		v := rest[:j+1]
		s = rest[j+1:]
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if k == key {
			v = fmt.Sprintf("%q", value)
		}
		b.WriteString(k + ":" + v)
	}
	return reflect.StructTag(b.String())
}
