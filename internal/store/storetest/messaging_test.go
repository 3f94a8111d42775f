package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/messaging"
	"marketplace/internal/store"
)

// TestMessaging: one thread per buyer and listing, messages in order,
// unread counts per side, read marks, the threads page by last activity.
func TestMessaging(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var buyer, seller, other string
		var lamp, bowl string
		mustTx(t, db, func(tx *store.Tx) error {
			buyer, seller = newUser(t, tx, "b@example.com", "buyer").ID, newUser(t, tx, "s@example.com", "seller").ID
			other = newUser(t, tx, "o@example.com", "other").ID
			l1, l2 := newListing(seller, t0, 1000), newListing(seller, t0, 2000)
			l1.Title, l2.Title = "Lamp", "Bowl"
			lamp, bowl = l1.ID, l2.ID
			if err := tx.CreateListing(ctx, l1); err != nil {
				return err
			}
			return tx.CreateListing(ctx, l2)
		})
		area := store.Messaging(db)
		var th *messaging.Thread
		mustTx(t, db, func(tx *store.Tx) error {
			var err error
			th, err = tx.EnsureThread(ctx, &messaging.Thread{ID: market.NewID(), ListingID: lamp, BuyerID: buyer,
				SellerID: seller, LastMessageAt: t0, CreatedAt: t0})
			if err != nil {
				return err
			}
			again, err := tx.EnsureThread(ctx, &messaging.Thread{ID: market.NewID(), ListingID: lamp, BuyerID: buyer,
				SellerID: seller, LastMessageAt: t0, CreatedAt: t0})
			if err != nil {
				return err
			}
			if again.ID != th.ID {
				t.Errorf("second EnsureThread made %s, want the first %s", again.ID, th.ID)
			}
			return nil
		})
		at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
		add := func(th *messaging.Thread, sender string, typ messaging.Type, when time.Time, fields map[string]any) *messaging.Message {
			m := &messaging.Message{ID: market.NewID(), ThreadID: th.ID, SenderID: sender, Type: typ, Content: "hi",
				Fields: fields, CreatedAt: when}
			switch sender {
			case th.BuyerID:
				m.BuyerReadAt = &when
			case th.SellerID:
				m.SellerReadAt = &when
			}
			mustTx(t, db, func(tx *store.Tx) error { return tx.AddMessage(ctx, m, th) })
			return m
		}
		add(th, buyer, messaging.TypeText, at(1), map[string]any{"size": "L", "n": []any{1.0, "x"}})
		add(th, buyer, messaging.TypeText, at(2), nil)
		add(th, "", messaging.TypeSystem, at(3), nil)
		got, err := area.Read().ThreadByID(ctx, th.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.BuyerUnread != 1 || got.SellerUnread != 3 || !got.LastMessageAt.Equal(at(3)) {
			t.Errorf("thread = buyer %d seller %d last %v; want 1, 3, %v", got.BuyerUnread, got.SellerUnread,
				got.LastMessageAt, at(3))
		}
		ms, err := area.Read().Messages(ctx, th.ID)
		if err != nil || len(ms) != 3 {
			t.Fatalf("messages = %d, %v", len(ms), err)
		}
		if ms[0].Fields["size"] != "L" || ms[1].Fields != nil || ms[2].Type != messaging.TypeSystem || ms[2].SenderID != "" {
			t.Errorf("messages = %+v", ms)
		}
		if n, _ := area.Read().UnreadTotal(ctx, seller); n != 3 {
			t.Errorf("seller unread total = %d, want 3", n)
		}
		mustTx(t, db, func(tx *store.Tx) error { return tx.MarkRead(ctx, th.ID, false, at(4)) })
		got, _ = area.Read().ThreadByID(ctx, th.ID)
		if got.SellerUnread != 0 || got.BuyerUnread != 1 {
			t.Errorf("after seller read: buyer %d seller %d", got.BuyerUnread, got.SellerUnread)
		}
		ms, _ = area.Read().Messages(ctx, th.ID)
		for _, m := range ms {
			if m.SellerReadAt == nil {
				t.Errorf("message %s unread for the seller after MarkRead", m.ID)
			}
		}
		if ms[2].BuyerReadAt != nil {
			t.Errorf("system message read for the buyer: %v", ms[2].BuyerReadAt)
		}

		// A second thread, newer; pages by last activity.
		var th2 *messaging.Thread
		mustTx(t, db, func(tx *store.Tx) error {
			var err error
			th2, err = tx.EnsureThread(ctx, &messaging.Thread{ID: market.NewID(), ListingID: bowl, BuyerID: buyer,
				SellerID: seller, LastMessageAt: at(5), CreatedAt: at(5)})
			return err
		})
		last := add(th2, seller, messaging.TypeText, at(6), nil)
		for _, who := range []string{buyer, seller} {
			ts, err := area.Read().Threads(ctx, messaging.ThreadFilter{UserID: who, Limit: 10})
			if err != nil || len(ts) != 2 || ts[0].ID != th2.ID || ts[1].ID != th.ID {
				t.Fatalf("threads of %s = %+v, %v", who, ts, err)
			}
			if ts[0].LastMessage == nil || ts[0].LastMessage.ID != last.ID || ts[0].ListingTitle != "Bowl" {
				t.Errorf("last message = %+v, title %q", ts[0].LastMessage, ts[0].ListingTitle)
			}
			page, err := area.Read().Threads(ctx, messaging.ThreadFilter{UserID: who, Limit: 10,
				Before: &messaging.Cursor{At: ts[0].LastMessageAt, ID: ts[0].ID}})
			if err != nil || len(page) != 1 || page[0].ID != th.ID {
				t.Errorf("second page of %s = %+v, %v", who, page, err)
			}
		}
		if ts, _ := area.Read().Threads(ctx, messaging.ThreadFilter{UserID: seller, ListingID: bowl, Limit: 10}); len(ts) != 1 {
			t.Errorf("seller's threads on the bowl = %d, want 1", len(ts))
		}
		if ts, _ := area.Read().Threads(ctx, messaging.ThreadFilter{UserID: other, Limit: 10}); len(ts) != 0 {
			t.Errorf("a stranger sees %d threads", len(ts))
		}
		if _, err := area.Read().ThreadOf(ctx, lamp, other); market.CodeOf(err) != market.CodeNotFound {
			t.Errorf("ThreadOf a stranger = %v, want NOT_FOUND", err)
		}

		// Concurrent sends and reads keep the counts exact.
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := db.InTx(ctx, func(tx *store.Tx) error {
					cur, err := tx.ThreadByID(ctx, th.ID)
					if err != nil {
						return err
					}
					if i%5 == 0 {
						return tx.MarkRead(ctx, th.ID, true, at(10))
					}
					when := at(10 + i)
					return tx.AddMessage(ctx, &messaging.Message{ID: market.NewID(), ThreadID: th.ID, SenderID: seller,
						Type: messaging.TypeText, Content: "x", SellerReadAt: &when, CreatedAt: when}, cur)
				})
				if err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		var unread int
		q := `SELECT COUNT(*) FROM messages WHERE thread_id = ? AND buyer_read_at IS NULL`
		if db.Dialect() == store.Postgres {
			q = `SELECT COUNT(*) FROM messages WHERE thread_id = $1 AND buyer_read_at IS NULL`
		}
		if err := db.WritePool().QueryRowContext(ctx, q, th.ID).Scan(&unread); err != nil {
			t.Fatal(err)
		}
		got, _ = area.Read().ThreadByID(ctx, th.ID)
		if got.BuyerUnread != unread {
			t.Errorf("buyer unread = %d, but %d messages are unread for the buyer", got.BuyerUnread, unread)
		}
		if n, _ := area.Read().UnreadTotal(ctx, buyer); n != unread+1 {
			t.Errorf("buyer unread total = %d, want %d", n, unread+1)
		}
	})
}
