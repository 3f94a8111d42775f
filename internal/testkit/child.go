package testkit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/listener"
)

// ServeChild serves the app from the environment as `marketplace serve`
// does, for tests whose binary runs itself again as a server process
// (replicas on one database, one Redis). It prints "LISTEN http://addr" on
// stdout once it listens, so a parent that asked for port 0 finds it, logs
// JSON to logTo, stops on SIGTERM and returns the exit code.
func ServeChild(logTo io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	cfg, err := config.Load(os.LookupEnv, nil, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "config:", err)
		return 2
	}
	db, err := app.Open(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		return 1
	}
	defer db.Close()
	a, err := app.New(ctx, cfg, db, app.Options{Logger: slog.New(slog.NewJSONHandler(logTo, nil))})
	if err != nil {
		fmt.Fprintln(os.Stderr, "app:", err)
		return 1
	}
	defer a.Close()
	ln, err := listener.Listen(cfg.Addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		return 1
	}
	fmt.Printf("LISTEN http://%s\n", ln.Addr())
	if err := a.Serve(ctx, ln); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}
