// Package capsuite tries to get past the spending caps of CONTRACT.md
// section 5 through the real HTTP server, on every engine: concurrent
// purchases across an owner's keys, purchases racing the sandbox clock over
// a day, week or month edge, refunds and buying again, approvals executed
// after the owner lowered the caps, freezes while a purchase is in flight,
// and offers accepted together. An oracle reads the committed orders,
// refunds and offer reservations after every phase of every trial and
// fails on any window that holds more than the caps in force allowed.
package capsuite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/internal/httpapi/openapi"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/payments"
	"marketplace/internal/store"
	"marketplace/internal/testkit"
)

// client keeps a connection per concurrent caller, so a race between
// requests is not a race between TCP handshakes.
var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}

var (
	validatorOnce sync.Once
	validator     *openapi.Validator
	validatorErr  error
)

// answer is one exchange made off the test goroutine (which alone may stop
// the test) and judged on it.
type answer struct {
	Status int
	JSON   map[string]any
	Body   []byte
	Err    error // transport failure, or the exchange contradicts the OpenAPI documents
}

func (a *answer) code() string {
	e, _ := a.JSON["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func (a *answer) details() map[string]any {
	e, _ := a.JSON["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

func (a *answer) data() map[string]any {
	d, _ := a.JSON["data"].(map[string]any)
	return d
}

func (a *answer) String() string {
	b := a.Body
	if len(b) > 600 {
		b = b[:600]
	}
	return fmt.Sprintf("%d %s", a.Status, b)
}

// call sends one request; safe from any goroutine. The exchange is checked
// against the published OpenAPI documents like testkit's.
func call(s *testkit.Server, method, path string, body any, h testkit.Header) answer {
	validatorOnce.Do(func() { validator, validatorErr = openapi.NewValidator() })
	if validatorErr != nil {
		return answer{Err: validatorErr}
	}
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return answer{Err: err}
		}
	}
	req, err := http.NewRequest(method, s.URL+path, bytes.NewReader(raw))
	if err != nil {
		return answer{Err: err}
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set(h.Name, h.Value)
	resp, err := client.Do(req)
	if err != nil {
		return answer{Err: err}
	}
	defer resp.Body.Close()
	out := answer{Status: resp.StatusCode}
	if out.Body, err = io.ReadAll(resp.Body); err != nil {
		out.Err = err
		return out
	}
	if err := json.Unmarshal(out.Body, &out.JSON); err != nil {
		out.Err = fmt.Errorf("%s %s: answer %d is not JSON: %v", method, path, resp.StatusCode, err)
		return out
	}
	reqErr, respErr := validator.Check(req, raw, out.Status, resp.Header, out.Body)
	switch {
	case respErr != nil:
		out.Err = fmt.Errorf("%s %s: answer %d does not match the OpenAPI document: %v", method, path, out.Status, respErr)
	case reqErr != nil && out.Status < 400:
		out.Err = fmt.Errorf("%s %s: the document rejects this request (%v) but the server answered %d", method, path, reqErr, out.Status)
	}
	return out
}

// race runs every call at once (testkit.Race) and returns the answers in
// call order.
func race(n int, fn func(i int) answer) []answer { return testkit.Race(n, fn) }

// fee is the buyer's service fee of CONTRACT.md section 3 for a free-shipping
// item: max(99, round half up of 3.5%).
func fee(price int64) int64 { return max(99, (350*price+5000)/10000) }

// total is what a purchase at price charges (free shipping).
func total(price int64) int64 { return price + fee(price) }

// rebind turns ? placeholders into the server engine's.
func rebind(s *testkit.Server, q string) string {
	if s.App.DB.Dialect() != store.Postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// holdGateway is the sandbox processor with a trap: a charge of an armed
// listing stops before the processor is asked, until released. It holds a
// purchase between its checks and its charge.
type holdGateway struct {
	payments.Gateway
	mu    sync.Mutex
	traps map[string]*trap // by listing id
	doors map[string]*trap // by listing id: held at orders.Options.BeforeCharge
}

// armDoor holds the next purchase of listingID just before its key is
// re-read and the processor asked (beforeCharge), where a stop must still
// take effect.
func (g *holdGateway) armDoor(listingID string) *trap {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.doors == nil {
		g.doors = map[string]*trap{}
	}
	tr := &trap{reached: make(chan struct{}), release: make(chan struct{})}
	g.doors[listingID] = tr
	return tr
}

func (g *holdGateway) beforeCharge(ctx context.Context, _, listingID string) {
	g.mu.Lock()
	tr := g.doors[listingID]
	delete(g.doors, listingID)
	g.mu.Unlock()
	if tr != nil {
		close(tr.reached)
		select {
		case <-tr.release:
		case <-ctx.Done():
		}
	}
}

type trap struct {
	reached chan struct{} // closed when the charge arrives
	release chan struct{} // closed by the test to let it go on
}

func (g *holdGateway) arm(listingID string) *trap {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.traps == nil {
		g.traps = map[string]*trap{}
	}
	tr := &trap{reached: make(chan struct{}), release: make(chan struct{})}
	g.traps[listingID] = tr
	return tr
}

func (g *holdGateway) Charge(ctx context.Context, req payments.ChargeRequest) (*payments.Payment, error) {
	g.mu.Lock()
	tr := g.traps[req.Metadata["listing_id"]]
	delete(g.traps, req.Metadata["listing_id"])
	g.mu.Unlock()
	if tr != nil {
		close(tr.reached)
		select {
		case <-tr.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Gateway.Charge(ctx, req)
}

// world is one engine's server and what every trial shares: sellers, the
// listing templates, an admin, and the counts the suite prints.
type world struct {
	t      *testing.T
	s      *testkit.Server
	gw     *holdGateway
	admin  *testkit.User
	seller *testkit.User
	// Two templates in different categories: trials restrict one.
	tmpl      [2]*listings.Listing
	mu        sync.Mutex // guards stats
	stats     stats
	nameCount atomic.Int64
}

type stats struct {
	trials, attempted, allowed, queued, overshoots, checks int
	refused                                                map[string]int
	kinds                                                  map[string]int
}

func (w *world) name(prefix string) string {
	return fmt.Sprintf("%s%d", prefix, w.nameCount.Add(1))
}

// listings makes active listings at the given prices by the suite's seller,
// copies of a template written straight to the store: the listing path is
// not what this suite tests, and the API's photo upload and generation
// would cost more than the trials themselves.
func (w *world) listings(cat int, offers bool, prices ...int64) []string {
	w.t.Helper()
	ctx := context.Background()
	now := w.s.Clock.Now()
	ids := make([]string, len(prices))
	err := w.s.App.DB.InTx(ctx, func(tx *store.Tx) error {
		for i, p := range prices {
			l := *w.tmpl[cat]
			l.ID, l.Price, l.Status, l.CreatedAt, l.UpdatedAt, l.SoldAt = market.NewID(), p, listings.StatusActive, now, now, nil
			l.WatchersCount, l.PhotoIDs = 0, nil
			l.AcceptOffers, l.MinOfferAmount, l.FloorPrice = offers, nil, nil
			if err := tx.CreateListing(ctx, &l); err != nil {
				return err
			}
			ids[i] = l.ID
		}
		return nil
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return ids
}

// caps are spending caps; for a key, 0 means the key has none of that kind.
type caps struct{ Per, Day, Week, Month int64 }

func (c caps) body() map[string]any {
	m := map[string]any{}
	for k, v := range map[string]int64{"perTransactionLimit": c.Per, "dailyLimit": c.Day, "weeklyLimit": c.Week, "monthlyLimit": c.Month} {
		if v > 0 {
			m[k] = v
		}
	}
	return m
}

func (c caps) limit(kind string) int64 {
	switch kind {
	case "per_transaction":
		return c.Per
	case "daily":
		return c.Day
	case "weekly":
		return c.Week
	}
	return c.Month
}

// owner is a verified user with a card, controls the trial
// set, and agent keys with caps of their own.
type owner struct {
	u    *testkit.User
	caps caps // in force now
	keys []*key
}

type key struct {
	*testkit.Key
	caps caps
}

func (w *world) newOwner(c caps, restrictCat bool, keyCaps ...caps) *owner {
	w.t.Helper()
	s := w.s
	u := s.VerifiedOwner(w.name("capowner"))
	s.SaveCard(u, "pm_card_visa")
	o := &owner{u: u}
	w.setCaps(o, c, restrictCat)
	for i, kc := range keyCaps {
		body := map[string]any{"label": fmt.Sprintf("agent %d", i), "scope": "buy_sell", "acceptedAgentTerms": true}
		if b := kc.body(); len(b) > 0 {
			body["spendingControls"] = b
		}
		d := s.Do("POST", "/api/v1/agent-keys", body, u.Auth()).Want(w.t, http.StatusCreated, "").Data()
		o.keys = append(o.keys, &key{Key: &testkit.Key{ID: d["id"].(string), Secret: d["key"].(string)}, caps: kc})
	}
	return o
}

// setCaps puts the owner's controls (every cap, so the oracle knows them).
func (w *world) setCaps(o *owner, c caps, restrictCat bool) {
	w.t.Helper()
	body := c.body()
	body["categoryRestrictions"] = []string{}
	if restrictCat {
		body["categoryRestrictions"] = []string{w.tmpl[1].CategoryID}
	}
	w.s.SetControls(o.u, body)
	o.caps = c
}

// buy is one agent purchase of listing at its price.
type buy struct {
	key     *key
	listing string
	price   int64
	cat     int
}

func (w *world) purchase(b buy) answer {
	return call(w.s, "POST", "/api/v1/agent/purchase", map[string]any{
		"listingId": b.listing, "maxPrice": b.price, "shippingAddress": testkit.Address(),
	}, b.key.Auth())
}

// spentToday reads the owner's spent.today and remaining.daily.
func (w *world) spending(o *owner) (today, remainingDaily int64) {
	w.t.Helper()
	d := w.s.Do("GET", "/api/v1/spending-controls", nil, o.u.Auth()).Want(w.t, http.StatusOK, "").Data()
	return testkit.Num(w.t, testkit.Obj(w.t, d, "spent"), "today"), testkit.Num(w.t, testkit.Obj(w.t, d, "remaining"), "daily")
}
