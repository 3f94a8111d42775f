// Command testsummary reads `go test -json` events on stdin and prints what
// a plain `go test` would: one line per package, and the output of every
// failed test in full. .ci/run uses it so one test run serves both the
// console and the conformance check. Last it names the packages that ran
// longest, each with when it started and ended after the run's first
// event: the run's critical path.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	outputs := map[string][]string{} // package/test -> lines, until it passes
	var first time.Time
	spans := map[string]*span{}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Println(sc.Text()) // build errors come as plain text
			continue
		}
		if first.IsZero() {
			first = e.Time
		}
		if e.Test == "" && e.Package != "" {
			sp := spans[e.Package]
			if sp == nil {
				sp = &span{pkg: e.Package, start: e.Time}
				spans[e.Package] = sp
			}
			sp.end = e.Time
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
	longest(spans, first)
}

// span is when a package's test binary started and ended.
type span struct {
	pkg        string
	start, end time.Time
}

// longest prints the five packages that ran longest.
func longest(spans map[string]*span, first time.Time) {
	all := make([]*span, 0, len(spans))
	for _, sp := range spans {
		all = append(all, sp)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].end.Sub(all[i].start) > all[j].end.Sub(all[j].start) })
	if len(all) > 5 {
		all = all[:5]
	}
	for _, sp := range all {
		fmt.Printf("longest: %s %.0fs (from %.0fs to %.0fs)\n", sp.pkg, sp.end.Sub(sp.start).Seconds(),
			sp.start.Sub(first).Seconds(), sp.end.Sub(first).Seconds())
	}
}
