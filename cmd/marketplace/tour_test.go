package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTour runs the README's curl tour exactly as written, on a fresh
// binary started with the README's own start line: only the address changes
// (the tour's first line, B=..., is pointed at a free port). Every curl goes
// through a shim that fails the script on an error envelope, so each step
// must succeed; at the end the lamp's order must be completed with 1500
// refunded, as the tour says.
func TestTour(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	for _, tool := range []string{"bash", "curl", "grep", "cut", "head"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the tour needs %s: %v", tool, err)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	startEnv, script := tourParts(t, string(readme))

	dir := t.TempDir()
	bin := filepath.Join(dir, "marketplace")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	addr := freeAddr(t)
	srv := exec.Command(bin)
	srv.Env = append(os.Environ(), "MARKETPLACE_DATABASE_URL=", "MARKETPLACE_REDIS_URL=", "MARKETPLACE_MODE=",
		"MARKETPLACE_PUBLIC_URL=", "MARKETPLACE_JWT_SECRET=", "MARKETPLACE_METRICS_ADDR=")
	srv.Env = append(srv.Env, startEnv...)
	srv.Env = append(srv.Env, "MARKETPLACE_ADDR="+addr, "MARKETPLACE_DATA_DIR="+filepath.Join(dir, "data"))
	logs := newSyncBuffer()
	srv.Stdout, srv.Stderr = logs, logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = srv.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = srv.Process.Kill()
		}
	})
	waitHealthy(t, addr, exited)

	// The shim runs the real curl and fails on an answer that is an error
	// envelope.
	realCurl, _ := exec.LookPath("curl")
	shims := filepath.Join(dir, "shims")
	if err := os.Mkdir(shims, 0o755); err != nil {
		t.Fatal(err)
	}
	shim := "#!/usr/bin/env bash\nout=$(" + realCurl + " \"$@\") || exit $?\nprintf '%s\\n' \"$out\"\n" +
		"case $out in *'\"success\":false'*) echo \"tour: curl $* answered an error\" >&2; exit 1;; esac\n"
	if err := os.WriteFile(filepath.Join(shims, "curl"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	script = strings.Replace(script, "B=http://127.0.0.1:8080\n", "B=http://"+addr+"\n", 1) +
		"\nprintf 'TOUR-RESULT %s %s\\n' \"$ORDER\" \"$BUYER_TOKEN\"\n"
	run := exec.Command("bash", "-euo", "pipefail", "-c", script)
	run.Dir = root
	run.Env = append(os.Environ(), "PATH="+shims+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("the tour failed: %v\n%s\nserver log:\n%s", err, tail(string(out), 4000), tail(logs.String(), 2000))
	}
	m := regexp.MustCompile(`TOUR-RESULT (\S+) (\S+)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no result line:\n%s", tail(string(out), 2000))
	}
	req, _ := http.NewRequest("GET", "http://"+addr+"/api/v1/orders/"+m[1], nil)
	req.Header.Set("Authorization", "Bearer "+m[2])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var order struct {
		Data struct {
			Status         string `json:"status"`
			AmountRefunded int64  `json:"amountRefunded"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&order); err != nil {
		t.Fatal(err)
	}
	if order.Data.Status != "completed" || order.Data.AmountRefunded != 1500 {
		t.Fatalf("after the tour the lamp's order is %+v, want completed with 1500 refunded", order.Data)
	}
	if !strings.Contains(string(out), "Idempotent-Replayed: true") {
		t.Error("the repeated purchase was not a replay")
	}
}

// tourParts finds the tour's start line (its NAME=value settings) and its
// script (the fenced blocks between the tour markers) in the README.
func tourParts(t *testing.T, readme string) (env []string, script string) {
	t.Helper()
	_, server, ok := strings.Cut(readme, "<!-- tour:server -->\n")
	if !ok {
		t.Fatal("README has no <!-- tour:server --> line")
	}
	line, _, _ := strings.Cut(server, "\n")
	if !strings.HasSuffix(strings.TrimSpace(line), "go run ./cmd/marketplace") {
		t.Fatalf("the tour's start line is %q", line)
	}
	for _, m := range regexp.MustCompile(`(MARKETPLACE_\w+)=('[^']*'|\S+)`).FindAllStringSubmatch(line, -1) {
		env = append(env, m[1]+"="+strings.Trim(m[2], "'"))
	}
	_, rest, ok := strings.Cut(readme, "<!-- tour:start -->\n")
	if !ok {
		t.Fatal("README has no <!-- tour:start --> marker")
	}
	body, _, ok := strings.Cut(rest, "<!-- tour:end -->")
	if !ok {
		t.Fatal("README has no <!-- tour:end --> marker")
	}
	var b strings.Builder
	for _, l := range strings.Split(body, "\n") {
		if !strings.HasPrefix(l, "```") {
			b.WriteString(l + "\n")
		}
	}
	if !strings.Contains(b.String(), "B=http://127.0.0.1:8080\n") {
		t.Fatal("the tour does not start with B=http://127.0.0.1:8080")
	}
	return env, b.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
