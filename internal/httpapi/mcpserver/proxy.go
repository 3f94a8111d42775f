package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

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
// has them), each forwarded as is. Close the remote when done.
func (p *Proxy) Connect(ctx context.Context) (*mcp.Server, *Remote, error) {
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
	r := &Remote{dial: func(ctx context.Context) (*mcp.ClientSession, error) {
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.URL, HTTPClient: hc,
			DisableStandaloneSSE: true}, nil)
		if err != nil {
			return nil, fmt.Errorf("connect to %s: %w", p.URL, err)
		}
		return cs, nil
	}}
	cs, err := r.session(ctx)
	if err != nil {
		return nil, nil, err
	}
	srv, err := mirror(ctx, cs, r, func(ctx context.Context) *mcp.CallToolResult { return p.refused(ctx, hc) })
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	return srv, r, nil
}

// Remote is the proxy's client session to the remote server. The remote
// closes a session when it refuses a request at the HTTP level (a key
// frozen mid-session answers 403 before MCP); the next call then opens a
// new one, so a key unfrozen later works again without restarting the host.
type Remote struct {
	dial func(context.Context) (*mcp.ClientSession, error)
	mu   sync.Mutex
	cs   *mcp.ClientSession
}

func (r *Remote) session(ctx context.Context) (*mcp.ClientSession, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cs != nil {
		return r.cs, nil
	}
	cs, err := r.dial(ctx)
	if err != nil {
		return nil, err
	}
	r.cs = cs
	return cs, nil
}

// drop forgets cs after a failed call, so the next call dials again.
func (r *Remote) drop(cs *mcp.ClientSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cs == cs {
		r.cs = nil
		_ = cs.Close()
	}
}

// Close closes the current session, if any.
func (r *Remote) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cs == nil {
		return nil
	}
	err := r.cs.Close()
	r.cs = nil
	return err
}

// Run serves the remote on t (stdio) until the host hangs up or ctx ends.
func (p *Proxy) Run(ctx context.Context, t mcp.Transport) error {
	srv, r, err := p.Connect(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	return srv.Run(ctx, t)
}

// mirror is a server with the remote session's tools, resources and
// prompts, whose handlers forward to the remote.
func mirror(ctx context.Context, cs *mcp.ClientSession, r *Remote,
	refused func(context.Context) *mcp.CallToolResult) (*mcp.Server, error) {
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
		callTool := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			params := &mcp.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments, Meta: req.Params.Meta}
			cs, err := r.session(ctx)
			if err == nil {
				var res *mcp.CallToolResult
				if res, err = cs.CallTool(ctx, params); err == nil {
					return res, nil
				}
				r.drop(cs)
			}
			if res := refused(ctx); res != nil {
				return res, nil
			}
			return nil, err
		}
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("list the remote tools: %w", err)
			}
			srv.AddTool(t, callTool)
		}
	}
	if caps != nil && caps.Resources != nil {
		forward := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			cs, err := r.session(ctx)
			if err != nil {
				return nil, err
			}
			res, err := cs.ReadResource(ctx, req.Params)
			if err != nil {
				r.drop(cs)
			}
			return res, err
		}
		for res, err := range cs.Resources(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("list the remote resources: %w", err)
			}
			srv.AddResource(res, forward)
		}
		for rt, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("list the remote resource templates: %w", err)
			}
			srv.AddResourceTemplate(rt, forward)
		}
	}
	if caps != nil && caps.Prompts != nil {
		getPrompt := func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			cs, err := r.session(ctx)
			if err != nil {
				return nil, err
			}
			res, err := cs.GetPrompt(ctx, req.Params)
			if err != nil {
				r.drop(cs)
			}
			return res, err
		}
		for pr, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("list the remote prompts: %w", err)
			}
			srv.AddPrompt(pr, getPrompt)
		}
	}
	return srv, nil
}

// refused turns a call the remote refused at the HTTP level (the key was
// frozen, revoked or its owner suspended since the session began: 401 or
// 403 before any MCP message) into the tool error an agent can act on,
// {code, message, details}, by asking the remote who the key is. Nil when
// the key is fine (the failure was something else).
func (p *Proxy) refused(ctx context.Context, hc *http.Client) *mcp.CallToolResult {
	base := strings.TrimSuffix(strings.TrimSuffix(p.URL, "/"), Path)
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/v1/auth/whoami", nil)
	if err != nil {
		return nil
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return nil
	}
	var env struct {
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&env) != nil || env.Error.Code == "" {
		return nil
	}
	if env.Error.Details == nil {
		env.Error.Details = map[string]any{}
	}
	raw, _ := json.Marshal(env.Error)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}},
		StructuredContent: json.RawMessage(raw)}
}
