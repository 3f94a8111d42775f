// Command bench measures the service side by side with a bare net/http
// reference, in one run, and prints issue 18's table with ratios:
//
//	go run ./scripts/bench [-n 1000000] [-engine sqlite|postgres|both] [-duration 10s] [-clients 20] [-keep]
//
// Per engine it seeds n listings (internal/seed) into a store of its own (a
// SQLite file in a temporary directory, or a database bench_<n> on the
// PostgreSQL server of MARKETPLACE_TEST_DATABASE_URL), builds the service
// binary and starts it on them as a child process (sandbox mode, default log
// level, so one access-log line per request), and starts a bare net/http
// server, also a child process (this program run again), that answers the
// same listing ids from a map with bodies of the same size. One load
// generator in this process drives both over loopback with keep-alive
// connections:
//
//  1. GET /api/v1/listings/{id} of random seeded ids, service and bare in
//     alternating runs: req/s of each and service/bare;
//  2. varied search (scripts/searchload's query mix): req/s, p50, p99;
//  3. agent purchases (POST /api/v1/agent/purchase of distinct active
//     listings by verified buyers with a card and raised spending caps):
//     purchases/s, p50, p99;
//  4. the service process's resident memory (/proc/<pid>/status VmRSS)
//     idle after start-up and after the search load.
//
// -keep keeps the seeded store (the SQLite file under os.TempDir(), the
// PostgreSQL database) for the next run with the same -n; otherwise it is
// removed at the end. Purchases sell listings, so a kept store has fewer
// active listings each run.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Options are the command's flags.
type Options struct {
	Listings    int           // -n
	Engine      string        // sqlite, postgres or both
	Duration    time.Duration // of each measured run (row 1: per side, over its alternating runs)
	Clients     int           // concurrent clients of rows 1 and 2
	Buyers      int           // concurrent purchasing agents (row 3)
	Keep        bool          // keep the seeded store
	PostgresURL string        // server to make the database on
	Rounds      int           // alternating runs per side in row 1
}

func main() {
	if dir := os.Getenv(bareEnv); dir != "" {
		os.Exit(bareMain(dir))
	}
	var o Options
	flag.IntVar(&o.Listings, "n", 1_000_000, "listings to seed")
	flag.StringVar(&o.Engine, "engine", "both", "sqlite, postgres or both")
	flag.DurationVar(&o.Duration, "duration", 10*time.Second, "length of each measured load")
	flag.IntVar(&o.Clients, "clients", 20, "concurrent clients for listing reads and search")
	flag.IntVar(&o.Buyers, "buyers", 16, "concurrent purchasing agents (docs/performance.md's purchase figures use 16)")
	flag.BoolVar(&o.Keep, "keep", false, "keep the seeded store for the next run with the same -n")
	flag.StringVar(&o.PostgresURL, "postgres", envOr("MARKETPLACE_TEST_DATABASE_URL",
		"postgres://postgres@127.0.0.1:5432/test?sslmode=disable"), "PostgreSQL server (a database bench_<n> is made on it)")
	flag.IntVar(&o.Rounds, "rounds", 3, "alternating service/bare runs in the listing-read row")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Run measures each engine and prints its table to out; progress goes to
// logw.
func Run(ctx context.Context, o Options, out, logw io.Writer) error {
	var engines []string
	switch o.Engine {
	case "sqlite", "postgres":
		engines = []string{o.Engine}
	case "both":
		engines = []string{"sqlite", "postgres"}
	default:
		return fmt.Errorf("-engine must be sqlite, postgres or both, not %q", o.Engine)
	}
	if o.Listings < 10 || o.Clients < 1 || o.Buyers < 1 || o.Duration <= 0 || o.Rounds < 1 {
		return fmt.Errorf("bad options %+v", o)
	}
	work, err := os.MkdirTemp("", "marketplace-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	logf := func(format string, args ...any) {
		fmt.Fprintf(logw, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	logf("building the service")
	bin, err := buildService(ctx, work)
	if err != nil {
		return err
	}
	for _, e := range engines {
		r, err := benchEngine(ctx, o, e, work, bin, logf)
		if err != nil {
			return fmt.Errorf("%s: %w", e, err)
		}
		r.print(out, o)
	}
	return nil
}
