// Package openapi holds the published OpenAPI 3.0 documents: apiv1.yaml for
// Variant A (/api/v1) and agentv1.yaml for Variant B (/v1). A test proves
// they list exactly the operations the router serves; API tests validate
// every request and response against them.
//
// The paths, parameters, responses, the envelope's frame and the enums are
// written in YAML. The schemas of request and response bodies are not: they
// are reflected from the Go wire types (package apidoc; the lists are in
// components.go) when a document is assembled, so a field added to a wire
// type is published without editing YAML.
//
// Each document is its base file plus its fragments in paths/*.yaml, one
// file per subject holding both documents' parts of it, side by side: under
// `apiv1:` Variant A's, under `agentv1:` Variant B's (so the two spellings
// of one operation are written, and read, together). A fragment holds
// `paths`, `components` and `tags` entries that are merged into the base; it
// may refer to the base's components and the base to its. A name defined
// twice (in two files, or in YAML and by a Go type) is an error, so nothing
// is overridden silently.
package openapi

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v3"

	"marketplace/internal/httpapi"
)

//go:embed apiv1.yaml agentv1.yaml paths
var files embed.FS

// Names of the two documents.
const (
	A = "apiv1.yaml"
	B = "agentv1.yaml"
)

// Load parses and validates one document.
func Load(name string) (*openapi3.T, error) {
	data, err := assemble(name)
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return doc, nil
}

// assemble merges a base document and its fragments into one JSON document.
func assemble(name string) ([]byte, error) {
	base, err := readYAML(name)
	if err != nil {
		return nil, err
	}
	doc := strings.TrimSuffix(name, ".yaml")
	entries, err := fs.ReadDir(files, "paths")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".yaml") {
			names = append(names, path.Join("paths", e.Name()))
		}
	}
	sort.Strings(names)
	for _, fn := range names {
		parts, err := readYAML(fn)
		if err != nil {
			return nil, err
		}
		for key := range parts {
			if key != "apiv1" && key != "agentv1" {
				return nil, fmt.Errorf("%s: a fragment file holds only apiv1 and agentv1, not %q", fn, key)
			}
		}
		frag, ok := parts[doc].(map[string]any)
		if parts[doc] != nil && !ok {
			return nil, fmt.Errorf("%s: %s must be a map", fn, doc)
		}
		if err := merge(base, frag, fn+": "+doc); err != nil {
			return nil, err
		}
	}
	if err := addComponents(base, components[name]()); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	addInputRefusals(base)
	if err := addFeatureGates(base, name, httpapi.FeatureRoutes); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := addRateLimits(base); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return json.Marshal(base)
}

// addInputRefusals gives every operation that takes input (a path, query or
// header parameter, or a body) a 400 answer when it documents none: the
// HTTP edge refuses control characters and invalid UTF-8 in any of them
// before the operation runs (httpapi.checkInput), so each may answer
// VALIDATION_ERROR whatever its own rules.
func addInputRefusals(doc map[string]any) {
	paths, _ := doc["paths"].(map[string]any)
	for _, item := range paths {
		ops, _ := item.(map[string]any)
		shared, _ := ops["parameters"].([]any)
		for method, v := range ops {
			op, ok := v.(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			own, _ := op["parameters"].([]any)
			_, body := op["requestBody"]
			responses, _ := op["responses"].(map[string]any)
			if _, has := responses["400"]; has || responses == nil || len(shared)+len(own) == 0 && !body {
				continue
			}
			responses["400"] = map[string]any{"$ref": "#/components/responses/BadRequest"}
		}
	}
}

func readYAML(name string) (map[string]any, error) {
	data, err := files.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// merge adds a fragment's paths, components (per section) and tags to base.
func merge(base, frag map[string]any, from string) error {
	for key, v := range frag {
		switch key {
		case "paths":
			if err := mergeMap(base, "paths", v, from); err != nil {
				return err
			}
		case "components":
			sections, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: components must be a map", from)
			}
			comps, _ := base["components"].(map[string]any)
			if comps == nil {
				comps = map[string]any{}
				base["components"] = comps
			}
			for section, entries := range sections {
				if err := mergeMap(comps, section, entries, from+": components."+section); err != nil {
					return err
				}
			}
		case "tags":
			tags, ok := v.([]any)
			if !ok {
				return fmt.Errorf("%s: tags must be a list", from)
			}
			existing, _ := base["tags"].([]any)
			base["tags"] = append(existing, tags...)
		default:
			return fmt.Errorf("%s: a fragment may hold only paths, components and tags, not %q", from, key)
		}
	}
	return nil
}

func mergeMap(parent map[string]any, key string, add any, from string) error {
	entries, ok := add.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: %s must be a map", from, key)
	}
	dst, _ := parent[key].(map[string]any)
	if dst == nil {
		dst = map[string]any{}
		parent[key] = dst
	}
	for name, v := range entries {
		if _, dup := dst[name]; dup {
			return fmt.Errorf("%s: %s %q is already defined", from, key, name)
		}
		dst[name] = v
	}
	return nil
}

// JSON returns a document as JSON, as it is served.
func JSON(name string) ([]byte, error) {
	v, _ := published.LoadOrStore(name, sync.OnceValues(func() ([]byte, error) {
		doc, err := Load(name)
		if err != nil {
			return nil, err
		}
		return json.Marshal(doc)
	}))
	return v.(func() ([]byte, error))()
}

// published caches each document's JSON: the documents are embedded in the
// binary, so they are assembled and validated once per process, however many
// servers (tests start hundreds) serve them.
var published sync.Map
