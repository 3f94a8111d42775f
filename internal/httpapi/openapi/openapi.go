// Package openapi holds the published OpenAPI 3.0 documents: apiv1.yaml for
// Variant A (/api/v1) and agentv1.yaml for Variant B (/v1). They are written
// by hand, and a test proves they list exactly the operations the router
// serves; API tests validate every request and response against them.
package openapi

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

//go:embed apiv1.yaml agentv1.yaml
var files embed.FS

// Names of the two documents.
const (
	A = "apiv1.yaml"
	B = "agentv1.yaml"
)

// Load parses and validates one document.
func Load(name string) (*openapi3.T, error) {
	data, err := files.ReadFile(name)
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

// JSON returns a document as JSON, as it is served.
func JSON(name string) ([]byte, error) {
	doc, err := Load(name)
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}
