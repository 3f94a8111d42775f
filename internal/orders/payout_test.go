package orders

import (
	"slices"
	"testing"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/messaging"
	"marketplace/internal/payments"
)

// TestBps pins the one rounding rule of CONTRACT.md section 3: half up, on
// integers (amount x rate / 10000).
func TestBps(t *testing.T) {
	cases := []struct {
		amount, rate, want int64
	}{
		{0, 350, 0},
		{1, 5000, 1},     // 0.5 rounds up
		{1, 4999, 0},     // 0.4999 rounds down
		{3, 5000, 2},     // 1.5 rounds up, not to even
		{5, 5000, 3},     // 2.5 rounds up, not to even
		{10, 350, 0},     // 0.35
		{100, 350, 4},    // 3.5
		{2842, 350, 99},  // 99.47
		{2843, 350, 100}, // 99.505
		{49, 300, 1},     // 1.47
		{50, 300, 2},     // 1.5
		{10000, 300, 300},
		{10800, 350, 378}, // the contract's example fee
		{1, 10000, 1},     // a rate of 100%
		{1_000_000_000, 350, 35_000_000},
	}
	for _, c := range cases {
		if got := bps(c.amount, c.rate); got != c.want {
			t.Errorf("bps(%d, %d) = %d, want %d", c.amount, c.rate, got, c.want)
		}
	}
}

// TestComputeRates runs the fee function with admin-configured rates: the
// minimum applies only when the rate gives less, the buyer's fee is on item
// plus shipping and the commission on the item alone.
func TestComputeRates(t *testing.T) {
	cases := []struct {
		name                   string
		rates                  FeeRates
		item, shipping         int64
		fee, total, commission int64
	}{
		{"no fees at all", FeeRates{}, 1000, 200, 0, 1200, 0},
		{"a higher minimum wins", FeeRates{BuyerBps: 350, BuyerMin: 500, SellerBps: 300}, 1000, 0, 500, 1500, 30},
		{"the rate wins over the minimum", FeeRates{BuyerBps: 1000, BuyerMin: 50, SellerBps: 0}, 1000, 0, 100, 1100, 0},
		{"shipping raises the fee, not the commission", FeeRates{BuyerBps: 1000, SellerBps: 1000}, 1000, 1000, 200, 2200, 100},
		{"half a cent of fee rounds up", FeeRates{BuyerBps: 50, SellerBps: 50}, 100, 0, 1, 101, 1}, // 0.5 and 0.5
		{"the default minimum at free shipping", DefaultFeeRates, 1000, 0, 99, 1099, 30},
	}
	for _, c := range cases {
		f := Compute(c.rates, c.item, c.shipping)
		if f.ServiceFee != c.fee || f.TotalCharged != c.total || f.Commission != c.commission ||
			f.ItemPrice != c.item || f.ShippingCost != c.shipping {
			t.Errorf("%s: got %+v; want fee %d total %d commission %d", c.name, f, c.fee, c.total, c.commission)
		}
	}
}

// TestSellerPayout is what the seller is paid before refunds: item less
// commission, plus the shipping the buyer paid unless the platform bought
// the label.
func TestSellerPayout(t *testing.T) {
	cases := []struct {
		name           string
		item, shipping int64
		labelCost      int64
		want           int64
	}{
		{"the contract's example", 10000, 800, 0, 10500},
		{"a platform-funded label keeps the shipping", 10000, 800, 650, 9700},
		{"free shipping", 10000, 0, 0, 9700},
		{"a rounded commission", 50, 0, 0, 48}, // commission 1.5 -> 2
	}
	for _, c := range cases {
		o := Order{Fees: Compute(DefaultFeeRates, c.item, c.shipping), LabelCost: c.labelCost}
		if got := SellerPayout(&o); got != c.want {
			t.Errorf("%s: SellerPayout = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestNetPayout is the seller's net figure for every payout state (the
// dashboard and the finance summary add these up).
func TestNetPayout(t *testing.T) {
	cases := []struct {
		name     string
		status   Status
		payout   PayoutStatus
		amount   int64 // PayoutAmount
		reversed int64
		refunded int64 // SellerRefunded
		label    int64
		want     int64
	}{
		{"released, nothing reversed", StatusCompleted, PayoutReleased, 10500, 0, 0, 0, 10500},
		{"released, part reversed", StatusCompleted, PayoutReleased, 10500, 3000, 3000, 0, 7500},
		{"released, reversed beyond it", StatusRefunded, PayoutReleased, 10500, 11000, 10500, 0, 0},
		{"pending after delivery", StatusDelivered, PayoutPending, 7500, 0, 3000, 0, 7500},
		{"frozen by a dispute", StatusDisputed, PayoutFrozen, 7500, 0, 3000, 0, 7500},
		{"void", StatusRefunded, PayoutVoid, 0, 0, 10500, 0, 0},
		{"cancelled before delivery", StatusCancelled, PayoutNone, 0, 0, 0, 0, 0},
		{"expired checkout", StatusExpired, PayoutNone, 0, 0, 0, 0, 0},
		{"refunded in full before delivery", StatusRefunded, PayoutNone, 0, 0, 10500, 0, 0},
		{"paid, not delivered", StatusPaid, PayoutNone, 0, 0, 0, 0, 10500},
		{"shipped, after a partial refund", StatusShipped, PayoutNone, 0, 0, 2000, 0, 8500},
		{"shipped on a platform label", StatusShipped, PayoutNone, 0, 0, 0, 650, 9700},
		{"refunds beyond the payout leave nothing", StatusPaid, PayoutNone, 0, 0, 20000, 0, 0},
	}
	for _, c := range cases {
		o := soldOrder(c.status)
		o.PayoutStatus, o.PayoutAmount, o.TransferReversed, o.SellerRefunded, o.LabelCost = c.payout, c.amount, c.reversed,
			c.refunded, c.label
		if got := o.NetPayout(); got != c.want {
			t.Errorf("%s: NetPayout = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestDeliverStartsHold: delivery starts the hold period (payouts.hold_hours,
// 72 by default, on the service clock) and sets the pending payout to what
// the seller is owed after the refunds taken from their side.
func TestDeliverStartsHold(t *testing.T) {
	cases := []struct {
		name     string
		refunded int64 // SellerRefunded
		label    int64
		want     int64
	}{
		{"no refunds", 0, 0, 10500},
		{"after a partial refund", 3000, 0, 7500},
		{"a platform label", 0, 650, 9700},
		{"refunded beyond the payout", 11000, 0, 0},
	}
	for _, c := range cases {
		o := soldOrder(StatusShipped)
		o.SellerRefunded, o.LabelCost = c.refunded, c.label
		if err := (&Service{}).deliver(t.Context(), nil, &o, testNow); err != nil {
			t.Fatal(err)
		}
		if o.PayoutStatus != PayoutPending || o.PayoutAmount != c.want {
			t.Errorf("%s: payout %s %d, want pending %d", c.name, o.PayoutStatus, o.PayoutAmount, c.want)
		}
		if o.DeliveredAt == nil || !o.DeliveredAt.Equal(testNow) || o.PayoutDueAt == nil ||
			!o.PayoutDueAt.Equal(testNow.Add(72*time.Hour)) {
			t.Errorf("%s: delivered %v, due %v; want now and 72 hours later", c.name, o.DeliveredAt, o.PayoutDueAt)
		}
	}
}

// TestAutoDeliverAt: a shipped order nobody confirmed counts as delivered
// 14 days after its estimated delivery (the quoted days, or a week).
func TestAutoDeliverAt(t *testing.T) {
	shipped := time.Date(2026, 6, 1, 15, 0, 0, 0, time.UTC)
	days := func(n int) *int { return &n }
	cases := []struct {
		estimated *int
		want      time.Time
	}{
		{nil, shipped.AddDate(0, 0, 21)},
		{days(3), shipped.AddDate(0, 0, 17)},
		{days(0), shipped.AddDate(0, 0, 14)},
	}
	for _, c := range cases {
		o := Order{ShippedAt: &shipped, EstimatedDays: c.estimated}
		if got := autoDeliverAt(&o); !got.Equal(c.want) {
			t.Errorf("estimated %v: autoDeliverAt = %v, want %v", c.estimated, got, c.want)
		}
	}
}

// TestPayOut releases payouts on the in-memory store and processor: the
// transfer of the net payout once the hold has ended (at its last instant
// too) and the seller has a verified payout account, the order completed;
// nothing before, without an account or under a dispute; no transfer for a
// payout of nothing; and a refund booked while the transfer was under way
// reversed from it, so the seller nets what they are owed.
func TestPayOut(t *testing.T) {
	verified := payments.PayoutAccount{ID: "pa_1", UserID: "seller-1", ExternalID: "acct_1", Status: payments.AccountVerified}
	pending := verified
	pending.Status = payments.AccountPending
	type want struct {
		transferred  int64 // 0: no transfer
		status       Status
		payout       PayoutStatus
		payoutAmount int64
		net          int64
		events       []string
	}
	paid := want{transferred: 10500, status: StatusCompleted, payout: PayoutReleased, payoutAmount: 10500, net: 10500,
		events: []string{"payment.released", "order.completed"}}
	waiting := want{status: StatusDelivered, payout: PayoutPending, payoutAmount: 10500, net: 10500}
	cases := []struct {
		name    string
		due     time.Duration // PayoutDueAt relative to now
		force   bool
		account *payments.PayoutAccount
		edit    func(o *Order)
		want    want
	}{
		{name: "the hold is over", due: -time.Hour, account: &verified, want: paid},
		{name: "the hold ends now", due: 0, account: &verified, want: paid},
		{name: "the hold runs another second", due: time.Second, account: &verified, want: waiting},
		{name: "an admin forces it during the hold", due: time.Hour, force: true, account: &verified, want: paid},
		{name: "no payout account", due: -time.Hour, want: waiting},
		{name: "an account not verified", due: -time.Hour, account: &pending, want: waiting},
		{name: "frozen by a dispute", due: -time.Hour, account: &verified, edit: func(o *Order) {
			o.Status, o.PayoutStatus, o.StatusBeforeDispute = StatusDisputed, PayoutFrozen, StatusDelivered
		}, want: want{status: StatusDisputed, payout: PayoutFrozen, payoutAmount: 10500, net: 10500}},
		{name: "after a partial refund", due: -time.Hour, account: &verified, edit: func(o *Order) {
			o.AmountRefunded, o.SellerRefunded, o.PayoutAmount = 3000, 3000, 7500
		}, want: want{transferred: 7500, status: StatusCompleted, payout: PayoutReleased, payoutAmount: 7500, net: 7500,
			events: []string{"payment.released", "order.completed"}}},
		{name: "a payout of nothing", due: -time.Hour, account: &verified, edit: func(o *Order) {
			o.AmountRefunded, o.SellerRefunded, o.PayoutAmount = 10500, 10500, 0
		}, want: want{status: StatusCompleted, payout: PayoutReleased, events: []string{"payment.released", "order.completed"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := soldOrder(StatusDelivered)
			due := testNow.Add(c.due)
			o.DeliveredAt, o.PayoutDueAt, o.PayoutStatus, o.PayoutAmount = &testNow, &due, PayoutPending, 10500
			if c.edit != nil {
				c.edit(&o)
			}
			tx := newMemTx(o)
			if c.account != nil {
				tx.accounts["seller-1"] = *c.account
			}
			gw := newMemGateway()
			got, err := newMemService(tx, gw).payOut(t.Context(), o.ID, c.force)
			if err != nil {
				t.Fatal(err)
			}
			w := c.want
			if gw.transfers["payout-"+o.ID] != w.transferred || len(gw.transfers) > 1 {
				t.Fatalf("transfers %v, want %d keyed payout-%s", gw.transfers, w.transferred, o.ID)
			}
			if got.Status != w.status || got.PayoutStatus != w.payout || got.PayoutAmount != w.payoutAmount || got.NetPayout() != w.net {
				t.Fatalf("order %s payout %q %d net %d; want %s %q %d %d", got.Status, got.PayoutStatus, got.PayoutAmount,
					got.NetPayout(), w.status, w.payout, w.payoutAmount, w.net)
			}
			if wantID := map[bool]string{true: "tr_payout-" + o.ID}[w.transferred > 0]; got.TransferID != wantID {
				t.Fatalf("transfer id %q, want %q", got.TransferID, wantID)
			}
			if !slices.Equal(tx.eventTypes(), w.events) {
				t.Fatalf("events %v, want %v", tx.eventTypes(), w.events)
			}
			// A completed order posts one system message into the buyer's
			// thread on the listing; nothing else does here.
			wantMsgs := 0
			if w.status == StatusCompleted {
				wantMsgs = 1
			}
			if len(tx.messages) != wantMsgs {
				t.Fatalf("system messages %+v, want %d", tx.messages, wantMsgs)
			}
			if wantMsgs == 1 {
				m, th := tx.messages[0], tx.threads[0]
				if m.Type != messaging.TypeSystem || m.SenderID != "" || m.Fields["event"] != "order.completed" ||
					m.Fields["orderId"] != o.ID || th.BuyerID != o.BuyerID || th.SellerID != o.SellerID || th.ListingID != o.ListingID {
					t.Fatalf("system message %+v in thread %+v", m, th)
				}
			}
		})
	}

	t.Run("a refund booked during the transfer is reversed from it", func(t *testing.T) {
		o := soldOrder(StatusDelivered)
		due := testNow.Add(-time.Hour)
		o.DeliveredAt, o.PayoutDueAt, o.PayoutStatus, o.PayoutAmount = &testNow, &due, PayoutPending, 10500
		tx := newMemTx(o)
		tx.accounts["seller-1"] = verified
		gw := newMemGateway()
		s := newMemService(tx, gw)
		var refundID string
		gw.onTransfer = func() {
			// The seller refunds 3000 while the processor pays the 10500
			// read before: the pending payout shrinks to 7500 in the store.
			err := s.store.InTx(t.Context(), func(tx Tx) error {
				cur, err := tx.OrderByID(t.Context(), o.ID)
				if err != nil {
					return err
				}
				r, err := s.planRefund(t.Context(), tx, cur, 3000, market.Actor{Type: market.ActorUser, UserID: "seller-1"}, "late", testNow)
				if err != nil {
					return err
				}
				refundID = r.ID
				return saveRefunded(t.Context(), tx, cur, cur.Status)
			})
			if err != nil {
				t.Error(err)
			}
		}
		got, err := s.payOut(t.Context(), o.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		if gw.transfers["payout-"+o.ID] != 10500 || gw.reversals["reversal-"+refundID] != 3000 || gw.refunds["refund-"+refundID] != 3000 {
			t.Fatalf("transfers %v reversals %v refunds %v", gw.transfers, gw.reversals, gw.refunds)
		}
		r, _ := tx.RefundByID(t.Context(), refundID)
		if r.Status != RefundSucceeded || r.ReverseAmount != 3000 || r.ReversedAmount != 3000 || r.SellerShare != 3000 {
			t.Fatalf("refund %+v", r)
		}
		if got.Status != StatusCompleted || got.PayoutStatus != PayoutReleased || got.PayoutAmount != 10500 ||
			got.TransferReversed != 3000 || got.NetPayout() != 7500 {
			t.Fatalf("order %s %q paid %d reversed %d net %d; want completed, released 10500, 3000 reversed, net 7500",
				got.Status, got.PayoutStatus, got.PayoutAmount, got.TransferReversed, got.NetPayout())
		}
	})
}
