package apidoc

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// tagSet is a field's struct tag with a component's overrides on top.
type tagSet struct{ own, over reflect.StructTag }

func (t tagSet) lookup(key string) (string, bool) {
	if v, ok := t.over.Lookup(key); ok {
		return v, true
	}
	return t.own.Lookup(key)
}

// valueTags are the tags copied into a schema, by how their value is read.
var valueTags = []struct {
	key  string
	kind string // "text", "int", "number", "bool", "list" or "value" (the field's JSON type)
}{
	{"doc", "text"},
	{"format", "text"},
	{"pattern", "text"},
	{"enum", "list"},
	{"example", "value"},
	{"default", "value"},
	{"minimum", "number"},
	{"maximum", "number"},
	{"exclusiveMinimum", "bool"},
	{"exclusiveMaximum", "bool"},
	{"minLength", "int"},
	{"maxLength", "int"},
	{"minItems", "int"},
	{"maxItems", "int"},
	{"uniqueItems", "bool"},
}

// knownTags are every key a wire struct's tag may hold; anything else is a
// typo that would silently drop a fact from the document. (snake is a
// view's Variant B name, read by httpapi.Spell: a document reads the json
// name of the type it is given, the view or its twin.)
var knownTags = map[string]bool{"json": true, "ref": true, "nullable": true, "required": true, "snake": true}

func init() {
	for _, v := range valueTags {
		knownTags[v.key] = true
	}
}

// applyTags copies the tags (those under prefix: "" for the field, "items."
// for its items) into s, whose values are of JSON type jt.
func (b *builder) applyTags(where string, s Schema, jt string, tags tagSet, prefix string) {
	for _, v := range valueTags {
		raw, ok := tags.lookup(prefix + v.key)
		if !ok {
			continue
		}
		key := v.key
		if key == "doc" {
			key = "description"
		}
		val, err := tagValue(v.kind, jt, raw)
		if err != nil {
			b.errorf("%s: tag %s%s:%q: %v", where, prefix, v.key, raw, err)
			continue
		}
		s[key] = val
	}
}

func tagValue(kind, jt, raw string) (any, error) {
	switch kind {
	case "text":
		return docText(raw), nil
	case "int":
		return strconv.Atoi(raw)
	case "number":
		return number(raw)
	case "bool":
		return strconv.ParseBool(raw)
	case "list":
		var out []any
		for _, item := range strings.Split(raw, ",") {
			v, err := tagValue("value", jt, item)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	// A value of the field's own JSON type; strings are taken as written.
	switch jt {
	case "integer", "number":
		return number(raw)
	case "boolean":
		return strconv.ParseBool(raw)
	case "string":
		return raw, nil
	}
	var v any
	err := json.Unmarshal([]byte(raw), &v)
	return v, err
}

// number keeps integers integral, so the document says 1, not 1.0.
func number(raw string) (any, error) {
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return n, nil
	}
	return strconv.ParseFloat(raw, 64)
}

// checkTags reports tag keys that no one reads, in the components' types and
// in their Fields overrides.
func (b *builder) checkTags(components []Component) {
	seen := map[reflect.Type]bool{}
	for _, c := range components {
		var data any = c.Of
		if c.envelope != nil {
			data = c.envelope.data
		}
		var bad []string
		if alts, ok := data.(OneOf); ok {
			for _, a := range alts {
				bad = append(bad, unknownTags(reflect.TypeOf(a), seen)...)
			}
		} else if data != nil {
			bad = unknownTags(reflect.TypeOf(data), seen)
		}
		for name, tag := range c.Fields {
			for _, key := range tagKeys(reflect.StructTag(tag)) {
				if !knownTags[strings.TrimPrefix(key, "items.")] || key == "json" {
					bad = append(bad, c.Name+".Fields["+name+"]: unknown tag "+key)
				}
			}
		}
		for _, msg := range bad {
			b.errorf("%s", msg)
		}
	}
}

// unknownTags lists the tag keys of t's fields, and of the structs within,
// that no one reads.
func unknownTags(t reflect.Type, seen map[reflect.Type]bool) []string {
	t = derefType(t)
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return unknownTags(t.Elem(), seen)
	case reflect.Struct:
	default:
		return nil
	}
	if seen[t] || t == timeType {
		return nil
	}
	seen[t] = true
	var bad []string
	for i := range t.NumField() {
		f := t.Field(i)
		for _, key := range tagKeys(f.Tag) {
			if !knownTags[strings.TrimPrefix(key, "items.")] || key == "items.json" {
				bad = append(bad, t.String()+"."+f.Name+": unknown tag "+key)
			}
		}
		bad = append(bad, unknownTags(f.Type, seen)...)
	}
	return bad
}

// tagKeys lists the keys of a conventional struct tag.
func tagKeys(tag reflect.StructTag) []string {
	var keys []string
	s := string(tag)
	for {
		s = strings.TrimLeft(s, " ")
		key, rest, ok := strings.Cut(s, ":")
		if !ok || len(rest) == 0 || rest[0] != '"' {
			return keys
		}
		keys = append(keys, key)
		// Skip the quoted value, escapes included.
		i := 1
		for i < len(rest) && rest[i] != '"' {
			if rest[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(rest) {
			return keys
		}
		s = rest[i+1:]
	}
}
