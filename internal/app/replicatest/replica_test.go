// Package replicatest runs two server processes on one PostgreSQL database,
// as two replicas behind a load balancer, and checks that what an admin
// changes through one holds on the other's very next request: a fee rate, a
// payout hold and a feature flag (issue 16). Each replica reads config from
// the database, so nothing needs a restart or a cache to expire.
//
// The test binary is its own server: with REPLICATEST_CHILD set, TestMain
// serves the app on the configured store instead of running tests.
package replicatest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/listener"
	"marketplace/internal/settings"
	"marketplace/internal/testkit"
)

func TestMain(m *testing.M) {
	if os.Getenv("REPLICATEST_CHILD") != "" {
		os.Exit(testkit.ServeChild(os.Stderr))
	}
	os.Exit(m.Run())
}

// pgDatabase creates a database of the test's own and returns its URL.
func pgDatabase(t *testing.T, base string) string {
	adm, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { adm.Close() })
	name := fmt.Sprintf("mkt_replica_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := adm.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = adm.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
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
	name   string
	cmd    *exec.Cmd
	url    string
	exited chan struct{}
	mu     sync.Mutex
	logs   bytes.Buffer
}

// start runs a replica on dbURL; env adds to (or overrides) its settings.
func start(t *testing.T, name, dbURL, secret string, env ...string) *server {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = os.Environ()
	addr, closeParent, err := listener.Hand(cmd)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(cmd.Env, "REPLICATEST_CHILD=1", "MARKETPLACE_DATA_DIR="+t.TempDir(), "MARKETPLACE_DATABASE_URL="+dbURL,
		"MARKETPLACE_PUBLIC_URL=http://"+addr, "MARKETPLACE_MODE=sandbox",
		"MARKETPLACE_JWT_SECRET="+secret, "MARKETPLACE_REDIS_URL=", "MARKETPLACE_ADMIN_EMAIL=", "MARKETPLACE_METRICS_ADDR=",
		"MARKETPLACE_LOG_LEVEL=warn")
	cmd.Env = append(cmd.Env, env...)
	s := &server{t: t, name: name, cmd: cmd, url: "http://" + addr, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = lockedWriter{s}, lockedWriter{s}
	err = cmd.Start()
	closeParent() // the child's copy is the socket now: it goes when the child does
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(s.exited) }()
	t.Cleanup(s.stop)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if resp, err := http.Get(s.url + "/api/v1/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-s.exited:
			t.Fatalf("server %s exited at start:\n%s", name, s.log())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s did not answer within 30s:\n%s", name, s.log())
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

// stop ends the process with SIGTERM (a drain), SIGKILL if it lingers.
func (s *server) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		<-s.exited
	}
}

type answer struct {
	status int
	body   map[string]any
}

func (a *answer) data() map[string]any {
	d, _ := a.body["data"].(map[string]any)
	return d
}

func (a *answer) code() string {
	e, _ := a.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// do sends one request to the process and fails unless it answers status.
func (s *server) do(status int, method, path string, body any, h testkit.Header) *answer {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if h.Name != "" {
		req.Header.Set(h.Name, h.Value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s on %s: %v", method, path, s.name, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := &answer{status: resp.StatusCode}
	if err := json.Unmarshal(raw, &a.body); err != nil || resp.StatusCode != status {
		s.t.Fatalf("%s %s on %s: %d %s, want %d (%v)", method, path, s.name, resp.StatusCode, raw, status, err)
	}
	return a
}

func cents(t *testing.T, m map[string]any, key string) int64 {
	t.Helper()
	f, ok := m[key].(float64)
	if !ok {
		t.Fatalf("%s not in %v", key, m)
	}
	return int64(f)
}

func timeOf(t *testing.T, m map[string]any, key string) time.Time {
	t.Helper()
	s, _ := m[key].(string)
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("%s = %v in %v: %v", key, m[key], m, err)
	}
	return v
}

func configValue(t *testing.T, a *answer, key string) any {
	t.Helper()
	list, _ := a.body["data"].([]any)
	for _, e := range list {
		if m, _ := e.(map[string]any); m["key"] == key {
			return m["value"]
		}
	}
	t.Fatalf("no %s in %v", key, a.body)
	return nil
}

// An admin's changes through process one hold on process two's very next
// request, and a flag switched back on through two holds on one's.
func TestConfigAndFlagsAcrossProcesses(t *testing.T) {
	base := os.Getenv("MARKETPLACE_TEST_DATABASE_URL")
	if base == "" {
		t.Skip("MARKETPLACE_TEST_DATABASE_URL is not set: replicas share a PostgreSQL database")
	}
	ctx := context.Background()
	dbURL := pgDatabase(t, base)
	db, err := app.Open(ctx, config.Config{DataDir: t.TempDir(), DatabaseURL: dbURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })

	// People, a card, a key and listings, made through an in-process app on
	// the same database, on the children's (real) time so tokens and
	// listings are current there.
	s := testkit.Start(t, db, testkit.Options{})
	s.Clock.Advance(time.Since(s.Clock.Now()))
	s.RealTime.Advance(time.Since(s.RealTime.Now()))
	adm := s.Admin()
	seller := s.VerifiedOwner("Sella")
	buyer := s.NewShopper("Bree", "pm_card_visa")
	s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 100000})
	const price = 12345 // free shipping: the service fee is round(rate x 12345)
	listing := s.ActiveListing(seller, "walnut cutting board end grain large", price)

	one := start(t, "one", dbURL, s.App.Config.JWTSecret)
	two := start(t, "two", dbURL, s.App.Config.JWTSecret)

	// Both warm: two has read the defaults and served the offer routes.
	estimate := map[string]any{"listingId": listing, "buyerZip": "97201"}
	if fee := cents(t, two.do(http.StatusOK, "POST", "/api/v1/agent/purchase/fee-estimate", estimate, buyer.Key.Auth()).data(), "serviceFee"); fee != 432 {
		t.Fatalf("two's service fee at 350 bps: %d, want 432", fee)
	}
	if v := configValue(t, two.do(http.StatusOK, "GET", "/api/v1/admin/config", nil, adm.Auth()), settings.PayoutHoldHours.Name()); v != float64(72) {
		t.Fatalf("two's hold hours %v, want 72", v)
	}
	two.do(http.StatusOK, "GET", "/api/v1/offers/buyer/me", nil, buyer.Auth())
	one.do(http.StatusOK, "GET", "/api/v1/offers/buyer/me", nil, buyer.Auth())

	// The fee rate through one; two's next request is a purchase at it.
	one.do(http.StatusOK, "PATCH", "/api/v1/admin/config/"+settings.BuyerFeeRateBps.Name(), map[string]any{"value": 500}, adm.Auth())
	order := two.do(http.StatusCreated, "POST", "/api/v1/agent/purchase",
		map[string]any{"listingId": listing, "maxPrice": price, "shippingAddress": testkit.Address()}, buyer.Key.Auth()).data()
	fees, _ := order["fees"].(map[string]any)
	if fee, total := cents(t, fees, "serviceFee"), cents(t, fees, "totalCharged"); fee != 617 || total != price+617 {
		t.Fatalf("two charged fee %d, total %d at 500 bps; want 617 and %d", fee, total, price+617)
	}
	orderID, _ := order["id"].(string)

	// The hold through one; two lists it at once, and an order it delivers
	// is due that many hours later.
	one.do(http.StatusOK, "PATCH", "/api/v1/admin/config/"+settings.PayoutHoldHours.Name(), map[string]any{"value": 24}, adm.Auth())
	if v := configValue(t, two.do(http.StatusOK, "GET", "/api/v1/admin/config", nil, adm.Auth()), settings.PayoutHoldHours.Name()); v != float64(24) {
		t.Fatalf("two lists hold hours %v after the change, want 24", v)
	}
	two.do(http.StatusOK, "POST", "/api/v1/orders/"+orderID+"/ship", map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"}, seller.Auth())
	two.do(http.StatusOK, "POST", "/api/v1/agent/orders/"+orderID+"/delivered", nil, buyer.Key.Auth())
	seen := two.do(http.StatusOK, "GET", "/api/v1/orders/"+orderID, nil, seller.Auth()).data()
	if hold := timeOf(t, seen, "payoutDueAt").Sub(timeOf(t, seen, "deliveredAt")); hold != 24*time.Hour {
		t.Fatalf("two holds the payout %v after delivery, want 24h: %v", hold, seen)
	}

	// A flag off through one; two's next request to its routes is refused.
	one.do(http.StatusOK, "PATCH", "/api/v1/admin/feature-flags/"+string(settings.FeatureOffers), map[string]any{"enabled": false}, adm.Auth())
	off := two.do(http.StatusServiceUnavailable, "GET", "/api/v1/offers/buyer/me", nil, buyer.Auth())
	if e, _ := off.body["error"].(map[string]any); off.code() != "FEATURE_DISABLED" || e["details"].(map[string]any)["flag"] != string(settings.FeatureOffers) {
		t.Fatalf("two with offers off: %v", off.body)
	}
	if r := two.do(http.StatusServiceUnavailable, "POST", "/v1/offers", map[string]any{}, buyer.Key.Auth()); r.code() != "FEATURE_DISABLED" {
		t.Fatalf("two's Variant B with offers off: %v", r.body)
	}
	one.do(http.StatusServiceUnavailable, "GET", "/api/v1/offers/buyer/me", nil, buyer.Auth())

	// Back on through two; one's next request answers.
	two.do(http.StatusOK, "PATCH", "/api/v1/admin/feature-flags/"+string(settings.FeatureOffers), map[string]any{"enabled": true}, adm.Auth())
	one.do(http.StatusOK, "GET", "/api/v1/offers/buyer/me", nil, buyer.Auth())
}
