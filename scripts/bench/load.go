package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"marketplace/internal/listener"
	"marketplace/scripts/internal/searchmix"
)

// loadResult is one measured load: completed requests, failures (an error
// or an unexpected status) and the latency of each.
type loadResult struct {
	n, failed int
	elapsed   time.Duration
	lat       []time.Duration
	firstFail string
}

func (r loadResult) rate() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.n) / r.elapsed.Seconds()
}

// pct is the p-quantile latency in milliseconds.
func (r loadResult) pct(p float64) float64 {
	if len(r.lat) == 0 {
		return 0
	}
	return float64(r.lat[min(len(r.lat)-1, int(p*float64(len(r.lat))))].Microseconds()) / 1000
}

// add merges another run of the same load.
func (r *loadResult) add(o loadResult) {
	r.n += o.n
	r.failed += o.failed
	r.elapsed += o.elapsed
	r.lat = append(r.lat, o.lat...)
	slices.Sort(r.lat)
	if r.firstFail == "" {
		r.firstFail = o.firstFail
	}
}

// newClient is a keep-alive client for clients concurrent users, which
// asks for no compression (neither server is asked to gzip).
func newClient(clients int) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConnsPerHost: clients, MaxIdleConns: clients, DisableCompression: true}}
}

// call sends one request and reads the whole answer.
func call(c *http.Client, method, url string, body []byte, header ...string) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// drive runs clients workers for d (or until one says there is no more
// work): each calls do in a loop, which sends one request and says whether
// it succeeded.
func drive(ctx context.Context, clients int, d time.Duration, do func(worker int) (ok, more bool, fail string)) loadResult {
	lats := make([][]time.Duration, clients)
	var failed atomic.Int64
	var firstFail atomic.Pointer[string]
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range clients {
		wg.Go(func() {
			for ctx.Err() == nil && time.Now().Before(deadline) {
				t0 := time.Now()
				ok, more, fail := do(w)
				if !more {
					return
				}
				lats[w] = append(lats[w], time.Since(t0))
				if !ok {
					failed.Add(1)
					firstFail.CompareAndSwap(nil, &fail)
				}
			}
		})
	}
	wg.Wait()
	r := loadResult{elapsed: time.Since(start), failed: int(failed.Load())}
	for _, l := range lats {
		r.lat = append(r.lat, l...)
	}
	r.n = len(r.lat)
	slices.Sort(r.lat)
	if f := firstFail.Load(); f != nil {
		r.firstFail = *f
	}
	return r
}

// getter is a do for drive: GET of the URL next gives, wanting 200.
func getter(c *http.Client, next func(worker int) string, header ...string) func(int) (bool, bool, string) {
	return func(w int) (bool, bool, string) {
		u := next(w)
		status, body, err := call(c, "GET", u, nil, header...)
		if err != nil || status != http.StatusOK {
			return false, true, fmt.Sprintf("GET %s: %d %v %.200s", u, status, err, body)
		}
		return true, true, ""
	}
}

// readsResult is row 1: the service and the bare reference over the same
// alternating runs.
type readsResult struct {
	service, bare loadResult
	ratios        []float64 // service/bare of each round
}

// listingReads alternates runs of GET /api/v1/listings/{id} (random seeded
// ids) at the service and at the bare server, after a warm-up of each.
func listingReads(ctx context.Context, o Options, svc, bare string, ids []string) (readsResult, error) {
	var r readsResult
	client := newClient(o.Clients)
	run := func(base string, d time.Duration) loadResult {
		rngs := make([]*rand.Rand, o.Clients)
		for i := range rngs {
			rngs[i] = rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
		}
		return drive(ctx, o.Clients, d, getter(client, func(w int) string {
			return base + "/api/v1/listings/" + ids[rngs[w].IntN(len(ids))]
		}))
	}
	warm := min(o.Duration/4, 2*time.Second)
	for _, base := range []string{svc, bare} {
		if w := run(base, warm); w.failed > 0 {
			return r, fmt.Errorf("listing reads at %s: %d of %d failed, first: %s", base, w.failed, w.n, w.firstFail)
		}
	}
	each := o.Duration / time.Duration(o.Rounds)
	for range o.Rounds {
		s := run(svc, each)
		b := run(bare, each)
		r.service.add(s)
		r.bare.add(b)
		if b.rate() > 0 {
			r.ratios = append(r.ratios, s.rate()/b.rate())
		}
	}
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	return r, nil
}

// searchLoad is row 2: the searchload mix, every request a different query,
// after a warm-up with queries of another seed.
func searchLoad(ctx context.Context, o Options, base string) (loadResult, error) {
	client := newClient(o.Clients)
	queries := func(seed uint64, n int) []string {
		rng := rand.New(rand.NewPCG(seed, 7))
		out := make([]string, n)
		for i := range out {
			out[i] = base + "/api/v1/listings?" + searchmix.Query(rng)
		}
		return out
	}
	run := func(urls []string, d time.Duration) loadResult {
		var next atomic.Int64
		return drive(ctx, o.Clients, d, getter(client, func(int) string {
			return urls[int(next.Add(1)-1)%len(urls)]
		}))
	}
	run(queries(99, 20000), min(o.Duration/4, 2*time.Second))
	r := run(queries(1, 100000), o.Duration)
	return r, ctx.Err()
}

// buyer is an owner ready to buy through an agent key.
type buyer struct{ key string }

// makeBuyers registers n verified owners, each with a sandbox card, a
// buy_sell agent key and spending caps no purchase reaches, as
// internal/testkit's NewShopper does.
func makeBuyers(ctx context.Context, base string, n int) ([]buyer, error) {
	c := newClient(4)
	run := fmt.Sprintf("%x", rand.Uint32())
	do := func(method, path string, body any, want int, header ...string) (map[string]any, error) {
		var b []byte
		if body != nil {
			var err error
			if b, err = json.Marshal(body); err != nil {
				return nil, err
			}
		}
		if !strings.HasPrefix(path, "http") {
			path = base + path
		}
		status, out, err := call(c, method, path, b, header...)
		if err != nil {
			return nil, err
		}
		if status != want {
			return nil, fmt.Errorf("%s %s: %d, want %d: %.300s", method, path, status, want, out)
		}
		var env struct {
			Data map[string]any `json:"data"`
		}
		_ = json.Unmarshal(out, &env)
		return env.Data, nil
	}
	buyers := make([]buyer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i := range buyers {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = func() error {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				email := fmt.Sprintf("bench-%s-%d@example.com", run, i)
				d, err := do("POST", "/api/v1/auth/register", map[string]any{"email": email,
					"password": "bench-password-" + run, "displayName": "Bench buyer", "acceptedTerms": true}, http.StatusCreated)
				if err != nil {
					return err
				}
				auth := []string{"Authorization", "Bearer " + fmt.Sprint(d["accessToken"])}
				if d, err = do("POST", "/api/v1/seller/connect", nil, http.StatusOK, auth...); err != nil {
					return err
				}
				if _, err = do("POST", fmt.Sprint(d["onboardingUrl"]), nil, http.StatusOK); err != nil {
					return err
				}
				if d, err = do("POST", "/api/v1/payment-methods/setup", nil, http.StatusOK, auth...); err != nil {
					return err
				}
				if _, err = do("POST", "/api/v1/payment-methods/confirm", map[string]any{"setupIntentId": d["setupIntentId"],
					"paymentMethod": "pm_card_visa"}, http.StatusCreated, auth...); err != nil {
					return err
				}
				if d, err = do("POST", "/api/v1/agent-keys", map[string]any{"label": "bench", "scope": "buy_sell",
					"acceptedAgentTerms": true}, http.StatusCreated, auth...); err != nil {
					return err
				}
				buyers[i].key = fmt.Sprint(d["key"])
				_, err = do("PUT", "/api/v1/spending-controls", map[string]any{"perTransactionLimit": 1_000_000_000,
					"dailyLimit": 1_000_000_000, "weeklyLimit": 1_000_000_000, "monthlyLimit": 1_000_000_000},
					http.StatusOK, auth...)
				return err
			}()
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return buyers, nil
}

// purchases is row 3: each of o.Buyers agents (one owner each, so no
// owner's lock is shared) buys distinct active listings at their price
// until the time is up or the listings run out.
func purchases(ctx context.Context, o Options, base string, buyers []buyer, active []activeListing) (loadResult, error) {
	client := newClient(o.Buyers)
	run := fmt.Sprintf("%x", rand.Uint32())
	addr := map[string]any{"name": "Ada Buyer", "line1": "1 Main St", "city": "Portland", "state": "OR", "zip": "97201", "country": "US"}
	var next atomic.Int64
	r := drive(ctx, o.Buyers, o.Duration, func(w int) (bool, bool, string) {
		i := int(next.Add(1) - 1)
		if i >= len(active) {
			return false, false, ""
		}
		l := active[i]
		body, _ := json.Marshal(map[string]any{"listingId": l.id, "maxPrice": l.price, "shippingAddress": addr,
			"idempotencyKey": "bench-" + run + "-" + l.id})
		status, out, err := call(client, "POST", base+"/api/v1/agent/purchase", body, "X-Agent-Key", buyers[w].key)
		if err != nil || status != http.StatusCreated {
			return false, true, fmt.Sprintf("purchase of %s: %d %v %.300s", l.id, status, err, out)
		}
		return true, true, ""
	})
	return r, ctx.Err()
}

// The bare reference: this program run again with bareEnv naming a
// directory of ids and sample bodies.
const bareEnv = "MARKETPLACE_BENCH_BARE_DIR"

type sample struct {
	ID   string `json:"id"`
	Body []byte `json:"body"`
}

// prepareBare writes the files the bare server reads: every seeded id, and
// the service's own answers for up to 100 random ids (the bodies it serves,
// with the id in them).
func prepareBare(ctx context.Context, svc, work string, ids []string) (string, error) {
	dir := filepath.Join(work, "bare")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	c := newClient(1)
	var samples []sample
	for _, i := range rand.Perm(len(ids))[:min(100, len(ids))] {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		status, body, err := call(c, "GET", svc+"/api/v1/listings/"+ids[i], nil)
		if err != nil || status != http.StatusOK {
			return "", fmt.Errorf("GET /api/v1/listings/%s: %d %v %.200s", ids[i], status, err, body)
		}
		if !bytes.Contains(body, []byte(ids[i])) {
			return "", fmt.Errorf("the answer for %s does not name it: %.200s", ids[i], body)
		}
		samples = append(samples, sample{ids[i], body})
	}
	b, err := json.Marshal(samples)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "samples.json"), b, 0o644); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "ids"), []byte(strings.Join(ids, "\n")), 0o644)
}

// bareMain serves GET /api/v1/listings/{id} from a map of every seeded id
// to one of the service's sample answers, with the id put in: the same
// bytes the service would send for a listing of that size, with nothing
// else done (no store, no middleware, no log).
func bareMain(dir string) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "bare:", err)
		return 1
	}
	b, err := os.ReadFile(filepath.Join(dir, "samples.json"))
	if err != nil {
		return fail(err)
	}
	var samples []sample
	if err := json.Unmarshal(b, &samples); err != nil || len(samples) == 0 {
		return fail(fmt.Errorf("samples: %v", err))
	}
	b, err = os.ReadFile(filepath.Join(dir, "ids"))
	if err != nil {
		return fail(err)
	}
	byID := map[string]int32{}
	for i, id := range strings.Split(string(b), "\n") {
		byID[id] = int32(i % len(samples))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data":{"status":"ok"}}`)
	})
	mux.HandleFunc("GET /api/v1/listings/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		k, ok := byID[id]
		if !ok {
			http.Error(w, `{"error":{"code":"NOT_FOUND"}}`, http.StatusNotFound)
			return
		}
		s := samples[k]
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(bytes.ReplaceAll(s.Body, []byte(s.ID), []byte(id)))
	})
	ln, err := listener.Listen("127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	return fail(http.Serve(ln, mux))
}
