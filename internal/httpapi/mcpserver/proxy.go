package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// KeyEnv is the environment variable `marketplace mcp` reads the agent key
// from (never a flag: flags show in process listings).
const KeyEnv = "MARKETPLACE_AGENT_KEY"

// Proxy serves a remote marketplace's /mcp on a local transport (stdio in
// `marketplace mcp`): desktop agent hosts start a command and talk MCP on
// its stdin and stdout, and the proxy forwards every call to the remote
// over Streamable HTTP with the agent key.
type Proxy struct {
	URL     string       // the remote endpoint, e.g. https://market.example/mcp
	Key     string       // the agent key, sent as X-Agent-Key
	Client  *http.Client // optional; its transport is wrapped to add the key
	Version string       // the proxy's own version, in its implementation info
}

// agentKeyHeader adds the agent key to every request.
type agentKeyHeader struct {
	key  string
	next http.RoundTripper
}

func (k agentKeyHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Agent-Key", k.key)
	return k.next.RoundTrip(r)
}

// Connect opens a client session to the remote and builds the local server
// that mirrors it: the remote's tools (and resources and prompts, when it
// has them), each forwarded as is. Close the session when done.
func (p *Proxy) Connect(ctx context.Context) (*mcp.Server, *mcp.ClientSession, error) {
	if strings.TrimSpace(p.Key) == "" {
		return nil, nil, fmt.Errorf("no agent key: set %s to the key the owner created (mk_...)", KeyEnv)
	}
	if p.URL == "" {
		return nil, nil, errors.New("no remote URL: pass --url https://<marketplace>/mcp")
	}
	base := http.DefaultTransport
	if p.Client != nil && p.Client.Transport != nil {
		base = p.Client.Transport
	}
	hc := &http.Client{Transport: agentKeyHeader{key: p.Key, next: base}}
	if p.Client != nil {
		hc.Timeout = p.Client.Timeout
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "marketplace-mcp-proxy", Version: p.Version}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.URL, HTTPClient: hc,
		DisableStandaloneSSE: true}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", p.URL, err)
	}
	srv, err := mirror(ctx, cs)
	if err != nil {
		cs.Close()
		return nil, nil, err
	}
	return srv, cs, nil
}

// Run serves the remote on t (stdio) until the host hangs up or ctx ends.
func (p *Proxy) Run(ctx context.Context, t mcp.Transport) error {
	srv, cs, err := p.Connect(ctx)
	if err != nil {
		return err
	}
	defer cs.Close()
	return srv.Run(ctx, t)
}

// mirror is a server with the remote session's tools, resources and
// prompts, whose handlers forward to it.
func mirror(ctx context.Context, cs *mcp.ClientSession) (*mcp.Server, error) {
	init := cs.InitializeResult()
	impl := &mcp.Implementation{Name: "marketplace", Version: "proxy"}
	var instructions string
	var caps *mcp.ServerCapabilities
	if init != nil {
		if init.ServerInfo != nil {
			impl = init.ServerInfo
		}
		instructions, caps = init.Instructions, init.Capabilities
	}
	srv := mcp.NewServer(impl, &mcp.ServerOptions{Instructions: instructions})
	if caps == nil || caps.Tools != nil {
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("list the remote tools: %w", err)
			}
			srv.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				params := &mcp.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments, Meta: req.Params.Meta}
				return cs.CallTool(ctx, params)
			})
		}
	}
	if caps != nil && caps.Resources != nil {
		forward := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return cs.ReadResource(ctx, req.Params)
		}
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("list the remote resources: %w", err)
			}
			srv.AddResource(r, forward)
		}
		for rt, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("list the remote resource templates: %w", err)
			}
			srv.AddResourceTemplate(rt, forward)
		}
	}
	if caps != nil && caps.Prompts != nil {
		for pr, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("list the remote prompts: %w", err)
			}
			srv.AddPrompt(pr, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return cs.GetPrompt(ctx, req.Params)
			})
		}
	}
	return srv, nil
}
