package apidoc

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Schema is a JSON Schema object as OpenAPI 3.0 writes it.
type Schema = map[string]any

// Build reflects the components into schemas by name. A type listed under
// several names is referred to by the first; fields name the others with a
// ref tag.
func Build(components []Component) (map[string]Schema, error) {
	b := &builder{home: map[reflect.Type]string{}, out: map[string]Schema{}}
	for _, c := range components {
		if c.envelope != nil || c.Of == nil {
			continue
		}
		t := reflect.TypeOf(c.Of)
		if _, ok := b.home[t]; !ok && t.Kind() == reflect.Struct {
			b.home[t] = c.Name
		}
	}
	b.checkTags(components)
	for _, c := range components {
		if c.envelope == nil && c.Of == nil {
			b.errorf("%s: no Go type", c.Name)
			continue
		}
		if _, dup := b.out[c.Name]; dup {
			b.errorf("%s is declared twice", c.Name)
			continue
		}
		b.out[c.Name] = b.component(c)
	}
	return b.out, errors.Join(b.errs...)
}

type builder struct {
	home map[reflect.Type]string // the component that describes a struct type
	out  map[string]Schema
	errs []error
}

func (b *builder) errorf(format string, args ...any) {
	b.errs = append(b.errs, fmt.Errorf(format, args...))
}

func ref(name string) Schema { return Schema{"$ref": "#/components/schemas/" + name} }

func (b *builder) component(c Component) Schema {
	if e := c.envelope; e != nil {
		return Schema{
			"type":     "object",
			"required": []string{"success", "data", "meta"},
			"properties": Schema{
				"success": Schema{"type": "boolean", "enum": []any{true}},
				"data":    b.data(c.Name, e.data),
				"meta":    ref(e.meta),
			},
		}
	}
	sc := &scope{component: c}
	t := reflect.TypeOf(c.Of)
	var s Schema
	if t.Kind() == reflect.Struct {
		s = b.object(sc, t) // the component itself, never a reference to it
	} else {
		s = b.typeSchema(sc, t)
	}
	if c.Doc != "" {
		s["description"] = docText(c.Doc)
	}
	for k, v := range c.Extra {
		if _, taken := s[k]; taken {
			b.errorf("%s: Extra may not replace %q", c.Name, k)
			continue
		}
		s[k] = v
	}
	for name := range c.Fields {
		if !sc.used[name] {
			b.errorf("%s: Fields names %q, which the type does not have", c.Name, name)
		}
	}
	return s
}

// data is an envelope's data: a component's name, a Go type, or OneOf.
func (b *builder) data(name string, v any) Schema {
	if s, ok := v.(string); ok {
		return ref(s)
	}
	if alts, ok := v.(OneOf); ok {
		var out []any
		for _, a := range alts {
			out = append(out, b.data(name, a))
		}
		return Schema{"oneOf": out}
	}
	return b.typeSchema(&scope{component: Component{Name: name}}, reflect.TypeOf(v))
}

// scope is what reflecting one component carries along.
type scope struct {
	component Component
	used      map[string]bool // Fields entries that matched
}

func (c *scope) overrides(name string) string {
	if s, ok := c.component.Fields[name]; ok {
		if c.used == nil {
			c.used = map[string]bool{}
		}
		c.used[name] = true
		return s
	}
	return ""
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// derefType is the type a JSON value is read into or written from: a
// pointer's element, an Opt's value.
func derefType(t reflect.Type) reflect.Type {
	for {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
			continue
		}
		if inner, ok := optValue(t); ok {
			t = inner
			continue
		}
		return t
	}
}

// typeSchema describes a Go type; a struct with a home component is a
// reference to it.
func (b *builder) typeSchema(sc *scope, t reflect.Type) Schema {
	t = derefType(t)
	switch {
	case t == timeType:
		return Schema{"type": "string", "format": "date-time"}
	case t == rawType:
		return Schema{}
	}
	switch t.Kind() {
	case reflect.String:
		return Schema{"type": "string"}
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int64, reflect.Uint64:
		return Schema{"type": "integer", "format": "int64"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return Schema{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number"}
	case reflect.Slice, reflect.Array:
		return Schema{"type": "array", "items": b.typeSchema(sc, t.Elem())}
	case reflect.Map:
		s := Schema{"type": "object"}
		if t.Elem().Kind() != reflect.Interface {
			s["additionalProperties"] = b.typeSchema(sc, t.Elem())
		}
		return s
	case reflect.Interface:
		return Schema{}
	case reflect.Struct:
		if name, ok := b.home[t]; ok {
			return ref(name)
		}
		return b.object(sc, t)
	}
	b.errorf("%s: cannot describe Go type %s", sc.component.Name, t)
	return Schema{}
}

// optValue reports the value type of a market.Opt[T].
func optValue(t reflect.Type) (reflect.Type, bool) {
	if t.PkgPath() != "marketplace/internal/market" || !strings.HasPrefix(t.Name(), "Opt[") {
		return nil, false
	}
	f, ok := t.FieldByName("Value")
	return f.Type, ok
}

// object describes a struct's JSON fields. Embedded structs are flattened,
// as encoding/json promotes their fields: each schema stands alone.
func (b *builder) object(sc *scope, t reflect.Type) Schema {
	props, required := Schema{}, []string{}
	b.fields(sc, t, props, &required)
	s := Schema{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	if sc.component.Closed {
		s["additionalProperties"] = false
	}
	return s
}

func (b *builder) fields(sc *scope, t reflect.Type, props Schema, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, omitempty, skip := jsonName(f)
		if skip {
			continue
		}
		if et := f.Type; f.Anonymous && name == "" {
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				b.fields(sc, et, props, required)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		tags := tagSet{own: f.Tag, over: reflect.StructTag(sc.overrides(name))}
		props[name] = b.field(sc, sc.component.Name+"."+name, f.Type, omitempty, tags)
		req := !omitempty && !sc.component.Request
		if v, ok := tags.lookup("required"); ok {
			req = v == "true"
		}
		if req {
			*required = append(*required, name)
		}
	}
}

// jsonName reads a field's json tag as encoding/json does.
func jsonName(f reflect.StructField) (name string, omitempty, skip bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, true
	}
	name, opts, _ := strings.Cut(tag, ",")
	for _, o := range strings.Split(opts, ",") {
		omitempty = omitempty || o == "omitempty" || o == "omitzero"
	}
	return name, omitempty, false
}

// field describes one struct field with its tags.
func (b *builder) field(sc *scope, where string, t reflect.Type, omitempty bool, tags tagSet) Schema {
	nullable := t.Kind() == reflect.Pointer && !omitempty
	if v, ok := tags.lookup("nullable"); ok {
		nullable = v == "true"
	}
	var s Schema
	if name, ok := tags.lookup("ref"); ok {
		s = ref(name)
	} else {
		s = b.typeSchema(sc, t)
	}
	b.applyTags(where, s, jsonType(t), tags, "")
	if items, ok := s["items"].(Schema); ok {
		elem := derefType(t).Elem()
		if name, ok := tags.lookup("items.ref"); ok {
			items = ref(name)
		}
		b.applyTags(where+"[]", items, jsonType(elem), tags, "items.")
		s["items"] = wrapRef(items)
	}
	if nullable {
		s["nullable"] = true
		if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, nil) {
			// OpenAPI 3.0.3: an enum must list null for null to be valid.
			s["enum"] = append(enum, nil)
		}
		if _, typed := s["type"]; !typed {
			// OpenAPI 3.0 reads nullable only beside a type.
			switch jt := jsonType(t); jt {
			case "":
			case "array":
				// An array type needs its items beside it, which the
				// reference holds.
				b.errorf("%s: a nullable reference to an array; make the named schema nullable", where)
			default:
				s["type"] = jt
			}
		}
	}
	return wrapRef(s)
}

// wrapRef puts a reference that has siblings into an allOf: beside $ref,
// OpenAPI 3.0 ignores every other keyword.
func wrapRef(s Schema) Schema {
	r, ok := s["$ref"]
	if !ok || len(s) == 1 {
		return s
	}
	delete(s, "$ref")
	s["allOf"] = []any{Schema{"$ref": r}}
	return s
}

// jsonType is the JSON Schema type a Go value encodes as.
func jsonType(t reflect.Type) string {
	t = derefType(t)
	switch {
	case t == timeType:
		return "string"
	case t == rawType:
		return ""
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return ""
}
