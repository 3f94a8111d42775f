// Command feedidle measures what idle event-feed readers cost: it starts
// the service on a PostgreSQL database of its own, holds n long polls
// (GET /api/v1/events?wait=30, each sent again as soon as it ends) or n
// Server-Sent Events streams open on a feed where nothing happens, and
// prints the CPU the service process and the database's backends used
// over the measured span (from /proc/<pid>/stat, in percent of one core)
// and the database's transactions per second (pg_stat_database).
//
//	go run ./scripts/feedidle [-n 1000] [-mode poll|stream] [-users 1] [-duration 30s] [-bin path]
//
// -bin runs a service binary built elsewhere (an older commit, to compare);
// without it the command builds cmd/marketplace. The readers use bearer
// tokens of -users users; MARKETPLACE_RATE_LIMIT_SCALE is set so that the
// caps on open streams and long polls (20 per user) admit them all. The
// database server is MARKETPLACE_TEST_DATABASE_URL's (or -pg) and must run
// on this machine, for /proc.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"marketplace/internal/listener"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

func main() {
	n := flag.Int("n", 1000, "idle readers")
	mode := flag.String("mode", "poll", "poll (long polls, wait=30) or stream (Server-Sent Events)")
	users := flag.Int("users", 1, "users the readers are spread over")
	duration := flag.Duration("duration", 30*time.Second, "measured span")
	bin := flag.String("bin", "", "service binary (built from cmd/marketplace when empty)")
	pg := flag.String("pg", os.Getenv("MARKETPLACE_TEST_DATABASE_URL"), "PostgreSQL server URL")
	flag.Parse()
	if err := run(*n, *mode, *users, *duration, *bin, *pg); err != nil {
		fmt.Fprintln(os.Stderr, "feedidle:", err)
		os.Exit(1)
	}
}

func run(n int, mode string, users int, duration time.Duration, bin, pg string) error {
	if pg == "" {
		return fmt.Errorf("no PostgreSQL server: set -pg or MARKETPLACE_TEST_DATABASE_URL")
	}
	if mode != "poll" && mode != "stream" {
		return fmt.Errorf("-mode is poll or stream")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	work, err := os.MkdirTemp("", "feedidle")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if bin == "" {
		bin = filepath.Join(work, "marketplace")
		build := exec.Command("go", "build", "-o", bin, "marketplace/cmd/marketplace")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build: %w", err)
		}
	}

	// A database of its own.
	admin, err := sql.Open("pgx", pg)
	if err != nil {
		return err
	}
	defer admin.Close()
	name := fmt.Sprintf("feedidle_%d", os.Getpid())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return err
	}
	defer admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") //nolint:errcheck
	u, err := url.Parse(pg)
	if err != nil {
		return err
	}
	u.Path = "/" + name

	// The service.
	perUser := (n + users - 1) / users
	scale := math.Max(1, math.Ceil(float64(perUser)/20)) // the per-user cap of 20
	srv := exec.Command(bin)
	srv.Env = os.Environ()
	addr, closeParent, err := listener.Hand(srv)
	if err != nil {
		return err
	}
	srv.Env = append(srv.Env, "MARKETPLACE_DATA_DIR="+filepath.Join(work, "data"),
		"MARKETPLACE_DATABASE_URL="+u.String(), "MARKETPLACE_METRICS_ADDR=", "MARKETPLACE_REDIS_URL=",
		"MARKETPLACE_LOG_LEVEL=error", "MARKETPLACE_RATE_LIMIT_SCALE="+strconv.FormatFloat(scale, 'f', -1, 64))
	srv.Stdout, srv.Stderr = os.Stderr, os.Stderr
	err = srv.Start()
	closeParent()
	if err != nil {
		return err
	}
	defer func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = srv.Process.Kill()
		}
	}()
	base := "http://" + addr
	if err := waitHealthy(ctx, base); err != nil {
		return err
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n + 10, IdleConnTimeout: time.Minute}}
	tokens := make([]string, users)
	for i := range tokens {
		if tokens[i], err = register(ctx, client, base, i); err != nil {
			return err
		}
	}
	cursor, err := headCursor(ctx, client, base, tokens[0])
	if err != nil {
		return err
	}

	// The readers.
	var open, failed atomic.Int64
	var wg sync.WaitGroup
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			token := tokens[i%users]
			for rctx.Err() == nil {
				if err := read(rctx, client, base, mode, token, cursor, &open); err != nil && rctx.Err() == nil {
					failed.Add(1)
					time.Sleep(time.Second)
				}
			}
		}()
	}
	deadline := time.Now().Add(2 * time.Minute)
	for open.Load() < int64(n) {
		if time.Now().After(deadline) {
			stop()
			return fmt.Errorf("only %d of %d readers open (%d failed)", open.Load(), n, failed.Load())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The service works through the readers' first requests, and
	// PostgreSQL's backends report their counts (an idle backend flushes
	// its statistics within 10 s): the window then holds only idle time.
	time.Sleep(12 * time.Second)

	tick, err := clockTick()
	if err != nil {
		return err
	}
	svc0, err := cpuTicks(srv.Process.Pid)
	if err != nil {
		return err
	}
	db0, tx0, err := dbUsage(ctx, admin, name)
	if err != nil {
		return err
	}
	start := time.Now()
	time.Sleep(duration)
	svc1, err := cpuTicks(srv.Process.Pid)
	if err != nil {
		return err
	}
	db1, tx1, err := dbUsage(ctx, admin, name)
	if err != nil {
		return err
	}
	span := time.Since(start).Seconds()
	stop()
	wg.Wait()

	var dbTicks int64
	for pid, t1 := range db1 {
		dbTicks += t1 - db0[pid] // a backend started meanwhile counts whole
	}
	pct := func(ticks int64) float64 { return float64(ticks) / float64(tick) / span * 100 }
	fmt.Printf("%d idle %s readers of %d user(s) over %.0f s: service %.1f%% of a core, PostgreSQL backends %.1f%% of a core, %.0f transactions/s (%d reads failed)\n",
		n, mode, users, span, pct(svc1-svc0), pct(dbTicks), float64(tx1-tx0)/span, failed.Load())
	return nil
}

func waitHealthy(ctx context.Context, base string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/health", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("the service did not start")
}

func register(ctx context.Context, client *http.Client, base string, i int) (string, error) {
	body := fmt.Sprintf(`{"email":"idle%d-%d@example.com","password":"password-idle-1234","displayName":"idle %d","acceptedTerms":true}`,
		i, os.Getpid(), i)
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/api/v1/auth/register", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			AccessToken string `json:"accessToken"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Data.AccessToken == "" {
		return "", fmt.Errorf("register: %d %v", resp.StatusCode, err)
	}
	return out.Data.AccessToken, nil
}

// headCursor is the cursor of an empty feed: nothing will come after it.
func headCursor(ctx context.Context, client *http.Client, base, token string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Meta struct {
			Cursor string `json:"cursor"`
		} `json:"meta"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Meta.Cursor == "" {
		return "", fmt.Errorf("feed: %d %v", resp.StatusCode, err)
	}
	return out.Meta.Cursor, nil
}

// read holds one long poll or one stream open until it ends.
func read(ctx context.Context, client *http.Client, base, mode, token, cursor string, open *atomic.Int64) error {
	path := "/api/v1/events?wait=30&after=" + url.QueryEscape(cursor)
	if mode == "stream" {
		path = "/api/v1/events/stream?after=" + url.QueryEscape(cursor)
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", base+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	// A long poll is open once sent (its answer comes at its end); a
	// stream once its headers are in.
	if mode == "poll" {
		open.Add(1)
		defer open.Add(-1)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if mode == "stream" && resp.StatusCode == http.StatusOK {
		open.Add(1)
		defer open.Add(-1)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %d", path, resp.StatusCode)
	}
	return nil
}

// clockTick is the kernel's clock ticks per second (/proc/<pid>/stat's unit).
func clockTick() (int64, error) {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err != nil {
		return 100, nil //nolint:nilerr // Linux's usual value
	}
	return strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
}

// cpuTicks is a process's user and system time, in clock ticks.
func cpuTicks(pid int) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name (which may hold spaces) in parentheses.
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	return utime + stime, nil
}

// dbUsage is the CPU ticks of every backend connected to the database
// (by pid) and its transactions so far.
func dbUsage(ctx context.Context, admin *sql.DB, name string) (map[int]int64, int64, error) {
	rows, err := admin.QueryContext(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, name)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	ticks := map[int]int64{}
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			return nil, 0, err
		}
		if t, err := cpuTicks(pid); err == nil {
			ticks[pid] = t
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	var tx int64
	err = admin.QueryRowContext(ctx, `SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = $1`, name).Scan(&tx)
	return ticks, tx, err
}
