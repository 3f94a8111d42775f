// Package ratelimittest runs two server processes on one store and one
// Redis and checks that an agent key's rate limit holds in total, not per
// process (CONTRACT.md section 15).
//
// The test binary is its own server: with RLTEST_CHILD set, TestMain
// serves the app as `marketplace serve` would, on a port it prints.
package ratelimittest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/market"
	"marketplace/internal/testkit"
)

func TestMain(m *testing.M) {
	if os.Getenv("RLTEST_CHILD") != "" {
		os.Exit(testkit.ServeChild(io.Discard))
	}
	os.Exit(m.Run())
}

// scale brings the default read limit (120/min) down to a few requests.
const scale = 0.05

// start runs one server process on the store in dir and returns its URL.
func start(t *testing.T, dir, redisURL string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RLTEST_CHILD=1", "MARKETPLACE_DATA_DIR="+dir, "MARKETPLACE_DATABASE_URL=",
		"MARKETPLACE_REDIS_URL="+redisURL, "MARKETPLACE_ADDR=127.0.0.1:0", "MARKETPLACE_METRICS_ADDR=",
		"MARKETPLACE_JWT_SECRET=rltest-secret-0123456789abcdef0123456789", fmt.Sprintf("MARKETPLACE_RATE_LIMIT_SCALE=%g", scale))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if url, ok := strings.CutPrefix(sc.Text(), "LISTEN "); ok {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return url
		}
	}
	t.Fatalf("the server process ended before listening: %v", sc.Err())
	return ""
}

func call(t *testing.T, method, url, body string, header ...string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Data map[string]any `json:"data"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&env)
	return resp.StatusCode, env.Data
}

// TestTwoProcessesOneLimit: requests of one key alternate between two
// server processes sharing Redis; together they admit the limit once.
func TestTwoProcessesOneLimit(t *testing.T) {
	redisURL := os.Getenv("MARKETPLACE_TEST_REDIS_URL")
	if redisURL == "" {
		t.Skip("MARKETPLACE_TEST_REDIS_URL is empty")
	}
	dir := t.TempDir()
	db, err := app.Open(context.Background(), config.Config{DataDir: dir}) // migrate once, before the servers
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	a := start(t, dir, redisURL)
	b := start(t, dir, redisURL)

	email := market.NewID() + "@example.com"
	code, reg := call(t, "POST", a+"/api/v1/auth/register",
		`{"email":"`+email+`","password":"0123456789","displayName":"R","acceptedTerms":true}`)
	if code != http.StatusCreated {
		t.Fatalf("register: %d", code)
	}
	code, key := call(t, "POST", b+"/api/v1/agent-keys", `{"label":"r","scope":"buy_sell","acceptedAgentTerms":true}`,
		"Authorization", "Bearer "+reg["accessToken"].(string))
	if code != http.StatusCreated {
		t.Fatalf("create key: %d", code)
	}
	want := int(math.Ceil(120 * scale)) // the default tier's reads, scaled
	allowed := map[string]int{}
	for i := 0; i < 4*want; i++ {
		url := a
		if i%2 == 1 {
			url = b
		}
		if code, _ := call(t, "GET", url+"/v1/auth/whoami", "", "X-Agent-Key", key["key"].(string)); code == http.StatusOK {
			allowed[url]++
		} else if code != http.StatusTooManyRequests {
			t.Fatalf("request %d: %d", i, code)
		}
	}
	if allowed[a]+allowed[b] != want || allowed[a] == 0 || allowed[b] == 0 {
		t.Fatalf("allowed %d by one process and %d by the other, want %d in total from both", allowed[a], allowed[b], want)
	}
}
