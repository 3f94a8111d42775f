package apiv1_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/internal/orders"
	"marketplace/internal/payments"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
	"marketplace/internal/testkit"
)

// faultHelperGateway is the real sandbox processor with faults switched in
// front of it: charges that never reach it, charges whose answer is lost
// after the money moved, and payment lookups that cannot reach it.
type faultHelperGateway struct {
	payments.Gateway // the sandbox, set once the server (and its clock) exists

	mu          sync.Mutex
	unreachable int  // the next this many Charge calls fail before the processor
	lost        int  // the next this many Charge calls charge, then fail
	lookupDown  bool // PaymentByKey fails
	attempts    int  // Charge calls made
}

var errFaultHelperTimeout = errors.New("processor: i/o timeout")

func (g *faultHelperGateway) set(unreachable, lost int, lookupDown bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.unreachable, g.lost, g.lookupDown, g.attempts = unreachable, lost, lookupDown, 0
}

func (g *faultHelperGateway) chargeAttempts() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.attempts
}

func (g *faultHelperGateway) Charge(ctx context.Context, req payments.ChargeRequest) (*payments.Payment, error) {
	g.mu.Lock()
	g.attempts++
	unreachable, lost := g.unreachable > 0, g.unreachable == 0 && g.lost > 0
	if unreachable {
		g.unreachable--
	} else if lost {
		g.lost--
	}
	g.mu.Unlock()
	if unreachable {
		return nil, errFaultHelperTimeout
	}
	p, err := g.Gateway.Charge(ctx, req)
	if lost && err == nil {
		return nil, errFaultHelperTimeout
	}
	return p, err
}

func (g *faultHelperGateway) PaymentByKey(ctx context.Context, key string) (*payments.Payment, error) {
	g.mu.Lock()
	down := g.lookupDown
	g.mu.Unlock()
	if down {
		return nil, errFaultHelperTimeout
	}
	return g.Gateway.PaymentByKey(ctx, key)
}

// faultHelperStart runs a server per engine whose processor is a
// faultHelperGateway over the real sandbox.
func faultHelperStart(t *testing.T, fn func(t *testing.T, s *testkit.Server, g *faultHelperGateway)) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		g := &faultHelperGateway{}
		s := testkit.Start(t, db, testkit.Options{Gateway: g})
		g.Gateway = payments.NewSandbox(s.URL, store.PaymentsSandbox(db), s.Clock)
		fn(t, s, g)
	})
}

// faultHelperScene is a seller's listing and a shopper ready to buy it.
type faultHelperScene struct {
	listing string
	buyer   *testkit.Shopper
}

func faultHelperSetup(s *testkit.Server) faultHelperScene {
	seller := s.VerifiedOwner("faultseller")
	return faultHelperScene{
		listing: s.ActiveListing(seller, "walnut cutting board, end grain, large", 2000),
		buyer:   s.NewShopper("faultbuyer", "pm_card_visa"),
	}
}

// buy purchases the scene's listing as its shopper's agent.
func (sc faultHelperScene) buy(s *testkit.Server) *testkit.Response {
	return s.Do("POST", "/api/v1/agent/purchase", buyHelperBody(sc.listing, 2000), sc.buyer.Key.Auth())
}

// faultHelperDetails is an error answer's details.
func faultHelperDetails(r *testkit.Response) map[string]any {
	e, _ := r.JSON["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

// The total of a 2000-cent item with free shipping: 3.5% fee is 70 cents,
// under the 99-cent minimum.
const faultHelperTotal = 2000 + 99

// faultHelperOrder is the one order of the listing (id and status), or
// fails the test.
func faultHelperOrder(t *testing.T, s *testkit.Server, listing string) (id, status string) {
	t.Helper()
	rows, err := s.App.DB.WritePool().QueryContext(t.Context(), buyHelperSQL(s, `SELECT id, status FROM orders WHERE listing_id = ?`), listing)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
		if err := rows.Scan(&id, &status); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%d orders for the listing, want 1", n)
	}
	return id, status
}

// faultHelperNothingHappened checks that a purchase left no trace: no
// order, the listing on sale, nothing spent, no payment.
func faultHelperNothingHappened(t *testing.T, s *testkit.Server, sc faultHelperScene) {
	t.Helper()
	if n := buyHelperInt(t, s, `SELECT COUNT(*) FROM orders WHERE listing_id = ?`, sc.listing); n != 0 {
		t.Fatalf("%d orders left behind, want none", n)
	}
	if st := buyHelperListingStatus(t, s, sc.listing); st != "active" {
		t.Fatalf("listing is %s, want active", st)
	}
	if got := buyHelperSpentToday(t, s, sc.buyer.User); got != 0 {
		t.Fatalf("spent.today = %d, want 0", got)
	}
	if n := buyHelperInt(t, s, `SELECT COUNT(*) FROM agent_spending`); n != 0 {
		t.Fatalf("%d spending rows left behind, want none", n)
	}
	if n := buyHelperInt(t, s, `SELECT COUNT(*) FROM sandbox_payments`); n != 0 {
		t.Fatalf("%d payments at the processor, want none", n)
	}
}

// faultHelperPaid checks a settled purchase: the order paid once with its
// events once, the listing sold, one succeeded payment, the total spent.
func faultHelperPaid(t *testing.T, s *testkit.Server, sc faultHelperScene, orderID string) {
	t.Helper()
	if _, st := faultHelperOrder(t, s, sc.listing); st != "paid" {
		t.Fatalf("order is %s, want paid", st)
	}
	if st := buyHelperListingStatus(t, s, sc.listing); st != "sold" {
		t.Fatalf("listing is %s, want sold", st)
	}
	if n := buyHelperInt(t, s, `SELECT COUNT(*) FROM sandbox_payments WHERE idempotency_key = ? AND status = 'succeeded'`, orderID); n != 1 {
		t.Fatalf("%d succeeded payments for the order, want 1", n)
	}
	if n := buyHelperInt(t, s, `SELECT COUNT(*) FROM sandbox_payments`); n != 1 {
		t.Fatalf("%d payments at the processor, want 1", n)
	}
	if got := buyHelperSpentToday(t, s, sc.buyer.User); got != faultHelperTotal {
		t.Fatalf("spent.today = %d, want %d", got, faultHelperTotal)
	}
	for _, ev := range []struct{ entity, typ string }{
		{orderID, "order.created"}, {orderID, "payment.succeeded"}, {sc.listing, "listing.sold"},
	} {
		if n := buyHelperInt(t, s, `SELECT COUNT(*) FROM events WHERE entity_id = ? AND type = ?`, ev.entity, ev.typ); n != 1 {
			t.Fatalf("%d %s events, want 1", n, ev.typ)
		}
	}
	// The buyer's view agrees.
	r := s.Do("GET", "/api/v1/agent/orders/"+orderID, nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "")
	if r.Data()["status"] != "paid" {
		t.Fatalf("the buyer sees the order as %v, want paid", r.Data()["status"])
	}
}

// faultHelperReconcile advances the clock past the settle grace period and
// runs the reconciler once.
func faultHelperReconcile(t *testing.T, s *testkit.Server) int {
	t.Helper()
	s.Clock.Advance(orders.SettleGrace + time.Second)
	n, err := s.App.Orders.Reconcile(context.Background())
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	return n
}

// A processor that fails once is asked again under the same key: a charge
// that never arrived is made then, and one whose answer was lost is
// answered from the processor's record of the key. Either way one payment.
func TestPurchaseFaultChargeRetried(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		unreachable, lost int
	}{
		{"request lost", 1, 0},
		{"answer lost", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			faultHelperStart(t, func(t *testing.T, s *testkit.Server, g *faultHelperGateway) {
				sc := faultHelperSetup(s)
				g.set(tc.unreachable, tc.lost, true)
				r := sc.buy(s).Want(t, http.StatusCreated, "")
				if r.Data()["status"] != "paid" {
					t.Fatalf("order is %v, want paid", r.Data()["status"])
				}
				if n := g.chargeAttempts(); n != 2 {
					t.Fatalf("%d charge attempts, want 2", n)
				}
				faultHelperPaid(t, s, sc, r.Data()["id"].(string))
			})
		})
	}
}

// A charge whose answer is lost on every attempt: the lookup by the order
// id finds the payment and the purchase succeeds.
func TestPurchaseFaultAnswerLost(t *testing.T) {
	t.Parallel()
	faultHelperStart(t, func(t *testing.T, s *testkit.Server, g *faultHelperGateway) {
		sc := faultHelperSetup(s)
		g.set(0, 2, false)
		r := sc.buy(s).Want(t, http.StatusCreated, "")
		if r.Data()["status"] != "paid" {
			t.Fatalf("order is %v, want paid", r.Data()["status"])
		}
		faultHelperPaid(t, s, sc, r.Data()["id"].(string))
		if n := faultHelperReconcile(t, s); n != 0 {
			t.Fatalf("reconcile changed %d orders of a settled purchase", n)
		}
	})
}

// When neither the charge nor the lookup gives a certain outcome, the
// purchase answers PAYMENT_FAILED naming the order, which stays
// pending_payment (the listing held, the amount counted against the caps)
// until the reconciler settles it or releases it from the processor's
// record. Releasing at once on a lookup's NOT_FOUND could leave a charge
// without its order, as a processor's lookup may lag its charges.
func TestPurchaseFaultOutcomeUnknown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		unreachable, lost int
		lookupDown        bool
		charged           bool
	}{
		{"never charged, lookup finds nothing", 2, 0, false, false},
		{"never charged, lookup down", 2, 0, true, false},
		{"charged, lookup down", 0, 2, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			faultHelperStart(t, func(t *testing.T, s *testkit.Server, g *faultHelperGateway) {
				sc := faultHelperSetup(s)
				g.set(tc.unreachable, tc.lost, tc.lookupDown)
				r := sc.buy(s).Want(t, http.StatusPaymentRequired, "PAYMENT_FAILED")
				orderID, _ := faultHelperDetails(r)["orderId"].(string)
				if orderID == "" {
					t.Fatalf("no details.orderId: %s", r.Body)
				}
				id, st := faultHelperOrder(t, s, sc.listing)
				if id != orderID || st != "pending_payment" {
					t.Fatalf("order %s is %s, want %s pending_payment", id, st, orderID)
				}
				if st := buyHelperListingStatus(t, s, sc.listing); st != "reserved" {
					t.Fatalf("listing is %s, want reserved while the outcome is unknown", st)
				}
				if got := buyHelperSpentToday(t, s, sc.buyer.User); got != faultHelperTotal {
					t.Fatalf("spent.today = %d, want %d held", got, faultHelperTotal)
				}
				o := s.Do("GET", "/api/v1/agent/orders/"+orderID, nil, sc.buyer.Key.Auth()).Want(t, http.StatusOK, "")
				if o.Data()["status"] != "pending_payment" {
					t.Fatalf("the buyer sees the order as %v, want pending_payment", o.Data()["status"])
				}
				// Nobody else can take the listing meanwhile.
				other := s.NewShopper("faultother", "pm_card_visa")
				s.Do("POST", "/api/v1/agent/purchase", buyHelperBody(sc.listing, 2000), other.Key.Auth()).
					Want(t, http.StatusConflict, "LISTING_SOLD")

				// Within the grace period the reconciler leaves it alone.
				if n, err := s.App.Orders.Reconcile(context.Background()); err != nil || n != 0 {
					t.Fatalf("reconcile within the grace period: %d, %v", n, err)
				}
				if tc.lookupDown {
					// While the processor cannot answer, it changes nothing.
					s.Clock.Advance(orders.SettleGrace + time.Second)
					if n, err := s.App.Orders.Reconcile(context.Background()); err == nil || n != 0 {
						t.Fatalf("reconcile with the processor down: %d, %v; want 0 and an error", n, err)
					}
					if _, st := faultHelperOrder(t, s, sc.listing); st != "pending_payment" {
						t.Fatalf("order is %s after a failed reconcile, want pending_payment", st)
					}
				}

				g.set(0, 0, false)
				if n := faultHelperReconcile(t, s); n != 1 {
					t.Fatalf("reconcile changed %d orders, want 1", n)
				}
				if tc.charged {
					faultHelperPaid(t, s, sc, orderID)
				} else {
					faultHelperNothingHappened(t, s, sc)
					s.Do("GET", "/api/v1/agent/orders/"+orderID, nil, sc.buyer.Key.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
				}
				if n := faultHelperReconcile(t, s); n != 0 {
					t.Fatalf("a second reconcile changed %d orders", n)
				}
				if !tc.charged {
					// The release left nothing in the way of buying it again.
					r := sc.buy(s).Want(t, http.StatusCreated, "")
					faultHelperPaid(t, s, sc, r.Data()["id"].(string))
				}
			})
		})
	}
}

// A crash between the charge and the settlement: the purchase answers 201
// with the order still pending_payment (the money moved, so it must not
// read as a failure), a retry with the same key replays that, a retry with
// a new key is told the listing is taken (LISTING_SOLD, with its own
// order's id: DUPLICATE_REQUEST is for a reused key only), and the
// reconciler settles the order exactly once.
func TestPurchaseFaultCrashBeforeSettle(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		var crashed atomic.Bool
		s := testkit.Start(t, db, testkit.Options{BeforeSettle: func(context.Context, string) error {
			if crashed.CompareAndSwap(false, true) {
				return errors.New("process killed before settling")
			}
			return nil
		}})
		sc := faultHelperSetup(s)
		keyed := buyHelperBody(sc.listing, 2000)
		keyed["idempotencyKey"] = "crash-1"
		first := s.Do("POST", purchPath, keyed, sc.buyer.Key.Auth()).Want(t, http.StatusCreated, "")
		if st := first.Data()["status"]; st != "pending_payment" {
			t.Fatalf("answer after a failed settle is %v, want pending_payment", st)
		}
		again := s.Do("POST", purchPath, keyed, sc.buyer.Key.Auth()).Want(t, http.StatusCreated, "")
		if again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatal("the retry was not a replay")
		}
		other := sc.buy(s).Want(t, http.StatusConflict, "LISTING_SOLD")
		if purchDetails(t, other)["orderId"] != first.Data()["id"] {
			t.Fatalf("details = %v, want the pending order's id", purchDetails(t, other))
		}

		orderID, st := faultHelperOrder(t, s, sc.listing)
		if st != "pending_payment" {
			t.Fatalf("order is %s, want pending_payment", st)
		}
		if n := buyHelperInt(t, s, `SELECT COUNT(*) FROM sandbox_payments WHERE idempotency_key = ? AND status = 'succeeded'`, orderID); n != 1 {
			t.Fatalf("%d succeeded payments for the order, want 1", n)
		}
		if n := buyHelperInt(t, s, `SELECT COUNT(*) FROM events WHERE entity_id = ?`, orderID); n != 0 {
			t.Fatalf("%d events before settlement, want none", n)
		}
		if n, err := s.App.Orders.Reconcile(context.Background()); err != nil || n != 0 {
			t.Fatalf("reconcile within the grace period: %d, %v", n, err)
		}

		if n := faultHelperReconcile(t, s); n != 1 {
			t.Fatalf("reconcile changed %d orders, want 1", n)
		}
		faultHelperPaid(t, s, sc, orderID)
		if n := faultHelperReconcile(t, s); n != 0 {
			t.Fatalf("a second reconcile changed %d orders", n)
		}
		faultHelperPaid(t, s, sc, orderID)
	})
}
