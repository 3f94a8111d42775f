package listener

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

const childEnv = "LISTENER_TEST_CHILD"

// TestMain lets the test binary be the child that takes the socket over.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		ln, err := Listen("127.0.0.1:1") // never bound when a socket is handed over
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%d %q", os.Getpid(), os.Getenv("LISTEN_FDS"))
		}))
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestHand: the child serves on the socket handed over, which answers as
// soon as the child runs (the kernel queues connections before it
// accepts), and has unset LISTEN_FDS for its own children.
func TestHand(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=1")
	addr, closeParent, err := Hand(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	closeParent()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get("http://" + addr)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := strconv.Itoa(cmd.Process.Pid) + ` ""`; string(b) != want {
		t.Fatalf("the child answered %q, want %q", b, want)
	}
}

// TestListen: without LISTEN_FDS, or with a LISTEN_PID of another process,
// Listen opens a listener of its own; a count other than 1 is refused.
func TestListen(t *testing.T) {
	for _, tc := range []struct {
		fds, pid string
		ok       bool
	}{
		{"", "", true},
		{"1", "1", true}, // pid 1 is not this test
		{"2", "", false},
	} {
		t.Setenv("LISTEN_FDS", tc.fds)
		t.Setenv("LISTEN_PID", tc.pid)
		if tc.fds == "" {
			os.Unsetenv("LISTEN_FDS")
		}
		ln, err := Listen("127.0.0.1:0")
		if (err == nil) != tc.ok {
			t.Fatalf("LISTEN_FDS=%q LISTEN_PID=%q: %v", tc.fds, tc.pid, err)
		}
		if ln != nil {
			if _, ok := ln.Addr().(*net.TCPAddr); !ok {
				t.Fatalf("listener on %v", ln.Addr())
			}
			ln.Close()
		}
		if _, set := os.LookupEnv("LISTEN_FDS"); set {
			t.Fatalf("LISTEN_FDS=%q is still set after Listen", tc.fds)
		}
	}
}
