package storetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Templates outlive every test of a process, and a test binary has no hook
// at its end, so each process names its templates after its pid and removes
// those of processes that are gone.

const processPrefix = "marketplace-storetest-"

var (
	processDirOnce sync.Once
	processDirPath string
	processDirErr  error
)

// processDir is this process's temp directory for templates. Making it
// removes the directories of test processes that have exited.
func processDir() (string, error) {
	processDirOnce.Do(func() {
		old, _ := filepath.Glob(filepath.Join(os.TempDir(), processPrefix+"*"))
		for _, dir := range old {
			if pid, ok := pidOf(filepath.Base(dir), processPrefix); ok && !alive(pid) {
				_ = os.RemoveAll(dir)
			}
		}
		processDirPath = filepath.Join(os.TempDir(), fmt.Sprintf("%s%d", processPrefix, os.Getpid()))
		// A directory of this pid already is a dead process's whose pid
		// came round again: its templates may hold other migrations.
		_ = os.RemoveAll(processDirPath)
		processDirErr = os.MkdirAll(processDirPath, 0o700)
	})
	return processDirPath, processDirErr
}

// pidOf reads the pid from a name made of prefix, the pid, and optionally
// "_" and more.
func pidOf(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	rest, _, _ = strings.Cut(rest, "_")
	pid, err := strconv.Atoi(rest)
	return pid, err == nil && pid > 0
}

// alive reports whether a process with pid exists on this machine.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
