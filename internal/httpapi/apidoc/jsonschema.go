package apidoc

import (
	"fmt"
	"reflect"
	"slices"
)

// JSONSchema describes a request type (the argument struct of a tool) as a
// standalone JSON Schema (draft 2020-12), for clients that are not OpenAPI
// readers: MCP hosts and function-calling models. It is the schema Build
// would publish for the type as a request body, with OpenAPI 3.0's
// spellings turned into JSON Schema's: nullable becomes a type list, a
// boolean exclusiveMinimum a number, example a list of examples. Nested
// structs are inlined; extra properties are refused.
func JSONSchema(v any) (Schema, error) {
	t := reflect.TypeOf(v)
	if t == nil || derefType(t).Kind() != reflect.Struct {
		return nil, fmt.Errorf("apidoc: JSONSchema wants a struct, not %T", v)
	}
	out, err := Build([]Component{{Name: "input", Of: reflect.New(derefType(t)).Elem().Interface(), Request: true, Closed: true}})
	if err != nil {
		return nil, err
	}
	s := out["input"]
	toJSONSchema(s)
	return s, nil
}

// toJSONSchema rewrites one OpenAPI 3.0 schema, and those inside it, in
// place.
func toJSONSchema(s Schema) {
	if s["nullable"] == true {
		delete(s, "nullable")
		if t, ok := s["type"].(string); ok {
			s["type"] = []any{t, "null"}
		}
	}
	if s["exclusiveMinimum"] == true {
		s["exclusiveMinimum"] = s["minimum"]
		delete(s, "minimum")
	}
	if s["exclusiveMaximum"] == true {
		s["exclusiveMaximum"] = s["maximum"]
		delete(s, "maximum")
	}
	if ex, ok := s["example"]; ok {
		s["examples"] = []any{ex}
		delete(s, "example")
	}
	if enum, ok := s["enum"].([]any); ok && slices.Contains(enum, nil) {
		if t, ok := s["type"].(string); ok {
			s["type"] = []any{t, "null"}
		}
	}
	for _, key := range []string{"items", "additionalProperties"} {
		if sub, ok := s[key].(Schema); ok {
			toJSONSchema(sub)
		}
	}
	if props, ok := s["properties"].(Schema); ok {
		for _, p := range props {
			if sub, ok := p.(Schema); ok {
				toJSONSchema(sub)
			}
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := s[key].([]any); ok {
			for _, x := range list {
				if sub, ok := x.(Schema); ok {
					toJSONSchema(sub)
				}
			}
		}
	}
}
