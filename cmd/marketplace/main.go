// Command marketplace runs the resale marketplace service.
//
//	marketplace [serve] [flags]   run the service (the default)
//	marketplace migrate [flags]   apply database migrations and exit
//	marketplace seed --listings N [flags]
//	                              add N synthetic listings (benchmarks, demos)
//	marketplace openapi [-variant a|b] [-indent]
//	                              print a published OpenAPI document (JSON)
//	marketplace mcp --url URL     serve a remote /mcp over stdio (MCP hosts);
//	                              the key comes from MARKETPLACE_AGENT_KEY
//	marketplace version           print the version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/listener"
	"marketplace/internal/seed"
)

// defaultGCPercent trades memory for latency: the service's live heap is a
// few megabytes, and collecting at 5x instead of 2x it cut p99 latency under
// load (docs/performance.md). GOGC in the environment still rules.
const defaultGCPercent = 400

// defaultMemoryLimit is the Go heap's soft limit unless GOMEMLIMIT is set:
// at GOGC 400 a live heap of 60 MB would let the heap reach 300 MB before a
// collection; past this the collector runs sooner instead. It bounds the Go
// heap, not SQLite's memory map of the database (docs/performance.md, Memory).
const defaultMemoryLimit = 256 << 20

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, getenv config.Lookup, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "version":
		fmt.Fprintln(stdout, app.Version)
		return 0
	case "serve", "migrate":
	case "openapi":
		return runOpenAPI(args, stdout, stderr)
	case "mcp":
		return runMCP(ctx, args, getenv, stderr, &mcp.StdioTransport{})
	case "seed":
		var err error
		var opts seed.Options
		if opts, args, err = seedFlags(args, stderr); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			fmt.Fprintln(stderr, "seed:", err)
			return 2
		}
		return runSeed(ctx, opts, args, getenv, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "unknown command %q; use serve, migrate, seed, openapi, mcp or version\n", cmd)
		return 2
	}
	cfg, code, ok := loadConfig(getenv, args, stderr)
	if !ok {
		return code
	}
	log := newLogger(stderr, cfg.LogLevel)
	// Libraries that print through the standard log package land in the
	// same JSON log: every line on stderr is one JSON object.
	slog.SetDefault(log)
	db, err := app.Open(ctx, cfg)
	if err != nil {
		log.Error("open database", "err", err.Error())
		return 1
	}
	defer db.Close()
	if cmd == "migrate" {
		log.Info("migrations applied", "database", string(db.Dialect()))
		return 0
	}
	a, err := app.New(ctx, cfg, db, app.Options{Logger: log})
	if err != nil {
		log.Error("start", "err", err.Error())
		return 1
	}
	defer a.Close()
	ln, err := listener.Listen(cfg.Addr)
	if err != nil {
		log.Error("listen", "err", err.Error())
		return 1
	}
	// Start-up leaves some 100 MB of garbage (migrations, the OpenAPI
	// documents, the catalogue): at GOGC 400 it would sit until the heap
	// reached five times the live set. Collect it now and give it back.
	debug.FreeOSMemory()
	if err := a.Serve(ctx, ln); err != nil {
		log.Error("serve", "err", err.Error())
		return 1
	}
	log.Info("stopped")
	return 0
}

// loadConfig reads the configuration; when it cannot go on it says so and
// gives the exit code (0 after -h).
func loadConfig(getenv config.Lookup, args []string, stderr io.Writer) (config.Config, int, bool) {
	cfg, err := config.Load(getenv, args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return cfg, 0, false
	}
	if err != nil {
		fmt.Fprintln(stderr, "config:", err)
		return cfg, 2, false
	}
	return cfg, 0, true
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l}))
}
