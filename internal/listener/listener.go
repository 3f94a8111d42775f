// Package listener opens the service's TCP listener, or takes over one a
// parent process opened for it (systemd's socket activation), and opens
// one for a child process to take over.
//
// A parent that asks the kernel for a free port, closes it and hands the
// number to a child leaves the port free until the child binds it, seconds
// later for the service; another process may take it meanwhile and answer
// the parent's health checks in the child's place. Handing over the open
// socket leaves no such moment.
package listener

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
)

// fd is the first inherited descriptor of socket activation (SD_LISTEN_FDS_START).
const fd = 3

// Listen returns the listener this process was handed (LISTEN_FDS=1, the
// socket as descriptor 3; LISTEN_PID, when set, must be this process), or
// else a new one on addr. The variables are unset once read, so a process
// this one starts does not take them for its own.
func Listen(addr string) (net.Listener, error) {
	n, pid := os.Getenv("LISTEN_FDS"), os.Getenv("LISTEN_PID")
	if n == "" {
		return net.Listen("tcp", addr)
	}
	os.Unsetenv("LISTEN_FDS")
	os.Unsetenv("LISTEN_PID")
	os.Unsetenv("LISTEN_FDNAMES")
	if pid != "" && pid != strconv.Itoa(os.Getpid()) {
		return net.Listen("tcp", addr) // meant for another process
	}
	if n != "1" {
		return nil, fmt.Errorf("LISTEN_FDS=%q: the service takes over exactly one socket", n)
	}
	f := os.NewFile(fd, "LISTEN_FD_3")
	defer f.Close() // FileListener holds a duplicate
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("take over the socket of LISTEN_FDS: %w", err)
	}
	return ln, nil
}

// Hand opens a loopback listener on a free port and arranges for cmd, not
// yet started and with its Env set (nil: this process's), to take it over
// (Listen): it returns the address, and a
// close to call once cmd has started (or failed to), which closes this
// process's copy so the socket lives as long as the child.
func Hand(cmd *exec.Cmd) (addr string, closeParent func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	defer ln.Close()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		return "", nil, err
	}
	if len(cmd.ExtraFiles) != 0 {
		f.Close()
		return "", nil, fmt.Errorf("cmd has extra files already: the socket must be descriptor %d", fd)
	}
	cmd.ExtraFiles = []*os.File{f}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "LISTEN_FDS=1")
	return ln.Addr().String(), func() { f.Close() }, nil
}
