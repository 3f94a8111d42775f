package capsuite_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"marketplace/internal/store"
	"marketplace/internal/testkit"
)

// oracle judges one owner's trial. After every phase (a set of requests that
// all finished before the next began) it reads what is committed and checks
// each window that gained spending in the phase against the caps in force
// during it. Spending only grows inside a phase (refunds and cap changes are
// phases of their own), so its end is its high-water mark.
type oracle struct {
	w         *world
	o         *owner
	restrict  bool            // the owner blocks template 1's category
	seen      map[string]bool // orders already judged
	seenOffer map[string]bool
	orphaned  int64 // charges without an order reported so far
	st        stats // this trial's counts, added to the world's at its end
	// failures of this trial (overshoots and wrong refusals); the trial
	// reports them with its seed.
	fails []string
}

func (w *world) oracle(o *owner, restrict bool) *oracle {
	return &oracle{w: w, o: o, restrict: restrict, seen: map[string]bool{}, seenOffer: map[string]bool{},
		st: stats{refused: map[string]int{}, kinds: map[string]int{}}}
}

func (or *oracle) failf(format string, args ...any) {
	or.fails = append(or.fails, fmt.Sprintf(format, args...))
}

// committed is an agent order as the database holds it.
type committed struct {
	id, key, status, category string
	total, refunded           int64
	at                        time.Time // when its spending was taken: the approval's decision, else the order's creation
}

// counted is what the order holds of the caps (CONTRACT.md section 5:
// cancelled and refunded orders give their amount back; a queued approval
// holds nothing until approved).
func (c committed) counted() int64 {
	switch c.status {
	case "pending_approval", "cancelled", "expired":
		return 0
	}
	return c.total - c.refunded
}

type reservation struct {
	id, key string
	amount  int64
}

func (or *oracle) read() ([]committed, []reservation) {
	w := or.w
	ctx := context.Background()
	db := w.s.App.DB.WritePool()
	rows, err := db.QueryContext(ctx, rebind(w.s, `SELECT o.id, COALESCE(o.buyer_key_id, ''), o.status, o.total_charged,
		o.amount_refunded, o.created_at, a.decided_at, l.category_id
		FROM orders o JOIN listings l ON l.id = o.listing_id LEFT JOIN purchase_approvals a ON a.order_id = o.id
		WHERE o.buyer_id = ? AND o.channel = 'agent'`), or.o.u.ID)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []committed
	for rows.Next() {
		var c committed
		var decided sql.NullTime
		if err := rows.Scan(&c.id, &c.key, &c.status, &c.total, &c.refunded, &c.at, &decided, &c.category); err != nil {
			w.t.Fatal(err)
		}
		if decided.Valid {
			c.at = decided.Time
		}
		c.at = c.at.UTC()
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		w.t.Fatal(err)
	}
	rows.Close()
	// Open offers hold their amount plus the buyer's fee (CONTRACT.md
	// section 8) until bought; an accepted offer whose purchase is
	// charging is counted by its order instead.
	rows, err = db.QueryContext(ctx, rebind(w.s, `SELECT id, buyer_key_id, reserved FROM offers f
		WHERE buyer_id = ? AND reserved > 0 AND expires_at > ?
		AND NOT EXISTS (SELECT 1 FROM orders po WHERE po.offer_id = f.id AND po.status = 'pending_payment')`),
		or.o.u.ID, timeArg(w.s, w.s.Clock.Now()))
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	var res []reservation
	for rows.Next() {
		var r reservation
		if err := rows.Scan(&r.id, &r.key, &r.amount); err != nil {
			w.t.Fatal(err)
		}
		res = append(res, r)
	}
	if err := rows.Err(); err != nil {
		w.t.Fatal(err)
	}
	return out, res
}

// timeArg is t as the store binds it: SQLite keeps times as fixed-width
// text, compared as text.
func timeArg(s *testkit.Server, t time.Time) any {
	t = t.UTC().Truncate(time.Microsecond)
	if s.App.DB.Dialect() == store.SQLite {
		return t.Format("2006-01-02 15:04:05.000000+00:00")
	}
	return t
}

// windowStart is the start of the UTC calendar window of kind holding t
// (day, ISO week from Monday, month), computed here on its own rather than
// by the code under test.
func windowStart(kind string, t time.Time) (start, end time.Time) {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	switch kind {
	case "daily":
		return day, day.AddDate(0, 0, 1)
	case "weekly":
		back := (int(day.Weekday()) + 6) % 7
		start = day.AddDate(0, 0, -back)
		return start, start.AddDate(0, 0, 7)
	}
	start = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(0, 1, 0)
}

var windowKinds = []string{"daily", "weekly", "monthly"}

// phase checks what the phase added. It returns the new orders.
func (or *oracle) phase(label string) []committed {
	w := or.w
	orders, res := or.read()
	now := w.s.Clock.Now()
	var fresh []committed
	for _, c := range orders {
		if !or.seen[c.id] && c.counted() > 0 {
			fresh = append(fresh, c)
		}
	}
	newRes := false
	for _, r := range res {
		if !or.seenOffer[r.id] {
			newRes = true
			or.seenOffer[r.id] = true
		}
	}
	for _, c := range fresh {
		or.seen[c.id] = true
	}
	or.orphans(label)
	if len(fresh) == 0 && !newRes {
		return nil
	}
	or.st.checks++
	type win struct {
		kind  string
		start time.Time
	}
	var wins []win
	add := func(kind string, t time.Time) {
		s, _ := windowStart(kind, t)
		if !slices.Contains(wins, win{kind, s}) {
			wins = append(wins, win{kind, s})
		}
	}
	for _, kind := range windowKinds {
		for _, c := range fresh {
			add(kind, c.at)
		}
		if newRes {
			add(kind, now)
		}
	}
	// Per transaction, and category restrictions.
	for _, c := range fresh {
		if c.total > or.o.caps.Per {
			or.overshoot("%s: order %s charged %d over the owner's per-transaction cap %d", label, c.id, c.total, or.o.caps.Per)
		}
		for _, k := range or.o.keys {
			if k.ID == c.key && k.caps.Per > 0 && c.total > k.caps.Per {
				or.overshoot("%s: order %s charged %d over its key's per-transaction cap %d", label, c.id, c.total, k.caps.Per)
			}
		}
		if or.restrict && c.category == w.tmpl[1].CategoryID {
			or.overshoot("%s: order %s bought in the restricted category %s", label, c.id, c.category)
		}
	}
	sum := func(kind string, start time.Time, keyID string) int64 {
		_, end := windowStart(kind, start)
		var n int64
		for _, c := range orders {
			if (keyID == "" || c.key == keyID) && !c.at.Before(start) && c.at.Before(end) {
				n += c.counted()
			}
		}
		if !now.Before(start) && now.Before(end) {
			for _, r := range res {
				if keyID == "" || r.key == keyID {
					n += r.amount
				}
			}
		}
		return n
	}
	for _, wn := range wins {
		if got, limit := sum(wn.kind, wn.start, ""), or.o.caps.limit(wn.kind); got > limit {
			or.overshoot("%s: the owner's %s window from %s holds %d, over the cap %d", label, wn.kind, wn.start.Format(time.RFC3339), got, limit)
		}
		for i, k := range or.o.keys {
			limit := k.caps.limit(wn.kind)
			if limit == 0 {
				continue
			}
			if got := sum(wn.kind, wn.start, k.ID); got > limit {
				or.overshoot("%s: key %d's %s window from %s holds %d, over its cap %d", label, i, wn.kind, wn.start.Format(time.RFC3339), got, limit)
			}
		}
	}
	return fresh
}

// orphans fails on money taken from the owner with no order to show for
// it: such a charge holds nothing of the caps, so the owner's agents could
// spend past them.
func (or *oracle) orphans(label string) {
	w := or.w
	var n, sum int64
	err := w.s.App.DB.WritePool().QueryRowContext(context.Background(), rebind(w.s, `SELECT COUNT(*), COALESCE(SUM(amount), 0)
		FROM sandbox_payments p WHERE status = 'succeeded' AND metadata LIKE ?
		AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.id = p.idempotency_key)`), "%"+or.o.u.ID+"%").Scan(&n, &sum)
	if err != nil {
		w.t.Fatal(err)
	}
	if n > or.orphaned {
		or.orphaned = n
		or.overshoot("%s: %d charges (%d cents in all) were taken from the owner without an order, so the caps do not count them", label, n, sum)
	}
}

func (or *oracle) overshoot(format string, args ...any) {
	or.st.overshoots++
	or.failf("OVERSHOOT "+format, args...)
}

// capCodes are the refusals a purchase that stopped at the caps may give.
var capCodes = []string{"SPENDING_LIMIT_EXCEEDED", "APPROVAL_REQUIRED", "CATEGORY_RESTRICTED"}

// judge counts one purchase answer and checks a refusal is one of codes
// (by default a cap's), with details that name a cap in force.
func (or *oracle) judge(label string, b buy, a answer, codes ...string) {
	if len(codes) == 0 {
		codes = capCodes
	}
	or.st.attempted++
	switch {
	case a.Err != nil:
		or.failf("%s: %v", label, a.Err)
	case a.Status == 201:
		or.st.allowed++
		if st := a.data()["status"]; st != "paid" {
			or.failf("%s: purchase answered 201 with status %v", label, st)
		}
	case a.Status >= 500:
		or.failf("%s: server error %s", label, a.String())
	case !slices.Contains(codes, a.code()):
		or.failf("%s: refused with %s, want one of %v: %s", label, a.code(), codes, a.String())
	default:
		or.st.refused[a.code()]++
		if a.code() == "APPROVAL_REQUIRED" {
			or.st.queued++
		}
		if a.code() == "CATEGORY_RESTRICTED" && (!or.restrict || b.cat != 1) {
			or.failf("%s: CATEGORY_RESTRICTED for a listing in an allowed category", label)
		}
		if a.code() == "SPENDING_LIMIT_EXCEEDED" {
			or.judgeLimit(label, b, a)
		}
	}
}

// judgeLimit checks a SPENDING_LIMIT_EXCEEDED names the purchase's amount
// and a cap of the owner's or the key's that is in force.
func (or *oracle) judgeLimit(label string, b buy, a answer) {
	d := a.details()
	kind, _ := d["limit_type"].(string)
	limit, _ := d["limit"].(float64)
	req, _ := d["requested_amount"].(float64)
	if int64(req) != total(b.price) {
		or.failf("%s: requested_amount %v, want %d", label, d["requested_amount"], total(b.price))
	}
	if !slices.Contains([]string{"per_transaction", "daily", "weekly", "monthly"}, kind) {
		or.failf("%s: limit_type %q", label, kind)
		return
	}
	if int64(limit) != or.o.caps.limit(kind) && (b.key == nil || int64(limit) != b.key.caps.limit(kind)) {
		or.failf("%s: limit %v (%s) is neither the owner's %d nor the key's cap", label, d["limit"], kind, or.o.caps.limit(kind))
	}
	if kind == "per_transaction" && total(b.price) <= min(or.o.caps.Per, keyOr(b.key, "per_transaction", or.o.caps.Per)) {
		or.failf("%s: refused on the per-transaction cap, yet %d fits it", label, total(b.price))
	}
}

func keyOr(k *key, kind string, dflt int64) int64 {
	if k == nil || k.caps.limit(kind) == 0 {
		return dflt
	}
	return k.caps.limit(kind)
}

// done adds the trial's counts to the world's and returns its failures,
// if any, as one message.
func (or *oracle) done(trial int, seed int64, kind string) string {
	w := or.w
	w.mu.Lock()
	defer w.mu.Unlock()
	st := &w.stats
	st.trials++
	st.kinds[kind]++
	st.attempted += or.st.attempted
	st.allowed += or.st.allowed
	st.queued += or.st.queued
	st.overshoots += or.st.overshoots
	st.checks += or.st.checks
	for c, n := range or.st.refused {
		st.refused[c] += n
	}
	if len(or.fails) == 0 {
		return ""
	}
	return fmt.Sprintf("trial %d (%s) failed; replay it alone with -caps.seed=%d -caps.trial=%d:\n  %s",
		trial, kind, seed, trial, strings.Join(or.fails, "\n  "))
}
