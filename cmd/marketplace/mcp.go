package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/httpapi/mcpserver"
)

// runMCP is `marketplace mcp --url URL`: a stdio MCP server for desktop
// agent hosts that forwards every call to a remote marketplace's /mcp with
// the agent key from MARKETPLACE_AGENT_KEY. Stdout carries MCP messages
// only; everything else goes to stderr.
func runMCP(ctx context.Context, args []string, getenv config.Lookup, stderr io.Writer,
	transport mcp.Transport) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", "", "the marketplace's MCP endpoint, e.g. https://market.example/mcp")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: marketplace mcp --url https://<marketplace>/mcp\n"+
			"Serves the marketplace's tools over stdio; the agent key is read from %s.\n", mcpserver.KeyEnv)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *url == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	key, _ := getenv(mcpserver.KeyEnv)
	if key == "" {
		fmt.Fprintf(stderr, "mcp: %s is not set: export the agent key your owner created (mk_...); "+
			"it is never taken from the command line\n", mcpserver.KeyEnv)
		return 2
	}
	p := &mcpserver.Proxy{URL: *url, Key: key, Version: app.Version}
	if err := p.Run(ctx, transport); err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "mcp:", err)
		return 1
	}
	return 0
}
