// Package crashtest kills the service with SIGKILL in the middle of an
// idempotent purchase and checks what a client's retry gets once it is
// running again: the paid order, or a single new charge, never a key stuck
// "in progress" for a day.
//
// The test binary is its own server: run with CRASHTEST_CHILD set, TestMain
// serves the app on the configured store instead of running tests, and
// CRASHTEST_HANG makes it stop dead at one point of the purchase (before the
// charge, or after it and before the order is settled) and say so on
// stdout, so the parent kills it exactly there.
package crashtest

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/listener"
	"marketplace/internal/market"
	"marketplace/internal/payments"
	"marketplace/internal/store"
	"marketplace/internal/testkit"
)

func TestMain(m *testing.M) {
	if os.Getenv("CRASHTEST_CHILD") != "" {
		os.Exit(child())
	}
	os.Exit(m.Run())
}

// child serves the app like `marketplace serve`, with the hang point
// CRASHTEST_HANG names (none, "charge" or "settle").
func child() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	cfg, err := config.Load(os.LookupEnv, nil, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "config:", err)
		return 2
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	db, err := app.Open(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		return 1
	}
	defer db.Close()
	hang := func(point, id string) {
		fmt.Printf("HANG %s %s\n", point, id)
		select {} // until the parent kills the process
	}
	opts := app.Options{Logger: log}
	switch os.Getenv("CRASHTEST_HANG") {
	case "settle":
		opts.BeforeSettle = func(_ context.Context, orderID string) error { hang("settle", orderID); return nil }
	case "charge":
		sb := payments.NewSandbox(cfg.PublicURL, store.PaymentsSandbox(db), market.SystemClock{})
		opts.Gateway = hangingGateway{Gateway: sb, hang: hang}
	}
	a, err := app.New(ctx, cfg, db, opts)
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
	if err := a.Serve(ctx, ln); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}

// hangingGateway stops before it charges.
type hangingGateway struct {
	payments.Gateway
	hang func(point, id string)
}

func (g hangingGateway) Charge(ctx context.Context, req payments.ChargeRequest) (*payments.Payment, error) {
	g.hang("charge", req.IdempotencyKey)
	return nil, nil
}

// engine is a store both the test and its child processes open.
type engine struct {
	name string
	env  []string // the child's database settings
	db   *store.DB
}

// engines opens a fresh, migrated store per engine: a SQLite file, and a
// PostgreSQL database of its own when MARKETPLACE_TEST_DATABASE_URL is set.
func engines(t *testing.T) []engine {
	ctx := context.Background()
	dir := t.TempDir()
	lite, err := app.Open(ctx, config.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	out := []engine{{name: "sqlite", env: []string{"MARKETPLACE_DATA_DIR=" + dir, "MARKETPLACE_DATABASE_URL="}, db: lite}}
	base := os.Getenv("MARKETPLACE_TEST_DATABASE_URL")
	if base == "" {
		t.Log("MARKETPLACE_TEST_DATABASE_URL is not set: PostgreSQL not tested")
		return out
	}
	url := pgDatabase(t, base)
	pg, err := app.Open(ctx, config.Config{DataDir: t.TempDir(), DatabaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	return append(out, engine{name: "postgres", env: []string{"MARKETPLACE_DATA_DIR=" + t.TempDir(), "MARKETPLACE_DATABASE_URL=" + url}, db: pg})
}

// pgDatabase creates a database of the test's own and returns its URL.
func pgDatabase(t *testing.T, base string) string {
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := fmt.Sprintf("mkt_crash_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
	i := strings.LastIndexByte(base, '/')
	j := strings.IndexByte(base[i:], '?')
	if j < 0 {
		return base[:i+1] + name
	}
	return base[:i+1] + name + base[i+j:]
}

// server is a child process serving the app.
type server struct {
	t      *testing.T
	cmd    *exec.Cmd
	url    string
	hangs  chan string // the ids the child stopped at
	exited chan struct{}
	logs   *bytes.Buffer
	mu     sync.Mutex
}

func start(t *testing.T, e engine, secret, hang string) *server {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = os.Environ()
	addr, closeParent, err := listener.Hand(cmd)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(cmd.Env, append(e.env, "CRASHTEST_CHILD=1", "CRASHTEST_HANG="+hang,
		"MARKETPLACE_PUBLIC_URL=http://"+addr, "MARKETPLACE_MODE=sandbox",
		"MARKETPLACE_JWT_SECRET="+secret, "MARKETPLACE_REDIS_URL=", "MARKETPLACE_ADMIN_EMAIL=",
		"MARKETPLACE_METRICS_ADDR=")...)
	s := &server{t: t, cmd: cmd, url: "http://" + addr, hangs: make(chan string, 4), exited: make(chan struct{}), logs: &bytes.Buffer{}}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = lockedWriter{s}
	err = cmd.Start()
	closeParent() // the child's copy is the socket now: it goes when the child does
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "HANG" {
				s.hangs <- f[2]
			}
		}
	}()
	go func() { _ = cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() { s.kill() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.url + "/api/v1/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-s.exited:
			t.Fatalf("the server exited at start:\n%s", s.log())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not answer within 30s:\n%s", s.log())
		}
	}
}

type lockedWriter struct{ s *server }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.logs.Write(p)
}

func (s *server) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// kill sends SIGKILL and waits for the process to be gone.
func (s *server) kill() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

// waitHang waits until the child stopped at its hang point, and returns
// the id it named there (the order's).
func (s *server) waitHang() string {
	s.t.Helper()
	select {
	case id := <-s.hangs:
		return id
	case <-s.exited:
		s.t.Fatalf("the server exited before the hang point:\n%s", s.log())
	case <-time.After(30 * time.Second):
		s.t.Fatalf("the server did not reach the hang point within 30s:\n%s", s.log())
	}
	return ""
}

type answer struct {
	status int
	header http.Header
	body   map[string]any
}

func (s *server) post(path, key string, body any) (*answer, error) {
	raw, _ := json.Marshal(body)
	req, err := http.NewRequest("POST", s.url+path, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Agent-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	a := &answer{status: resp.StatusCode, header: resp.Header}
	if err := json.Unmarshal(b, &a.body); err != nil {
		return nil, fmt.Errorf("%d %s: %w", resp.StatusCode, b, err)
	}
	return a, nil
}

func (a *answer) data() map[string]any {
	d, _ := a.body["data"].(map[string]any)
	return d
}

// TestCrashDuringPurchase kills the server while an agent's purchase holds
// its idempotency key, at two points, on every engine, restarts it on the
// same store and sends the same request again.
func TestCrashDuringPurchase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			// People, a card, a key and listings, made through the API of
			// an in-process app on the same store.
			s := testkit.Start(t, e.db, testkit.Options{})
			seller := s.VerifiedOwner("Sella")
			buyer := s.NewShopper("Bree", "pm_card_visa")
			secret := s.App.Config.JWTSecret
			for _, point := range []string{"settle", "charge"} {
				t.Run("killed before "+point, func(t *testing.T) {
					listing := s.ActiveListing(seller, "brass desk lamp with a green glass shade", 4500)
					body := map[string]any{"listingId": listing, "maxPrice": 5000, "shippingAddress": testkit.Address(),
						"idempotencyKey": "crash-" + point}
					chargesBefore := s.Charges()

					first := start(t, e, secret, point)
					failed := make(chan error, 1)
					go func() {
						_, err := first.post("/api/v1/agent/purchase", buyer.Key.Secret, body)
						failed <- err
					}()
					orderID := first.waitHang()
					first.kill()
					if err := <-failed; err == nil {
						t.Fatal("the purchase answered although its server was killed")
					}

					second := start(t, e, secret, "")
					began := time.Now()
					retry, err := second.post("/api/v1/agent/purchase", buyer.Key.Secret, body)
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("the retry answered %d after %v", retry.status, time.Since(began).Round(time.Millisecond))
					if retry.status != http.StatusCreated || retry.data()["status"] != "paid" || retry.data()["id"] != orderID {
						t.Fatalf("retry: %d %v, want 201 paid order %s\n%s", retry.status, retry.body, orderID, second.log())
					}
					if m, n := s.OrderLedger(orderID); n != 1 || m.Charged != retry.numData(t, "totalCharged") {
						t.Fatalf("order %s: %d charges of %d in all, want one of %d", orderID, n, m.Charged, retry.numData(t, "totalCharged"))
					}
					if got := s.Charges(); got != chargesBefore+1 {
						t.Fatalf("%d charges in all after the retry, want %d", got, chargesBefore+1)
					}

					// The answer is stored now: a third try replays it.
					replay, err := second.post("/api/v1/agent/purchase", buyer.Key.Secret, body)
					if err != nil {
						t.Fatal(err)
					}
					if replay.status != http.StatusCreated || replay.header.Get("Idempotent-Replayed") != "true" || replay.data()["id"] != orderID {
						t.Fatalf("third try: %d %v (replayed %q)", replay.status, replay.body, replay.header.Get("Idempotent-Replayed"))
					}
					second.kill()
				})
			}
		})
	}
}

func (a *answer) numData(t *testing.T, key string) int64 {
	t.Helper()
	fees, _ := a.data()["fees"].(map[string]any)
	f, ok := fees[key].(float64)
	if !ok {
		t.Fatalf("%s not in %v", key, a.data())
	}
	return int64(f)
}
