package orders

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/internal/market"
)

// TestRespondRefundInputChecks: malformed answers are refused before any
// store access (a Service without a store is enough).
func TestRespondRefundInputChecks(t *testing.T) {
	seller := market.Actor{Type: market.ActorUser, UserID: "seller-1"}
	zero := int64(0)
	cases := []struct {
		name string
		in   RefundAnswer
		want []string
	}{
		{"an unknown action", RefundAnswer{Action: "maybe"}, []string{"action"}},
		{"a zero amount", RefundAnswer{Amount: &zero}, []string{"amount"}},
		{"a refund id that is no id", RefundAnswer{RefundID: "r-1"}, []string{"refund_id"}},
		{"texts too long", RefundAnswer{Reason: strings.Repeat("r", maxRefundText+1), Message: strings.Repeat("m", maxRefundText+1)},
			[]string{"message", "reason"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := (&Service{}).RespondRefund(t.Context(), seller, market.NewID(), c.in)
			e := market.ErrorOf(err)
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.Field)
			}
			slices.Sort(got)
			if e.Code != market.CodeValidation || !slices.Equal(got, c.want) {
				t.Fatalf("%v fields %v, want VALIDATION_ERROR on %v", err, got, c.want)
			}
		})
	}
}

// TestRespondRefund runs the seller's answer end to end on the in-memory
// store and processor: the money booked, the processor asked once per
// refund, the events recorded, and the answers refused.
func TestRespondRefund(t *testing.T) {
	seller := market.Actor{Type: market.ActorUser, UserID: "seller-1"}
	amount := func(n int64) *int64 { return &n }
	request := func(o Order, n int64) Refund {
		return Refund{ID: market.NewID(), OrderID: o.ID, Amount: n, Status: RefundRequested, Reason: "scratched",
			RequestedBy: o.BuyerID, InitiatedBy: InitiatedByBuyer, CreatedAt: testNow.Add(-time.Hour), UpdatedAt: testNow.Add(-time.Hour)}
	}
	type outcome struct {
		code          market.Code
		refundStatus  RefundStatus
		refundAmount  int64
		orderStatus   Status
		orderRefunded int64
		processor     int64 // cents the processor was asked to refund by this call
		events        []string
		message       string // the refund's message, when the answer gave one
	}
	cases := []struct {
		name    string
		actor   market.Actor
		status  Status
		setup   func(o Order) []Refund // refunds already on the order
		in      func(rs []Refund) RefundAnswer
		failing bool // the processor refuses
		want    outcome
	}{
		{name: "the seller's own full refund", status: StatusPaid,
			in: func([]Refund) RefundAnswer { return RefundAnswer{Reason: "out of stock", Message: "sorry"} },
			want: outcome{refundStatus: RefundSucceeded, refundAmount: 11178, orderStatus: StatusRefunded, orderRefunded: 11178,
				processor: 11178, events: []string{"listing.updated", "refund.created", "refund.issued"}, message: "sorry"}},
		{name: "the seller's own partial refund", status: StatusShipped,
			in:   func([]Refund) RefundAnswer { return RefundAnswer{Amount: amount(3000)} },
			want: outcome{refundStatus: RefundSucceeded, refundAmount: 3000, orderStatus: StatusShipped, orderRefunded: 3000, processor: 3000, events: []string{"refund.created", "refund.issued"}}},
		{name: "an admin refunds", actor: market.Actor{Type: market.ActorUser, UserID: "admin-1", Admin: true}, status: StatusDelivered,
			in:   func([]Refund) RefundAnswer { return RefundAnswer{Amount: amount(100)} },
			want: outcome{refundStatus: RefundSucceeded, refundAmount: 100, orderStatus: StatusDelivered, orderRefunded: 100, processor: 100, events: []string{"refund.created", "refund.issued"}}},
		{name: "approve the open request", status: StatusDelivered,
			setup: func(o Order) []Refund { return []Refund{request(o, 5000)} },
			in:    func([]Refund) RefundAnswer { return RefundAnswer{} },
			want: outcome{refundStatus: RefundSucceeded, refundAmount: 5000, orderStatus: StatusDelivered, orderRefunded: 5000,
				processor: 5000, events: []string{"refund.approved", "refund.issued"}}},
		{name: "approve less than asked, by id", status: StatusDelivered,
			setup: func(o Order) []Refund { return []Refund{request(o, 5000)} },
			in: func(rs []Refund) RefundAnswer {
				return RefundAnswer{RefundID: rs[0].ID, Action: ActionApprove, Amount: amount(2000)}
			},
			want: outcome{refundStatus: RefundSucceeded, refundAmount: 2000, orderStatus: StatusDelivered, orderRefunded: 2000,
				processor: 2000, events: []string{"refund.approved", "refund.issued"}}},
		{name: "approve a request for everything", status: StatusPaid,
			setup: func(o Order) []Refund { return []Refund{request(o, 11178)} },
			in:    func([]Refund) RefundAnswer { return RefundAnswer{Action: ActionApprove} },
			want: outcome{refundStatus: RefundSucceeded, refundAmount: 11178, orderStatus: StatusRefunded, orderRefunded: 11178,
				processor: 11178, events: []string{"listing.updated", "refund.approved", "refund.issued"}}},
		{name: "approve more than asked", status: StatusDelivered,
			setup: func(o Order) []Refund { return []Refund{request(o, 5000)} },
			in:    func([]Refund) RefundAnswer { return RefundAnswer{Amount: amount(5001)} },
			want:  outcome{code: market.CodeValidation}},
		{name: "decline the open request", status: StatusDelivered,
			setup: func(o Order) []Refund { return []Refund{request(o, 5000)} },
			in:    func([]Refund) RefundAnswer { return RefundAnswer{Action: ActionDecline, Message: "as described"} },
			want: outcome{refundStatus: RefundDeclined, refundAmount: 5000, orderStatus: StatusDelivered,
				events: []string{"refund.declined"}, message: "as described"}},
		{name: "an approval posted again pays once", status: StatusDelivered,
			setup: func(o Order) []Refund {
				r := request(o, 5000)
				r.Status, r.SellerShare, r.ProcessorRefundID = RefundSucceeded, 5000, "re_1"
				return []Refund{r}
			},
			in:   func([]Refund) RefundAnswer { return RefundAnswer{Action: ActionApprove} },
			want: outcome{refundStatus: RefundSucceeded, refundAmount: 5000, orderStatus: StatusDelivered}},
		{name: "a decline posted again", status: StatusDelivered,
			setup: func(o Order) []Refund {
				r := request(o, 5000)
				r.Status = RefundDeclined
				return []Refund{r}
			},
			in:   func(rs []Refund) RefundAnswer { return RefundAnswer{RefundID: rs[0].ID, Action: ActionDecline} },
			want: outcome{refundStatus: RefundDeclined, refundAmount: 5000, orderStatus: StatusDelivered}},
		{name: "declining an approved request", status: StatusDelivered,
			setup: func(o Order) []Refund {
				r := request(o, 5000)
				r.Status = RefundSucceeded
				return []Refund{r}
			},
			in:   func([]Refund) RefundAnswer { return RefundAnswer{Action: ActionDecline} },
			want: outcome{code: market.CodeInvalidState}},
		{name: "declining with nothing asked", status: StatusDelivered,
			in:   func([]Refund) RefundAnswer { return RefundAnswer{Action: ActionDecline} },
			want: outcome{code: market.CodeInvalidState}},
		{name: "a refund id of another order", status: StatusDelivered,
			setup: func(o Order) []Refund {
				r := request(o, 5000)
				r.OrderID = market.NewID()
				return []Refund{r}
			},
			in:   func(rs []Refund) RefundAnswer { return RefundAnswer{RefundID: rs[0].ID} },
			want: outcome{code: market.CodeNotFound}},
		{name: "the buyer cannot answer", actor: market.Actor{Type: market.ActorUser, UserID: "buyer-1"}, status: StatusPaid,
			in:   func([]Refund) RefundAnswer { return RefundAnswer{} },
			want: outcome{code: market.CodeForbidden}},
		{name: "a stranger cannot answer", actor: market.Actor{Type: market.ActorUser, UserID: "someone"}, status: StatusPaid,
			in:   func([]Refund) RefundAnswer { return RefundAnswer{} },
			want: outcome{code: market.CodeForbidden}},
		{name: "a cancelled order is not refunded", status: StatusCancelled,
			in:   func([]Refund) RefundAnswer { return RefundAnswer{} },
			want: outcome{code: market.CodeInvalidState}},
		{name: "approving on a cancelled order", status: StatusCancelled,
			setup: func(o Order) []Refund { return []Refund{request(o, 5000)} },
			in:    func([]Refund) RefundAnswer { return RefundAnswer{} },
			want:  outcome{code: market.CodeInvalidState}},
		{name: "the processor refuses: booked, left pending", status: StatusDelivered, failing: true,
			in: func([]Refund) RefundAnswer { return RefundAnswer{Amount: amount(700)} },
			want: outcome{refundStatus: RefundPending, refundAmount: 700, orderStatus: StatusDelivered, orderRefunded: 700,
				events: []string{"refund.created"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := soldOrder(c.status)
			tx := newMemTx(o)
			if c.setup != nil {
				tx.refunds = c.setup(o)
			}
			before := tx.clone()
			gw := newMemGateway()
			if c.failing {
				gw.failing = errors.New("processor down")
			}
			actor := seller
			if c.actor.UserID != "" {
				actor = c.actor
			}
			r, got, err := newMemService(tx, gw).RespondRefund(t.Context(), actor, o.ID, c.in(slices.Clone(tx.refunds)))
			w := c.want
			if market.CodeOf(err) != w.code {
				t.Fatalf("err %v, want %q", err, w.code)
			}
			if w.code != "" {
				if len(tx.refunds) != len(before.refunds) || len(tx.events) != 0 || len(gw.refunds) != 0 ||
					tx.orders[o.ID] != before.orders[o.ID] {
					t.Fatalf("a refused answer changed something: refunds %+v events %v", tx.refunds, tx.eventTypes())
				}
				return
			}
			if r.Status != w.refundStatus || r.Amount != w.refundAmount {
				t.Fatalf("refund %s %d, want %s %d", r.Status, r.Amount, w.refundStatus, w.refundAmount)
			}
			if got.Status != w.orderStatus || got.AmountRefunded != w.orderRefunded {
				t.Fatalf("order %s refunded %d, want %s %d", got.Status, got.AmountRefunded, w.orderStatus, w.orderRefunded)
			}
			if stored := tx.orders[o.ID]; stored.Status != got.Status || stored.AmountRefunded != got.AmountRefunded {
				t.Fatalf("answered order %s/%d, stored %s/%d", got.Status, got.AmountRefunded, stored.Status, stored.AmountRefunded)
			}
			var asked int64
			for _, n := range gw.refunds {
				asked += n
			}
			if asked != w.processor {
				t.Fatalf("processor asked for %d, want %d", asked, w.processor)
			}
			if w.processor > 0 && gw.refunds["refund-"+r.ID] != w.processor {
				t.Fatalf("processor calls %v, want one keyed refund-%s", gw.refunds, r.ID)
			}
			if !slices.Equal(tx.eventTypes(), w.events) {
				t.Fatalf("events %v, want %v", tx.eventTypes(), w.events)
			}
			if stored, _ := tx.RefundByID(t.Context(), r.ID); w.message != "" && (r.Message != w.message || stored.Message != w.message) {
				t.Fatalf("message %q (stored %q), want %q", r.Message, stored.Message, w.message)
			}
			if len(w.events) > 0 && (r.DecidedBy != actor.ID() || r.DecidedAt == nil) {
				t.Fatalf("decided by %q at %v, want %q", r.DecidedBy, r.DecidedAt, actor.ID())
			}
		})
	}
}

// TestRespondRefundRetry: a retry under the idempotency key of an answer
// that was booked finds that refund and books nothing new.
func TestRespondRefundRetry(t *testing.T) {
	seller := market.Actor{Type: market.ActorUser, UserID: "seller-1"}
	o := soldOrder(StatusDelivered)
	tx := newMemTx(o)
	gw := newMemGateway()
	s := newMemService(tx, gw)
	ctx := market.WithIdempotencyKey(t.Context(), "answer-1")
	n := int64(1500)
	first, _, err := s.RespondRefund(ctx, seller, o.ID, RefundAnswer{Amount: &n})
	if err != nil {
		t.Fatal(err)
	}
	n = 2500 // a retry need not resend the same body to find its refund
	again, got, err := s.RespondRefund(ctx, seller, o.ID, RefundAnswer{Amount: &n})
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID || len(tx.refunds) != 1 || got.AmountRefunded != 1500 || len(gw.refunds) != 1 {
		t.Fatalf("retry made %+v (refunds %d, refunded %d, processor %v)", again, len(tx.refunds), got.AmountRefunded, gw.refunds)
	}
}

// A request made when more was refundable is refused by the state, not
// blamed on an amount the seller never sent; approving it with an amount
// that fits goes through.
func TestApproveStaleRequest(t *testing.T) {
	seller := market.Actor{Type: market.ActorUser, UserID: "seller-1"}
	o := soldOrder(StatusDelivered)
	o.AmountRefunded = o.Fees.TotalCharged - 3000 // a dispute took the rest since
	tx := newMemTx(o)
	tx.refunds = []Refund{{ID: market.NewID(), OrderID: o.ID, Amount: 5000, Status: RefundRequested, Reason: "scratched",
		RequestedBy: o.BuyerID, InitiatedBy: InitiatedByBuyer, CreatedAt: testNow.Add(-time.Hour), UpdatedAt: testNow.Add(-time.Hour)}}
	gw := newMemGateway()
	_, _, err := newMemService(tx, gw).RespondRefund(t.Context(), seller, o.ID, RefundAnswer{Action: ActionApprove})
	e := market.ErrorOf(err)
	if e.Code != market.CodeInvalidState || e.Details["refundable_amount"] != int64(3000) || len(e.Fields) != 0 || len(gw.refunds) != 0 {
		t.Fatalf("stale approval: %v %v, processor %v", err, e.Details, gw.refunds)
	}
	fits := int64(3000)
	r, got, err := newMemService(tx, gw).RespondRefund(t.Context(), seller, o.ID, RefundAnswer{Action: ActionApprove, Amount: &fits})
	if err != nil || r.Amount != 3000 || got.AmountRefunded != o.Fees.TotalCharged {
		t.Fatalf("approval with an amount that fits: %v %+v", err, r)
	}
}
