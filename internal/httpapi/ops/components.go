package ops

import "marketplace/internal/httpapi/apidoc"

// Components are the schemas of the operational answers, in the Variant A
// document.
func Components() []apidoc.Component {
	return []apidoc.Component{
		{Name: "Directory", Of: directoryView{}},
		{Name: "Links", Of: links{}},
		{Name: "Health", Of: healthView{}},
		{Name: "DeepHealth", Of: deepHealthView{}},
		{Name: "CheckResult", Of: checkResult{}},
		{Name: "PublishableKey", Of: publishableKeyView{}},
		{Name: "Manifest", Of: manifestView{}},
		apidoc.Envelope("DirectoryEnvelope", directoryView{}, "Meta"),
		apidoc.Envelope("HealthEnvelope", healthView{}, "Meta"),
		apidoc.Envelope("DeepHealthEnvelope", deepHealthView{}, "Meta"),
		apidoc.Envelope("PublishableKeyEnvelope", publishableKeyView{}, "Meta"),
		apidoc.Envelope("ManifestEnvelope", manifestView{}, "Meta"),
	}
}
