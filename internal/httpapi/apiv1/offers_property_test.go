package apiv1_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/testkit"
)

// Offers as a property (CONTRACT.md sections 2, 5 and 8). Random
// negotiations, driven by both parties (the buyer's agent key and the buyer
// in person, the seller's agent key and the seller in person), on both
// surfaces (Variant A's counter/accept/reject/withdraw routes, Variant B's
// respond), with moves by the wrong party (a stranger, the party not being
// asked), moves on offers already decided, the sandbox clock moved past
// expiry, purchases with offerId, and purchases of the listing by another
// buyer, in turn and at the same time as a move. A model of every offer, of
// the listings and of the buyer's agent spending predicts each answer
// (status, error code, and the offer's status, round, awaiting party and
// prices), and after every step the offer and the buyer's spending read as
// the model says. At the end: no listing has two orders, every sale was
// charged once, and spent plus reservedForOffers stays within each cap.
//
// MARKETPLACE_PROPERTY_SEED repeats a run (the seed is logged).

const (
	opRuns  = 5
	opSteps = 60
	opTTL   = 48 * time.Hour
)

func TestOfferProperty(t *testing.T) {
	t.Parallel()
	seed := lcEnv(t, "MARKETPLACE_PROPERTY_SEED", rand.Uint64())
	t.Logf("seed %d (MARKETPLACE_PROPERTY_SEED=%d repeats this run)", seed, seed)
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		tally := map[string]int{}
		for run := range opRuns {
			r := opStart(t, s, seed, run, tally)
			for range opSteps {
				r.step()
			}
			r.finish()
		}
		t.Logf("moves and answers: %v", tally)
	})
}

// opCaps are the buyer's spending caps.
type opCaps struct{ per, daily, weekly, monthly int64 }

// opOffer is the model of one offer. Values only: a state clones by copying.
type opOffer struct {
	id              string
	listing         int
	status          string
	round           int
	awaiting        string // "" once decided
	offerPrice      int64
	current         int64
	counter, agreed int64 // 0 for null
	expires         time.Time
	auto            bool
	ordered         bool
	reserved        int64 // what it holds of the buyer's caps
	byKey           bool  // the buyer's last commitment was the agent's
	maxRounds       int
}

func (o *opOffer) open() bool {
	return o.status == "pending" || o.status == "countered" || o.status == "accepted" && !o.ordered
}

type opListing struct {
	id                 string
	price, min, floor  int64
	sold               bool
	soldToBuyer, other bool
}

type opSpend struct {
	at     time.Time
	amount int64
}

// opState is everything the model knows.
type opState struct {
	now      time.Time
	caps     opCaps
	offers   []opOffer
	listings []opListing
	spends   []opSpend
}

func (st *opState) clone() *opState {
	c := *st
	c.offers, c.listings, c.spends = slices.Clone(st.offers), slices.Clone(st.listings), slices.Clone(st.spends)
	return &c
}

// opWant is a predicted answer.
type opWant struct {
	status int
	code   string
}

func (w opWant) String() string { return fmt.Sprintf("%d %s", w.status, w.code) }

var (
	opOK      = opWant{200, ""}
	opCreated = opWant{201, ""}
)

func opErr(code string) opWant {
	st := map[string]int{"NOT_FOUND": 404, "FORBIDDEN": 403, "SPENDING_LIMIT_EXCEEDED": 403, "CANNOT_BUY_OWN_LISTING": 403,
		"VALIDATION_ERROR": 400, "BELOW_MINIMUM": 422, "OFFER_EXPIRED": 409, "INVALID_STATE": 409, "MAX_ROUNDS_REACHED": 409,
		"LISTING_SOLD": 409, "LISTING_NOT_AVAILABLE": 409, "ACTIVE_OFFER_EXISTS": 409, "OFFER_NOT_ACCEPTED": 409}[code]
	if st == 0 {
		panic(code)
	}
	return opWant{st, code}
}

// opTotal is what buying at amount charges (free shipping): the amount and
// the buyer's fee, 3.5% half up with a 99-cent minimum.
func opTotal(amount int64) int64 {
	return amount + max(99, (amount*350+5000)/10000)
}

func opWindows(now time.Time) (day, week, month time.Time) {
	now = now.UTC()
	day = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	week = day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	month = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	return
}

// spent is the agent spending in the windows of now.
func (st *opState) spent() (day, week, month int64) {
	d, w, m := opWindows(st.now)
	for _, sp := range st.spends {
		if !sp.at.Before(d) {
			day += sp.amount
		}
		if !sp.at.Before(w) {
			week += sp.amount
		}
		if !sp.at.Before(m) {
			month += sp.amount
		}
	}
	return
}

// reservedExcept is what open offers hold, except offer skip.
func (st *opState) reservedExcept(skip int) int64 {
	var n int64
	for i, o := range st.offers {
		if i != skip && o.reserved > 0 && o.expires.After(st.now) {
			n += o.reserved
		}
	}
	return n
}

// overCap reports whether an agent commitment of total (offer skip's own
// reservation left out) passes a cap.
func (st *opState) overCap(total int64, skip int) bool {
	d, w, m := st.spent()
	res := st.reservedExcept(skip)
	return total > st.caps.per || d+res+total > st.caps.daily || w+res+total > st.caps.weekly || m+res+total > st.caps.monthly
}

// sell marks a listing sold and expires its open offers.
func (st *opState) sell(li int, toBuyer bool) {
	st.listings[li].sold, st.listings[li].soldToBuyer, st.listings[li].other = true, toBuyer, !toBuyer
	for i := range st.offers {
		if o := &st.offers[i]; o.listing == li && o.open() {
			o.status, o.awaiting, o.reserved = "expired", "", 0
		}
	}
}

// The people who act.
type opActor int

const (
	opBuyerKey opActor = iota
	opBuyerHuman
	opSellerKey
	opSellerHuman
	opStrangerKey
	opStrangerHuman
)

var opActorNames = []string{"buyer-key", "buyer", "seller-key", "seller", "stranger-key", "stranger"}

func (a opActor) String() string { return opActorNames[a] }
func (a opActor) agent() bool    { return a == opBuyerKey || a == opSellerKey || a == opStrangerKey }
func (a opActor) role() string {
	switch a {
	case opBuyerKey, opBuyerHuman:
		return "buyer"
	case opSellerKey, opSellerHuman:
		return "seller"
	}
	return ""
}

// create predicts the buyer's new offer.
func (st *opState) create(agent bool, li int, amount int64, auto bool) (opWant, int) {
	l := &st.listings[li]
	switch {
	case l.sold:
		return opErr("LISTING_SOLD"), -1
	case amount >= l.price:
		return opErr("VALIDATION_ERROR"), -1
	case amount < l.min:
		return opErr("BELOW_MINIMUM"), -1
	}
	for i := range st.offers {
		if o := &st.offers[i]; o.listing == li && o.open() {
			if st.now.Before(o.expires) {
				return opErr("ACTIVE_OFFER_EXISTS"), -1
			}
			o.status, o.awaiting, o.reserved = "expired", "", 0
		}
	}
	o := opOffer{listing: li, status: "pending", round: 1, awaiting: "seller", offerPrice: amount, current: amount,
		expires: st.now.Add(opTTL), auto: auto, maxRounds: 5}
	if agent {
		total := opTotal(amount)
		if st.overCap(total, -1) {
			return opErr("SPENDING_LIMIT_EXCEEDED"), -1
		}
		o.reserved, o.byKey = total, true
	}
	if amount < l.floor {
		o.status, o.awaiting, o.reserved = "rejected", "", 0
	}
	st.offers = append(st.offers, o)
	return opCreated, len(st.offers) - 1
}

// answerable is the check every answer and withdrawal passes.
func (st *opState) answerable(o *opOffer) (opWant, bool) {
	switch {
	case o.status == "expired", (o.status == "pending" || o.status == "countered") && !st.now.Before(o.expires):
		return opErr("OFFER_EXPIRED"), false
	case o.status != "pending" && o.status != "countered":
		return opErr("INVALID_STATE"), false
	}
	return opWant{}, true
}

// respond predicts an accept, reject or counter. noBuy leaves out the
// automatic purchase of an acceptance (another purchase got there first).
func (st *opState) respond(a opActor, i int, action string, amount int64, noBuy bool) opWant {
	o := &st.offers[i]
	l := &st.listings[o.listing]
	role := a.role()
	if role == "" {
		return opErr("NOT_FOUND")
	}
	if w, ok := st.answerable(o); !ok {
		return w
	}
	if o.awaiting != role {
		return opErr("FORBIDDEN")
	}
	commit := func(amount int64) opWant {
		if !a.agent() {
			o.reserved, o.byKey = 0, false
			return opWant{}
		}
		total := opTotal(amount)
		if st.overCap(total, i) {
			return opErr("SPENDING_LIMIT_EXCEEDED")
		}
		o.reserved, o.byKey = total, true
		return opWant{}
	}
	switch action {
	case "reject":
		o.status, o.awaiting, o.reserved = "rejected", "", 0
	case "accept":
		if l.sold {
			return opErr("LISTING_SOLD")
		}
		if role == "buyer" {
			if w := commit(o.current); w.status != 0 {
				return w
			}
		}
		o.status, o.agreed, o.awaiting, o.expires = "accepted", o.current, "", st.now.Add(opTTL)
		if o.auto && !noBuy {
			st.buyOffer(i)
		}
	case "counter":
		if o.round >= o.maxRounds {
			return opErr("MAX_ROUNDS_REACHED")
		}
		if l.sold {
			return opErr("LISTING_SOLD")
		}
		if amount >= l.price {
			return opErr("VALIDATION_ERROR")
		}
		other := "buyer"
		if role == "buyer" {
			if amount < l.min {
				return opErr("BELOW_MINIMUM")
			}
			if w := commit(amount); w.status != 0 {
				return w
			}
			other = "seller"
		}
		o.round++
		o.status, o.counter, o.current, o.awaiting, o.expires = "countered", amount, amount, other, st.now.Add(opTTL)
		if role == "buyer" && amount < l.floor {
			o.status, o.awaiting, o.reserved = "rejected", "", 0
		}
	}
	return opOK
}

// buyOffer is the automatic purchase of an accepted offer: by the agent key
// of the buyer's last commitment, or the buyer in person. It reports
// whether it bought.
func (st *opState) buyOffer(i int) bool {
	o := &st.offers[i]
	total := opTotal(o.agreed)
	if o.byKey && st.overCap(total, i) {
		return false
	}
	o.ordered, o.reserved = true, 0
	if o.byKey {
		st.spends = append(st.spends, opSpend{st.now, total})
	}
	st.sell(o.listing, true)
	return true
}

// withdraw predicts a withdrawal.
func (st *opState) withdraw(a opActor, i int) opWant {
	o := &st.offers[i]
	switch a.role() {
	case "":
		return opErr("NOT_FOUND")
	case "seller":
		return opErr("FORBIDDEN")
	}
	if w, ok := st.answerable(o); !ok {
		return w
	}
	o.status, o.awaiting, o.reserved = "withdrawn", "", 0
	return opOK
}

// purchaseWithOffer predicts the buyer's agent buying an accepted offer by
// its id (or a stranger's key trying to).
func (st *opState) purchaseWithOffer(a opActor, i int) opWant {
	o := &st.offers[i]
	if st.listings[o.listing].sold {
		return opErr("LISTING_SOLD")
	}
	if a.role() != "buyer" {
		return opErr("NOT_FOUND")
	}
	switch {
	case o.status == "expired", o.open() && !st.now.Before(o.expires):
		return opErr("OFFER_EXPIRED")
	case o.status != "accepted" || o.ordered:
		return opErr("OFFER_NOT_ACCEPTED")
	}
	total := opTotal(o.agreed)
	if st.overCap(total, i) {
		return opErr("SPENDING_LIMIT_EXCEEDED")
	}
	o.ordered, o.reserved, o.byKey = true, 0, true // the agent key bought it
	st.spends = append(st.spends, opSpend{st.now, total})
	st.sell(o.listing, true)
	return opCreated
}

// otherBuys predicts another buyer's purchase of a listing at its price.
func (st *opState) otherBuys(li int) opWant {
	if st.listings[li].sold {
		return opErr("LISTING_SOLD")
	}
	st.sell(li, false)
	return opCreated
}

// advance moves the clock; the sweep expires what ran out. It returns how
// many offers it expired.
func (st *opState) advance(h int) int {
	st.now = st.now.Add(time.Duration(h) * time.Hour)
	n := 0
	for i := range st.offers {
		if o := &st.offers[i]; o.open() && !st.now.Before(o.expires) {
			o.status, o.awaiting, o.reserved = "expired", "", 0
			n++
		}
	}
	return n
}

// opRun is one random negotiation session against the server.
type opRun struct {
	t        *testing.T
	s        *testkit.Server
	rng      *rand.Rand
	seed     uint64
	run      int
	st       *opState
	seller   *testkit.User
	sKey     *testkit.Key
	buyer    *testkit.Shopper
	stranger *testkit.Shopper
	other    *testkit.Shopper
	charges  int64
	orders   map[string]bool // orders of offers already checked
	log      []string
	tally    map[string]int
}

func opStart(t *testing.T, s *testkit.Server, seed uint64, run int, tally map[string]int) *opRun {
	t.Helper()
	r := &opRun{t: t, s: s, rng: rand.New(rand.NewPCG(seed, uint64(run))), seed: seed, run: run, tally: tally,
		orders: map[string]bool{}}
	name := fmt.Sprintf("op%d", run)
	r.seller = s.VerifiedOwner(name + "seller")
	r.sKey = s.NewKey(r.seller, "buy_sell")
	r.buyer = s.NewShopper(name+"buyer", "pm_card_visa")
	s.Do("POST", "/api/v1/addresses", testkit.Address(), r.buyer.Auth()).Want(t, http.StatusCreated, "")
	r.stranger = s.NewShopper(name+"strngr", "pm_card_visa")
	r.other = s.NewShopper(name+"other", "pm_card_visa")
	s.SetControls(r.other.User, map[string]any{"perTransactionLimit": 50000, "dailyLimit": 1000000, "weeklyLimit": 1000000,
		"monthlyLimit": 1000000})
	caps := opCaps{per: []int64{8000, 10000}[r.rng.IntN(2)], daily: []int64{12000, 20000, 30000}[r.rng.IntN(3)],
		weekly: []int64{30000, 45000}[r.rng.IntN(2)], monthly: 60000}
	s.SetControls(r.buyer.User, map[string]any{"perTransactionLimit": caps.per, "dailyLimit": caps.daily,
		"weeklyLimit": caps.weekly, "monthlyLimit": caps.monthly})
	r.st = &opState{now: s.Clock.Now(), caps: caps}
	for range 3 {
		r.addListing()
	}
	r.charges = s.Charges()
	r.logf("run %d: caps %+v, start %s", run, caps, r.st.now.Format(time.RFC3339))
	return r
}

func (r *opRun) addListing() {
	price := []int64{6000, 10000}[r.rng.IntN(2)]
	minimum, floor := int64(3000), []int64{3000, 5000}[r.rng.IntN(2)]
	n := len(r.st.listings)
	id := r.s.ListingWith(r.t, r.seller, fmt.Sprintf("property lot %d of %d, brass candle holders", n, r.run), price, nil)
	r.s.EditListing(id, func(l *listings.Listing) {
		l.AcceptOffers, l.MinOfferAmount, l.FloorPrice = true, &minimum, &floor
	})
	r.st.listings = append(r.st.listings, opListing{id: id, price: price, min: minimum, floor: floor})
	r.logf("listing %d: price %d, floor %d", n, price, floor)
}

func (r *opRun) logf(format string, args ...any) {
	r.log = append(r.log, fmt.Sprintf(format, args...))
}

func (r *opRun) fatalf(format string, args ...any) {
	r.t.Helper()
	tail := r.log
	if len(tail) > 40 {
		tail = tail[len(tail)-40:]
	}
	r.t.Fatalf("seed %d run %d: %s\nsteps (latest last):\n  %s", r.seed, r.run, fmt.Sprintf(format, args...),
		strings.Join(tail, "\n  "))
}

func (r *opRun) auth(a opActor) testkit.Header {
	switch a {
	case opBuyerKey:
		return r.buyer.Key.Auth()
	case opBuyerHuman:
		return r.buyer.Auth()
	case opSellerKey:
		return r.sKey.Auth()
	case opSellerHuman:
		return r.seller.Auth()
	case opStrangerKey:
		return r.stranger.Key.Auth()
	}
	return r.stranger.Auth()
}

// base is Variant A's offers path for the actor's credential.
func (r *opRun) base(a opActor) string {
	if a.agent() {
		return "/api/v1/agent/offers"
	}
	return "/api/v1/offers"
}

// amount picks an amount around the listing's figures.
func (r *opRun) amount(l opListing) int64 {
	switch r.rng.IntN(8) {
	case 0:
		return l.min - 1 - int64(r.rng.IntN(500))
	case 1:
		return l.floor - 1 - int64(r.rng.IntN(400))
	case 2:
		return l.price + int64(r.rng.IntN(2))*100
	}
	return l.floor + int64(r.rng.IntN(int(l.price-l.floor)))
}

func (r *opRun) step() {
	r.t.Helper()
	unsold := 0
	for _, l := range r.st.listings {
		if !l.sold {
			unsold++
		}
	}
	if unsold < 2 {
		r.addListing()
	}
	switch n := r.rng.IntN(100); {
	case n < 22:
		r.create()
	case n < 62:
		r.answer()
	case n < 70:
		r.advance([]int{1, 12, 24, 47, 48, 49, 72}[r.rng.IntN(7)])
	case n < 73:
		r.otherBuy()
	case n < 81:
		r.buyWithOffer()
	case n < 93:
		r.race()
	default:
		if r.rng.IntN(2) == 0 {
			r.sellerOffers()
		} else {
			r.addListing()
		}
	}
	r.checkSpending()
}

func (r *opRun) count(what string, resp *testkit.Response) {
	r.tally[fmt.Sprintf("%s %d %s", what, resp.Status, resp.Code())]++
}

// want checks an answer's status and code.
func (r *opRun) want(what string, resp *testkit.Response, w opWant) {
	r.t.Helper()
	r.count(what, resp)
	if resp.Status != w.status || resp.Code() != w.code {
		r.fatalf("%s: answered %d %q, the model says %s\n%s", what, resp.Status, resp.Code(), w, resp.Body)
	}
}

// offerField reads a field of either variant's offer by its camelCase name.
func offerField(o map[string]any, camel string, snake bool) any {
	if !snake {
		return o[camel]
	}
	var b strings.Builder
	for _, c := range camel {
		if c >= 'A' && c <= 'Z' {
			b.WriteByte('_')
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return o[b.String()]
}

// view is how the model's offer reads now: an open offer whose time ran out
// reads as expired before the sweep gets to it.
func (st *opState) view(i int) opOffer {
	o := st.offers[i]
	if o.open() && !st.now.Before(o.expires) {
		o.status, o.awaiting, o.reserved = "expired", "", 0
	}
	return o
}

// same compares a served offer with the model's.
func (r *opRun) same(what string, got map[string]any, snake bool, m opOffer) {
	r.t.Helper()
	if bad := opDiff(got, snake, m); len(bad) > 0 {
		r.fatalf("%s: the offer disagrees with the model: %s\n%v", what, strings.Join(bad, "; "), got)
	}
}

// opDiff lists how a served offer differs from the model's.
func opDiff(got map[string]any, snake bool, m opOffer) []string {
	num := func(name string) any {
		v := offerField(got, name, snake)
		if f, ok := v.(float64); ok {
			return int64(f)
		}
		return v
	}
	nullable := func(v int64) any {
		if v == 0 {
			return nil
		}
		return v
	}
	var awaiting any
	if m.awaiting != "" {
		awaiting = m.awaiting
	}
	var bad []string
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"id", offerField(got, "id", snake), m.id},
		{"status", offerField(got, "status", snake), m.status},
		{"round", num("round"), int64(m.round)},
		{"awaitingResponseFrom", offerField(got, "awaitingResponseFrom", snake), awaiting},
		{"offerPrice", num("offerPrice"), m.offerPrice},
		{"currentPrice", num("currentPrice"), m.current},
		{"counterPrice", num("counterPrice"), nullable(m.counter)},
		{"agreedPrice", num("agreedPrice"), nullable(m.agreed)},
		{"orderId set", offerField(got, "orderId", snake) != nil, m.ordered},
		{"autoPurchaseOnAccept", offerField(got, "autoPurchaseOnAccept", snake), m.auto},
	} {
		if c.got != c.want {
			bad = append(bad, fmt.Sprintf("%s = %v, model %v", c.name, c.got, c.want))
		}
	}
	return bad
}

// read fetches offer i as a random party on a random surface and compares.
func (r *opRun) read(i int) {
	r.t.Helper()
	id := r.st.offers[i].id
	a := []opActor{opBuyerKey, opBuyerHuman, opSellerKey, opSellerHuman}[r.rng.IntN(4)]
	snake := r.rng.IntN(2) == 0
	path := r.base(a) + "/" + id
	if snake {
		path = "/v1/offers/" + id
	}
	resp := r.s.Do("GET", path, nil, r.auth(a))
	r.want("read", resp, opOK)
	m := r.st.view(i)
	r.same(fmt.Sprintf("GET %s as %s", path, a), resp.Data(), snake, m)
	if order, _ := offerField(resp.Data(), "orderId", snake).(string); order != "" && !r.orders[order] {
		r.order(order, m)
	}
}

// order checks the order that bought an offer: it names the offer, pays
// the agreed price for the item, and was bought by the agent key (the key
// of the buyer's last commitment, or the key that bought with offerId) or
// the buyer in person.
func (r *opRun) order(id string, m opOffer) {
	r.t.Helper()
	o := r.s.Do("GET", "/api/v1/orders/"+id, nil, r.buyer.Auth()).Want(r.t, http.StatusOK, "").Data()
	fees := testkit.Obj(r.t, o, "fees")
	channel := "human"
	if m.byKey {
		channel = "agent"
	}
	if o["offerId"] != m.id || testkit.Num(r.t, fees, "itemPrice") != m.agreed ||
		testkit.Num(r.t, fees, "totalCharged") != opTotal(m.agreed) || o["channel"] != channel || o["status"] != "paid" {
		r.fatalf("the order of offer %s (agreed %d, channel %s) is %v", m.id, m.agreed, channel, o)
	}
	r.orders[id] = true
}

// checkSpending compares the buyer's spending with the model and checks
// that spent plus what offers hold stays within every cap.
func (r *opRun) checkSpending() {
	r.t.Helper()
	d := r.s.Do("GET", "/api/v1/spending-controls", nil, r.buyer.Auth()).Want(r.t, http.StatusOK, "").Data()
	sp := testkit.Obj(r.t, d, "spent")
	got := [4]int64{testkit.Num(r.t, d, "reservedForOffers"), testkit.Num(r.t, sp, "today"),
		testkit.Num(r.t, sp, "thisWeek"), testkit.Num(r.t, sp, "thisMonth")}
	day, week, month := r.st.spent()
	want := [4]int64{r.st.reservedExcept(-1), day, week, month}
	if got != want {
		r.fatalf("spending [reserved today week month] = %v, model %v\n%v", got, want, d)
	}
	c := r.st.caps
	if got[0]+got[1] > c.daily || got[0]+got[2] > c.weekly || got[0]+got[3] > c.monthly {
		r.fatalf("spent plus reserved passes a cap: %v, caps %+v", got, c)
	}
}

// pickOffer picks an offer: mostly the newest on a listing, sometimes any.
func (r *opRun) pickOffer() (int, bool) {
	if len(r.st.offers) == 0 {
		return 0, false
	}
	if r.rng.IntN(4) == 0 {
		return r.rng.IntN(len(r.st.offers)), true
	}
	var open []int
	for i, o := range r.st.offers {
		if o.open() {
			open = append(open, i)
		}
	}
	if len(open) == 0 {
		return r.rng.IntN(len(r.st.offers)), true
	}
	return open[r.rng.IntN(len(open))], true
}

func (r *opRun) create() {
	r.t.Helper()
	li := r.pickListing()
	l := r.st.listings[li]
	agent := r.rng.IntN(3) > 0
	a := opBuyerHuman
	if agent {
		a = opBuyerKey
	}
	amount, auto := r.amount(l), r.rng.IntN(3) > 0
	next := r.st.clone()
	w, idx := next.create(agent, li, amount, auto)
	var resp *testkit.Response
	snake := r.rng.IntN(2) == 0
	what := fmt.Sprintf("create by %s on listing %d of %d, auto %v", a, li, amount, auto)
	if snake {
		what = "B " + what
		resp = r.s.Do("POST", "/v1/offers", map[string]any{"listing_id": l.id, "amount": amount, "auto_purchase_on_accept": auto}, r.auth(a))
	} else {
		what = "A " + what
		resp = r.s.Do("POST", r.base(a), map[string]any{"listingId": l.id, "offerPrice": amount, "autoPurchaseOnAccept": auto}, r.auth(a))
	}
	r.logf("%s -> %d %s", what, resp.Status, resp.Code())
	r.want("create", resp, w)
	if idx < 0 {
		return
	}
	next.offers[idx].id = offerField(resp.Data(), "id", snake).(string)
	r.st = next
	r.logf("  offer %d is %s", idx, next.offers[idx].id)
	r.same(what, resp.Data(), snake, r.st.view(idx))
	r.read(idx)
}

// pickListing picks a listing, mostly one still on sale.
func (r *opRun) pickListing() int {
	for range 3 {
		if li := r.rng.IntN(len(r.st.listings)); !r.st.listings[li].sold {
			return li
		}
	}
	return r.rng.IntN(len(r.st.listings))
}

// sellerOffers: the seller cannot offer on their own listing.
func (r *opRun) sellerOffers() {
	r.t.Helper()
	li := r.rng.IntN(len(r.st.listings))
	l := r.st.listings[li]
	a := []opActor{opSellerKey, opSellerHuman}[r.rng.IntN(2)]
	w := opErr("CANNOT_BUY_OWN_LISTING")
	if l.sold {
		w = opErr("LISTING_SOLD")
	}
	resp := r.s.Do("POST", r.base(a), map[string]any{"listingId": l.id, "offerPrice": l.floor}, r.auth(a))
	r.logf("create by %s on listing %d -> %d %s", a, li, resp.Status, resp.Code())
	r.want("seller offers", resp, w)
}

// move is one answer or withdrawal as it goes over the wire.
type opMove struct {
	actor  opActor
	action string // accept, reject, counter, withdraw
	amount int64
	snake  bool // Variant B's respond
}

func (m opMove) path(r *opRun, id string) (string, any) {
	if m.snake {
		body := map[string]any{"action": m.action}
		if m.action == "counter" {
			body["counter_amount"] = m.amount
		}
		return "/v1/offers/" + id + "/respond", body
	}
	var body any // accept, reject and withdraw take no body
	if m.action == "counter" {
		body = map[string]any{"counterPrice": m.amount}
	} else if r.rng.IntN(2) == 0 {
		body = map[string]any{}
	}
	return r.base(m.actor) + "/" + id + "/" + m.action, body
}

func (m opMove) String() string {
	v := "A"
	if m.snake {
		v = "B"
	}
	s := fmt.Sprintf("%s %s by %s", v, m.action, m.actor)
	if m.action == "counter" {
		s += fmt.Sprintf(" %d", m.amount)
	}
	return s
}

// predict applies the move to st.
func (m opMove) predict(st *opState, i int, noBuy bool) opWant {
	if m.action == "withdraw" {
		return st.withdraw(m.actor, i)
	}
	return st.respond(m.actor, i, m.action, m.amount, noBuy)
}

func (r *opRun) randomMove(i int, rightParty bool) opMove {
	o := r.st.offers[i]
	var a opActor
	switch {
	case rightParty && o.awaiting == "seller":
		a = []opActor{opSellerKey, opSellerHuman}[r.rng.IntN(2)]
	case rightParty:
		a = []opActor{opBuyerKey, opBuyerHuman}[r.rng.IntN(2)]
	case r.rng.IntN(3) == 0:
		a = opActor(r.rng.IntN(6)) // anyone, strangers included
	case o.awaiting == "seller":
		a = []opActor{opSellerKey, opSellerHuman, opSellerKey, opSellerHuman, opBuyerKey}[r.rng.IntN(5)]
	default:
		a = []opActor{opBuyerKey, opBuyerHuman, opBuyerKey, opBuyerHuman, opSellerHuman}[r.rng.IntN(5)]
	}
	m := opMove{actor: a, action: []string{"accept", "reject", "counter", "counter", "withdraw"}[r.rng.IntN(5)]}
	if m.action != "withdraw" {
		m.snake = r.rng.IntN(2) == 0
	} else if r.rng.IntN(3) > 0 {
		m.actor = []opActor{opBuyerKey, opBuyerHuman}[r.rng.IntN(2)] // the buyer withdraws whoever is asked
	}
	if m.action == "counter" {
		l := r.st.listings[o.listing]
		if rightParty {
			m.amount = l.floor + int64(r.rng.IntN(int(l.price-l.floor)))
		} else {
			m.amount = r.amount(l)
		}
	}
	return m
}

func (r *opRun) answer() {
	r.t.Helper()
	i, ok := r.pickOffer()
	if !ok {
		r.create()
		return
	}
	m := r.randomMove(i, r.rng.IntN(3) > 0)
	next := r.st.clone()
	w := m.predict(next, i, false)
	path, body := m.path(r, r.st.offers[i].id)
	resp := r.s.Do("POST", path, body, r.auth(m.actor))
	what := fmt.Sprintf("%s on offer %d", m, i)
	r.logf("%s -> %d %s", what, resp.Status, resp.Code())
	r.want(m.action, resp, w)
	if w.status == 200 {
		r.st = next
		r.same(what, resp.Data(), m.snake, r.st.view(i))
	}
	r.read(i)
}

func (r *opRun) advance(h int) {
	r.t.Helper()
	n := r.st.advance(h)
	resp := r.s.Do("POST", fmt.Sprintf("/v1/sandbox/time-advance/%d", h), nil, r.buyer.Auth())
	r.logf("time-advance %dh -> %d, %v expired (model %d)", h, resp.Status, resp.Data()["offers_expired"], n)
	r.want("time-advance", resp, opOK)
	if !r.s.Clock.Now().Equal(r.st.now) {
		r.fatalf("the clock reads %s, the model %s", r.s.Clock.Now(), r.st.now)
	}
	if got := testkit.Num(r.t, resp.Data(), "offers_expired"); got != int64(n) {
		r.fatalf("time-advance expired %d offers, the model %d", got, n)
	}
	for i := range r.st.offers {
		r.read(i)
	}
}

func (r *opRun) otherBuy() {
	r.t.Helper()
	li := r.rng.IntN(len(r.st.listings))
	w := r.st.otherBuys(li) // a failed purchase changes nothing
	resp := r.s.Do("POST", "/api/v1/agent/purchase", buyHelperBody(r.st.listings[li].id, 50000), r.other.Key.Auth())
	r.logf("other buyer buys listing %d -> %d %s", li, resp.Status, resp.Code())
	r.want("other purchase", resp, w)
	for i := range r.st.offers {
		if r.st.offers[i].listing == li {
			r.read(i)
		}
	}
}

func (r *opRun) buyWithOffer() {
	r.t.Helper()
	i, ok := r.pickOffer()
	if !ok {
		return
	}
	// Mostly an accepted offer, when there is one.
	for j, o := range r.st.offers {
		if o.status == "accepted" && !o.ordered && r.rng.IntN(2) == 0 {
			i = j
		}
	}
	a := opBuyerKey
	if r.rng.IntN(5) == 0 {
		a = opStrangerKey
	}
	o := r.st.offers[i]
	next := r.st.clone()
	w := next.purchaseWithOffer(a, i)
	body := buyHelperBody(r.st.listings[o.listing].id, 50000)
	body["offerId"] = o.id
	resp := r.s.Do("POST", "/api/v1/agent/purchase", body, r.auth(a))
	r.logf("purchase with offer %d by %s -> %d %s", i, a, resp.Status, resp.Code())
	r.want("purchase with offerId", resp, w)
	if w.status == 201 {
		r.st = next
	}
	r.read(i)
}

// race sends the asked party's move and another buyer's purchase of the
// listing at once. Any order of the two may win; what each answers and how
// the offer ends must fit one of them.
func (r *opRun) race() {
	r.t.Helper()
	var open []int
	for i, o := range r.st.offers {
		if (o.status == "pending" || o.status == "countered") && !r.st.listings[o.listing].sold {
			open = append(open, i)
		}
	}
	if len(open) == 0 {
		r.create()
		return
	}
	i := open[r.rng.IntN(len(open))]
	m := r.randomMove(i, true)
	li := r.st.offers[i].listing
	type outcome struct {
		name    string
		move    opWant
		buy     opWant
		st      *opState
		answer  opOffer // the offer as the move's answer shows it
		anyView bool    // the move's answer may show the offer accepted or expired
	}
	var outs []outcome
	// The move first, then the purchase.
	a := r.st.clone()
	mw := m.predict(a, i, false)
	moved := a.view(i)
	outs = append(outs, outcome{"move first", mw, a.otherBuys(li), a, moved, false})
	// The purchase first, then the move.
	b := r.st.clone()
	bw := b.otherBuys(li)
	outs = append(outs, outcome{"purchase first", m.predict(b, i, false), bw, b, opOffer{}, false})
	if m.action == "accept" || m.action == "counter" && r.st.offers[i].round < r.st.offers[i].maxRounds {
		// The purchase holds the listing when the move looks at it.
		c := r.st.clone()
		outs = append(outs, outcome{"purchase holds the listing", opErr("LISTING_NOT_AVAILABLE"), c.otherBuys(li), c, opOffer{}, false})
	}
	if m.action == "accept" && mw.status == 200 && r.st.offers[i].auto {
		// The acceptance commits, the purchase takes the listing before
		// the automatic purchase does.
		d := r.st.clone()
		dw := m.predict(d, i, true)
		outs = append(outs, outcome{"accepted, then outbought", dw, d.otherBuys(li), d, opOffer{}, true})
	}
	path, body := m.path(r, r.st.offers[i].id)
	if body == nil {
		body = map[string]any{}
	}
	got := buyHelperRace(2, func(k int) buyHelperAnswer {
		if k == 0 {
			return offerPost(r.s, path, body, r.auth(m.actor))
		}
		return buyHelperPost(r.s, r.other.Key, buyHelperBody(r.st.listings[li].id, 50000))
	})
	for _, g := range got {
		if g.Err != nil {
			r.t.Fatal(g.Err)
		}
	}
	r.logf("race: %s on offer %d -> %d %s | other buyer buys listing %d -> %d %s", m, i, got[0].Status, got[0].code(),
		li, got[1].Status, got[1].code())
	r.tally[fmt.Sprintf("race %s %d %s / buy %d %s", m.action, got[0].Status, got[0].code(), got[1].Status, got[1].code())]++
	// The offer as it reads after both.
	id := r.st.offers[i].id
	after := r.s.Do("GET", "/api/v1/offers/"+id, nil, r.buyer.Auth()).Want(r.t, http.StatusOK, "").Data()
	var tried []string
	for _, out := range outs {
		if got[0].Status != out.move.status || got[0].code() != out.move.code || got[1].Status != out.buy.status ||
			got[1].code() != out.buy.code {
			tried = append(tried, fmt.Sprintf("%s: move %s, purchase %s", out.name, out.move, out.buy))
			continue
		}
		if out.move.status == 200 {
			ans := got[0].data()
			if out.anyView {
				if st := offerField(ans, "status", m.snake); (st != "accepted" && st != "expired") || offerField(ans, "orderId", m.snake) != nil {
					tried = append(tried, fmt.Sprintf("%s: the move's answer shows %v", out.name, ans))
					continue
				}
			} else if !r.sameQuiet(ans, m.snake, out.answer) {
				tried = append(tried, fmt.Sprintf("%s: the move's answer shows %v", out.name, ans))
				continue
			}
		}
		if !r.sameQuiet(after, false, out.st.view(i)) {
			tried = append(tried, fmt.Sprintf("%s: the offer now reads %v", out.name, after))
			continue
		}
		r.st = out.st
		r.logf("  as %q", out.name)
		return
	}
	r.fatalf("race: %s on offer %d answered %d %s, the purchase %d %s; no order of the two explains it:\n  %s\nmove answer %s\npurchase answer %s",
		m, i, got[0].Status, got[0].code(), got[1].Status, got[1].code(), strings.Join(tried, "\n  "), got[0].Body, got[1].Body)
}

// sameQuiet reports whether a served offer matches the model's.
func (r *opRun) sameQuiet(got map[string]any, snake bool, m opOffer) bool {
	return len(opDiff(got, snake, m)) == 0
}

// finish checks what must hold at the end of a session: each offer reads
// as the model says, no listing was sold twice, every sale charged once.
func (r *opRun) finish() {
	r.t.Helper()
	for i := range r.st.offers {
		r.read(i)
	}
	// Past every round: whatever is open expires (and the next session
	// starts with no open offers, which time-advance would count).
	r.advance(72)
	sales := int64(0)
	for li, l := range r.st.listings {
		n := buyHelperInt(r.t, r.s, `SELECT COUNT(*) FROM orders WHERE listing_id = ? AND status NOT IN ('cancelled', 'expired')`, l.id)
		want := int64(0)
		if l.sold {
			want = 1
		}
		if n != want {
			r.fatalf("listing %d has %d orders, the model %d", li, n, want)
		}
		if st := buyHelperListingStatus(r.t, r.s, l.id); (st == "sold") != l.sold {
			r.fatalf("listing %d is %s, the model says sold %v", li, st, l.sold)
		}
		sales += n
	}
	if got := r.s.Charges() - r.charges; got != sales {
		r.fatalf("%d charges for %d sales", got, sales)
	}
	r.checkSpending()
}
