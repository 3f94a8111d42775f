package openapi

import (
	"fmt"

	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/agentv1"
	"marketplace/internal/httpapi/apidoc"
	"marketplace/internal/httpapi/apiv1"
	"marketplace/internal/httpapi/ops"
	"marketplace/internal/httpapi/web"
)

// components lists, per document, the component schemas made from Go wire
// types; the YAML holds the paths, the envelope's frame and the enums.
var components = map[string]func() []apidoc.Component{
	A: func() []apidoc.Component {
		return join(apiv1.Components(), ops.Components(), web.Components(), httpapi.ShippingComponents(httpapi.Camel))
	},
	B: func() []apidoc.Component {
		return join(agentv1.Components(), httpapi.ShippingComponents(httpapi.Snake))
	},
}

func join(lists ...[]apidoc.Component) []apidoc.Component {
	var out []apidoc.Component
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// addComponents reflects the Go types into doc's component schemas. A name
// the YAML defines too is an error, as between fragments.
func addComponents(doc map[string]any, list []apidoc.Component) error {
	schemas, err := apidoc.Build(list)
	if err != nil {
		return err
	}
	comps, _ := doc["components"].(map[string]any)
	if comps == nil {
		comps = map[string]any{}
		doc["components"] = comps
	}
	dst, _ := comps["schemas"].(map[string]any)
	if dst == nil {
		dst = map[string]any{}
		comps["schemas"] = dst
	}
	for name, s := range schemas {
		if _, dup := dst[name]; dup {
			return fmt.Errorf("schema %q is defined both in YAML and by a Go type", name)
		}
		dst[name] = s
	}
	return nil
}
