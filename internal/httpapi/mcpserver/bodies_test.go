package mcpserver_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/internal/httpapi/mcpserver"
	"marketplace/internal/testkit"
)

// heapInUse is the bytes of live and not yet swept heap objects.
func heapInUse() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// toolCall is a tools/call message of tool with args.
func toolCall(tool string, args map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return b
}

// flood sends every body at once to /mcp, each with its key, and answers
// the count of each status (-1: the server answered early and closed
// while the body was still going), the error codes, the Retry-After
// headers of the 503s and the peak growth of the heap while it lasted.
func flood(t *testing.T, s *testkit.Server, keys []string, bodies [][]byte) (map[int]int, map[string]int, []string, int64) {
	t.Helper()
	runtime.GC()
	base := heapInUse()
	var peak uint64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if in := heapInUse(); in > peak {
				peak = in
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	var mu sync.Mutex
	statuses, codes := map[int]int{}, map[string]int{}
	var retryAfter []string
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 2 * time.Minute}
	for i, body := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", s.URL+mcpserver.Path, bytes.NewReader(body))
			req.Header.Set("X-Agent-Key", keys[i%len(keys)])
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := client.Do(req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				statuses[-1]++
				return
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			statuses[resp.StatusCode]++
			var env struct {
				Error struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(raw, &env) == nil && env.Error.Code != "" {
				codes[env.Error.Code+": "+env.Error.Message]++
			}
			if resp.StatusCode == http.StatusServiceUnavailable {
				retryAfter = append(retryAfter, resp.Header.Get("Retry-After"))
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	return statuses, codes, retryAfter, int64(peak) - int64(base)
}

// TestMCPBodyFlood sends large MCP bodies at once, as the upload flood
// does photos: 30 calls of get_listing with 15 MiB of arguments from one
// key (which once took the process from 276 MB to 1,374 MB), then 24 from
// six keys, then 18 create_listing calls with 12 MiB of inline photo from
// six keys. Every tool but create_listing takes at most 1 MiB of
// arguments, so each get_listing body read is refused with 413 naming the
// tool and its bound; the bytes held at once are bounded per key and per
// process, so the rest are refused unread with 503 and Retry-After; and
// the heap stays within a bound. Calls of the usual size go through
// afterwards. Not parallel: it measures the process's heap.
func TestMCPBodyFlood(t *testing.T) {
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("flood-seller")
		listing := s.ActiveListing(seller, "Cast iron skillet ten inch seasoned", 3000)
		pad := strings.Repeat("x", 15<<20)
		big := toolCall("get_listing", map[string]any{"listing_id": listing, "note": pad})
		one := s.NewKey(seller, "buy_sell").Secret
		var six []string
		for range 6 {
			six = append(six, s.NewKey(seller, "buy_sell").Secret)
		}

		// create_listing may take 16 MiB: these are read and served whole.
		photo := base64.StdEncoding.EncodeToString(append(testkit.JPEG(8, 8), make([]byte, 9<<20)...))
		sell := toolCall("create_listing", map[string]any{"brief_description": "a large photo", "photos": []any{photo}})
		// At most two bodies of the largest size are held at once (one per
		// key): one over its tool's bound is copied once more to be
		// refused; one served is decoded several times over (the MCP SDK
		// reads and parses a message twice, then its params, then the tool
		// checks and decodes its arguments), about ten times its size at
		// the peak. The rest is the HTTP machinery of the connections.
		for _, run := range []struct {
			name    string
			keys    []string
			calls   int
			body    []byte
			refused bool  // over its tool's bound
			maxMiB  int64 // the heap's growth at the peak
		}{{"one key", []string{one}, 30, big, true, 200}, {"six keys", six, 24, big, true, 200},
			{"create_listing", six, 18, sell, false, 400}} {
			bodies := make([][]byte, run.calls)
			for i := range bodies {
				bodies[i] = run.body
			}
			statuses, codes, retryAfter, grew := flood(t, s, run.keys, bodies)
			t.Logf("%s: answers %v, codes %v; the heap grew by %d MiB at the peak", run.name, statuses, codes, grew>>20)
			taken := http.StatusRequestEntityTooLarge // refused once read
			if !run.refused {
				taken = http.StatusOK // served (the photo is no image: a tool error)
			}
			for code := range statuses {
				if code != -1 && code != taken && code != http.StatusServiceUnavailable {
					t.Errorf("%s: unexpected answer %d", run.name, code)
				}
			}
			if statuses[taken] == 0 {
				t.Errorf("%s: no call was read and answered %d", run.name, taken)
			}
			want := fmt.Sprintf("PAYLOAD_TOO_LARGE: the arguments of get_listing may be at most %d bytes", 1<<20)
			if codes[want] != statuses[http.StatusRequestEntityTooLarge] {
				t.Errorf("%s: 413s %v, want each %q", run.name, codes, want)
			}
			if statuses[http.StatusServiceUnavailable] == 0 {
				t.Errorf("%s: %d large bodies at once were all taken in", run.name, run.calls)
			}
			for _, ra := range retryAfter {
				if ra != "2" {
					t.Fatalf("%s: 503 with Retry-After %q, want 2", run.name, ra)
				}
			}
			if grew > run.maxMiB<<20 {
				t.Errorf("%s: the heap grew by %d MiB during the flood, want at most %d", run.name, grew>>20, run.maxMiB)
			}
		}

		// Calls of the usual size still go through, a create_listing with an
		// inline photo above the others' bound among them.
		cs := overHTTP(t, s, one)
		if l := call(t, cs, "get_listing", map[string]any{"listing_id": listing}).want(t, "get_listing", "").Data; l["id"] != listing {
			t.Fatalf("get_listing after the flood: %v", l)
		}
		photo = base64.StdEncoding.EncodeToString(append(testkit.JPEG(8, 8), make([]byte, 2<<20)...))
		call(t, cs, "create_listing", map[string]any{"brief_description": "a photo of 2 MiB", "photos": []any{photo}}).
			want(t, "create_listing", "VALIDATION_ERROR")
	})
}

// chunked hides a reader's length, so the client sends it without
// Content-Length.
type chunked struct{ r io.Reader }

func (c chunked) Read(p []byte) (int, error) { return c.r.Read(p) }

// Each tool's arguments are bounded by what it needs: over that, a call is
// PAYLOAD_TOO_LARGE naming the tool and its bound, as a tool error on every
// transport and, over HTTP, as a 413 before the MCP server decodes the
// body, whether it came with a Content-Length or without one.
func TestMCPArgumentBounds(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("bounds-seller")
		key := s.NewKey(seller, "buy_sell").Secret
		listing := s.ActiveListing(seller, "Linen tea towels set of four", 1500)
		over := map[string]any{"listing_id": listing, "note": strings.Repeat("x", 1<<20)}

		a := call(t, inMemory(t, s, key), "get_listing", over).want(t, "get_listing", "PAYLOAD_TOO_LARGE")
		if d := buyObj(t, a.Data, "details"); d["tool"] != "get_listing" || testkit.Num(t, d, "limit") != 1<<20 {
			t.Fatalf("in memory: %v", a.Data)
		}

		post := func(body io.Reader) (int, string) {
			req, _ := http.NewRequest("POST", s.URL+mcpserver.Path, body)
			req.Header.Set("X-Agent-Key", key)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(raw)
		}
		small := toolCall("get_listing", map[string]any{"listing_id": listing})
		large := toolCall("get_listing", over)
		huge := toolCall("create_listing", map[string]any{"brief_description": "huge", "photos": []any{strings.Repeat("A", 17<<20)}})
		for _, how := range []struct {
			name string
			wrap func([]byte) io.Reader
		}{{"with Content-Length", func(b []byte) io.Reader { return bytes.NewReader(b) }},
			{"chunked", func(b []byte) io.Reader { return chunked{bytes.NewReader(b)} }}} {
			if code, body := post(how.wrap(small)); code != http.StatusOK || !strings.Contains(body, listing) || strings.Contains(body, `"isError":true`) {
				t.Fatalf("%s, a small call: %d %s", how.name, code, body)
			}
			if code, body := post(how.wrap(large)); code != http.StatusRequestEntityTooLarge ||
				!strings.Contains(body, "the arguments of get_listing may be at most 1048576 bytes") {
				t.Fatalf("%s, get_listing over its bound: %d %s", how.name, code, body)
			}
			if code, body := post(how.wrap(huge)); code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "an MCP request may be at most") {
				t.Fatalf("%s, a request over the largest bound: %d %.300s", how.name, code, body)
			}
		}
	})
}
