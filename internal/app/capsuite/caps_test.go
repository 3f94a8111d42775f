package capsuite_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/internal/payments"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
	"marketplace/internal/testkit"
)

var (
	seedFlag   = flag.Int64("caps.seed", 0, "seed of the adversarial cap trials (0: from the time, or CAPS_SEED)")
	trialsFlag = flag.Int("caps.trials", 0, "randomized trials per engine (0: CAPS_TRIALS, else 1000; 100 under -race)")
	trialFlag  = flag.Int("caps.trial", -1, "run only this trial of the seed (a replay)")
	routeFlag  = flag.Bool("caps.edge-route", true, "edge trials cross the edge with POST /v1/sandbox/time-advance/1 "+
		"in the race, sweeps included (false: move the service clock alone)")
	workerFlag = flag.Int("caps.workers", 0, "trials run at once (each its own owner; clock-moving trials run alone); 0: 1 on SQLite, 4 on PostgreSQL")
)

func seedAndTrials() (int64, int) {
	seed, trials := *seedFlag, *trialsFlag
	if seed == 0 {
		if v, err := strconv.ParseInt(os.Getenv("CAPS_SEED"), 10, 64); err == nil {
			seed = v
		} else {
			seed = time.Now().UnixNano()
		}
	}
	if trials == 0 {
		if v, err := strconv.Atoi(os.Getenv("CAPS_TRIALS")); err == nil && v > 0 {
			trials = v
		} else {
			trials = defaultTrials
		}
	}
	return seed, trials
}

// startWorld runs the service on db with the holding processor, and makes
// the seller and the two listing templates the trials copy.
func startWorld(t *testing.T, db *store.DB) *world {
	gw := &holdGateway{}
	s := testkit.Start(t, db, testkit.Options{Gateway: gw, BeforeCharge: gw.beforeCharge})
	gw.Gateway = payments.NewSandbox(s.URL, store.PaymentsSandbox(db), s.Clock)
	w := &world{t: t, s: s, gw: gw, admin: s.Admin(), seller: s.VerifiedOwner("capseller")}
	w.stats.refused, w.stats.kinds = map[string]int{}, map[string]int{}
	cats := s.Do("GET", "/api/v1/listings/categories", nil).Want(t, http.StatusOK, "").List()
	if len(cats) < 2 {
		t.Fatalf("%d top-level categories, want 2 or more", len(cats))
	}
	id := s.ListingWith(t, w.seller, "stoneware dinner plates, set of four, speckled glaze", 2000, nil)
	for i := range w.tmpl {
		l, err := s.App.DB.Read().ListingByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		l.CategoryID = cats[i].(map[string]any)["id"].(string)
		w.tmpl[i] = l
	}
	return w
}

// TestAdversarialCaps runs randomized trials per engine, each a fresh owner
// with random caps and keys, mixing the ways of getting past the caps, and
// judges every phase with the oracle. The seed is printed; replay a failure
// with -caps.seed (or CAPS_SEED) and -caps.trials.
func TestAdversarialCaps(t *testing.T) {
	seed, trials := seedAndTrials()
	if *trialFlag >= 0 {
		t.Logf("seed %d, trial %d only", seed, *trialFlag)
	} else {
		t.Logf("seed %d, %d trials per engine (replay: go test ./internal/app/capsuite -run TestAdversarialCaps -caps.seed=%d)", seed, trials, seed)
	}
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		// The engines' trials run side by side: each has its own service,
		// store, clock and owners.
		t.Parallel()
		w := startWorld(t, db)
		started := time.Now()
		kinds := []struct {
			name string
			run  func(w *world, rng *rand.Rand) *oracle
		}{
			{"keys", trialKeys}, {"edge", trialEdge}, {"refund", trialRefund},
			{"approval", trialApproval}, {"freeze", trialFreeze}, {"offers", trialOffers},
		}
		// Each trial's parameters come from the seed and its number alone,
		// so one trial replays on its own (-caps.trial). Trials run a few
		// at once, each with its own owner; an edge trial moves the
		// instance's clock, so it runs alone (and a refund trial's exact
		// predictions need its windows to stay put).
		var clock sync.RWMutex
		var failMu sync.Mutex
		var failures []string
		var next atomic.Int64
		var wg sync.WaitGroup
		first, last := 0, trials
		if *trialFlag >= 0 {
			first, last = *trialFlag, *trialFlag+1
		}
		next.Store(int64(first))
		workers := *workerFlag
		if workers <= 0 {
			// SQLite has one writer: more at once only queue.
			workers = map[bool]int{true: 4, false: 1}[db.Dialect() == store.Postgres]
		}
		for range workers {
			wg.Go(func() {
				for {
					i := int(next.Add(1) - 1)
					if i >= last {
						return
					}
					failMu.Lock()
					stop := len(failures) > 0
					failMu.Unlock()
					if stop {
						return
					}
					rng := rand.New(rand.NewPCG(uint64(seed), uint64(i)))
					k := kinds[rng.IntN(len(kinds))]
					if k.name == "edge" {
						clock.Lock()
					} else {
						clock.RLock()
					}
					or := k.run(w, rng)
					if k.name == "edge" {
						clock.Unlock()
					} else {
						clock.RUnlock()
					}
					if msg := or.done(i, seed, k.name); msg != "" {
						failMu.Lock()
						failures = append(failures, msg)
						failMu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		if len(failures) > 0 {
			t.Error(strings.Join(failures, "\n"))
		}
		st := w.stats
		var refused []string
		for c, n := range st.refused {
			refused = append(refused, fmt.Sprintf("%s %d", c, n))
		}
		slices.Sort(refused)
		t.Logf("%s: %d trials in %v %v; purchases attempted %d, allowed %d, refused %d (%s); approvals queued %d; oracle checks %d; overshoots %d",
			db.Dialect(), st.trials, time.Since(started).Round(time.Millisecond), st.kinds, st.attempted, st.allowed,
			st.attempted-st.allowed, strings.Join(refused, ", "), st.queued, st.checks, st.overshoots)
		if st.overshoots != 0 {
			t.Fatalf("%d overshoots", st.overshoots)
		}
	})
}

// randCaps are owner caps small enough that a few purchases reach them.
func randCaps(rng *rand.Rand) caps {
	day := 4000 + rng.Int64N(20000)
	week := day + rng.Int64N(day*2)
	return caps{Per: 3000 + rng.Int64N(9000), Day: day, Week: week, Month: week + rng.Int64N(week)}
}

// randKeyCaps are a key's own caps: each kind present or not.
func randKeyCaps(rng *rand.Rand) caps {
	var c caps
	if rng.IntN(3) == 0 {
		c.Per = 2000 + rng.Int64N(8000)
	}
	if rng.IntN(3) == 0 {
		c.Day = 3000 + rng.Int64N(12000)
	}
	if rng.IntN(4) == 0 {
		c.Week = 4000 + rng.Int64N(16000)
	}
	if rng.IntN(5) == 0 {
		c.Month = 5000 + rng.Int64N(20000)
	}
	return c
}

func randOwner(w *world, rng *rand.Rand, keys int) (*owner, bool) {
	restrict := rng.IntN(5) == 0
	kc := make([]caps, keys)
	for i := range kc {
		kc[i] = randKeyCaps(rng)
	}
	return w.newOwner(randCaps(rng), restrict, kc...), restrict
}

// randBuys makes n purchases of fresh listings by random keys of o.
func randBuys(w *world, rng *rand.Rand, o *owner, n int, restrict bool) []buy {
	prices := make([]int64, n)
	cats := make([]int, n)
	for i := range prices {
		prices[i] = 1000 + rng.Int64N(8000)
		if restrict && rng.IntN(3) == 0 {
			cats[i] = 1
		}
	}
	out := make([]buy, n)
	for i := range out {
		l := w.listings(cats[i], false, prices[i])[0]
		out[i] = buy{key: o.keys[rng.IntN(len(o.keys))], listing: l, price: prices[i], cat: cats[i]}
	}
	return out
}

// burst sends the purchases at once and judges them.
func burst(or *oracle, label string, buys []buy, codes ...string) []answer {
	got := race(len(buys), func(i int) answer { return or.w.purchase(buys[i]) })
	for i := range got {
		or.judge(fmt.Sprintf("%s purchase %d", label, i), buys[i], got[i], codes...)
	}
	return got
}

// trialKeys: concurrent purchases across several keys of one owner, the
// owner's caps shared and each key's own caps, in one or two bursts.
func trialKeys(w *world, rng *rand.Rand) *oracle {
	o, restrict := randOwner(w, rng, 2+rng.IntN(3))
	or := w.oracle(o, restrict)
	for round := range 1 + rng.IntN(2) {
		burst(or, fmt.Sprintf("keys burst %d", round), randBuys(w, rng, o, 4+rng.IntN(5), restrict))
		or.phase(fmt.Sprintf("keys burst %d", round))
	}
	return or
}

// nextEdge is the next start of a UTC day, ISO week or month after t+1h.
func nextEdge(kind string, t time.Time) time.Time {
	_, end := windowStart(kind, t.Add(time.Hour))
	return end
}

// trialEdge: the clock stands just before a day, week or month edge; the
// owner's agents spend part of the old window, then fire purchases while
// another goroutine moves the clock across the edge, then spend again in
// the new window after a POST /v1/sandbox/time-advance/1. The crossing is
// the route itself, whose sweeps run while purchases are in flight (they
// once released one mid-charge: TestAdversarialCapsTimeAdvanceInFlight);
// -caps.edge-route=false moves the service clock alone.
func trialEdge(w *world, rng *rand.Rand) *oracle {
	o, restrict := randOwner(w, rng, 1+rng.IntN(3))
	or := w.oracle(o, restrict)
	kind := windowKinds[rng.IntN(3)]
	now := w.s.Clock.Now()
	before := time.Duration(1+rng.Int64N(int64(20*time.Millisecond/time.Microsecond))) * time.Microsecond
	w.s.Clock.Advance(nextEdge(kind, now).Add(-before).Sub(now))
	for i, b := range randBuys(w, rng, o, rng.IntN(4), restrict) {
		or.judge(fmt.Sprintf("edge %s pre-fill %d", kind, i), b, w.purchase(b))
	}
	or.phase("edge pre-fill")
	buys := randBuys(w, rng, o, 3+rng.IntN(5), restrict)
	delay := time.Duration(rng.IntN(4000)) * time.Microsecond
	step := before + time.Duration(rng.IntN(1000))*time.Microsecond
	got := race(len(buys)+1, func(i int) answer {
		if i == len(buys) {
			time.Sleep(delay)
			if *routeFlag {
				return call(w.s, "POST", "/v1/sandbox/time-advance/1", nil, o.u.Auth())
			}
			w.s.Clock.Advance(step)
			return answer{Status: http.StatusOK}
		}
		return w.purchase(buys[i])
	})
	if a := got[len(buys)]; a.Err != nil || a.Status != http.StatusOK {
		or.failf("crossing the edge: %v %s", a.Err, a.String())
	}
	for i, b := range buys {
		or.judge(fmt.Sprintf("edge %s race %d", kind, i), b, got[i])
	}
	or.phase("edge " + kind + " race")
	if a := call(w.s, "POST", "/v1/sandbox/time-advance/1", nil, o.u.Auth()); a.Err != nil || a.Status != http.StatusOK {
		or.failf("time-advance: %v %s", a.Err, a.String())
	}
	burst(or, "edge after", randBuys(w, rng, o, 2+rng.IntN(4), restrict))
	or.phase("edge after")
	return or
}

// fits says whether a purchase of amount by k must pass the caps, given
// what the owner and the key hold now in every window (one window: no
// clock moves inside the trial).
func fits(o *owner, k *key, ownerNet, keyNet, amount int64) bool {
	if amount > o.caps.Per || k.caps.Per > 0 && amount > k.caps.Per {
		return false
	}
	if ownerNet+amount > min(o.caps.Day, o.caps.Week, o.caps.Month) {
		return false
	}
	for _, c := range []int64{k.caps.Day, k.caps.Week, k.caps.Month} {
		if c > 0 && keyNet+amount > c {
			return false
		}
	}
	return true
}

// net sums what the oracle's committed orders hold, for the owner and per key.
func net(or *oracle) (int64, map[string]int64) {
	orders, _ := or.read()
	var n int64
	per := map[string]int64{}
	for _, c := range orders {
		n += c.counted()
		per[c.key] += c.counted()
	}
	return n, per
}

// trialRefund: buy, have the seller refund an order (in full or in part),
// and buy again inside the same windows. CONTRACT.md section 5: refunded
// orders give their amount back, so what was refunded is free again, and
// no more: each purchase after the refund passes exactly when it fits.
func trialRefund(w *world, rng *rand.Rand) *oracle {
	o, _ := randOwner(w, rng, 1+rng.IntN(2))
	or := w.oracle(o, false)
	var paid []string
	charged := map[string]int64{}
	for i, b := range randBuys(w, rng, o, 2+rng.IntN(3), false) {
		a := w.purchase(b)
		or.judge(fmt.Sprintf("refund pre-buy %d", i), b, a)
		if a.Status == 201 {
			id := a.data()["id"].(string)
			paid, charged[id] = append(paid, id), total(b.price)
		}
	}
	or.phase("refund pre-buy")
	if len(paid) == 0 {
		return or
	}
	before, _ := net(or)
	todayBefore, _ := w.spending(o)
	if todayBefore != before {
		or.failf("spent.today %d before the refund, the orders hold %d", todayBefore, before)
	}
	id := paid[rng.IntN(len(paid))]
	body := map[string]any{"reason": "changed my mind about the glaze"}
	refund := charged[id]
	if rng.IntN(2) == 0 {
		refund = 1 + rng.Int64N(charged[id]-1)
		body["amount"] = refund
	}
	if a := call(w.s, "POST", "/api/v1/purchases/"+id+"/refund/seller", body, w.seller.Auth()); a.Err != nil || a.Status != http.StatusOK {
		or.failf("seller refund: %v %s", a.Err, a.String())
		return or
	}
	or.phase("refund")
	after, _ := net(or)
	todayAfter, _ := w.spending(o)
	if after != before-refund || todayAfter != todayBefore-refund {
		or.failf("refund of %d of %d: the orders hold %d -> %d, spent.today %d -> %d; want both lowered by exactly the refund",
			refund, charged[id], before, after, todayBefore, todayAfter)
	}
	// One at a time, each purchase must pass exactly when it fits.
	for i, b := range randBuys(w, rng, o, 1+rng.IntN(3), false) {
		ownerNet, perKey := net(or)
		want := fits(o, b.key, ownerNet, perKey[b.key.ID], total(b.price))
		a := w.purchase(b)
		or.judge(fmt.Sprintf("refund re-buy %d", i), b, a, "SPENDING_LIMIT_EXCEEDED")
		if got := a.Status == 201; got != want {
			or.failf("re-buy %d of %d after a refund of %d (owner holds %d, key %d, caps %+v, key caps %+v): passed %v, want %v: %s",
				i, total(b.price), refund, ownerNet, perKey[b.key.ID], o.caps, b.key.caps, got, want, a.String())
		}
		or.phase(fmt.Sprintf("refund re-buy %d", i))
	}
	burst(or, "refund burst", randBuys(w, rng, o, 2+rng.IntN(4), false))
	or.phase("refund burst")
	return or
}

// approve is the owner's POST /approvals/{id}/approve.
func approve(w *world, o *owner, id string) answer {
	return call(w.s, "POST", "/api/v1/approvals/"+id+"/approve", nil, o.u.Auth())
}

// judgeApprove checks an approval's answer: 200 with the order paid, or a
// refusal for the caps or because it was decided already.
func (or *oracle) judgeApprove(label string, b buy, a answer) {
	switch {
	case a.Err != nil:
		or.failf("%s: %v", label, a.Err)
	case a.Status == http.StatusOK:
		if st := a.data()["status"]; st != "paid" {
			or.failf("%s: approval answered 200 with order status %v", label, st)
		}
	case a.Status >= 500:
		or.failf("%s: server error %s", label, a.String())
	case a.code() == "SPENDING_LIMIT_EXCEEDED":
		or.judgeLimit(label, b, a)
	case a.code() != "INVALID_STATE":
		or.failf("%s: approval refused with %s: %s", label, a.code(), a.String())
	}
}

// charges counts the succeeded processor charges of an order.
func (w *world) charges(orderID string) int64 {
	w.t.Helper()
	var n int64
	if err := w.s.App.DB.WritePool().QueryRowContext(context.Background(), rebind(w.s,
		`SELECT COUNT(*) FROM sandbox_payments WHERE status = 'succeeded' AND idempotency_key = ?`), orderID).Scan(&n); err != nil {
		w.t.Fatal(err)
	}
	return n
}

// lower puts lower caps on the owner (each cap cut to a random part).
func (w *world) lower(or *oracle, rng *rand.Rand) {
	c := or.o.caps
	cut := func(v int64) int64 { return max(1, v*int64(1+rng.IntN(90))/100) }
	c.Day = cut(c.Day)
	c.Week = max(c.Day, cut(c.Week))
	c.Month = max(c.Week, cut(c.Month))
	if rng.IntN(3) == 0 {
		c.Per = cut(c.Per)
	}
	body := c.body()
	w.s.SetControls(or.o.u, body)
	or.o.caps = c
}

// trialApproval: a purchase above the approval threshold waits for the
// owner, who then lowers the caps. Approval re-runs every check
// (CONTRACT.md section 5), so the caps in force when it executes decide;
// a purchase approved (and reserved) before the lowering stands, and a
// second execution of one approval never charges again.
func trialApproval(w *world, rng *rand.Rand) *oracle {
	o, _ := randOwner(w, rng, 1+rng.IntN(2))
	or := w.oracle(o, false)
	threshold := 1000 + rng.Int64N(3000)
	w.s.SetControls(o.u, map[string]any{"approvalThreshold": threshold})
	price := threshold + rng.Int64N(6000)
	b := buy{key: o.keys[0], listing: w.listings(0, false, price)[0], price: price}
	a := w.purchase(b)
	or.judge("approval queue", b, a)
	or.phase("approval queue")
	if a.code() != "APPROVAL_REQUIRED" {
		if total(price) > threshold && a.Status == 201 {
			or.failf("a purchase of %d over the approval threshold %d was charged without approval", total(price), threshold)
		}
		return or
	}
	aid, _ := a.details()["approvalId"].(string)
	oid, _ := a.details()["orderId"].(string)
	if aid == "" || oid == "" {
		or.failf("APPROVAL_REQUIRED without approvalId and orderId: %s", a.String())
		return or
	}
	switch variant := rng.IntN(4); variant {
	case 0: // lowered, then approved: the new caps decide, exactly
		w.lower(or, rng)
		ownerNet, perKey := net(or)
		want := fits(o, b.key, ownerNet, perKey[b.key.ID], total(price))
		got := approve(w, o, aid)
		or.judgeApprove("approve after lowering", b, got)
		if (got.Status == http.StatusOK) != want {
			or.failf("approval after lowering the caps to %+v (held %d): answered %s, want passing %v", o.caps, ownerNet, got.String(), want)
		}
		or.phase("approve after lowering")
	case 1: // approved, then lowered, then approved again: one charge
		or.judgeApprove("approve", b, approve(w, o, aid))
		or.phase("approve")
		w.lower(or, rng)
		or.judgeApprove("approve again", b, approve(w, o, aid))
		or.phase("approve again")
	case 2: // two approvals at once, with the agents buying meanwhile
		buys := randBuys(w, rng, o, 2+rng.IntN(3), false)
		got := race(len(buys)+2, func(i int) answer {
			if i < 2 {
				return approve(w, o, aid)
			}
			return w.purchase(buys[i-2])
		})
		or.judgeApprove("double approve 0", b, got[0])
		or.judgeApprove("double approve 1", b, got[1])
		if got[0].Status == http.StatusOK && got[1].Status == http.StatusOK &&
			got[0].data()["id"] != got[1].data()["id"] {
			or.failf("two approvals of one purchase made two orders: %s / %s", got[0].String(), got[1].String())
		}
		for i, bb := range buys {
			or.judge(fmt.Sprintf("buy during approval %d", i), bb, got[i+2])
		}
		or.phase("double approve")
	case 3: // the approved purchase is held before its charge while the owner lowers the caps
		tr := w.gw.arm(b.listing)
		done := make(chan answer, 1)
		go func() { done <- approve(w, o, aid) }()
		select {
		case <-tr.reached:
		case got := <-done:
			or.judgeApprove("approve (never reached the charge)", b, got)
			or.phase("approve")
			return or
		}
		or.phase("approval reserved") // judged against the caps it was approved under
		w.lower(or, rng)
		close(tr.release)
		or.judgeApprove("held approve", b, <-done)
		or.phase("held approve")
		or.judgeApprove("approve again", b, approve(w, o, aid))
		burst(or, "after lowering", randBuys(w, rng, o, 2+rng.IntN(3), false))
		or.phase("after lowering")
	}
	if oid != "" && w.charges(oid) > 1 {
		or.failf("order %s was charged %d times", oid, w.charges(oid))
	}
	return or
}

// trialFreeze: the owner's agents buy at once while an admin freezes, or
// the owner revokes, one of the keys. Every purchase that key sends after
// the freeze answered is refused, and the caps hold throughout.
func trialFreeze(w *world, rng *rand.Rand) *oracle {
	o, restrict := randOwner(w, rng, 2+rng.IntN(2))
	or := w.oracle(o, restrict)
	victim := o.keys[0]
	revoke := rng.IntN(2) == 0
	stopCode := "AGENT_FROZEN"
	if revoke {
		stopCode = "INVALID_AGENT_KEY"
	}
	buys := randBuys(w, rng, o, 4+rng.IntN(4), restrict)
	for i := range buys {
		if i%2 == 0 {
			buys[i].key = victim
		}
	}
	starts := make([]time.Time, len(buys))
	var stopped time.Time
	delay := time.Duration(rng.IntN(3000)) * time.Microsecond
	got := race(len(buys)+1, func(i int) answer {
		if i == len(buys) {
			time.Sleep(delay)
			var a answer
			if revoke {
				a = call(w.s, "DELETE", "/api/v1/agent-keys/"+victim.ID, nil, o.u.Auth())
			} else {
				a = call(w.s, "POST", "/api/v1/admin/users/"+o.u.ID+"/agent-keys/"+victim.ID+"/freeze", nil, w.admin.Auth())
			}
			stopped = time.Now()
			return a
		}
		time.Sleep(time.Duration(i) * delay / time.Duration(len(buys)))
		starts[i] = time.Now()
		return w.purchase(buys[i])
	})
	if a := got[len(buys)]; a.Err != nil || a.Status != http.StatusOK {
		or.failf("freeze/revoke: %v %s", a.Err, a.String())
	}
	codes := append(slices.Clone(capCodes), stopCode)
	for i, b := range buys {
		or.judge(fmt.Sprintf("freeze race %d", i), b, got[i], codes...)
		if b.key == victim && starts[i].After(stopped) && got[i].Status == 201 {
			or.failf("purchase %d by the stopped key was sent after the stop answered, and passed", i)
		}
	}
	or.phase("freeze race")
	b := randBuys(w, rng, o, 1, false)[0]
	b.key = victim
	a := w.purchase(b)
	or.judge("after the stop", b, a, stopCode)
	if a.code() != stopCode {
		or.failf("purchase by the stopped key answered %s, want %s", a.String(), stopCode)
	}
	or.phase("after the stop")
	return or
}

// trialOffers: the owner's agents make offers at once (each reserves its
// amount and fee against the caps), then the seller accepts them all at
// once, each accept buying at once, while the agents also buy directly.
func trialOffers(w *world, rng *rand.Rand) *oracle {
	o, _ := randOwner(w, rng, 1+rng.IntN(3))
	or := w.oracle(o, false)
	// An accepted offer buys at once with the default card and address.
	w.s.Do("POST", "/api/v1/addresses", testkit.Address(), o.u.Auth()).Want(w.t, http.StatusCreated, "")
	n := 3 + rng.IntN(4)
	prices := make([]int64, n)
	for i := range prices {
		prices[i] = 2000 + rng.Int64N(7000)
	}
	ls := w.listings(0, true, prices...)
	keys := make([]*key, n)
	amounts := make([]int64, n)
	for i := range n {
		keys[i] = o.keys[rng.IntN(len(o.keys))]
		amounts[i] = prices[i] * int64(60+rng.IntN(35)) / 100
	}
	got := race(n, func(i int) answer {
		return call(w.s, "POST", "/api/v1/agent/offers", map[string]any{
			"listingId": ls[i], "offerPrice": amounts[i], "autoPurchaseOnAccept": true,
		}, keys[i].Auth())
	})
	var ids []string
	for i, a := range got {
		switch {
		case a.Err != nil:
			or.failf("offer %d: %v", i, a.Err)
		case a.Status == http.StatusCreated:
			ids = append(ids, a.data()["id"].(string))
		case a.code() == "SPENDING_LIMIT_EXCEEDED":
			or.st.refused["offer SPENDING_LIMIT_EXCEEDED"]++
		default:
			or.failf("offer %d: %s", i, a.String())
		}
	}
	or.phase("offers made")
	buys := randBuys(w, rng, o, rng.IntN(3), false)
	acc := race(len(ids)+len(buys), func(i int) answer {
		if i < len(ids) {
			return call(w.s, "POST", "/api/v1/offers/"+ids[i]+"/accept", map[string]any{}, w.seller.Auth())
		}
		return w.purchase(buys[i-len(ids)])
	})
	for i, a := range acc {
		if i >= len(ids) {
			or.judge(fmt.Sprintf("buy during accepts %d", i-len(ids)), buys[i-len(ids)], a)
			continue
		}
		if a.Err != nil || a.Status != http.StatusOK {
			or.failf("accept %d: %v %s", i, a.Err, a.String())
		}
	}
	or.phase("offers accepted")
	return or
}
