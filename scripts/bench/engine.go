package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"marketplace/internal/listener"
	"marketplace/internal/settings"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to make and drop the database

	"marketplace/internal/config"
	"marketplace/internal/jobs"
	"marketplace/internal/market"
	"marketplace/internal/seed"
	"marketplace/internal/store"
)

// result is one engine's figures.
type result struct {
	engine          string
	listings        int
	seeded          time.Duration // 0: the kept store was reused
	reused          bool
	loadStart       string
	loadEnd         string
	date            time.Time
	reads           readsResult
	search, buys    loadResult
	idleRSS, rssAft rss
	bareRSS         rss // the bare server after its runs
	pid             int
}

// buildService builds cmd/marketplace into dir.
func buildService(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "marketplace")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "marketplace/cmd/marketplace")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build: %w", err)
	}
	return bin, nil
}

// storeFor opens (making it if need be) the engine's store and says how to
// point the service at it and how to remove it.
func storeFor(ctx context.Context, o Options, engine, work string) (db *store.DB, env []string, remove func(), err error) {
	name := fmt.Sprintf("bench_%d", o.Listings)
	if !o.Keep {
		name += fmt.Sprintf("_tmp%d", os.Getpid())
	}
	if engine == "sqlite" {
		dir := filepath.Join(work, "data")
		if o.Keep {
			dir = filepath.Join(os.TempDir(), "marketplace-"+name)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, nil, err
		}
		cfg := config.Config{DataDir: dir}
		db, err := store.OpenSQLite(cfg.SQLitePath())
		if err != nil {
			return nil, nil, nil, err
		}
		return db, []string{"MARKETPLACE_DATA_DIR=" + dir, "MARKETPLACE_DATABASE_URL="},
			func() {
				if !o.Keep {
					os.RemoveAll(dir)
				}
			}, nil
	}
	admin, err := sql.Open("pgx", o.PostgresURL)
	if err != nil {
		return nil, nil, nil, err
	}
	defer admin.Close()
	var exists bool
	if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return nil, nil, nil, fmt.Errorf("PostgreSQL at %s: %w", o.PostgresURL, err)
	}
	if !exists {
		if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
			return nil, nil, nil, err
		}
	}
	u, err := url.Parse(o.PostgresURL)
	if err != nil {
		return nil, nil, nil, err
	}
	u.Path = "/" + name
	db, err = store.OpenPostgres(u.String())
	if err != nil {
		return nil, nil, nil, err
	}
	drop := func() {
		if o.Keep {
			return
		}
		admin, err := sql.Open("pgx", o.PostgresURL)
		if err != nil {
			return
		}
		defer admin.Close()
		_, _ = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	}
	return db, []string{"MARKETPLACE_DATA_DIR=" + filepath.Join(work, "pgdata"), "MARKETPLACE_DATABASE_URL=" + u.String()}, drop, nil
}

// prepare migrates the store and seeds it up to o.Listings listings (a kept
// store that has them already is reused), and returns how long seeding took.
func prepare(ctx context.Context, o Options, db *store.DB, logf func(string, ...any)) (time.Duration, bool, error) {
	if err := db.Migrate(ctx); err != nil {
		return 0, false, err
	}
	if err := jobs.Migrate(ctx, db); err != nil {
		return 0, false, err
	}
	// One agent key may make anomaly.max_purchases_per_hour purchases in an
	// hour (30 by default; the next freezes it): the purchase row has each
	// agent buy hundreds, so the rule is raised to its maximum. It is still
	// checked (a count per purchase), as it runs.
	cfg := settings.NewService(store.Settings(db), market.SystemClock{})
	if _, err := cfg.Set(ctx, market.System, settings.MaxPurchasesPerHour.Name(), json.RawMessage("100000")); err != nil {
		return 0, false, fmt.Errorf("raise %s: %w", settings.MaxPurchasesPerHour.Name(), err)
	}
	var have int
	if err := db.WritePool().QueryRowContext(ctx, `SELECT COUNT(*) FROM listings WHERE generator = 'seed'`).Scan(&have); err != nil {
		return 0, false, err
	}
	if have >= o.Listings {
		logf("reusing the %d seeded listings of an earlier run", have)
		return 0, true, nil
	}
	want := o.Listings - have
	logf("seeding %d listings on %s", want, db.Dialect())
	start := time.Now()
	step := max(want/10, 1000)
	_, err := seed.Run(ctx, db, time.Now().UTC(), seed.Options{Listings: want, SoldPercent: 10, Seed: uint64(7 + have)},
		func(done int) {
			if done%step == 0 || done == want {
				logf("  %d/%d listings (%s)", done, want, time.Since(start).Round(time.Second))
			}
		})
	if err != nil {
		return 0, false, err
	}
	if db.Dialect() == store.Postgres {
		// What autovacuum does after a bulk insert, before the runs rather
		// than during them.
		if _, err := db.WritePool().ExecContext(ctx, "VACUUM ANALYZE"); err != nil {
			return 0, false, err
		}
		if _, err := db.WritePool().ExecContext(ctx, "CHECKPOINT"); err != nil {
			logf("checkpoint: %v", err) // needs superuser; only the timing suffers
		}
	}
	took := time.Since(start)
	logf("seeded %d listings in %s", want, took.Round(time.Millisecond))
	return took, false, nil
}

// seeded is what the load needs of the store: every listing id, and the
// active ones with their prices, shuffled.
type seeded struct {
	ids    []string
	active []activeListing
}

type activeListing struct {
	id    string
	price int64
}

func readSeeded(ctx context.Context, db *store.DB) (*seeded, error) {
	rows, err := db.WritePool().QueryContext(ctx, `SELECT id, status, price FROM listings WHERE generator = 'seed'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	s := &seeded{}
	for rows.Next() {
		var id, status string
		var price int64
		if err := rows.Scan(&id, &status, &price); err != nil {
			return nil, err
		}
		s.ids = append(s.ids, id)
		if status == "active" {
			s.active = append(s.active, activeListing{id, price})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	rng.Shuffle(len(s.active), func(i, j int) { s.active[i], s.active[j] = s.active[j], s.active[i] })
	return s, nil
}

// child is a server process the load is driven at.
type child struct {
	cmd  *exec.Cmd
	base string
	log  string
	// closeParent closes this process's copy of the socket handed to the
	// child, once started: then the socket goes when the child does, and
	// a request to a dead child is refused rather than left queued.
	closeParent func()
	done        chan struct{} // closed when the process has exited
	err         error         // its exit, after done
}

// startService starts the service binary on the seeded store: sandbox mode,
// the default log level (an access-log line per request, to a file), no
// metrics listener, no Redis, and rate limits counted but scaled by 1,000
// so that no request is refused.
func startService(ctx context.Context, bin, work string, env []string) (*child, error) {
	c := &child{log: filepath.Join(work, "service.log")}
	c.cmd = exec.CommandContext(ctx, bin, "serve")
	c.cmd.Env = os.Environ()
	addr, closeParent, err := listener.Hand(c.cmd)
	if err != nil {
		return nil, err
	}
	c.base, c.closeParent = "http://"+addr, closeParent
	c.cmd.Env = append(c.cmd.Env, append(env, "MARKETPLACE_MODE=sandbox",
		"MARKETPLACE_PUBLIC_URL="+c.base, "MARKETPLACE_REDIS_URL=", "MARKETPLACE_METRICS_ADDR=",
		"MARKETPLACE_RATE_LIMIT_SCALE=1000", "MARKETPLACE_LOG_LEVEL=info", "MARKETPLACE_ADMIN_EMAIL=")...)
	return c, c.start(ctx)
}

// startBare starts this program again as the bare reference on the files in
// dir.
func startBare(ctx context.Context, work, dir string) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	c := &child{log: filepath.Join(work, "bare.log")}
	c.cmd = exec.CommandContext(ctx, self)
	c.cmd.Env = append(os.Environ(), bareEnv+"="+dir)
	addr, closeParent, err := listener.Hand(c.cmd)
	if err != nil {
		return nil, err
	}
	c.base, c.closeParent = "http://"+addr, closeParent
	return c, c.start(ctx)
}

func (c *child) start(ctx context.Context) error {
	f, err := os.Create(c.log)
	if err != nil {
		c.closeParent()
		return err
	}
	defer f.Close()
	c.cmd.Stdout, c.cmd.Stderr = f, f
	c.cmd.Cancel = func() error { return c.cmd.Process.Signal(syscall.SIGTERM) }
	c.cmd.WaitDelay = 10 * time.Second
	err = c.cmd.Start()
	c.closeParent()
	if err != nil {
		return err
	}
	c.done = make(chan struct{})
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-c.done:
			return fmt.Errorf("%s exited (%v): %s", c.cmd.Path, c.err, c.tail())
		case <-ctx.Done():
			c.stop()
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := http.Get(c.base + "/api/v1/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	c.stop()
	return fmt.Errorf("%s did not answer /api/v1/health within 60s: %s", c.cmd.Path, c.tail())
}

// stop ends the process (SIGTERM, then SIGKILL after 15 s) and waits for it.
func (c *child) stop() {
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// explain adds to err, when the process has exited, how it ended and the
// end of its log: a load that fails on a dead service says why it died.
func (c *child) explain(err error) error {
	select {
	case <-c.done:
		return fmt.Errorf("%w (%s exited: %v: %s)", err, c.cmd.Path, c.err, c.tail())
	default:
		return err
	}
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// tail is the end of the process's output.
func (c *child) tail() string {
	b, _ := os.ReadFile(c.log)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(bytes.TrimSpace(b))
}

// rss is a process's resident memory in kB (-1: unknown): all of it, and
// its anonymous (heap, stacks) and file-backed (the binary, a memory-mapped
// database) parts.
type rss struct{ total, anon, file int64 }

// readRSS reads /proc/<pid>/status.
func readRSS(pid int) rss {
	r := rss{-1, -1, -1}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return r
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		name, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "VmRSS":
			r.total = n
		case "RssAnon":
			r.anon = n
		case "RssFile":
			r.file = n
		}
	}
	return r
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// benchEngine runs everything on one engine.
func benchEngine(ctx context.Context, o Options, engine, work, bin string, logf func(string, ...any)) (*result, error) {
	r := &result{engine: engine, listings: o.Listings, date: time.Now().UTC(), loadStart: loadavg()}
	db, env, remove, err := storeFor(ctx, o, engine, work)
	if err != nil {
		return nil, err
	}
	defer remove()
	r.seeded, r.reused, err = prepare(ctx, o, db, logf)
	if err != nil {
		db.Close()
		return nil, err
	}
	data, err := readSeeded(ctx, db)
	db.Close()
	if err != nil {
		return nil, err
	}
	runtime.GC()

	logf("starting the service on %s", engine)
	svc, err := startService(ctx, bin, work, env)
	if err != nil {
		return nil, err
	}
	defer svc.stop()
	r.pid = svc.pid()
	time.Sleep(time.Second) // the start-up's background work settles
	r.idleRSS = readRSS(svc.pid())

	logf("making %d buyers", o.Buyers)
	buyers, err := makeBuyers(ctx, svc.base, o.Buyers)
	if err != nil {
		return nil, svc.explain(fmt.Errorf("buyers: %w", err))
	}

	logf("listing reads, service and bare, %d alternating runs each", o.Rounds)
	bare, err := prepareBare(ctx, svc.base, work, data.ids)
	if err != nil {
		return nil, svc.explain(err)
	}
	bsrv, err := startBare(ctx, work, bare)
	if err != nil {
		return nil, err
	}
	r.reads, err = listingReads(ctx, o, svc.base, bsrv.base, data.ids)
	r.bareRSS = readRSS(bsrv.pid())
	bsrv.stop()
	if err != nil {
		return nil, err
	}

	logf("varied search")
	r.search, err = searchLoad(ctx, o, svc.base)
	if err != nil {
		return nil, svc.explain(err)
	}
	r.rssAft = readRSS(svc.pid())

	logf("agent purchases")
	r.buys, err = purchases(ctx, o, svc.base, buyers, data.active)
	if err != nil {
		return nil, svc.explain(err)
	}
	r.loadEnd = loadavg()
	return r, nil
}
