package orders

import (
	"slices"
	"testing"

	"marketplace/internal/market"
)

// TestSplitRefund is who pays a refund (the rule in refunds.go's header):
// the seller's side first, up to what is left of their payout, and the
// platform's fees the rest. The contract's example order has a seller
// payout of 10500 and 678 of fees on a charge of 11178.
func TestSplitRefund(t *testing.T) {
	cases := []struct {
		name             string
		sellerRefunded   int64
		label            int64
		amount           int64
		seller, platform int64
	}{
		{"everything", 0, 0, 11178, 10500, 678},
		{"one cent", 0, 0, 1, 1, 0},
		{"exactly the seller's payout", 0, 0, 10500, 10500, 0},
		{"a cent more than the seller's payout", 0, 0, 10501, 10500, 1},
		{"the rest after a partial refund", 10000, 0, 1178, 500, 678},
		{"the seller's side already used up", 10500, 0, 678, 0, 678},
		{"a platform label leaves the shipping to the platform", 0, 800, 11178, 9700, 1478},
		{"refunds beyond a payout that shrank later", 10000, 800, 500, 0, 500},
	}
	for _, c := range cases {
		o := soldOrder(StatusPaid)
		o.SellerRefunded, o.LabelCost = c.sellerRefunded, c.label
		seller, platform := splitRefund(&o, c.amount)
		if seller != c.seller || platform != c.platform {
			t.Errorf("%s: splitRefund(%d) = %d + %d, want %d + %d", c.name, c.amount, seller, platform, c.seller, c.platform)
		}
		if seller+platform != c.amount {
			t.Errorf("%s: shares %d + %d do not add up to %d", c.name, seller, platform, c.amount)
		}
	}
}

// TestBookRefund books refunds on orders in every payout state and checks
// the money on the order and the refund, and what the transaction did:
// spending given back (partial) or released (full), the listing relisted
// only when the item never left the seller, open requests answered by a
// full refund.
func TestBookRefund(t *testing.T) {
	type want struct {
		status                       Status
		payout                       PayoutStatus
		payoutAmount                 int64
		refunded, sellerRefunded     int64
		sellerShare, platformShare   int64
		reverse                      int64
		givenBack                    int64
		released, relisted, declined bool
	}
	cases := []struct {
		name   string
		order  func() Order
		amount int64
		want   want
	}{
		{"partial, before delivery", func() Order { return soldOrder(StatusPaid) }, 3000,
			want{status: StatusPaid, refunded: 3000, sellerRefunded: 3000, sellerShare: 3000, givenBack: 3000}},
		{"partial, payout waiting out the hold", func() Order {
			o := soldOrder(StatusDelivered)
			o.PayoutStatus, o.PayoutAmount = PayoutPending, 10500
			return o
		}, 3000, want{status: StatusDelivered, payout: PayoutPending, payoutAmount: 7500, refunded: 3000, sellerRefunded: 3000,
			sellerShare: 3000, givenBack: 3000}},
		{"partial beyond the seller's side, payout frozen", func() Order {
			o := soldOrder(StatusDisputed)
			o.PayoutStatus, o.PayoutAmount = PayoutFrozen, 10500
			return o
		}, 11000, want{status: StatusDisputed, payout: PayoutFrozen, payoutAmount: 0, refunded: 11000, sellerRefunded: 10500,
			sellerShare: 10500, platformShare: 500, givenBack: 11000}},
		{"partial after the payout: reversed from the transfer", func() Order {
			o := soldOrder(StatusCompleted)
			o.PayoutStatus, o.PayoutAmount, o.TransferID = PayoutReleased, 10500, "tr_1"
			return o
		}, 3000, want{status: StatusCompleted, payout: PayoutReleased, payoutAmount: 10500, refunded: 3000, sellerRefunded: 3000,
			sellerShare: 3000, reverse: 3000, givenBack: 3000}},
		{"full, paid: the item is for sale again", func() Order { return soldOrder(StatusPaid) }, 11178,
			want{status: StatusRefunded, payout: PayoutVoid, refunded: 11178, sellerRefunded: 10500, sellerShare: 10500,
				platformShare: 678, released: true, relisted: true, declined: true}},
		{"full, ready for pickup: for sale again", func() Order { return soldOrder(StatusPickupReady) }, 11178,
			want{status: StatusRefunded, payout: PayoutVoid, refunded: 11178, sellerRefunded: 10500, sellerShare: 10500,
				platformShare: 678, released: true, relisted: true, declined: true}},
		{"full, shipped: the item is gone", func() Order { return soldOrder(StatusShipped) }, 11178,
			want{status: StatusRefunded, payout: PayoutVoid, refunded: 11178, sellerRefunded: 10500, sellerShare: 10500,
				platformShare: 678, released: true, declined: true}},
		{"full, payout waiting: void", func() Order {
			o := soldOrder(StatusDelivered)
			o.PayoutStatus, o.PayoutAmount = PayoutPending, 10500
			return o
		}, 11178, want{status: StatusRefunded, payout: PayoutVoid, refunded: 11178, sellerRefunded: 10500, sellerShare: 10500,
			platformShare: 678, released: true, declined: true}},
		{"full after the payout: released stays, the seller's share reversed", func() Order {
			o := soldOrder(StatusCompleted)
			o.PayoutStatus, o.PayoutAmount, o.TransferID = PayoutReleased, 10500, "tr_1"
			return o
		}, 11178, want{status: StatusRefunded, payout: PayoutReleased, payoutAmount: 10500, refunded: 11178, sellerRefunded: 10500,
			sellerShare: 10500, platformShare: 678, reverse: 10500, released: true, declined: true}},
		{"the rest after a partial refund", func() Order {
			o := soldOrder(StatusPaid)
			o.AmountRefunded, o.SellerRefunded = 3000, 3000
			return o
		}, 8178, want{status: StatusRefunded, payout: PayoutVoid, refunded: 11178, sellerRefunded: 10500, sellerShare: 7500,
			platformShare: 678, released: true, relisted: true, declined: true}},
		{"released without a transfer: nothing to take back", func() Order {
			o := soldOrder(StatusCompleted)
			o.PayoutStatus = PayoutReleased // no TransferID: the processor was never asked to pay
			return o
		}, 3000, want{status: StatusCompleted, payout: PayoutReleased, refunded: 3000, sellerRefunded: 3000, sellerShare: 3000,
			givenBack: 3000}},
		{"the platform's fees after a payout of nothing", func() Order {
			o := soldOrder(StatusCompleted)
			o.AmountRefunded, o.SellerRefunded, o.PayoutStatus = 10500, 10500, PayoutReleased
			return o
		}, 678, want{status: StatusRefunded, payout: PayoutReleased, refunded: 11178, sellerRefunded: 10500,
			platformShare: 678, released: true, declined: true}},
	}
	seller := market.Actor{Type: market.ActorUser, UserID: "seller-1"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.order()
			tx := newMemTx(o)
			// An open request of the buyer, an old declined one, and the
			// request this refund answers (still "requested" in the store).
			answered := Refund{ID: market.NewID(), OrderID: o.ID, Amount: c.amount, Status: RefundRequested}
			open := Refund{ID: market.NewID(), OrderID: o.ID, Amount: 100, Status: RefundRequested}
			old := Refund{ID: market.NewID(), OrderID: o.ID, Amount: 200, Status: RefundDeclined}
			tx.refunds = []Refund{old, open, answered}
			r := answered
			if err := (&Service{}).bookRefund(t.Context(), tx, &o, &r, seller, testNow); err != nil {
				t.Fatal(err)
			}
			w := c.want
			if o.Status != w.status || o.PayoutStatus != w.payout || o.PayoutAmount != w.payoutAmount ||
				o.AmountRefunded != w.refunded || o.SellerRefunded != w.sellerRefunded {
				t.Errorf("order: status %s payout %q %d refunded %d seller refunded %d; want %s %q %d %d %d",
					o.Status, o.PayoutStatus, o.PayoutAmount, o.AmountRefunded, o.SellerRefunded,
					w.status, w.payout, w.payoutAmount, w.refunded, w.sellerRefunded)
			}
			if r.Status != RefundPending || r.SellerShare != w.sellerShare || r.PlatformShare != w.platformShare ||
				r.ReverseAmount != w.reverse || !r.UpdatedAt.Equal(testNow) {
				t.Errorf("refund: %s seller %d platform %d reverse %d; want pending %d %d %d",
					r.Status, r.SellerShare, r.PlatformShare, r.ReverseAmount, w.sellerShare, w.platformShare, w.reverse)
			}
			if tx.givenBack[o.ID] != w.givenBack {
				t.Errorf("spending given back %d, want %d", tx.givenBack[o.ID], w.givenBack)
			}
			if slices.Contains(tx.released, o.ID) != w.released {
				t.Errorf("spending released: %v, want %v", tx.released, w.released)
			}
			if slices.Contains(tx.relisted, o.ListingID) != w.relisted {
				t.Errorf("relisted: %v, want %v", tx.relisted, w.relisted)
			}
			got, _ := tx.RefundByID(t.Context(), open.ID)
			if (got.Status == RefundDeclined) != w.declined {
				t.Errorf("the open request is %s; declined wanted: %v", got.Status, w.declined)
			}
			wantEvents := []string{"refund.declined"}
			if w.relisted { // the listing is back on sale: its seller and watchers hear of it
				wantEvents = []string{"listing.updated", "refund.declined"}
			}
			if w.declined && (got.DecidedBy != "seller-1" || got.DecidedAt == nil ||
				!slices.Equal(tx.eventTypes(), wantEvents)) {
				t.Errorf("declined request %+v, events %v", got, tx.eventTypes())
			}
			if self, _ := tx.RefundByID(t.Context(), answered.ID); self.Status != RefundRequested {
				t.Errorf("the answered request was declined too: %s", self.Status)
			}
			if prev, _ := tx.RefundByID(t.Context(), old.ID); prev.Status != RefundDeclined || prev.DecidedAt != nil {
				t.Errorf("the old request changed: %+v", prev)
			}
		})
	}
}

// TestRefundAmount validates an amount against what is left of the charge
// (0 asks for all of it).
func TestRefundAmount(t *testing.T) {
	cases := []struct {
		name     string
		refunded int64 // AmountRefunded before
		amount   int64
		want     int64
		code     market.Code
	}{
		{"all of it", 0, 0, 11178, ""},
		{"one cent", 0, 1, 1, ""},
		{"exactly what is left", 0, 11178, 11178, ""},
		{"a cent more than the charge", 0, 11179, 0, market.CodeValidation},
		{"negative", 0, -1, 0, market.CodeValidation},
		{"the rest after a partial refund", 11000, 0, 178, ""},
		{"more than the rest", 11000, 179, 0, market.CodeValidation},
		{"nothing left", 11178, 0, 0, market.CodeInvalidState},
		{"nothing left, an amount named", 11178, 1, 0, market.CodeInvalidState},
	}
	for _, c := range cases {
		o := soldOrder(StatusDelivered)
		o.AmountRefunded = c.refunded
		got, err := refundAmount(&o, c.amount)
		if market.CodeOf(err) != c.code || got != c.want {
			t.Errorf("%s: refundAmount(%d) = %d, %v; want %d, %q", c.name, c.amount, got, err, c.want, c.code)
		}
		if c.code == market.CodeValidation && market.ErrorOf(err).Fields[0].Field != "amount" {
			t.Errorf("%s: fields %v, want amount", c.name, market.ErrorOf(err).Fields)
		}
	}
}

// TestRefundInitiator records who started a refund: a disputed order's is
// the dispute's; otherwise the buyer or seller acting as themselves, else an
// admin (or the service).
func TestRefundInitiator(t *testing.T) {
	user := func(id string) market.Actor { return market.Actor{Type: market.ActorUser, UserID: id} }
	admin := func(id string) market.Actor { return market.Actor{Type: market.ActorUser, UserID: id, Admin: true} }
	cases := []struct {
		name   string
		status Status
		actor  market.Actor
		want   string
	}{
		{"the buyer", StatusDelivered, user("buyer-1"), InitiatedByBuyer},
		{"the seller", StatusPaid, user("seller-1"), InitiatedBySeller},
		{"the seller's agent", StatusPaid, market.Actor{Type: market.ActorAgent, UserID: "seller-1", KeyID: "k"}, InitiatedBySeller},
		{"an admin", StatusPaid, admin("admin-1"), InitiatedByAdmin},
		{"an admin who is the seller", StatusPaid, admin("seller-1"), InitiatedByAdmin},
		{"the service", StatusCancelled, market.System, InitiatedByAdmin},
		{"the seller on a disputed order", StatusDisputed, user("seller-1"), InitiatedByDispute},
		{"an admin on a disputed order", StatusDisputed, admin("admin-1"), InitiatedByDispute},
	}
	for _, c := range cases {
		o := soldOrder(c.status)
		if got := refundInitiator(&o, c.actor); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestSameRefundAnswer: an answer given before is given again when the
// action agrees (an approval posted twice pays once), INVALID_STATE when it
// does not; no action means approve.
func TestSameRefundAnswer(t *testing.T) {
	cases := []struct {
		status RefundStatus
		action string
		code   market.Code
	}{
		{RefundDeclined, ActionDecline, ""},
		{RefundDeclined, ActionApprove, market.CodeInvalidState},
		{RefundDeclined, "", market.CodeInvalidState},
		{RefundPending, ActionApprove, ""},
		{RefundPending, "", ""},
		{RefundSucceeded, ActionApprove, ""},
		{RefundSucceeded, ActionDecline, market.CodeInvalidState},
		{RefundPending, ActionDecline, market.CodeInvalidState},
	}
	for _, c := range cases {
		r := &Refund{ID: "r1", Status: c.status}
		if err := (&Service{}).sameRefundAnswer(r, c.action); market.CodeOf(err) != c.code {
			t.Errorf("%s answered %q again: %v, want %q", c.status, c.action, err, c.code)
		}
	}
}

// TestRefundableNow: refunds are for orders paid and not yet ended.
func TestRefundableNow(t *testing.T) {
	refundable := map[Status]bool{StatusPaid: true, StatusPickupReady: true, StatusShipped: true, StatusDelivered: true,
		StatusCompleted: true}
	for _, s := range AllStatuses {
		o := soldOrder(s)
		err := refundableNow(&o)
		if refundable[s] != (err == nil) || err != nil && market.CodeOf(err) != market.CodeInvalidState {
			t.Errorf("%s: %v, refundable wanted: %v", s, err, refundable[s])
		}
	}
}

// TestAssignReversals: a payout transferred while refunds shrank it pays
// `excess` too much; the newest refunds with a seller share and nothing to
// reverse yet take that much back between them.
func TestAssignReversals(t *testing.T) {
	ref := func(id string, status RefundStatus, seller, reverse int64, reversalID string) Refund {
		return Refund{ID: id, OrderID: "o1", Status: status, SellerShare: seller, ReverseAmount: reverse, ReversalID: reversalID}
	}
	cases := []struct {
		name    string
		refunds []Refund
		excess  int64
		want    map[string]int64 // id -> ReverseAmount after
	}{
		{"the newest first", []Refund{ref("a", RefundSucceeded, 2000, 0, ""), ref("b", RefundPending, 2500, 0, "")}, 3000,
			map[string]int64{"a": 500, "b": 2500}},
		{"only as much as the excess", []Refund{ref("a", RefundSucceeded, 2000, 0, ""), ref("b", RefundPending, 2500, 0, "")}, 1000,
			map[string]int64{"a": 0, "b": 1000}},
		{"nothing to reverse", []Refund{ref("a", RefundSucceeded, 2000, 0, "")}, 0, map[string]int64{"a": 0}},
		{"requests, declined ones, no seller share and earlier reversals are skipped", []Refund{
			ref("ok", RefundSucceeded, 4000, 0, ""),
			ref("declined", RefundDeclined, 1000, 0, ""),
			ref("requested", RefundRequested, 1000, 0, ""),
			ref("platform", RefundPending, 0, 0, ""),
			ref("reversing", RefundPending, 1000, 1000, ""),
			ref("reversed", RefundSucceeded, 1000, 0, "trr_1"),
		}, 5000, map[string]int64{"ok": 4000, "declined": 0, "requested": 0, "platform": 0, "reversing": 1000, "reversed": 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx := newMemTx()
			tx.refunds = c.refunds
			if err := assignReversals(t.Context(), tx, "o1", c.excess, testNow); err != nil {
				t.Fatal(err)
			}
			for id, want := range c.want {
				r, _ := tx.RefundByID(t.Context(), id)
				if r.ReverseAmount != want {
					t.Errorf("%s reverses %d, want %d", id, r.ReverseAmount, want)
				}
			}
		})
	}
}

// TestSettleDispute books each resolution's money on a disputed order:
// release_seller returns the order to where the dispute stopped it with its
// payout unfrozen; partial_refund refunds less than what is left (the
// dispute pays it) and does the same; refund_buyer refunds everything and
// puts an item that never left the seller back on sale.
func TestSettleDispute(t *testing.T) {
	admin := market.Actor{Type: market.ActorUser, UserID: "admin-1", Admin: true}
	amount := func(n int64) *int64 { return &n }
	disputed := func(before Status, payout PayoutStatus, refunded int64) Order {
		o := soldOrder(StatusDisputed)
		o.StatusBeforeDispute, o.AmountRefunded, o.SellerRefunded = before, refunded, min(refunded, 10500)
		if payout != PayoutNone {
			o.PayoutStatus, o.PayoutAmount = payout, 10500-o.SellerRefunded
		}
		return o
	}
	cases := []struct {
		name         string
		order        Order
		res          Resolution
		amount       *int64
		code         market.Code
		refunded     int64 // what settleDispute answers
		status       Status
		payout       PayoutStatus
		payoutAmount int64
		relisted     bool
	}{
		{name: "release to the seller after delivery", order: disputed(StatusDelivered, PayoutFrozen, 0), res: ResolveReleaseSeller,
			status: StatusDelivered, payout: PayoutPending, payoutAmount: 10500},
		{name: "release to the seller before delivery", order: disputed(StatusShipped, PayoutNone, 0), res: ResolveReleaseSeller,
			status: StatusShipped},
		{name: "a partial refund after delivery", order: disputed(StatusDelivered, PayoutFrozen, 0), res: ResolvePartialRefund,
			amount: amount(5000), refunded: 5000, status: StatusDelivered, payout: PayoutPending, payoutAmount: 5500},
		{name: "a partial refund of a cent less than what is left", order: disputed(StatusShipped, PayoutNone, 1178),
			res: ResolvePartialRefund, amount: amount(9999), refunded: 9999, status: StatusShipped},
		{name: "a partial refund of everything left", order: disputed(StatusShipped, PayoutNone, 1178),
			res: ResolvePartialRefund, amount: amount(10000), code: market.CodeValidation},
		{name: "a partial refund of the whole charge", order: disputed(StatusDelivered, PayoutFrozen, 0),
			res: ResolvePartialRefund, amount: amount(11178), code: market.CodeValidation},
		{name: "refund the buyer of an item never handed over", order: disputed(StatusPaid, PayoutNone, 0),
			res: ResolveRefundBuyer, refunded: 11178, status: StatusRefunded, payout: PayoutVoid, relisted: true},
		{name: "refund the buyer after delivery", order: disputed(StatusDelivered, PayoutFrozen, 0),
			res: ResolveRefundBuyer, refunded: 11178, status: StatusRefunded, payout: PayoutVoid},
		{name: "refund the buyer the rest", order: disputed(StatusShipped, PayoutNone, 1178),
			res: ResolveRefundBuyer, refunded: 10000, status: StatusRefunded, payout: PayoutVoid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.order
			tx := newMemTx(o)
			d := &Dispute{ID: market.NewID(), OrderID: o.ID, Reason: "damaged"}
			got, err := (&Service{}).settleDispute(t.Context(), tx, &o, d, c.res, c.amount, admin, testNow)
			if market.CodeOf(err) != c.code {
				t.Fatalf("err %v, want %q", err, c.code)
			}
			if c.code != "" {
				if len(tx.refunds) != 0 || len(tx.events) != 0 {
					t.Fatalf("a refused resolution booked %v, %v", tx.refunds, tx.eventTypes())
				}
				return
			}
			if got != c.refunded || o.Status != c.status || o.PayoutStatus != c.payout || o.PayoutAmount != c.payoutAmount {
				t.Fatalf("refunded %d, order %s payout %q %d; want %d, %s %q %d", got, o.Status, o.PayoutStatus, o.PayoutAmount,
					c.refunded, c.status, c.payout, c.payoutAmount)
			}
			if c.refunded == 0 {
				if len(tx.refunds) != 0 {
					t.Fatalf("refunds booked: %+v", tx.refunds)
				}
			} else if len(tx.refunds) != 1 || tx.refunds[0].Amount != c.refunded || tx.refunds[0].InitiatedBy != InitiatedByDispute ||
				tx.refunds[0].Reason != "dispute: damaged" {
				t.Fatalf("refunds %+v, want one of %d by the dispute", tx.refunds, c.refunded)
			}
			if (len(tx.relisted) == 1) != c.relisted || len(tx.relisted) > 1 {
				t.Fatalf("relisted %v, want relisted once: %v", tx.relisted, c.relisted)
			}
		})
	}
}
