package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"marketplace/internal/httpapi/mcpserver"
	"marketplace/internal/testkit"
)

// TestMCPThroughput prints the figures docs/performance.md's MCP section quotes:
// tool calls per second over Streamable HTTP (/mcp, one stateless POST
// per call) against the equivalent Variant B route, with the same key and
// the same number of concurrent clients, and each call's p50 and p99. A
// pair whose tool is not in the catalogue is left out. It runs only with
// MARKETPLACE_MCP_BENCH=1:
//
//	MARKETPLACE_MCP_BENCH=1 go test ./internal/httpapi/mcpserver -run TestMCPThroughput -v
//
// MARKETPLACE_MCP_BENCH_N (calls per measurement, default 2000) and
// MARKETPLACE_MCP_BENCH_C (concurrent clients, default 4) tune it.
func TestMCPThroughput(t *testing.T) {
	t.Parallel()
	if os.Getenv("MARKETPLACE_MCP_BENCH") == "" {
		t.Skip("set MARKETPLACE_MCP_BENCH=1 to measure MCP tool calls against HTTP routes")
	}
	n, c := envInt("MARKETPLACE_MCP_BENCH_N", 2000), envInt("MARKETPLACE_MCP_BENCH_C", 4)
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("bench-seller")
		listing := ""
		for i := range 50 {
			id := s.ActiveListing(seller, fmt.Sprintf("Brass desk lamp number %d with a green glass shade", i), int64(2000+i*10))
			if listing == "" {
				listing = id
			}
		}
		key := s.NewKey(s.VerifiedOwner("bench-buyer"), "buy")
		has := func(name string) bool {
			for _, tl := range s.App.MCP.Tools {
				if tl.Name == name {
					return true
				}
			}
			return false
		}
		pairs := []struct {
			tool  string
			args  map[string]any
			route string
		}{
			{"whoami", nil, "/v1/auth/whoami"},
			{"search_listings", map[string]any{"q": "lamp"}, "/v1/search?q=lamp"},
			{"get_listing", map[string]any{"listing_id": listing}, "/v1/listings/" + listing},
		}
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * c}}
		t.Logf("%s, %d calls, %d concurrent clients", s.App.DB.Dialect(), n, c)
		for _, p := range pairs {
			if !has(p.tool) {
				t.Logf("%-16s not in the catalogue yet: skipped", p.tool)
				continue
			}
			// One MCP session per client, opened before the clock starts.
			sessions := make([]*mcp.ClientSession, c)
			for i := range sessions {
				sessions[i] = benchSession(t, s.URL+mcpserver.Path, key.Secret, hc.Transport)
			}
			args := p.args
			if args == nil {
				args = map[string]any{}
			}
			mcpRate, mcpLat := measure(t, n, c, func(worker int) error {
				res, err := sessions[worker].CallTool(context.Background(), &mcp.CallToolParams{Name: p.tool, Arguments: args})
				if err == nil && res.IsError {
					err = fmt.Errorf("%s: tool error %v", p.tool, res.StructuredContent)
				}
				return err
			})
			// The same call as one hand-made JSON-RPC POST, without the
			// SDK client: what the server itself costs.
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
				"params": map[string]any{"name": p.tool, "arguments": args}})
			rawRate, rawLat := measure(t, n, c, func(int) error {
				req, _ := http.NewRequest("POST", s.URL+mcpserver.Path, bytes.NewReader(body))
				req.Header.Set("X-Agent-Key", key.Secret)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
				resp, err := hc.Do(req)
				if err != nil {
					return err
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || bytes.Contains(out, []byte(`"isError":true`)) || !bytes.Contains(out, []byte(`"result"`)) {
					return fmt.Errorf("POST /mcp %s: %d %s", p.tool, resp.StatusCode, out)
				}
				return nil
			})
			httpRate, httpLat := measure(t, n, c, func(int) error {
				req, _ := http.NewRequest("GET", s.URL+p.route, nil)
				req.Header.Set("X-Agent-Key", key.Secret)
				resp, err := hc.Do(req)
				if err != nil {
					return err
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					return fmt.Errorf("GET %s: %d", p.route, resp.StatusCode)
				}
				return nil
			})
			t.Logf("%-16s MCP (go-sdk client) %6.0f calls/s (p50 %v, p99 %v) | raw JSON-RPC POST %6.0f/s (p50 %v, p99 %v) | GET %s %6.0f req/s (p50 %v, p99 %v)",
				p.tool, mcpRate, mcpLat[0], mcpLat[1], rawRate, rawLat[0], rawLat[1], p.route, httpRate, httpLat[0], httpLat[1])
		}
	})
}

// benchSession is overHTTP on a shared transport that keeps a connection
// per client alive (http.DefaultTransport keeps two per host).
func benchSession(t *testing.T, url, key string, rt http.RoundTripper) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: keyHeader{key: key, next: rt}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// measure runs n calls of do over c workers and answers calls per second
// and the p50 and p99 latency.
func measure(t *testing.T, n, c int, do func(worker int) error) (float64, [2]time.Duration) {
	t.Helper()
	for w := range c { // warm up: connections, caches
		if err := do(w); err != nil {
			t.Fatal(err)
		}
	}
	lat := make([]time.Duration, n)
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, c)
	start := time.Now()
	for w := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				t0 := time.Now()
				if err := do(w); err != nil {
					errs <- err
					return
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	slices.Sort(lat)
	return float64(n) / elapsed.Seconds(), [2]time.Duration{lat[n/2].Round(time.Microsecond), lat[n*99/100].Round(time.Microsecond)}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
