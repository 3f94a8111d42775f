package apiv1_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/testkit"
)

// The after-sale life of an order as a property. Random sequences of moves,
// allowed and forbidden, by the right party and by the wrong one, with
// valid and invalid amounts; a small model of the order predicts each
// answer (a success, or 400, 403, 409 with nothing changed), and after
// every step the order and the processor's own records are checked: what
// was charged is refunded, paid out, kept by the platform, or still held
// for the seller, to the cent.
//
// MARKETPLACE_PROPERTY_SEED repeats a run (the seed is logged);
// MARKETPLACE_PROPERTY_ORDERS drives more orders per engine than the
// default.

const (
	lcDefaultOrders = 12
	lcHold          = int64(72 * 3600) // payouts.hold_hours, its default, in seconds
	lcDay           = int64(24 * 3600)
)

func TestLifecycleProperty(t *testing.T) {
	t.Parallel()
	seed := lcEnv(t, "MARKETPLACE_PROPERTY_SEED", rand.Uint64())
	n := lcEnv(t, "MARKETPLACE_PROPERTY_ORDERS", lcDefaultOrders)
	t.Logf("seed %d, %d orders per engine (MARKETPLACE_PROPERTY_SEED=%d repeats this run)", seed, n, seed)
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		admin, stranger := s.Admin(), s.Register("lcstranger")
		var books testkit.Money
		tally := map[string]int{}
		for i := range int(n) {
			lc := lcStart(t, s, seed, i, admin, stranger, tally)
			for range 6 + lc.rng.IntN(9) {
				lc.step()
			}
			lc.settle()
			m, _ := s.OrderLedger(lc.order)
			books = testkit.Money{Charged: books.Charged + m.Charged, Refunded: books.Refunded + m.Refunded,
				PaidOut: books.PaidOut + m.PaidOut, Reversed: books.Reversed + m.Reversed}
		}
		// Nothing moved that no order accounts for.
		if got := s.Ledger(); got != books {
			t.Fatalf("seed %d: the processor moved %+v in all; the orders' books add up to %+v", seed, got, books)
		}
		t.Logf("moves and answers: %v", tally)
	})
}

func lcEnv(t *testing.T, name string, def uint64) uint64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// lcModel is what the test expects of the order. Values only, so a copy
// compares with == (a step that must change nothing leaves it equal).
// Times are Unix seconds of the service clock.
type lcModel struct {
	status, before orders.Status
	pickup         bool
	verified       bool // the seller's payout account
	charged        int64
	sellerPay      int64 // SellerPayout: item - commission + shipping
	refunded       int64
	sellerRefunded int64
	payout         orders.PayoutStatus
	payoutAmount   int64
	shippedAt      int64
	estDays        int64
	deliveredAt    int64
	dueAt          int64
	paid           int64 // transferred to the seller
	transfer       bool  // a transfer exists to reverse from
	reversed       int64
	releases       int // payment.released events
	holds          int // payout.hold_changed events
	req            lcRequest
	dispute        lcDispute
}

// lcRequest is the buyer's latest refund request (id "" before any).
type lcRequest struct {
	id     string
	amount int64
	state  orders.RefundStatus // requested, declined or succeeded
}

// lcDispute is the order's latest dispute (id "" before any).
type lcDispute struct {
	id         string
	status     orders.DisputeStatus
	response   string
	resolution orders.Resolution
}

func (m *lcModel) left() int64 { return m.charged - m.refunded }

func (m *lcModel) refundable() bool {
	return slices.Contains([]orders.Status{orders.StatusPaid, orders.StatusPickupReady, orders.StatusShipped,
		orders.StatusDelivered, orders.StatusCompleted}, m.status)
}

func (m *lcModel) unresolved() bool {
	return m.dispute.id != "" && m.dispute.status != orders.DisputeResolved
}

// book is a refund of amount: the seller's share first, then the
// platform's fees; a pending payout shrinks, a released one is reversed;
// refunded in full, the order is refunded and an open request declined.
func (m *lcModel) book(amount int64) {
	share := min(amount, max(0, m.sellerPay-m.sellerRefunded))
	m.refunded += amount
	m.sellerRefunded += share
	switch m.payout {
	case orders.PayoutReleased:
		if m.transfer {
			m.reversed += share
		}
	case orders.PayoutPending, orders.PayoutFrozen:
		m.payoutAmount = max(0, m.sellerPay-m.sellerRefunded)
	}
	if m.left() > 0 {
		return
	}
	m.status = orders.StatusRefunded
	if m.payout != orders.PayoutReleased {
		m.payout, m.payoutAmount = orders.PayoutVoid, 0
	}
	if m.req.state == orders.RefundRequested {
		m.req.state = orders.RefundDeclined
	}
}

func (m *lcModel) deliver(now int64) {
	m.status, m.deliveredAt, m.dueAt = orders.StatusDelivered, now, now+lcHold
	m.payout, m.payoutAmount = orders.PayoutPending, max(0, m.sellerPay-m.sellerRefunded)
}

func (m *lcModel) payOut(now int64, force bool) {
	if m.status != orders.StatusDelivered || m.payout != orders.PayoutPending || !force && m.dueAt > now || !m.verified {
		return
	}
	m.paid, m.transfer = m.payoutAmount, m.payoutAmount > 0
	m.payout, m.status = orders.PayoutReleased, orders.StatusCompleted
	m.releases++
}

func (m *lcModel) cancel() {
	if m.left() > 0 {
		m.book(m.left())
	}
	m.status, m.payout, m.payoutAmount = orders.StatusCancelled, orders.PayoutVoid, 0
}

// sweep is the payout job at now: shipments nobody confirmed are
// delivered 14 days after their estimate, then holds that ended are paid.
func (m *lcModel) sweep(now int64) {
	if m.status == orders.StatusShipped && m.shippedAt < now-14*lcDay && m.shippedAt+(m.estDays+14)*lcDay <= now {
		m.deliver(now)
	}
	m.payOut(now, false)
}

// resume returns a disputed order to where the dispute stopped it.
func (m *lcModel) resume() {
	m.status = m.before
	if m.payout == orders.PayoutFrozen {
		m.payout = orders.PayoutPending
	}
}

type lcRole int

const (
	lcSeller lcRole = iota
	lcBuyer
	lcAdmin
	lcStranger
)

type lcWho struct {
	role lcRole
	name string
	h    testkit.Header
}

// lcWant is an expected answer: a success, or a refusal (which must change
// nothing).
type lcWant struct {
	status int
	code   string
}

var (
	lcOK        = lcWant{http.StatusOK, ""}
	lcCreated   = lcWant{http.StatusCreated, ""}
	lcBad       = lcWant{http.StatusBadRequest, "VALIDATION_ERROR"}
	lcForbidden = lcWant{http.StatusForbidden, "FORBIDDEN"}
	lcConflict  = lcWant{http.StatusConflict, "INVALID_STATE"}
)

// lifecycle is one order's random walk.
type lifecycle struct {
	t               *testing.T
	s               *testkit.Server
	rng             *rand.Rand
	seed            uint64
	index           int
	kind            string
	seller          *testkit.User
	buyer           *testkit.Shopper
	admin, stranger *testkit.User
	order           string
	m               lcModel
	steps           []string
	tally           map[string]int // moves and their answers, states reached: what a run covered
}

// lcStart buys a fresh listing: shipped flat-rate or free, or collected;
// one seller in four has no payout account yet.
func lcStart(t *testing.T, s *testkit.Server, seed uint64, i int, admin, stranger *testkit.User, tally map[string]int) *lifecycle {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	lc := &lifecycle{t: t, s: s, rng: rng, seed: seed, index: i, admin: admin, stranger: stranger, tally: tally}
	name := "lc" + strconv.Itoa(i)
	verified := rng.IntN(4) != 0
	if verified {
		lc.seller = s.VerifiedOwner(name + "seller")
	} else {
		lc.seller = s.Register(name + "seller")
	}
	price := 500 + rng.Int64N(20000)
	fields := map[string]any{"price": price, "condition": "good"}
	body := map[string]any{"maxPrice": price}
	switch rng.IntN(4) {
	case 0:
		lc.kind = "local pickup"
		fields["shippingType"], body["fulfillmentType"] = "local_pickup", "local_pickup"
	case 1:
		lc.kind = "free shipping"
		fields["shippingType"], body["shippingAddress"] = "free", testkit.Address()
	default:
		lc.kind = "flat-rate shipping"
		fields["shippingType"], fields["shippingCost"], body["shippingAddress"] = "flat_rate", 100+rng.Int64N(1900), testkit.Address()
	}
	if !verified {
		lc.kind += ", seller without a payout account"
	}
	r := s.CreateListing(lc.seller.Auth(), "Mid-century teak side table, small, light wear", fields).Want(t, http.StatusCreated, "")
	body["listingId"] = r.Data()["id"]
	lc.buyer = s.NewShopper(name+"buyer", "pm_card_visa")
	s.SetControls(lc.buyer.User, map[string]any{"perTransactionLimit": 50000})
	lc.order = s.Do("POST", "/api/v1/agent/purchase", body, lc.buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)

	o := lc.get()
	f := o.Fees
	lc.m = lcModel{status: orders.StatusPaid, pickup: o.Fulfillment == orders.FulfillLocalPickup, verified: verified,
		charged: f.TotalCharged, sellerPay: f.ItemPrice - f.Commission + f.ShippingCost, estDays: 7}
	if o.EstimatedDays != nil {
		lc.m.estDays = int64(*o.EstimatedDays)
	}
	lc.steps = append(lc.steps, fmt.Sprintf("bought (%s): item %d, shipping %d, fee %d, charged %d, commission %d",
		lc.kind, f.ItemPrice, f.ShippingCost, f.ServiceFee, f.TotalCharged, f.Commission))
	lc.check()
	return lc
}

func (lc *lifecycle) get() *orders.Order {
	lc.t.Helper()
	o, err := lc.s.App.Orders.Get(lc.t.Context(), market.System, lc.order)
	if err != nil {
		lc.fail("reading the order: %v", err)
	}
	return o
}

func (lc *lifecycle) now() int64 { return lc.s.Clock.Now().Unix() }

func (lc *lifecycle) path(tail string) string { return "/api/v1/orders/" + lc.order + tail }

// actor is the party a move needs most of the time, else someone else.
func (lc *lifecycle) actor(right lcRole) lcWho {
	role := right
	if lc.rng.IntN(5) == 0 {
		role = lcRole((int(right) + 1 + lc.rng.IntN(3)) % 4)
	}
	switch role {
	case lcSeller:
		return lcWho{role, "seller", lc.seller.Auth()}
	case lcBuyer:
		return lcWho{role, "buyer", lc.buyer.Auth()}
	case lcAdmin:
		return lcWho{role, "admin", lc.admin.Auth()}
	}
	return lcWho{role, "stranger", lc.stranger.Auth()}
}

// may reports whether who may make a move the given party makes: admins
// act for either party of a transition.
func (w lcWho) may(party lcRole) bool {
	return w.role == party || w.role == lcAdmin && party != lcStranger
}

// amount is a refund amount against what is left: absent, invalid, some,
// all, or too much.
func (lc *lifecycle) amount(left int64) *int64 {
	var v int64
	switch k := lc.rng.IntN(20); {
	case k < 4:
		return nil
	case k == 4:
		v = 0
	case k == 5:
		v = -1 - lc.rng.Int64N(500)
	case k < 10:
		v = 1 + lc.rng.Int64N(max(1, min(left, 1000)))
	case k < 15:
		v = 1 + lc.rng.Int64N(max(1, left))
	case k < 17:
		v = left
	default:
		v = left + 1 + lc.rng.Int64N(1000)
	}
	return &v
}

func lcAmountText(a *int64) string {
	if a == nil {
		return "all"
	}
	return strconv.FormatInt(*a, 10)
}

// lcAction is one kind of move; weight draws the moves the order can make
// now more often than the ones it cannot (0: not drawn).
type lcAction struct {
	run    func(*lifecycle)
	weight func(*lcModel) int
}

func lcIf(ok bool, yes, no int) int {
	if ok {
		return yes
	}
	return no
}

var lcActions = []lcAction{
	{(*lifecycle).ship, func(m *lcModel) int { return lcIf(m.status == orders.StatusPaid && !m.pickup, 6, 1) }},
	{(*lifecycle).pickupReady, func(m *lcModel) int { return lcIf(m.status == orders.StatusPaid && m.pickup, 6, 1) }},
	{(*lifecycle).confirmPickup, func(m *lcModel) int { return lcIf(m.status == orders.StatusPickupReady, 6, 1) }},
	{(*lifecycle).delivered, func(m *lcModel) int { return lcIf(m.status == orders.StatusShipped, 6, 1) }},
	{(*lifecycle).cancel, func(m *lcModel) int {
		return lcIf(m.status == orders.StatusPaid || m.status == orders.StatusPickupReady, 2, 1)
	}},
	{(*lifecycle).forceCancel, func(*lcModel) int { return 1 }},
	{(*lifecycle).forceComplete, func(*lcModel) int { return 1 }},
	{(*lifecycle).hold, func(m *lcModel) int {
		return lcIf(m.payout == orders.PayoutPending || m.payout == orders.PayoutFrozen, 2, 1)
	}},
	{(*lifecycle).advance, func(m *lcModel) int { return lcIf(m.payout == orders.PayoutPending, 6, 3) }},
	{(*lifecycle).verify, func(m *lcModel) int { return lcIf(m.verified, 0, 1) }},
	{(*lifecycle).requestRefund, func(m *lcModel) int {
		return lcIf(m.refundable() && m.req.state != orders.RefundRequested, 2, 1)
	}},
	{(*lifecycle).answerRefund, func(m *lcModel) int {
		return lcIf(m.req.state == orders.RefundRequested, 4, lcIf(m.refundable(), 2, 1))
	}},
	{(*lifecycle).openDispute, func(m *lcModel) int { return lcIf(m.refundable() && !m.unresolved(), 2, 1) }},
	{(*lifecycle).respondDispute, func(m *lcModel) int {
		return lcIf(m.dispute.status == orders.DisputeOpen, 2, lcIf(m.dispute.id != "", 1, 0))
	}},
	{(*lifecycle).resolve, func(m *lcModel) int {
		return lcIf(m.status == orders.StatusDisputed && m.unresolved(), 5, lcIf(m.dispute.id != "", 1, 0))
	}},
}

func (lc *lifecycle) step() {
	weights := make([]int, len(lcActions))
	total := 0
	for i, a := range lcActions {
		weights[i] = a.weight(&lc.m)
		total += weights[i]
	}
	k := lc.rng.IntN(total)
	for i, w := range weights {
		if k < w {
			lcActions[i].run(lc)
			break
		}
		k -= w
	}
	lc.check()
}

// exec runs one move (kind names it in the tally): call answers the status
// and error code; a success
// applies mutate to the model, and a success the model says changes
// nothing, like every refusal, must leave the order and the money as they
// were.
func (lc *lifecycle) exec(kind, what string, want lcWant, mutate func(*lcModel), call func() (int, string, string)) {
	lc.t.Helper()
	next := lc.m
	success := want.status < 300
	if success && mutate != nil {
		mutate(&next)
	}
	before := lc.snap()
	status, code, body := call()
	lc.steps = append(lc.steps, fmt.Sprintf("%s: %d %s", what, status, code))
	lc.tally[kind+" "+strconv.Itoa(status)]++
	if status != want.status || code != want.code {
		lc.fail("%s answered %d %s; the model expects %d %s\n%s", what, status, code, want.status, want.code, body)
	}
	if !success || next == lc.m {
		if after := lc.snap(); after != before {
			lc.fail("%s (%d) must change nothing, but:\nbefore %s\nafter  %s", what, status, before, after)
		}
	}
	lc.m = next
	lc.tally["state "+string(next.status)+"/"+lcPayout(next.payout)]++
}

// http is exec for a request.
func (lc *lifecycle) http(kind, what string, want lcWant, mutate func(*lcModel), method, path string, body any,
	h testkit.Header) *testkit.Response {
	var r *testkit.Response
	lc.exec(kind, what, want, mutate, func() (int, string, string) {
		r = lc.s.Do(method, path, body, h)
		b := r.Body
		if len(b) > 1500 {
			b = b[:1500]
		}
		return r.Status, r.Code(), string(b)
	})
	return r
}

func (lc *lifecycle) ship() {
	who := lc.actor(lcSeller)
	body := map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"}
	bad, what := lc.rng.IntN(8) == 0, "ship by "+who.name
	if bad {
		body["trackingNumber"] = "1Z999AA10123456785" // wrong check digit
		what = "ship with a bad tracking number by " + who.name
	}
	now, m := lc.now(), &lc.m
	want, mutate := lcConflict, func(*lcModel) {}
	switch { // who is asking comes first, then the tracking number, then the order's state
	case !who.may(lcSeller):
		want = lcForbidden
	case bad:
		want = lcBad
	case m.status == orders.StatusShipped:
		want = lcOK
	case m.status == orders.StatusPaid && !m.pickup:
		want, mutate = lcOK, func(m *lcModel) { m.status, m.shippedAt = orders.StatusShipped, now }
	}
	lc.http("ship", what, want, mutate, "POST", lc.path("/ship"), body, who.h)
}

func (lc *lifecycle) pickupReady() {
	who := lc.actor(lcSeller)
	m := &lc.m
	want, mutate := lcConflict, func(*lcModel) {}
	switch {
	case !who.may(lcSeller):
		want = lcForbidden
	case m.status == orders.StatusPickupReady:
		want = lcOK
	case m.status == orders.StatusPaid && m.pickup:
		want, mutate = lcOK, func(m *lcModel) { m.status = orders.StatusPickupReady }
	}
	lc.http("pickup-ready", "pickup-ready by "+who.name, want, mutate, "POST", lc.path("/pickup-ready"), nil, who.h)
}

// received is the buyer's confirm-pickup (from pickup_ready) or
// delivered (from shipped), on the bearer route or the agent's.
func (lc *lifecycle) received(route string, from orders.Status) {
	who := lc.actor(lcBuyer)
	path := lc.path("/" + route)
	if who.role == lcBuyer && lc.rng.IntN(2) == 0 {
		who.name, who.h, path = "buyer's agent", lc.buyer.Key.Auth(), "/api/v1/agent/orders/"+lc.order+"/"+route
	}
	now, m := lc.now(), &lc.m
	want, mutate := lcConflict, func(*lcModel) {}
	switch {
	case !who.may(lcBuyer):
		want = lcForbidden
	case m.pickup != (from == orders.StatusPickupReady):
		// confirm-pickup is for pickup orders, delivered for shipped ones
	case m.status == orders.StatusDelivered:
		want = lcOK
	case m.status == from:
		want, mutate = lcOK, func(m *lcModel) { m.deliver(now) }
	}
	lc.http(route, route+" by "+who.name, want, mutate, "POST", path, nil, who.h)
}

func (lc *lifecycle) confirmPickup() { lc.received("confirm-pickup", orders.StatusPickupReady) }

func (lc *lifecycle) delivered() { lc.received("delivered", orders.StatusShipped) }

// reason is a cancel's optional body: none, a reason, or one too long.
func (lc *lifecycle) reason() (any, bool) {
	switch lc.rng.IntN(8) {
	case 0:
		return map[string]any{"reason": strings.Repeat("r", 501)}, true
	case 1:
		return nil, false
	}
	return map[string]any{"reason": "out of stock"}, false
}

func lcReasonText(move string, long bool, who string) string {
	if long {
		return move + " with a 501-character reason by " + who
	}
	return move + " by " + who
}

func (lc *lifecycle) cancel() {
	who := lc.actor(lcSeller)
	body, long := lc.reason()
	m := &lc.m
	want, mutate := lcConflict, func(*lcModel) {}
	switch {
	case long:
		want = lcBad
	case !who.may(lcSeller):
		want = lcForbidden
	case m.status == orders.StatusCancelled:
		want = lcOK
	case m.status == orders.StatusPaid || m.status == orders.StatusPickupReady:
		want, mutate = lcOK, (*lcModel).cancel
	}
	lc.http("cancel", lcReasonText("cancel", long, who.name), want, mutate, "POST", lc.path("/cancel"), body, who.h)
}

func (lc *lifecycle) adminPath(tail string) string { return "/api/v1/admin/orders/" + lc.order + tail }

func (lc *lifecycle) forceCancel() {
	who := lc.actor(lcAdmin)
	body, long := lc.reason()
	m := &lc.m
	want, mutate := lcConflict, func(*lcModel) {}
	switch {
	case who.role != lcAdmin:
		want = lcForbidden
	case long:
		want = lcBad
	case m.status == orders.StatusCancelled:
		want = lcOK
	case m.payout == orders.PayoutReleased:
	case m.status == orders.StatusDisputed: // the cancel's refund resolves the dispute for the buyer
		want, mutate = lcOK, func(m *lcModel) {
			m.cancel()
			m.dispute.status, m.dispute.resolution = orders.DisputeResolved, orders.ResolveRefundBuyer
		}
	case slices.Contains([]orders.Status{orders.StatusPaid, orders.StatusPickupReady, orders.StatusShipped,
		orders.StatusDelivered}, m.status):
		want, mutate = lcOK, (*lcModel).cancel
	}
	lc.http("force-cancel", lcReasonText("force-cancel", long, who.name), want, mutate, "POST", lc.adminPath("/force-cancel"),
		body, who.h)
}

func (lc *lifecycle) forceComplete() {
	who := lc.actor(lcAdmin)
	now, m := lc.now(), &lc.m
	want, mutate := lcConflict, func(*lcModel) {}
	switch {
	case who.role != lcAdmin:
		want = lcForbidden
	case m.status == orders.StatusDelivered || m.status == orders.StatusCompleted:
		want, mutate = lcOK, func(m *lcModel) { m.payOut(now, true) }
	case m.status == orders.StatusDisputed: // the dispute is resolved for the seller, then the order completed
		want, mutate = lcOK, func(m *lcModel) {
			m.resume()
			m.dispute.status, m.dispute.resolution = orders.DisputeResolved, orders.ResolveReleaseSeller
			if m.status != orders.StatusDelivered && m.status != orders.StatusCompleted {
				m.deliver(now)
			}
			m.payOut(now, true)
		}
	case slices.Contains([]orders.Status{orders.StatusPaid, orders.StatusPickupReady, orders.StatusShipped}, m.status):
		want, mutate = lcOK, func(m *lcModel) { m.deliver(now); m.payOut(now, true) }
	}
	lc.http("force-complete", "force-complete by "+who.name, want, mutate, "POST", lc.adminPath("/force-complete"), nil, who.h)
}

func (lc *lifecycle) hold() {
	who := lc.actor(lcAdmin)
	hours := []int64{0, 1, 24, 48, 100, 200, -1, 3000}[lc.rng.IntN(8)]
	m := &lc.m
	want, mutate := lcConflict, func(*lcModel) {}
	switch {
	case who.role != lcAdmin:
		want = lcForbidden
	case hours < 0 || hours > 2160:
		want = lcBad
	case m.payout == orders.PayoutPending || m.payout == orders.PayoutFrozen:
		want, mutate = lcOK, func(m *lcModel) { m.dueAt, m.holds = m.deliveredAt+hours*3600, m.holds+1 }
	}
	lc.http("hold", fmt.Sprintf("hold %dh by %s", hours, who.name), want, mutate, "PATCH", lc.adminPath("/hold"),
		map[string]any{"holdHours": hours}, who.h)
}

// advance moves the service clock and runs the payout job, directly or
// through the sandbox's time-advance.
func (lc *lifecycle) advance() {
	hours := []int64{1, 12, 24, 48, 71, 73, 100, 300, 505}[lc.rng.IntN(9)]
	lc.advanceBy(hours, lc.rng.IntN(2) == 0)
}

func (lc *lifecycle) advanceBy(hours int64, route bool) {
	now := lc.now() + hours*3600
	mutate := func(m *lcModel) { m.sweep(now) }
	if route {
		r := lc.http("time-advance", fmt.Sprintf("time-advance %dh", hours), lcOK, mutate, "POST", "/v1/sandbox/time-advance/"+strconv.FormatInt(hours, 10),
			nil, lc.buyer.Key.Auth())
		if f := testkit.Num(lc.t, r.Data(), "orders_failed"); f != 0 {
			lc.fail("time-advance: %d orders failed to move\n%s", f, r.Body)
		}
		return
	}
	lc.exec("payout job", fmt.Sprintf("clock +%dh, payout job", hours), lcOK, mutate, func() (int, string, string) {
		lc.s.Clock.Advance(time.Duration(hours) * time.Hour)
		if _, err := lc.s.App.Orders.ReleasePayouts(lc.t.Context()); err != nil {
			return http.StatusInternalServerError, "", err.Error()
		}
		return http.StatusOK, "", ""
	})
}

func (lc *lifecycle) verify() {
	lc.s.Verify(lc.seller)
	lc.m.verified = true
	lc.steps = append(lc.steps, "the seller verifies a payout account")
}

func (lc *lifecycle) requestRefund() {
	who := lc.actor(lcBuyer)
	m := &lc.m
	a := lc.amount(m.left())
	body := map[string]any{"reason": "The top arrived cracked."}
	if a != nil {
		body["amount"] = *a
	}
	want, mutate := lcCreated, func(*lcModel) {}
	switch amt := m.left(); {
	case a != nil && *a <= 0:
		want = lcBad
	case who.role != lcBuyer:
		want = lcForbidden
	case !m.refundable() || m.req.state == orders.RefundRequested:
		want = lcConflict
	case a != nil && *a > amt:
		want = lcBad
	default:
		if a != nil {
			amt = *a
		}
		mutate = func(m *lcModel) { m.req = lcRequest{amount: amt, state: orders.RefundRequested} }
	}
	r := lc.http("refund request", fmt.Sprintf("refund request of %s (left %d) by %s", lcAmountText(a), m.left(), who.name), want, mutate,
		"POST", "/api/v1/purchases/"+lc.order+"/refund", body, who.h)
	if r.Status == http.StatusCreated {
		lc.m.req.id = r.Data()["id"].(string)
	}
}

// answerRefund is POST /purchases/{id}/refund/seller: approve or decline
// the buyer's request, or (nothing open, no action) a refund of the
// seller's own.
func (lc *lifecycle) answerRefund() {
	who := lc.actor(lcSeller)
	m := &lc.m
	action := []string{"", "", "approve", "decline"}[lc.rng.IntN(4)]
	a := lc.amount(m.left())
	byID := m.req.id != "" && lc.rng.IntN(4) == 0
	body := map[string]any{}
	if action != "" {
		body["action"] = action
	}
	if a != nil {
		body["amount"] = *a
	}
	if byID {
		body["refundId"] = m.req.id
	}
	answered := byID || m.req.state == orders.RefundRequested || action != "" && m.req.id != ""
	kind := "own refund"
	if answered {
		kind = "refund " + cmp.Or(action, "approve")
	}
	want, mutate := lcOK, func(*lcModel) {}
	switch {
	case a != nil && *a <= 0:
		want = lcBad
	case !who.may(lcSeller):
		want = lcForbidden
	case !answered && action == orders.ActionDecline:
		want = lcConflict // nothing to decline
	case !answered: // the seller's own refund
		amt := m.left()
		if a != nil {
			amt = *a
		}
		switch {
		case !m.refundable():
			want = lcConflict
		case amt > m.left():
			want = lcBad
		default:
			mutate = func(m *lcModel) { m.book(amt) }
		}
	case m.req.state != orders.RefundRequested:
		if (m.req.state == orders.RefundDeclined) != (action == orders.ActionDecline) {
			want = lcConflict
		}
	case action == orders.ActionDecline:
		mutate = func(m *lcModel) { m.req.state = orders.RefundDeclined }
	default:
		amt := m.req.amount
		if a != nil {
			amt = *a
		}
		switch {
		case !m.refundable():
			want = lcConflict
		case amt > m.req.amount || amt > m.left():
			want = lcBad
		default:
			mutate = func(m *lcModel) {
				m.book(amt)
				m.req.amount, m.req.state = amt, orders.RefundSucceeded
			}
		}
	}
	lc.http(kind, fmt.Sprintf("refund answer %q of %s (by id %v; request %d %s; left %d) by %s", action, lcAmountText(a), byID,
		m.req.amount, m.req.state, m.left(), who.name), want, mutate, "POST", "/api/v1/purchases/"+lc.order+"/refund/seller", body, who.h)
}

func (lc *lifecycle) openDispute() {
	who := lc.actor(lcBuyer)
	m := &lc.m
	reason := orders.DisputeReasons[lc.rng.IntN(len(orders.DisputeReasons))]
	if lc.rng.IntN(10) == 0 {
		reason = "changed_my_mind"
	}
	want, mutate := lcConflict, func(*lcModel) {}
	switch {
	case reason == "changed_my_mind":
		want = lcBad
	case !who.may(lcBuyer):
		want = lcForbidden
	case m.status == orders.StatusDisputed || !m.refundable() || m.unresolved():
	default:
		want, mutate = lcCreated, func(m *lcModel) {
			m.before, m.status = m.status, orders.StatusDisputed
			if m.payout == orders.PayoutPending {
				m.payout = orders.PayoutFrozen
			}
			m.dispute = lcDispute{status: orders.DisputeOpen}
		}
	}
	r := lc.http("dispute", fmt.Sprintf("dispute (%s) by %s", reason, who.name), want, mutate, "POST", "/api/v1/disputes",
		map[string]any{"orderId": lc.order, "reason": reason, "description": "The table arrived with a split top."}, who.h)
	if r.Status == http.StatusCreated {
		lc.m.dispute.id = r.Data()["id"].(string)
	}
}

func (lc *lifecycle) respondDispute() {
	who := lc.actor(lcSeller)
	d := lc.m.dispute
	text := []string{"It left here intact.", "It left here intact.", "Different words.", " "}[lc.rng.IntN(4)]
	want, mutate := lcConflict, func(*lcModel) {}
	switch {
	case text == " ":
		want = lcBad
	case who.role != lcSeller:
		want = lcForbidden
	case d.status == orders.DisputeOpen:
		want, mutate = lcOK, func(m *lcModel) { m.dispute.status, m.dispute.response = orders.DisputeResponded, text }
	case d.status == orders.DisputeResponded && d.response == text:
		want = lcOK
	}
	lc.http("dispute response", fmt.Sprintf("dispute response %q (dispute %s) by %s", text, d.status, who.name), want, mutate, "POST",
		"/api/v1/disputes/"+d.id+"/respond", map[string]any{"response": text}, who.h)
}

func (lc *lifecycle) resolve() {
	who := lc.actor(lcAdmin)
	now, m := lc.now(), &lc.m
	res := orders.Resolution([]string{"refund_buyer", "refund_buyer", "release_seller", "release_seller", "partial_refund",
		"partial_refund", "partial_refund", "split"}[lc.rng.IntN(8)])
	var a *int64
	if res == orders.ResolvePartialRefund || lc.rng.IntN(10) == 0 {
		a = lc.amount(m.left())
	}
	body := map[string]any{"resolution": string(res), "note": "decided on the photos"}
	if a != nil {
		body["amount"] = *a
	}
	valid := slices.Contains(orders.Resolutions, res)
	want, mutate := lcConflict, func(*lcModel) {}
	switch {
	case who.role != lcAdmin:
		want = lcForbidden
	case !valid, res == orders.ResolvePartialRefund && a == nil, res != orders.ResolvePartialRefund && a != nil,
		a != nil && *a < 1:
		want = lcBad
	case m.dispute.status == orders.DisputeResolved: // answered again; a payout it left waiting goes now
		want = lcOK
		if m.dispute.resolution != orders.ResolveRefundBuyer {
			mutate = func(m *lcModel) { m.payOut(now, false) }
		}
	case m.status != orders.StatusDisputed:
	case res == orders.ResolveRefundBuyer:
		want, mutate = lcOK, func(m *lcModel) {
			m.book(m.left())
			m.dispute.status, m.dispute.resolution = orders.DisputeResolved, res
		}
	case res == orders.ResolvePartialRefund && *a >= m.left():
		want = lcBad
	default:
		want, mutate = lcOK, func(m *lcModel) {
			if a != nil {
				m.book(*a)
			}
			m.resume()
			m.dispute.status, m.dispute.resolution = orders.DisputeResolved, res
			m.payOut(now, false)
		}
	}
	lc.http("resolve "+string(res), fmt.Sprintf("resolve %s of %s (left %d, dispute %s) by %s", res, lcAmountText(a), m.left(), m.dispute.status, who.name),
		want, mutate, "POST", "/api/v1/admin/disputes/"+m.dispute.id+"/resolve", body, who.h)
}

// settle ends a walk: the seller gets a payout account and the clock runs
// past every estimate and hold. No money may then be stuck: an order still
// holding the seller's money waits for the seller (paid, pickup-ready) or
// an admin (disputed), never for the clock.
func (lc *lifecycle) settle() {
	if !lc.m.verified {
		lc.verify()
		lc.check()
	}
	if m := &lc.m; m.status == orders.StatusShipped {
		lc.advanceBy(max(1, (m.shippedAt+(m.estDays+14)*lcDay-lc.now())/3600+1), false)
		lc.check()
	}
	if m := &lc.m; m.status == orders.StatusDelivered {
		lc.advanceBy(max(0, m.dueAt-lc.now())/3600+1, false)
		lc.check()
	}
	if st := lc.get().Status; st == orders.StatusShipped || st == orders.StatusDelivered {
		lc.fail("the order is still %s after every estimate and hold ran out", st)
	}
}

// snap is what a step that changes nothing must leave as it was.
func (lc *lifecycle) snap() string {
	ctx := lc.t.Context()
	o := lc.get()
	l, charges := lc.s.OrderLedger(lc.order)
	_, rs, err := lc.s.App.Orders.Refunds(ctx, market.System, lc.order)
	if err != nil {
		lc.fail("reading the refunds: %v", err)
	}
	evs, err := lc.s.App.Orders.Events(ctx, market.System, lc.order)
	if err != nil {
		lc.fail("reading the timeline: %v", err)
	}
	var refunds []string
	for _, r := range rs {
		refunds = append(refunds, fmt.Sprintf("%d:%s", r.Amount, r.Status))
	}
	dispute := "none"
	if d, err := lc.s.App.DB.Read().OpenDisputeOf(ctx, lc.order); err == nil {
		dispute = string(d.Status) + "@" + d.UpdatedAt.String()
	}
	return fmt.Sprintf("%s payout %s %d due %s refunded %d (seller %d) reversed %d updated %s; processor %+v in %d charges; "+
		"%d events; refunds %v; open dispute %s", o.Status, lcPayout(o.PayoutStatus), o.PayoutAmount, lcTime(o.PayoutDueAt), o.AmountRefunded,
		o.SellerRefunded, o.TransferReversed, o.UpdatedAt, l, charges, len(evs), refunds, dispute)
}

func lcPayout(p orders.PayoutStatus) string { return cmp.Or(string(p), "none") }

func lcTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// check holds the order, its refunds, its timeline and the processor's
// records to the money rules and to the model.
func (lc *lifecycle) check() {
	lc.t.Helper()
	ctx := lc.t.Context()
	o := lc.get()
	l, charges := lc.s.OrderLedger(lc.order)
	var bad []string
	errorf := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	f := o.Fees

	// The order's own figures, and the processor's.
	if charges != 1 || l.Charged != f.TotalCharged {
		errorf("the processor charged %d in %d payments; the order was charged %d", l.Charged, charges, f.TotalCharged)
	}
	if f.TotalCharged != f.ItemPrice+f.ShippingCost+f.ServiceFee || o.LabelCost != 0 {
		errorf("fees %+v (label %d) do not add up", f, o.LabelCost)
	}
	if l.Refunded != o.AmountRefunded {
		errorf("the processor refunded %d; the order says %d", l.Refunded, o.AmountRefunded)
	}
	if o.AmountRefunded < 0 || o.AmountRefunded > f.TotalCharged {
		errorf("refunded %d of a %d charge", o.AmountRefunded, f.TotalCharged)
	}
	var net int64 // paid out to the seller, net of reversals
	if o.PayoutStatus == orders.PayoutReleased {
		net = o.PayoutAmount - o.TransferReversed
	}
	if l.PaidOut != net || l.Reversed != o.TransferReversed {
		errorf("the processor paid out %d net (reversed %d); the order says %d net (payout %s %d, reversed %d)",
			l.PaidOut, l.Reversed, net, o.PayoutStatus, o.PayoutAmount, o.TransferReversed)
	}
	sellerPay := f.ItemPrice - f.Commission + f.ShippingCost
	if o.SellerRefunded < 0 || o.SellerRefunded > sellerPay {
		errorf("the seller's share of refunds is %d of a %d payout", o.SellerRefunded, sellerPay)
	}
	owed := sellerPay - o.SellerRefunded - net // held for the seller
	if owed < 0 {
		errorf("the seller got %d more than their %d payout less %d refunded", -owed, sellerPay, o.SellerRefunded)
	}
	fees := f.ServiceFee + f.Commission
	revenue := fees - (o.AmountRefunded - o.SellerRefunded)
	if revenue < 0 || revenue > fees {
		errorf("the platform keeps %d of its %d fees", revenue, fees)
	}
	if l.Charged != l.Refunded+l.PaidOut+revenue+owed {
		errorf("money is not conserved: charged %d != refunded %d + paid out %d + platform %d + held for the seller %d",
			l.Charged, l.Refunded, l.PaidOut, revenue, owed)
	}

	// Where the money stands for each status.
	switch o.Status {
	case orders.StatusCancelled, orders.StatusRefunded:
		if o.AmountRefunded != f.TotalCharged || owed != 0 || net != 0 {
			errorf("a %s order: refunded %d of %d, %d held, %d paid out", o.Status, o.AmountRefunded, f.TotalCharged, owed, net)
		}
	case orders.StatusCompleted:
		if o.PayoutStatus != orders.PayoutReleased || owed != 0 {
			errorf("a completed order: payout %s, %d still held", o.PayoutStatus, owed)
		}
	}
	payoutFor := map[orders.PayoutStatus][]orders.Status{
		orders.PayoutNone:     {orders.StatusPaid, orders.StatusPickupReady, orders.StatusShipped, orders.StatusDisputed},
		orders.PayoutPending:  {orders.StatusDelivered},
		orders.PayoutFrozen:   {orders.StatusDisputed},
		orders.PayoutVoid:     {orders.StatusCancelled, orders.StatusRefunded},
		orders.PayoutReleased: {orders.StatusCompleted, orders.StatusDisputed, orders.StatusRefunded},
	}
	if !slices.Contains(payoutFor[o.PayoutStatus], o.Status) {
		errorf("payout %q on a %s order", o.PayoutStatus, o.Status)
	}
	switch o.PayoutStatus {
	case orders.PayoutPending, orders.PayoutFrozen:
		if o.PayoutAmount != owed {
			errorf("a %s payout of %d; the seller is owed %d", o.PayoutStatus, o.PayoutAmount, owed)
		}
	case orders.PayoutNone, orders.PayoutVoid:
		if o.PayoutAmount != 0 {
			errorf("a %s payout of %d", o.PayoutStatus, o.PayoutAmount)
		}
	}

	// The refunds add up to the order's figures; the processor took them all.
	_, rs, err := lc.s.App.Orders.Refunds(ctx, market.System, lc.order)
	if err != nil {
		lc.fail("reading the refunds: %v", err)
	}
	var booked, share, reverse int64
	open := 0
	for _, r := range rs {
		switch r.Status {
		case orders.RefundRequested:
			open++
		case orders.RefundSucceeded:
			booked, share, reverse = booked+r.Amount, share+r.SellerShare, reverse+r.ReverseAmount
			if r.SellerShare+r.PlatformShare != r.Amount || r.ReversedAmount != r.ReverseAmount || r.ProcessorRefundID == "" {
				errorf("refund %s: %d = seller %d + platform %d, reversed %d of %d, processor id %q", r.ID, r.Amount,
					r.SellerShare, r.PlatformShare, r.ReversedAmount, r.ReverseAmount, r.ProcessorRefundID)
			}
		case orders.RefundPending:
			errorf("refund %s of %d is still pending with the processor up", r.ID, r.Amount)
		}
	}
	if booked != o.AmountRefunded || share != o.SellerRefunded || reverse != o.TransferReversed || open > 1 {
		errorf("refunds add up to %d (seller %d, reversed %d, %d open requests); the order says %d (seller %d, reversed %d)",
			booked, share, reverse, open, o.AmountRefunded, o.SellerRefunded, o.TransferReversed)
	}

	// The timeline tells the same story.
	evs, err := lc.s.App.Orders.Events(ctx, market.System, lc.order)
	if err != nil {
		lc.fail("reading the timeline: %v", err)
	}
	var released, holds int
	var issued float64
	for _, e := range evs {
		switch e.Type {
		case "payment.released":
			released++
		case "payout.hold_changed":
			holds++
		case "refund.issued":
			a, _ := e.Data["amount"].(float64)
			issued += a
		}
	}
	if released > 1 {
		errorf("%d payment.released events", released)
	}
	if int64(issued) != o.AmountRefunded {
		errorf("refund.issued events add up to %v; the order says %d refunded", issued, o.AmountRefunded)
	}

	// And the model's.
	m := &lc.m
	if o.Status != m.status || o.PayoutStatus != m.payout || o.PayoutAmount != m.payoutAmount || o.AmountRefunded != m.refunded ||
		o.SellerRefunded != m.sellerRefunded || o.TransferReversed != m.reversed || l.PaidOut != m.paid-m.reversed ||
		released != m.releases || holds != m.holds {
		errorf("the order is %s, payout %s %d, refunded %d (seller %d), reversed %d, paid out %d net, %d releases, %d holds; "+
			"the model expects %s, payout %s %d, refunded %d (seller %d), reversed %d, paid out %d net, %d releases, %d holds",
			o.Status, lcPayout(o.PayoutStatus), o.PayoutAmount, o.AmountRefunded, o.SellerRefunded, o.TransferReversed, l.PaidOut,
			released, holds, m.status, lcPayout(m.payout), m.payoutAmount, m.refunded, m.sellerRefunded, m.reversed, m.paid-m.reversed, m.releases, m.holds)
	}
	if m.status == orders.StatusDisputed && o.StatusBeforeDispute != m.before {
		errorf("disputed from %s; the model expects %s", o.StatusBeforeDispute, m.before)
	}
	if (m.payout == orders.PayoutPending || m.payout == orders.PayoutFrozen) &&
		(o.PayoutDueAt == nil || o.PayoutDueAt.Unix() != m.dueAt) {
		errorf("payout due %s; the model expects %s", lcTime(o.PayoutDueAt), time.Unix(m.dueAt, 0).UTC().Format(time.RFC3339))
	}
	d, err := lc.s.App.DB.Read().OpenDisputeOf(ctx, lc.order)
	switch {
	case err != nil && market.CodeOf(err) != market.CodeNotFound:
		lc.fail("reading the open dispute: %v", err)
	case err == nil && (d.ID != m.dispute.id || d.Status != m.dispute.status):
		errorf("open dispute %s %s; the model expects %q %s", d.ID, d.Status, m.dispute.id, m.dispute.status)
	case err != nil && m.unresolved():
		errorf("no open dispute; the model expects %s %s", m.dispute.id, m.dispute.status)
	}

	if len(bad) > 0 {
		lc.fail("%s\norder: %s", strings.Join(bad, "\n"), lc.snap())
	}
}

// fail stops the test with what it takes to replay and read the failure.
func (lc *lifecycle) fail(format string, args ...any) {
	lc.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d (MARKETPLACE_PROPERTY_SEED=%d), order #%d %s (%s):\n", lc.seed, lc.seed, lc.index, lc.order, lc.kind)
	fmt.Fprintf(&b, format, args...)
	b.WriteString("\nsteps:\n")
	for i, s := range lc.steps {
		fmt.Fprintf(&b, "  %2d. %s\n", i+1, s)
	}
	fmt.Fprintf(&b, "model: %+v", lc.m)
	lc.t.Fatal(b.String())
}
