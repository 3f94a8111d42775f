// Package acpcheck validates JSON documents of our Agentic Commerce Protocol
// (ACP) binding for use in tests. It encodes, as Go values, the facts of the
// ACP 2026-04-17 JSON Schema bundle (and, for the order webhook, the webhook
// OpenAPI document): required fields, property types, enums, consts, closed
// objects and nested definitions. The schema files themselves are not copied.
package acpcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/mail"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// kind is a JSON Schema primitive type.
type kind int

const (
	kObject kind = iota + 1
	kArray
	kString
	kInteger
	kNumber
	kBoolean
)

func (k kind) String() string {
	return [...]string{"", "object", "array", "string", "integer", "number", "boolean"}[k]
}

// node is one schema: the subset of JSON Schema keywords ACP uses.
type node struct {
	kinds []kind // allowed types; empty means any JSON value

	// object
	props    map[string]*node
	required []string
	closed   bool  // additionalProperties: false
	extra    *node // additionalProperties: <schema> (when not closed)

	// array
	items    *node
	minItems int
	unique   bool

	// string
	enum    []string
	konst   *string
	pattern *regexp.Regexp
	format  string
	minLen  int
	maxLen  int // -1: unbounded

	// integer / number
	min, max *big.Rat

	// composition
	allOf []*node
	anyOf []*node
	oneOf []*node
	// disc names the property whose const selects the oneOf branch. Using
	// it gives one precise error list instead of "matched no alternative".
	disc string

	// rules are checks JSON Schema expresses with if/then.
	rules []func(obj map[string]any, path string, c *checker)
}

type opt func(*node)

func newNode(k []kind, opts []opt) *node {
	n := &node{kinds: k, maxLen: -1}
	for _, o := range opts {
		o(n)
	}
	return n
}

func object(opts ...opt) *node  { return newNode([]kind{kObject}, opts) }
func str(opts ...opt) *node     { return newNode([]kind{kString}, opts) }
func integer(opts ...opt) *node { return newNode([]kind{kInteger}, opts) }
func number(opts ...opt) *node  { return newNode([]kind{kNumber}, opts) }
func boolean() *node            { return newNode([]kind{kBoolean}, nil) }
func array(items *node, opts ...opt) *node {
	return newNode([]kind{kArray}, append([]opt{func(n *node) { n.items = items }}, opts...))
}

// anyType allows any JSON value (optionally narrowed by kinds).
func anyType(k ...kind) *node { return newNode(k, nil) }

// oneOfBy is a oneOf whose branches are told apart by the const of prop.
func oneOfBy(prop string, branches ...*node) *node {
	return &node{oneOf: branches, disc: prop, maxLen: -1}
}
func oneOf(branches ...*node) *node { return &node{oneOf: branches, maxLen: -1} }
func anyOf(branches ...*node) *node { return &node{anyOf: branches, maxLen: -1} }
func allOf(parts ...*node) *node    { return &node{allOf: parts, maxLen: -1} }

// closed marks an object additionalProperties: false.
func closed(n *node) { n.closed = true }

func prop(name string, s *node) opt {
	return func(n *node) {
		if n.props == nil {
			n.props = map[string]*node{}
		}
		n.props[name] = s
	}
}
func req(names ...string) opt { return func(n *node) { n.required = append(n.required, names...) } }
func extra(s *node) opt       { return func(n *node) { n.extra = s } }
func enum(vals ...string) opt { return func(n *node) { n.enum = vals } }
func konst(v string) opt      { return func(n *node) { n.konst = &v } }
func format(f string) opt     { return func(n *node) { n.format = f } }
func minItems(m int) opt      { return func(n *node) { n.minItems = m } }
func unique(n *node)          { n.unique = true }
func maxLen(m int) opt        { return func(n *node) { n.maxLen = m } }
func minLen(m int) opt        { return func(n *node) { n.minLen = m } }
func pattern(re string) opt   { r := regexp.MustCompile(re); return func(n *node) { n.pattern = r } }
func minimum(m int64) opt     { return func(n *node) { n.min = new(big.Rat).SetInt64(m) } }
func maximum(m int64) opt     { return func(n *node) { n.max = new(big.Rat).SetInt64(m) } }
func rule(f func(map[string]any, string, *checker)) opt {
	return func(n *node) { n.rules = append(n.rules, f) }
}

// Shorthands for recurring shapes.
func dateTime() *node { return str(format("date-time")) }
func uri() *node      { return str(format("uri")) }
func email() *node    { return str(format("email")) }

// requiredOnly builds an anyOf branch carrying only "required" (as the schema does).
func requiredOnly(names ...string) *node { return &node{required: names, maxLen: -1} }

// ValidationError lists every problem found, each prefixed by its JSON path.
type ValidationError struct {
	Problems []string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("%d ACP schema problem(s):\n%s", len(e.Problems), strings.Join(e.Problems, "\n"))
}

type checker struct {
	problems []string
}

func (c *checker) add(path, format string, args ...any) {
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

// decode parses body keeping numbers exact, so integer checks see the text.
func decode(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &ValidationError{Problems: []string{"$: invalid JSON: " + err.Error()}}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &ValidationError{Problems: []string{"$: trailing data after the JSON document"}}
	}
	return v, nil
}

// check validates body against root.
func check(root *node, body []byte) error {
	v, err := decode(body)
	if err != nil {
		return err
	}
	return checkValue(root, v)
}

func checkValue(root *node, v any) error {
	c := &checker{}
	c.validate(root, v, "$")
	if len(c.problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: c.problems}
}

func typeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if isInteger(v) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// isInteger reports whether n is mathematically whole (1.0 counts, as in JSON Schema).
func isInteger(n json.Number) bool {
	r, ok := new(big.Rat).SetString(string(n))
	return ok && r.IsInt()
}

func hasKind(v any, k kind) bool {
	switch k {
	case kObject:
		_, ok := v.(map[string]any)
		return ok
	case kArray:
		_, ok := v.([]any)
		return ok
	case kString:
		_, ok := v.(string)
		return ok
	case kBoolean:
		_, ok := v.(bool)
		return ok
	case kNumber:
		_, ok := v.(json.Number)
		return ok
	case kInteger:
		n, ok := v.(json.Number)
		return ok && isInteger(n)
	}
	return false
}

func (c *checker) validate(n *node, v any, path string) {
	if len(n.kinds) > 0 {
		ok := false
		for _, k := range n.kinds {
			if hasKind(v, k) {
				ok = true
				break
			}
		}
		if !ok {
			names := make([]string, len(n.kinds))
			for i, k := range n.kinds {
				names[i] = k.String()
			}
			c.add(path, "expected %s, got %s", strings.Join(names, " or "), describe(v))
			return
		}
	}
	switch v := v.(type) {
	case map[string]any:
		c.object(n, v, path)
	case []any:
		c.array(n, v, path)
	case string:
		c.str(n, v, path)
	case json.Number:
		c.number(n, v, path)
	}
	for _, p := range n.allOf {
		c.validate(p, v, path)
	}
	if len(n.anyOf) > 0 {
		c.anyOf(n, v, path)
	}
	if len(n.oneOf) > 0 {
		c.oneOf(n, v, path)
	}
}

func describe(v any) string {
	switch v := v.(type) {
	case string:
		return "string " + strconv.Quote(v)
	case json.Number:
		return typeOf(v) + " " + string(v)
	}
	return typeOf(v)
}

func (c *checker) object(n *node, obj map[string]any, path string) {
	for _, r := range n.required {
		if _, ok := obj[r]; !ok {
			c.add(member(path, r), "required property is missing")
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := member(path, k)
		if s, ok := n.props[k]; ok {
			c.validate(s, obj[k], p)
		} else if n.closed {
			c.add(p, "unknown property (additionalProperties is false)")
		} else if n.extra != nil {
			c.validate(n.extra, obj[k], p)
		}
	}
	for _, r := range n.rules {
		r(obj, path, c)
	}
}

func (c *checker) array(n *node, arr []any, path string) {
	if len(arr) < n.minItems {
		c.add(path, "has %d item(s), at least %d required", len(arr), n.minItems)
	}
	if n.unique {
		seen := map[string]int{}
		for i, it := range arr {
			b, _ := json.Marshal(canonical(it))
			if j, dup := seen[string(b)]; dup {
				c.add(index(path, i), "duplicates item %d (uniqueItems)", j)
			} else {
				seen[string(b)] = i
			}
		}
	}
	if n.items != nil {
		for i, it := range arr {
			c.validate(n.items, it, index(path, i))
		}
	}
}

// canonical normalises numbers so 1 and 1.0 compare equal for uniqueItems.
func canonical(v any) any {
	switch v := v.(type) {
	case json.Number:
		r, _ := new(big.Rat).SetString(string(v))
		return r.RatString()
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = canonical(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = canonical(x)
		}
		return out
	}
	return v
}

func (c *checker) str(n *node, s, path string) {
	if n.konst != nil && s != *n.konst {
		c.add(path, "%q must be %q", s, *n.konst)
	}
	if len(n.enum) > 0 && !contains(n.enum, s) {
		c.add(path, "%q is not one of [%s]", s, strings.Join(n.enum, ", "))
	}
	if l := utf8.RuneCountInString(s); l < n.minLen {
		c.add(path, "%q is shorter than %d characters", s, n.minLen)
	} else if n.maxLen >= 0 && l > n.maxLen {
		c.add(path, "string of %d characters is longer than %d", l, n.maxLen)
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		c.add(path, "%q does not match pattern %s", s, n.pattern)
	}
	switch n.format {
	case "date-time":
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			c.add(path, "%q is not an RFC 3339 date-time", s)
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			c.add(path, "%q is not an absolute URI", s)
		}
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			c.add(path, "%q is not an email address", s)
		}
	}
}

func (c *checker) number(n *node, num json.Number, path string) {
	r, _ := new(big.Rat).SetString(string(num))
	if n.min != nil && r.Cmp(n.min) < 0 {
		c.add(path, "%s is less than the minimum %s", num, n.min.RatString())
	}
	if n.max != nil && r.Cmp(n.max) > 0 {
		c.add(path, "%s is greater than the maximum %s", num, n.max.RatString())
	}
}

// sub validates v against n in isolation and returns its problems.
func sub(n *node, v any, path string) []string {
	c := &checker{}
	c.validate(n, v, path)
	return c.problems
}

func (c *checker) anyOf(n *node, v any, path string) {
	var all []string
	for _, b := range n.anyOf {
		p := sub(b, v, path)
		if len(p) == 0 {
			return
		}
		all = append(all, strings.Join(p, "; "))
	}
	c.add(path, "matches none of the anyOf alternatives: (%s)", strings.Join(all, ") or ("))
}

func (c *checker) oneOf(n *node, v any, path string) {
	if n.disc != "" {
		obj, ok := v.(map[string]any)
		if !ok {
			c.add(path, "expected object, got %s", describe(v))
			return
		}
		var names []string
		for _, b := range n.oneOf {
			k := b.props[n.disc].konst
			names = append(names, *k)
			if d, ok := obj[n.disc].(string); ok && d == *k {
				c.validate(b, v, path)
				return
			}
		}
		dp := member(path, n.disc)
		if d, ok := obj[n.disc]; !ok {
			c.add(dp, "required property is missing")
		} else if s, ok := d.(string); ok {
			c.add(dp, "%q is not one of [%s]", s, strings.Join(names, ", "))
		} else {
			c.add(dp, "expected string, got %s", describe(d))
		}
		return
	}
	matched := 0
	var all []string
	for _, b := range n.oneOf {
		p := sub(b, v, path)
		if len(p) == 0 {
			matched++
		} else {
			all = append(all, strings.Join(p, "; "))
		}
	}
	switch {
	case matched == 0:
		c.add(path, "matches none of the oneOf alternatives: (%s)", strings.Join(all, ") or ("))
	case matched > 1:
		c.add(path, "matches %d oneOf alternatives, exactly one allowed", matched)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func member(path, key string) string {
	if identRE.MatchString(key) {
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }
