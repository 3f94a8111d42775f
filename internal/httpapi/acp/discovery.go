package acp

import (
	"net/http"

	"marketplace/internal/httpapi"
)

// DiscoveryPath is where agents find the binding (ACP's discovery RFC).
const DiscoveryPath = "/.well-known/acp.json"

type discovery struct {
	Protocol     discoveryProtocol `json:"protocol"`
	APIBaseURL   string            `json:"api_base_url"`
	Transports   []string          `json:"transports"`
	Capabilities discoveryCaps     `json:"capabilities"`
}

type discoveryProtocol struct {
	Name              string   `json:"name"`
	Version           string   `json:"version"`
	SupportedVersions []string `json:"supported_versions"`
}

type discoveryCaps struct {
	Services            []string `json:"services"`
	SupportedCurrencies []string `json:"supported_currencies"`
	SupportedLocales    []string `json:"supported_locales"`
}

// discovery is GET /.well-known/acp.json: the protocol, where its REST
// binding lives, its transports and the services offered. "mcp" says the
// checkout tools of ACP's MCP binding are served; their endpoint (/mcp,
// with an agent key) is told out of band, as the binding has it: the
// document has no field for it.
func (b *Binding) discovery(w http.ResponseWriter, r *http.Request) error {
	echo(w, r)
	services := []string{"checkout"}
	if b.Sandbox && b.Vault != nil {
		services = append(services, "delegate_payment") // the sandbox processor is the PSP
	}
	httpapi.WriteJSON(w, http.StatusOK, discovery{
		Protocol:   discoveryProtocol{Name: "acp", Version: Version, SupportedVersions: SupportedVersions},
		APIBaseURL: b.Ops.PublicURL + Prefix,
		Transports: []string{"rest", "mcp"},
		Capabilities: discoveryCaps{Services: services, SupportedCurrencies: []string{"usd"},
			SupportedLocales: []string{"en-US"}},
	})
	return nil
}
