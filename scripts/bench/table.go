package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"
)

// print writes the engine's table, as issue 18 lays it out.
func (r *result) print(w io.Writer, o Options) {
	seedNote := fmt.Sprintf("seeded in %s", r.seeded.Round(100*time.Millisecond))
	if r.reused {
		seedNote = "reused a kept store"
	}
	fmt.Fprintf(w, "\n### %s, %s listings (%s), %s\n\n", r.engine, thousands(int64(r.listings)), seedNote, r.date.Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(w, "%s, %d cores shared by the service, the bare server and the load; load average %s at the start, %s at the end\n\n",
		runtime.Version(), runtime.NumCPU(), r.loadStart, r.loadEnd)
	fmt.Fprintln(w, "| What | Figure | Target |")
	fmt.Fprintln(w, "|---|---|---|")

	ratios := make([]string, len(r.reads.ratios))
	for i, x := range r.reads.ratios {
		ratios[i] = fmt.Sprintf("%.0f%%", 100*x)
	}
	ratio := 0.0
	if b := r.reads.bare.rate(); b > 0 {
		ratio = r.reads.service.rate() / b
	}
	row(w, fmt.Sprintf("`GET /api/v1/listings/{id}`, random ids, %d clients, %d alternating runs against a bare `net/http` server answering the same bodies from a map", o.Clients, len(r.reads.ratios)),
		fmt.Sprintf("**%.0f%% of bare** (%s against %s req/s; runs %s); p99 %.1f against %.1f ms%s",
			100*ratio, thousands(int64(r.reads.service.rate())), thousands(int64(r.reads.bare.rate())), strings.Join(ratios, ", "),
			r.reads.service.pct(0.99), r.reads.bare.pct(0.99), failures(r.reads.service, r.reads.bare)),
		">= 70% of bare, in the same run")
	row(w, fmt.Sprintf("varied search (`scripts/searchload` mix), %d clients", o.Clients),
		fmt.Sprintf("%s req/s, p50 %.1f ms, **p99 %.1f ms**%s", thousands(int64(r.search.rate())), r.search.pct(0.5), r.search.pct(0.99), failures(r.search)),
		"p99 < 20 ms at 1,000,000 listings")
	target := ">= 1,000/s, p99 < 50 ms"
	if r.engine == "postgres" {
		target = ">= 600/s, p99 < 50 ms"
	}
	row(w, fmt.Sprintf("agent purchases (`POST /api/v1/agent/purchase`), %d agents", o.Buyers),
		fmt.Sprintf("**%s/s**, p50 %.1f ms, **p99 %.1f ms** (%s bought)%s", thousands(int64(r.buys.rate())), r.buys.pct(0.5), r.buys.pct(0.99),
			thousands(int64(r.buys.n-r.buys.failed)), failures(r.buys)), target)
	row(w, fmt.Sprintf("idle RSS after start-up (the service's process, pid %d)", r.pid), r.idleRSS.String(), "< 60 MB")
	row(w, "RSS after the search load (the same process)", fmt.Sprintf("%s; the bare server after its runs: %s", r.rssAft, mb(r.bareRSS.total)),
		"explained in docs/performance.md, bounded by a setting")
	fmt.Fprintln(w)
}

func row(w io.Writer, what, figure, target string) {
	fmt.Fprintf(w, "| %s | %s | %s |\n", what, figure, target)
}

// failures notes failed requests, with the first one.
func failures(rs ...loadResult) string {
	var out []string
	for _, r := range rs {
		if r.failed > 0 {
			out = append(out, fmt.Sprintf("%d of %d failed, first: %s", r.failed, r.n, strings.ReplaceAll(r.firstFail, "|", "/")))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; **" + strings.Join(out, "; ") + "**"
}

// String is the total, then its anonymous and file-backed parts.
func (r rss) String() string {
	return fmt.Sprintf("**%s** (anonymous %s, file-backed %s)", mb(r.total), mb(r.anon), mb(r.file))
}

func mb(kb int64) string {
	if kb < 0 {
		return "unknown"
	}
	return thousands((kb+512)/1024) + " MB"
}

// thousands writes n with comma separators.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
