// Command testsummary reads `go test -json` events on stdin and prints what
// a plain `go test` would: one line per package, and the output of every
// failed test in full. .ci/run uses it so one test run serves both the
// console and the conformance check.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	outputs := map[string][]string{} // package/test -> lines, until it passes
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Println(sc.Text()) // build errors come as plain text
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			if e.Test == "" && (strings.HasPrefix(e.Output, "ok ") || strings.HasPrefix(e.Output, "FAIL") ||
				strings.HasPrefix(e.Output, "?") || strings.HasPrefix(e.Output, "panic")) {
				fmt.Print(e.Output)
				continue
			}
			outputs[key] = append(outputs[key], e.Output)
		case "pass", "skip":
			delete(outputs, key)
		case "fail":
			fmt.Print(strings.Join(outputs[key], ""))
			delete(outputs, key)
		}
	}
}
