// Command searchload measures search the way shoppers use it: every request
// a different query (words and filters drawn at random), so no answer is
// served from a cache. scripts/load.sh runs it; hey measures one URL only.
//
//	go run ./scripts/searchload -base http://127.0.0.1:8080 -n 20000 -c 20
//
// It prints one line: requests/s, p50 ms, p99 ms and the number of
// failed (non-200) requests. -slowest n also lists the n slowest queries
// on stderr.
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"marketplace/scripts/internal/searchmix"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:8080", "service base URL")
	path := flag.String("path", "/api/v1/listings", "search route (/api/v1/listings or /v1/search)")
	key := flag.String("key", "", "X-Agent-Key to send (Variant B)")
	n := flag.Int("n", 20000, "requests")
	c := flag.Int("c", 20, "concurrent clients")
	seed := flag.Uint64("seed", 1, "random seed of the queries")
	slowest := flag.Int("slowest", 0, "also print the n slowest queries with their latency, to stderr")
	flag.Parse()

	rng := rand.New(rand.NewPCG(*seed, 7))
	urls := make([]string, *n)
	for i := range urls {
		urls[i] = *base + *path + "?" + searchmix.Query(rng)
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *c}, Timeout: 30 * time.Second}
	lat := make([]time.Duration, *n)
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range *c {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= *n {
					return
				}
				req, _ := http.NewRequest("GET", urls[i], nil)
				if *key != "" {
					req.Header.Set("X-Agent-Key", *key)
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				lat[i] = time.Since(t0)
				if err != nil || resp.StatusCode != http.StatusOK {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if *slowest > 0 {
		printSlowest(os.Stderr, urls, lat, *slowest)
	}
	slices.Sort(lat)
	ms := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	// One line for scripts/load.sh: requests/s, p50 ms, p99 ms, failures.
	fmt.Printf("%.0f %.2f %.2f %d\n", float64(*n)/elapsed.Seconds(), ms(0.50), ms(0.99), failed.Load())
}

// printSlowest writes the n slowest queries, slowest first: where a
// search's tail comes from.
func printSlowest(w io.Writer, urls []string, lat []time.Duration, n int) {
	order := make([]int, len(urls))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(lat[b] - lat[a]) })
	for _, i := range order[:min(n, len(order))] {
		fmt.Fprintf(w, "%8.1f ms  %s\n", float64(lat[i].Microseconds())/1000, urls[i])
	}
}
