package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"marketplace/internal/app"
	"marketplace/internal/config"
)

// env is a getenv over a fixed map, so tests never read the real environment.
func env(m map[string]string) config.Lookup {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// freeAddr finds a loopback port nobody is using right now. run only takes
// an address, so the listener is closed and the port handed over; a clash
// with another process in that instant is possible but vanishingly rare.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// waitHealthy polls /api/v1/health until it answers 200 or the deadline
// passes; exited is closed if the server stops early.
func waitHealthy(t *testing.T, addr string, exited <-chan struct{}) {
	t.Helper()
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			t.Fatal("the server exited before it answered")
		default:
		}
		resp, err := client.Get("http://" + addr + "/api/v1/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s/api/v1/health did not answer 200 within 20s", addr)
}

func TestRunCommands(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "version", args: []string{"version"}, wantCode: 0, wantStdout: app.Version + "\n"},
		{name: "unknown command", args: []string{"frobnicate"}, wantCode: 2, wantStderr: `unknown command "frobnicate"`},
		{name: "unknown flag", args: []string{"serve", "-no-such-flag"}, wantCode: 2, wantStderr: "no-such-flag"},
		{name: "help", args: []string{"-h"}, wantCode: 0, wantStderr: "-addr"},
		{name: "bad mode", args: []string{"migrate"}, env: map[string]string{"MARKETPLACE_MODE": "staging"}, wantCode: 2, wantStderr: "MARKETPLACE_MODE"},
		{name: "non-postgres database url", args: []string{"migrate"}, env: map[string]string{"MARKETPLACE_DATABASE_URL": "mysql://x"}, wantCode: 2, wantStderr: "postgres://"},
		{name: "seed", args: []string{"seed", "--listings", "30", "-log-level", "warn", "--sold-percent=20"}, wantCode: 0, wantStdout: "30/30 listings\nadded 30 listings ("},
		{name: "seed without count", args: []string{"seed"}, wantCode: 2, wantStderr: "--listings"},
		{name: "openapi", args: []string{"openapi"}, wantCode: 0, wantStdout: `{"components":`},
		{name: "openapi b", args: []string{"openapi", "-variant", "b", "-indent"}, wantCode: 0, wantStdout: "{\n  \"components\": {"},
		{name: "openapi bad variant", args: []string{"openapi", "-variant", "c"}, wantCode: 2, wantStderr: "-variant must be a or b"},
		{name: "mcp without key", args: []string{"mcp", "--url", "http://127.0.0.1:1/mcp"}, wantCode: 2, wantStderr: "MARKETPLACE_AGENT_KEY is not set"},
		{name: "mcp without url", args: []string{"mcp"}, wantCode: 2, wantStderr: "--url"},
		{name: "seed bad flag", args: []string{"seed", "--listings", "x"}, wantCode: 2, wantStderr: "invalid value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			m := map[string]string{"MARKETPLACE_DATA_DIR": t.TempDir()}
			for k, v := range tc.env {
				m[k] = v
			}
			code := run(context.Background(), tc.args, env(m), &stdout, &stderr)
			if code != tc.wantCode {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, tc.wantCode, stderr.String())
			}
			if tc.wantStdout != "" && !strings.HasPrefix(stdout.String(), tc.wantStdout) {
				t.Errorf("stdout %q, want %q", stdout.String(), tc.wantStdout)
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr %q does not mention %q", stderr.String(), tc.wantStderr)
			}
		})
	}
}

func TestMigrateCreatesDatabase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data") // run must create it
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"migrate"}, env(map[string]string{"MARKETPLACE_DATA_DIR": dir}), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("migrate exited %d; stderr: %s", code, stderr.String())
	}
	fi, err := os.Stat(filepath.Join(dir, "marketplace.db"))
	if err != nil {
		t.Fatalf("migrate did not create the database: %v", err)
	}
	if fi.Size() == 0 {
		t.Error("the database file is empty: no migrations were written")
	}
	if !strings.Contains(stderr.String(), "migrations applied") {
		t.Errorf("log does not report the migrations: %s", stderr.String())
	}
	// A second run finds everything applied and still succeeds.
	stderr.Reset()
	if code := run(context.Background(), []string{"migrate"}, env(map[string]string{"MARKETPLACE_DATA_DIR": dir}), &stdout, &stderr); code != 0 {
		t.Fatalf("second migrate exited %d; stderr: %s", code, stderr.String())
	}
}

// syncBuffer lets the server goroutine log while the test reads.
type syncBuffer struct {
	mu chan struct{}
	b  bytes.Buffer
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{mu: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.b.String()
}

// TestServeStopsOnCancel is what SIGTERM does in main: the context given to
// run is cancelled, and run must drain and return 0 promptly.
func TestServeStopsOnCancel(t *testing.T) {
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := newSyncBuffer()
	dataDir := t.TempDir()
	exited := make(chan struct{})
	var code int
	metricsAddr := freeAddr(t)
	go func() {
		defer close(exited)
		code = run(ctx, []string{"serve"}, env(map[string]string{
			"MARKETPLACE_ADDR":         addr,
			"MARKETPLACE_DATA_DIR":     dataDir,
			"MARKETPLACE_METRICS_ADDR": metricsAddr,
		}), logs, logs)
	}()
	// Whatever fails below, do not return while run still uses the temp dir.
	t.Cleanup(func() { cancel(); <-exited })
	waitHealthy(t, addr, exited)

	// Metrics are served on their own listener, never on the API port.
	if body := get(t, "http://"+metricsAddr+"/metrics", http.StatusOK); !strings.Contains(body, "marketplace_http_requests_total") {
		t.Errorf("the metrics listener serves no request metrics:\n%.300s", body)
	}
	for _, p := range []string{"/metrics", "/api/v1/metrics"} {
		if body := get(t, "http://"+addr+p, http.StatusNotFound); !strings.Contains(body, `"NOT_FOUND"`) {
			t.Errorf("%s on the API port: %s", p, body)
		}
	}

	cancel()
	select {
	case <-exited:
		if code != 0 {
			t.Fatalf("run returned %d after cancel, want 0; log:\n%s", code, logs.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("run did not return within 10s of cancel; log:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), `"msg":"stopped"`) {
		t.Errorf("log has no stopped line:\n%s", logs.String())
	}
	// The port is released: nothing answers any more.
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Error("the server still accepts connections after run returned")
	}
}

// TestBinaryExitsZeroOnSIGTERM checks the real signal wiring in main, which
// run-level tests cannot reach.
func TestBinaryExitsZeroOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "marketplace")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	addr := freeAddr(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(),
		"MARKETPLACE_ADDR="+addr,
		"MARKETPLACE_DATA_DIR="+t.TempDir(),
		"MARKETPLACE_DATABASE_URL=",
		"MARKETPLACE_REDIS_URL=",
		"MARKETPLACE_MODE=sandbox",
		"MARKETPLACE_PUBLIC_URL=",
		"MARKETPLACE_ADMIN_EMAIL=",
		"MARKETPLACE_METRICS_ADDR=",
	)
	logs := newSyncBuffer()
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { defer close(exited); waitErr = cmd.Wait() }()
	// Never leave a stray process behind, whatever happens below.
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	waitHealthy(t, addr, exited)

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		if code := exitCode(waitErr); code != 0 {
			t.Fatalf("exit code %d after SIGTERM, want 0 (%v); log:\n%s", code, waitErr, logs.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the binary did not exit within 10s of SIGTERM; log:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), `"msg":"shutting down"`) {
		t.Errorf("log does not show a graceful shutdown:\n%s", logs.String())
	}
}

// get fetches url and fails unless it answers status; it returns the body.
func get(t *testing.T, url string, status int) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("GET %s: %d, want %d: %s", url, resp.StatusCode, status, b)
	}
	return string(b)
}

// TestMetricsAddress: an empty MARKETPLACE_METRICS_ADDR serves no metrics, and
// a taken metrics address stops the start with a clear error.
func TestMetricsAddress(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"serve"}, env(map[string]string{
		"MARKETPLACE_ADDR": freeAddr(t), "MARKETPLACE_DATA_DIR": t.TempDir(),
		"MARKETPLACE_METRICS_ADDR": taken.Addr().String(),
	}), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "MARKETPLACE_METRICS_ADDR") {
		t.Fatalf("exit %d with the metrics address taken; log:\n%s", code, stderr.String())
	}

	_, logs, _ := serveInProcess(t, map[string]string{"MARKETPLACE_METRICS_ADDR": ""})
	if !strings.Contains(logs.String(), `"metrics_addr":"off"`) {
		t.Errorf("the start line does not say metrics are off:\n%s", logs.String())
	}
}

// serveInProcess runs `marketplace serve` in this process on a free address
// and a fresh data dir, with settings added, until stop (or the test's end);
// it returns once the service answers.
func serveInProcess(t *testing.T, settings map[string]string) (addr string, logs *syncBuffer, stop func()) {
	t.Helper()
	addr = freeAddr(t)
	m := map[string]string{"MARKETPLACE_ADDR": addr, "MARKETPLACE_DATA_DIR": t.TempDir()}
	for k, v := range settings {
		m[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	logs = newSyncBuffer()
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		run(ctx, []string{"serve"}, env(m), logs, logs)
	}()
	stop = func() { cancel(); <-exited }
	t.Cleanup(stop)
	waitHealthy(t, addr, exited)
	return addr, logs, stop
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1 // not an exit at all (the wait itself failed)
}

// TestRedisDown: with Redis configured but unreachable, logins are limited
// in the process instead of failing (never a 500), and everything logged,
// the Redis client's own complaints included, is one JSON object a line.
func TestRedisDown(t *testing.T) {
	addr, logs, stop := serveInProcess(t, map[string]string{"MARKETPLACE_METRICS_ADDR": "",
		"MARKETPLACE_REDIS_URL": "redis://" + freeAddr(t) + "/0"})

	post := func(path, body string) int {
		resp, err := http.Post("http://"+addr+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("/api/v1/auth/register", `{"email":"r@example.com","password":"correct horse battery","displayName":"R","acceptedTerms":true}`); code != http.StatusCreated {
		t.Fatalf("register: %d", code)
	}
	for i, want := range []int{http.StatusUnauthorized, http.StatusOK, http.StatusOK} {
		pw := "correct horse battery"
		if i == 0 {
			pw = "wrong password 123"
		}
		if code := post("/api/v1/auth/login", `{"email":"r@example.com","password":"`+pw+`"}`); code != want {
			t.Fatalf("login %d: %d, want %d", i+1, code, want)
		}
	}
	// The deep health check still names the cache as down.
	if code := statusOf(t, "http://"+addr+"/api/v1/health/deep"); code != http.StatusServiceUnavailable {
		t.Errorf("deep health with Redis down: %d", code)
	}
	stop()
	out := logs.String()
	if !strings.Contains(out, "shared rate limiter unreachable") {
		t.Errorf("the fallback was not logged:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("a log line is not JSON: %q", line)
		}
	}
}

func statusOf(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestEnvelopeEverywhere: what net/http itself refuses, and paths the mux
// would redirect, are answered in the JSON envelope by the real server.
func TestEnvelopeEverywhere(t *testing.T) {
	addr, _, _ := serveInProcess(t, map[string]string{"MARKETPLACE_METRICS_ADDR": ""})
	for _, tc := range []struct {
		name, raw string
		status    int
	}{
		{"control byte in a header", "GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n", 400},
		{"request line over 64 KiB", "GET /api/v1/" + strings.Repeat("a", 70<<10) + " HTTP/1.1\r\nHost: x\r\n\r\n", 431},
		{"dot-dot path", "GET /api/v1/orders/.. HTTP/1.1\r\nHost: x\r\n\r\n", 404},
		{"double slash", "GET // HTTP/1.1\r\nHost: x\r\n\r\n", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			go func() { _, _ = io.WriteString(c, tc.raw) }()
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var env struct {
				Success *bool `json:"success"`
				Error   struct {
					Code string `json:"code"`
				} `json:"error"`
			}
			err = json.NewDecoder(resp.Body).Decode(&env)
			if err != nil || resp.StatusCode != tc.status || env.Success == nil || *env.Success || env.Error.Code == "" {
				t.Fatalf("got %d %s (%v), want %d in the envelope", resp.StatusCode, resp.Header.Get("Content-Type"), err, tc.status)
			}
		})
	}
}
