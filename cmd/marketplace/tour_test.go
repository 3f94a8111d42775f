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
// (the tour's first line, B=..., is pointed at a free port). The script runs
// with nothing of the caller's environment but PATH and HOME, so every
// variable it uses must be set by the tour itself. Every curl goes through a
// shim that fails the script on an HTTP error or an error envelope, so each
// step must succeed; at the end the lamp's order must be completed with 1500
// refunded and the rest of the seller's share paid out, as the tour says.
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
	// The server gets the start line's settings and nothing the caller may
	// have set for the service (a database, Stripe, S3, an AI endpoint).
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MARKETPLACE_") && !strings.HasPrefix(kv, "STRIPE_") {
			srv.Env = append(srv.Env, kv)
		}
	}
	srv.Env = append(srv.Env, startEnv...)
	srv.Env = append(srv.Env, "MARKETPLACE_ADDR="+addr, "MARKETPLACE_DATA_DIR="+filepath.Join(dir, "data"),
		"MARKETPLACE_METRICS_ADDR=")
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
			<-exited
		}
	})
	waitHealthy(t, addr, exited)

	// The shim runs the real curl without any ~/.curlrc (-q), failing on an
	// HTTP error status (--fail-with-body keeps the answer for the log), and
	// fails on an answer that is an error envelope.
	realCurl, _ := exec.LookPath("curl")
	fail := "--fail-with-body"
	if help, _ := exec.Command(realCurl, "--help", "all").Output(); !strings.Contains(string(help), fail) {
		fail = "--fail" // curl before 7.76
	}
	shims := filepath.Join(dir, "shims")
	if err := os.Mkdir(shims, 0o755); err != nil {
		t.Fatal(err)
	}
	shim := "#!/usr/bin/env bash\n" +
		"out=$(" + realCurl + " -q " + fail + " \"$@\") || { rc=$?; printf '%s\\n' \"$out\"; echo \"tour: curl $* failed ($rc)\" >&2; exit $rc; }\n" +
		"printf '%s\\n' \"$out\"\n" +
		"case $out in *'\"success\":false'*) echo \"tour: curl $* answered an error\" >&2; exit 1;; esac\n"
	if err := os.WriteFile(filepath.Join(shims, "curl"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	script = strings.Replace(script, "B=http://127.0.0.1:8080\n", "B=http://"+addr+"\n", 1) +
		"\nprintf 'TOUR-RESULT %s %s\\n' \"$ORDER\" \"$BUYER_TOKEN\"\n"
	run := exec.Command("bash", "-euo", "pipefail", "-c", script)
	run.Dir = root
	run.Env = []string{"PATH=" + shims + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C"}
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("the tour failed: %v\n%s\nserver log:\n%s", err, tail(string(out), 4000), tail(logs.String(), 2000))
	}

	// What the tour's comments promise, as its output shows it.
	for _, want := range []struct{ what, text string }{
		{"the owners verified", `"status":"verified"`},
		{"the photo accepted", `"width":640,"height":480`},
		{"the repeated purchase replayed", "Idempotent-Replayed: true"},
		{"the hosted page paid", `"status":"paid","totalCharged":2499`},
		{"the label bought", `"labelUrl":`},
		{"the order shipped", `"status":"shipped"`},
		{"the dispute resolved", `"status":"resolved"`},
		{"the ACP session ready", `"status":"ready_for_payment"`},
		{"the ACP session completed", `"status":"completed"`},
	} {
		if !strings.Contains(string(out), want.text) {
			t.Errorf("%s: the output has no %s", want.what, want.text)
		}
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

	// The tour's last dashboard is the seller's, after the dispute: the lamp's payout is
	// released, 4500 less the 3% commission (135) and the 1500 refunded, and
	// nothing stays frozen; the bowls (2400 less 72) wait to be shipped.
	var dash struct {
		Data struct {
			Payouts struct {
				Released, Frozen, Upcoming int64
			} `json:"payouts"`
		} `json:"data"`
	}
	board := ""
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, `"payouts":`) {
			board = l
		}
	}
	if json.Unmarshal([]byte(board), &dash) != nil {
		t.Fatalf("the tour shows no seller dashboard:\n%s", tail(string(out), 2000))
	}
	if p := dash.Data.Payouts; p.Released != 2865 || p.Frozen != 0 || p.Upcoming != 2328 {
		t.Errorf("the dashboard's payouts are %+v, want 2865 released, none frozen, 2328 upcoming", p)
	}
}

// tourParts finds the tour's start line (its NAME=value settings) and its
// script: the lines of the fenced blocks between the tour markers (the prose
// around them is for readers and is not run).
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
	fenced, blocks := false, 0
	for _, l := range strings.Split(body, "\n") {
		switch {
		case strings.HasPrefix(l, "```"):
			if fenced = !fenced; fenced {
				blocks++
			}
		case fenced:
			b.WriteString(l + "\n")
		case strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t"):
			t.Fatalf("the tour has an indented code line outside its ``` blocks, which would not be run: %q", l)
		}
	}
	if fenced || blocks == 0 {
		t.Fatalf("the tour's ``` blocks are not closed or missing (%d opened)", blocks)
	}
	if !strings.HasPrefix(b.String(), "B=http://127.0.0.1:8080\n") {
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
