package storetest

import (
	"context"
	"testing"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/idempotency"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/sandbox"
	"marketplace/internal/store"
)

func resetOrder(listingID, buyerID, sellerID string, st orders.Status) *orders.Order {
	return &orders.Order{ID: market.NewID(), ListingID: listingID, BuyerID: buyerID, SellerID: sellerID,
		Channel: orders.ChannelAgent, Status: st, ListingTitle: "Lamp",
		Fees:        orders.Fees{ItemPrice: 1000, ServiceFee: 50, TotalCharged: 1050, Commission: 30},
		Fulfillment: orders.FulfillShipping, CreatedAt: t0, UpdatedAt: t0}
}

func resetKey(t *testing.T, tx *store.Tx, userID string) string {
	t.Helper()
	k := &agents.Key{ID: market.NewID(), UserID: userID, Label: "bot", Scope: agents.ScopeBuy, Status: agents.KeyActive,
		Prefix: "mk_test_" + userID[:4], Hash: agents.HashSecret(userID), CreatedAt: t0}
	if err := tx.CreateKey(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	return k.ID
}

func spendRows(t *testing.T, db *store.DB, userID string) int {
	t.Helper()
	var n int
	q := `SELECT COUNT(*) FROM agent_spending WHERE user_id = ?`
	if db.Dialect() == store.Postgres {
		q = `SELECT COUNT(*) FROM agent_spending WHERE user_id = $1`
	}
	if err := db.WritePool().QueryRowContext(context.Background(), q, userID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSandboxReset: the caller's own data goes; whatever another user's
// order still names, or money still in flight, stays.
func TestSandboxReset(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := t0.Add(time.Hour)
		var me, other, seller, watcher string
		mine := map[string]*listings.Listing{} // my listings by name
		bought := map[string]*orders.Order{}   // my orders as buyer by name
		sales := map[string]*orders.Order{}    // other's orders of my listings by name
		var upload, pending string
		mustTx(t, db, func(tx *store.Tx) error {
			me, other = newUser(t, tx, "me@example.com", "me").ID, newUser(t, tx, "other@example.com", "other").ID
			seller, watcher = newUser(t, tx, "seller@example.com", "seller").ID, newUser(t, tx, "w@example.com", "watcher").ID

			// My listings, and the orders other people made of them.
			for _, c := range []struct {
				name    string
				status  listings.Status
				ordered orders.Status // "" for none
			}{
				{"free", listings.StatusActive, ""},
				{"generating", listings.StatusPendingAI, ""},
				{"retired", listings.StatusArchived, ""},
				{"sold", listings.StatusSold, orders.StatusPaid},
				{"reserved", listings.StatusReserved, orders.StatusPendingPayment},
				{"relisted", listings.StatusActive, orders.StatusExpired},
				{"held", listings.StatusHeld, orders.StatusCancelled},
				{"removed", listings.StatusRemoved, orders.StatusCancelled},
			} {
				l := newListing(me, t0, 1000)
				l.Status = c.status
				if err := tx.CreateListing(ctx, l); err != nil {
					return err
				}
				mine[c.name] = l
				if c.ordered != "" {
					o := resetOrder(l.ID, other, me, c.ordered)
					if err := tx.CreateOrder(ctx, o); err != nil {
						return err
					}
					sales[c.name] = o
				}
			}
			if _, err := tx.Watch(ctx, watcher, mine["free"].ID, t0); err != nil {
				return err
			}
			upload = market.NewID()
			if err := tx.CreatePhotoUpload(ctx, &listings.PhotoUpload{ID: upload, OwnerID: me, ExpiresAt: t0.Add(time.Hour),
				UploadedAt: &t0, ContentType: "image/jpeg", ListingID: mine["free"].ID, CreatedAt: t0}); err != nil {
				return err
			}

			// My purchases, one listing of the seller's each.
			paidAt := t0
			for _, c := range []struct {
				name   string
				status orders.Status
				paid   bool
				refund int64
			}{
				{"paid", orders.StatusPaid, true, 0},
				{"queued", orders.StatusPendingApproval, false, 0},
				{"completed", orders.StatusCompleted, true, 0},
				{"expired", orders.StatusExpired, false, 0},
				{"refunded", orders.StatusRefunded, true, 1050},
				{"cancelled", orders.StatusCancelled, true, 1050},
				{"rejected", orders.StatusCancelled, false, 0},
				{"refund due", orders.StatusCancelled, true, 0},
				{"disputed", orders.StatusDisputed, true, 0},
			} {
				l := newListing(seller, t0, 1000)
				if err := tx.CreateListing(ctx, l); err != nil {
					return err
				}
				o := resetOrder(l.ID, me, seller, c.status)
				o.AmountRefunded = c.refund
				if c.paid {
					o.PaidAt = &paidAt
				}
				if err := tx.CreateOrder(ctx, o); err != nil {
					return err
				}
				bought[c.name] = o
			}
			pending = market.NewID()
			if err := tx.CreateApproval(ctx, &orders.Approval{ID: pending, OrderID: bought["queued"].ID, OwnerID: me,
				Amount: 1050, Status: orders.ApprovalPending, CreatedAt: t0}); err != nil {
				return err
			}
			// A listing of the seller's we both watch.
			if _, err := tx.Watch(ctx, me, bought["paid"].ListingID, t0); err != nil {
				return err
			}
			if _, err := tx.Watch(ctx, watcher, bought["paid"].ListingID, t0); err != nil {
				return err
			}

			// Spending: two rows of mine, one of the other's.
			myKey, otherKey := resetKey(t, tx, me), resetKey(t, tx, other)
			for _, s := range []struct{ user, key, order string }{
				{me, myKey, bought["paid"].ID}, {me, myKey, bought["cancelled"].ID}, {other, otherKey, sales["sold"].ID},
			} {
				if err := tx.RecordSpend(ctx, s.user, s.key, s.order, 1050, t0, nil); err != nil {
					return err
				}
			}
			return nil
		})
		for _, r := range []struct {
			owner, key string
			done       bool
		}{{me, "done", true}, {me, "running", false}, {other, "done", true}} {
			rec := &idempotency.Record{OwnerID: r.owner, Key: r.key, Route: "POST /v1/purchase", Hash: "h", ExpiresAt: now.Add(24 * time.Hour)}
			if _, claimed, err := db.ClaimIdempotency(ctx, rec, t0); err != nil || !claimed {
				t.Fatalf("claim %v: %v %v", r, claimed, err)
			}
			if r.done {
				if err := db.FinishIdempotency(ctx, r.owner, r.key, 201, []byte("{}")); err != nil {
					t.Fatal(err)
				}
			}
		}

		got, err := db.SandboxReset(ctx, me, now)
		if err != nil {
			t.Fatal(err)
		}
		want := sandbox.Cleared{ListingsDeleted: 3, ListingsArchived: 2, ListingsKept: 3, OrdersDeleted: 6, OrdersKept: 3,
			Watches: 1, SpendingRecords: 2, IdempotencyKeys: 1}
		if got != want {
			t.Fatalf("reset = %+v, want %+v", got, want)
		}

		rd := db.Read()
		for name, st := range map[string]listings.Status{"free": "", "generating": "", "retired": "",
			"sold": listings.StatusSold, "reserved": listings.StatusReserved, "removed": listings.StatusRemoved,
			"relisted": listings.StatusArchived, "held": listings.StatusArchived} {
			l, err := rd.ListingByID(ctx, mine[name].ID)
			if st == "" {
				wantCode(t, err, market.CodeListingNotFound)
				continue
			}
			if err != nil || l.Status != st {
				t.Fatalf("listing %s: %+v %v, want %s", name, l, err, st)
			}
			if archived := st == listings.StatusArchived; archived != l.UpdatedAt.Equal(now) {
				t.Fatalf("listing %s updated at %v", name, l.UpdatedAt)
			}
		}
		for name, o := range sales {
			if _, err := rd.OrderByID(ctx, o.ID); err != nil {
				t.Fatalf("the other buyer's order of %s: %v", name, err)
			}
		}
		for name, o := range bought {
			_, err := rd.OrderByID(ctx, o.ID)
			switch name {
			case "paid", "refund due", "disputed":
				if err != nil {
					t.Fatalf("in-progress order %s: %v", name, err)
				}
			default:
				wantCode(t, err, market.CodeNotFound)
			}
		}
		_, err = rd.ApprovalByID(ctx, pending)
		wantCode(t, err, market.CodeNotFound)
		if p, err := rd.PhotoUploadByID(ctx, upload); err != nil || p.ListingID != "" {
			t.Fatalf("photo of a deleted listing: %+v %v", p, err)
		}
		if w, n, err := rd.Watching(ctx, me, bought["paid"].ListingID); err != nil || w || n != 1 {
			t.Fatalf("my watch: watching %v, count %d, %v", w, n, err)
		}
		if w, _, _ := rd.Watching(ctx, watcher, bought["paid"].ListingID); !w {
			t.Fatal("the reset removed another user's watch")
		}
		if mineLeft, theirs := spendRows(t, db, me), spendRows(t, db, other); mineLeft != 0 || theirs != 1 {
			t.Fatalf("spending rows: mine %d, theirs %d", mineLeft, theirs)
		}
		_, err = db.IdempotencyRecord(ctx, me, "done")
		wantCode(t, err, market.CodeNotFound)
		if _, err := db.IdempotencyRecord(ctx, me, "running"); err != nil {
			t.Fatalf("a running request's key: %v", err)
		}
		if _, err := db.IdempotencyRecord(ctx, other, "done"); err != nil {
			t.Fatalf("another user's key: %v", err)
		}
		if keys, err := rd.KeysOf(ctx, me); err != nil || len(keys) != 1 {
			t.Fatalf("keys after the reset: %d %v", len(keys), err)
		}

		// Again: nothing left to clear; what stays is counted as kept.
		got, err = db.SandboxReset(ctx, me, now.Add(time.Hour))
		if want := (sandbox.Cleared{ListingsKept: 5, OrdersKept: 3}); err != nil || got != want {
			t.Fatalf("second reset = %+v %v, want %+v", got, err, want)
		}
	})
}

// TestSandboxResetKeepsUnfinishedMoney: an order whose refund the processor
// has not taken (or whose transfer reversal is not made) yet, or with a
// dispute not resolved, survives a reset whatever its status, with its
// refund row: the payout job must still be able to finish the refund.
// Settled ones go.
func TestSandboxResetKeepsUnfinishedMoney(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var me string
		bought := map[string]*orders.Order{}
		refunds := map[string]string{} // order name -> refund id
		kept := map[string]bool{}
		mustTx(t, db, func(tx *store.Tx) error {
			me = newUser(t, tx, "me@example.com", "me").ID
			seller := newUser(t, tx, "seller@example.com", "seller").ID
			paidAt := t0
			for _, c := range []struct {
				name     string
				status   orders.Status
				refund   orders.RefundStatus // "" for no refund row
				reverse  int64               // the refund's reversal still to make
				dispute  orders.DisputeStatus
				survives bool
			}{
				{"refund pending", orders.StatusCancelled, orders.RefundPending, 0, "", true},
				{"reversal pending", orders.StatusRefunded, orders.RefundSucceeded, 700, "", true},
				{"refund done", orders.StatusCancelled, orders.RefundSucceeded, 0, "", false},
				{"dispute open", orders.StatusCompleted, "", 0, orders.DisputeOpen, true},
				{"dispute answered", orders.StatusCancelled, orders.RefundSucceeded, 0, orders.DisputeResponded, true},
				{"dispute resolved", orders.StatusCompleted, "", 0, orders.DisputeResolved, false},
			} {
				l := newListing(seller, t0, 1000)
				if err := tx.CreateListing(ctx, l); err != nil {
					return err
				}
				o := resetOrder(l.ID, me, seller, c.status)
				o.PaidAt = &paidAt
				if c.refund != "" {
					o.AmountRefunded = o.Fees.TotalCharged
				}
				if err := tx.CreateOrder(ctx, o); err != nil {
					return err
				}
				bought[c.name], kept[c.name] = o, c.survives
				if c.refund != "" {
					r := &orders.Refund{ID: market.NewID(), OrderID: o.ID, Amount: o.Fees.TotalCharged, Status: c.refund,
						Reason: "order cancelled", RequestedBy: seller, InitiatedBy: orders.InitiatedBySeller, DecidedBy: seller,
						SellerShare: 970, PlatformShare: 80, ReverseAmount: c.reverse, CreatedAt: t0, DecidedAt: &paidAt, UpdatedAt: t0}
					if err := tx.CreateRefund(ctx, r); err != nil {
						return err
					}
					refunds[c.name] = r.ID
				}
				if c.dispute != "" {
					d := &orders.Dispute{ID: market.NewID(), OrderID: o.ID, BuyerID: me, SellerID: seller, Status: c.dispute,
						Reason: "damaged", Description: "Cracked.", PhotoIDs: []string{}, SellerPhotoIDs: []string{},
						CreatedAt: t0, UpdatedAt: t0}
					if err := tx.CreateDispute(ctx, d); err != nil {
						return err
					}
				}
			}
			return nil
		})

		got, err := db.SandboxReset(ctx, me, t0.Add(time.Hour))
		if want := (sandbox.Cleared{OrdersDeleted: 2, OrdersKept: 4}); err != nil || got != want {
			t.Fatalf("reset = %+v %v, want %+v", got, err, want)
		}
		rd := db.Read()
		for name, o := range bought {
			_, err := rd.OrderByID(ctx, o.ID)
			if !kept[name] {
				wantCode(t, err, market.CodeNotFound)
				continue
			}
			if err != nil {
				t.Fatalf("order %s: %v", name, err)
			}
			if id := refunds[name]; id != "" {
				if r, err := rd.RefundByID(ctx, id); err != nil || r.OrderID != o.ID {
					t.Fatalf("refund of %s: %+v %v", name, r, err)
				}
			}
		}
		// The payout job still finds the refunds it has to finish.
		ids, err := rd.UnfinishedRefunds(ctx, 10)
		if err != nil || len(ids) != 2 {
			t.Fatalf("unfinished refunds after the reset: %v %v", ids, err)
		}
	})
}
