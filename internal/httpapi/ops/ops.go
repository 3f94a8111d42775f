// Package ops serves what operators and client generators need: the API
// directory, health checks, the manifest, the OpenAPI documents, metrics
// and the processor's publishable key.
package ops

import (
	"context"
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/agentv1"
	"marketplace/internal/market"
)

// Check is one dependency that /health/deep probes.
type Check struct {
	Name string // database, cache, jobs
	Run  func(ctx context.Context) error
}

// Ops holds what the operational routes report.
type Ops struct {
	Version        string
	Mode           string
	PublicURL      string
	PublishableKey string
	Checks         []Check
	DocA, DocB     []byte // the OpenAPI documents, as JSON
	// Tools is the agent tool catalogue (set once it is built, before
	// serving): the manifest's capabilities and the agent guides name it.
	Tools []agentv1.Tool
	// Settings gives the guides the limits an admin may change.
	Settings Settings

	// Home serves "/" to a browser (the web console's front page); a
	// client asking for JSON keeps the directory.
	Home httpapi.HandlerFunc

	routes *httpapi.Router
}

// Register adds the operational routes, under /api/v1 and at the root.
func (o *Ops) Register(rt *httpapi.Router) {
	o.routes = rt
	for _, p := range []string{"", "/api/v1"} {
		rt.In("discovery").Handle("GET", p+"/", httpapi.Public, o.directory)
		rt.In("health").Handle("GET", p+"/health", httpapi.Public, o.health)
		rt.In("health").Handle("GET", p+"/health/deep", httpapi.Public, o.deep)
	}
	rt.In("purchases").Handle("GET", "/api/v1/config/stripe-publishable-key", httpapi.Public, o.publishableKey)
	rt.In("discovery").Handle("GET", "/api/v1/manifest", httpapi.Public, o.manifest)
	rt.In("discovery").HandleRaw("GET", "/api/v1/openapi.json", document(o.DocA))
	rt.In("discovery").HandleRaw("GET", "/v1/openapi.json", document(o.DocB))
	rt.In("agent_guides").HandleRaw("GET", LLMsPath, o.guide(llmsTmpl, "text/plain; charset=utf-8"))
	rt.In("agent_guides").HandleRaw("GET", SkillPath, o.guide(skillTmpl, "text/markdown; charset=utf-8"))
}

func document(doc []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(doc)
	})
}

// links are the directory's and the manifest's pointers, in the order of
// the map they replace.
type links struct {
	AgentGuide    string `json:"agentGuide" doc:"The agent guide (Markdown), generated from this server."`
	AgentSurface  string `json:"agentSurface"`
	Documentation string `json:"documentation"`
	Health        string `json:"health"`
	HumanSurface  string `json:"humanSurface"`
	LLMsTxt       string `json:"llmsTxt" doc:"What the marketplace is, for language models (llms.txt)."`
	Manifest      string `json:"manifest"`
	MCP           string `json:"mcp" doc:"The MCP endpoint (Streamable HTTP)."`
	OpenAPI       string `json:"openapi"`
	OpenAPIAgent  string `json:"openapiAgent"`
	Self          string `json:"self"`
	ToolsOpenAI   string `json:"toolsOpenai" doc:"The agent tools in OpenAI's function-calling format."`
}

func (o *Ops) links() links {
	return links{
		Self:          o.PublicURL + "/api/v1/",
		OpenAPI:       o.PublicURL + "/api/v1/openapi.json",
		OpenAPIAgent:  o.PublicURL + "/v1/openapi.json",
		Manifest:      o.PublicURL + "/api/v1/manifest",
		Health:        o.PublicURL + "/api/v1/health",
		AgentSurface:  o.PublicURL + "/v1",
		HumanSurface:  o.PublicURL + "/api/v1",
		Documentation: o.PublicURL + "/api/v1/openapi.json",
		AgentGuide:    o.PublicURL + SkillPath,
		LLMsTxt:       o.PublicURL + LLMsPath,
		MCP:           o.PublicURL + "/mcp",
		ToolsOpenAI:   o.PublicURL + "/v1/tools/openai",
	}
}

type directoryView struct {
	Description string `json:"description"`
	Links       links  `json:"links"`
	Mode        string `json:"mode" ref:"Mode"`
	Name        string `json:"name"`
	Version     string `json:"version"`
}

func (o *Ops) directory(w http.ResponseWriter, r *http.Request) error {
	if o.Home != nil && r.URL.Path == "/" && httpapi.WantsHTML(r) {
		return o.Home(w, r)
	}
	return httpapi.OK(w, r, http.StatusOK, directoryView{
		Name: "marketplace", Version: o.Version, Mode: o.Mode,
		Description: "A resale marketplace where AI agents and humans buy and sell second-hand goods.",
		Links:       o.links(),
	})
}

type healthView struct {
	Status  string `json:"status" enum:"ok"`
	Version string `json:"version"`
}

func (o *Ops) health(w http.ResponseWriter, r *http.Request) error {
	return httpapi.OK(w, r, http.StatusOK, healthView{Status: "ok", Version: o.Version})
}

type checkResult struct {
	Status    string  `json:"status" enum:"ok,fail"`
	LatencyMs float64 `json:"latencyMs"`
	Error     string  `json:"error,omitempty" doc:"Present when the check failed."`
}

type deepHealthView struct {
	Checks  map[string]checkResult `json:"checks" doc:"One entry per dependency (database, cache, jobs)."`
	Status  string                 `json:"status" enum:"ok"`
	Version string                 `json:"version"`
}

func (o *Ops) deep(w http.ResponseWriter, r *http.Request) error {
	results := map[string]checkResult{}
	var failed []string
	for _, c := range o.Checks {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		start := time.Now()
		err := c.Run(ctx)
		cancel()
		res := checkResult{Status: "ok", LatencyMs: float64(time.Since(start).Microseconds()) / 1000}
		if err != nil {
			res.Status, res.Error = "fail", "unreachable"
			failed = append(failed, c.Name)
		}
		results[c.Name] = res
	}
	if len(failed) > 0 {
		return market.Errorf(market.CodeUnavailable, "unhealthy: %v", failed).
			WithDetails(map[string]any{"status": "fail", "failed": failed, "checks": results})
	}
	return httpapi.OK(w, r, http.StatusOK, deepHealthView{Status: "ok", Version: o.Version, Checks: results})
}

type publishableKeyView struct {
	Mode           string `json:"mode" ref:"Mode"`
	PublishableKey string `json:"publishableKey"`
}

func (o *Ops) publishableKey(w http.ResponseWriter, r *http.Request) error {
	return httpapi.OK(w, r, http.StatusOK, publishableKeyView{PublishableKey: o.PublishableKey, Mode: o.Mode})
}

type manifestView struct {
	APIVersion   string   `json:"apiVersion" doc:"The interface version."`
	Capabilities []string `json:"capabilities" items.enum:"accounts,acp,activity,addresses,admin,agent_guides,agent_keys,agent_onboarding,approvals,categories,console,discovery,disputes,events,health,identity_verification,listings,mcp,messages,notifications,offers,openai_tools,orders,payment_methods,payouts,photos,profiles,purchases,refunds,sandbox,search,seller_dashboard,shipping,spending_controls,watchlist,webhooks" doc:"The areas of the service this server offers, sorted: an area is named when the server serves a route of it or an agent tool (MCP, /v1/tools/openai) of it, so it says what this deployment runs (sandbox only in sandbox mode). Every served route belongs to at least one area."`
	Links        links    `json:"links"`
	Name         string   `json:"name"`
	Version      string   `json:"version" doc:"The service build."`
}

func (o *Ops) manifest(w http.ResponseWriter, r *http.Request) error {
	return httpapi.OK(w, r, http.StatusOK, manifestView{
		Name:         "marketplace",
		Version:      o.Version,
		APIVersion:   "1.0",
		Capabilities: o.Capabilities(),
		Links:        o.links(),
	})
}

// Capabilities are the manifest's: what the routes serve and the areas of
// the tool catalogue.
func (o *Ops) Capabilities() []string {
	var routes []httpapi.Route
	if o.routes != nil {
		routes = o.routes.Routes()
	}
	areas := make([]string, len(o.Tools))
	for i := range o.Tools {
		areas[i] = o.Tools[i].Area
	}
	return capabilities(routes, areas)
}
