package storetest

import (
	"context"
	"testing"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/webhooks"
)

// TestWebhooks: endpoints round-trip (filter, casing, enabled), deliveries
// keep nullable fields and history, list newest first with a limit, and
// deleting an endpoint takes its deliveries with it.
func TestWebhooks(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var user string
		mustTx(t, db, func(tx *store.Tx) error {
			user = newUser(t, tx, "w@example.com", "hooks").ID
			return nil
		})
		acct := &webhooks.Endpoint{ID: market.NewID(), UserID: user, Kind: webhooks.KindAccount, URL: "https://a.example/h",
			Secret: "whsec_x", Events: []string{"*"}, Enabled: true, CreatedAt: t0, UpdatedAt: t0}
		agent := &webhooks.Endpoint{ID: market.NewID(), UserID: user, Kind: webhooks.KindAgent, URL: "https://b.example/h",
			Secret: "whsec_y", Events: []string{"order.created", "offer.received"}, Snake: true, Enabled: true,
			CreatedAt: t0.Add(time.Second), UpdatedAt: t0.Add(time.Second)}
		mustTx(t, db, func(tx *store.Tx) error {
			if err := tx.InsertWebhookEndpoint(ctx, acct); err != nil {
				return err
			}
			return tx.InsertWebhookEndpoint(ctx, agent)
		})
		// A second account endpoint for the same user is refused.
		err := db.InTx(ctx, func(tx *store.Tx) error {
			dup := *acct
			dup.ID = market.NewID()
			return tx.InsertWebhookEndpoint(ctx, &dup)
		})
		if err == nil {
			t.Fatal("a second account endpoint was stored")
		}
		eps, err := db.Read().WebhookEndpoints(ctx, user)
		if err != nil || len(eps) != 2 || eps[0].ID != acct.ID || !eps[1].Snake || eps[0].Snake ||
			len(eps[1].Events) != 2 || !eps[1].Enabled || !eps[1].CreatedAt.Equal(agent.CreatedAt) {
			t.Fatalf("endpoints = %+v, %v", eps, err)
		}
		agent.Enabled, agent.DisabledReason = false, "gone"
		mustTx(t, db, func(tx *store.Tx) error { return tx.UpdateWebhookEndpoint(ctx, agent) })
		if got, err := db.Read().WebhookEndpoint(ctx, agent.ID); err != nil || got.Enabled || got.DisabledReason != "gone" {
			t.Fatalf("updated endpoint = %+v, %v", got, err)
		}
		if _, err := db.Read().WebhookEndpoint(ctx, "nope"); market.CodeOf(err) != market.CodeNotFound {
			t.Fatalf("missing endpoint: %v", err)
		}

		var ids []string
		mustTx(t, db, func(tx *store.Tx) error {
			for i := 0; i < 3; i++ {
				next := t0.Add(time.Minute)
				d := &webhooks.Delivery{ID: market.NewID(), EndpointID: acct.ID, EventID: market.NewID(), EventType: "order.created",
					Status: webhooks.StatusPending, NextAttemptAt: &next, CreatedAt: t0.Add(time.Duration(i) * time.Second)}
				if err := tx.InsertWebhookDelivery(ctx, d); err != nil {
					return err
				}
				ids = append(ids, d.ID)
			}
			return nil
		})
		d, err := db.Read().WebhookDelivery(ctx, ids[0])
		if err != nil || d.LastStatusCode != nil || d.DeliveredAt != nil || d.NextAttemptAt == nil || len(d.History) != 0 {
			t.Fatalf("new delivery = %+v, %v", d, err)
		}
		code := 204
		at := t0.Add(2 * time.Minute)
		d.Status, d.Attempts, d.LastStatusCode, d.NextAttemptAt, d.DeliveredAt = webhooks.StatusDelivered, 1, &code, nil, &at
		d.History = append(d.History, webhooks.Attempt{At: at, StatusCode: 204, DurationMS: 12})
		mustTx(t, db, func(tx *store.Tx) error { return tx.UpdateWebhookDelivery(ctx, d) })
		d, err = db.Read().WebhookDelivery(ctx, ids[0])
		if err != nil || d.Status != webhooks.StatusDelivered || d.LastStatusCode == nil || *d.LastStatusCode != 204 ||
			d.NextAttemptAt != nil || d.DeliveredAt == nil || !d.DeliveredAt.Equal(at) || len(d.History) != 1 || d.History[0].DurationMS != 12 {
			t.Fatalf("updated delivery = %+v, %v", d, err)
		}
		page, err := db.Read().WebhookDeliveries(ctx, acct.ID, 2)
		if err != nil || len(page) != 2 || page[0].ID != ids[2] || page[1].ID != ids[1] {
			t.Fatalf("newest first = %+v, %v", page, err)
		}
		mustTx(t, db, func(tx *store.Tx) error { return tx.DeleteWebhookEndpoint(ctx, acct.ID) })
		if _, err := db.Read().WebhookDelivery(ctx, ids[1]); market.CodeOf(err) != market.CodeNotFound {
			t.Fatalf("delivery of a deleted endpoint: %v", err)
		}
	})
}
