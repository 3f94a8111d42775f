package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"marketplace/internal/market"
	"marketplace/internal/webhooks"
)

// WebhookQueue is the queue of webhook deliveries, apart from the other
// jobs so that a burst of events neither waits behind them nor holds them
// up.
const WebhookQueue = "webhooks"

// WebhookWorkers is how many deliveries are sent at once: most of a
// delivery is waiting for the receiver.
const WebhookWorkers = 32

// DeliverWebhookArgs sends one webhook delivery.
type DeliverWebhookArgs struct {
	DeliveryID string `json:"delivery_id"`
}

// Kind names the job.
func (DeliverWebhookArgs) Kind() string { return "deliver_webhook" }

// InsertOpts puts the job on the webhook queue.
func (DeliverWebhookArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: WebhookQueue} }

var _ webhooks.Scheduler = (*Queue)(nil)

// ScheduleDelivery enqueues a delivery in tx, the transaction that makes
// it (and records its event): none is lost to a crash, none is sent for a
// change rolled back.
func (q *Queue) ScheduleDelivery(ctx context.Context, tx webhooks.Tx, deliveryID string, maxAttempts int) error {
	sqlTx, ok := tx.(interface{ SQLTx() *sql.Tx })
	if !ok || sqlTx.SQLTx() == nil {
		return market.Internal(fmt.Errorf("webhook delivery %s must be scheduled inside a transaction", deliveryID))
	}
	_, err := q.Client.InsertTx(ctx, sqlTx.SQLTx(), DeliverWebhookArgs{DeliveryID: deliveryID},
		&river.InsertOpts{Queue: WebhookQueue, MaxAttempts: maxAttempts})
	if err != nil {
		return market.Internal(fmt.Errorf("enqueue webhook delivery %s: %w", deliveryID, err))
	}
	return nil
}

type webhookWorker struct {
	river.WorkerDefaults[DeliverWebhookArgs]
	webhooks *webhooks.Service
}

// errRetry makes River try the job again (at NextRetry); the delivery's
// history already says why.
type errRetry struct{ id string }

func (e errRetry) Error() string { return "webhook delivery " + e.id + " not accepted yet; will retry" }

func (w *webhookWorker) Work(ctx context.Context, job *river.Job[DeliverWebhookArgs]) error {
	retry, err := w.webhooks.Deliver(ctx, job.Args.DeliveryID, job.Attempt, job.MaxAttempts)
	if err != nil {
		return err
	}
	if retry {
		return errRetry{job.Args.DeliveryID}
	}
	return nil
}

// NextRetry follows the contract's schedule on real time (the sandbox
// clock never moves it).
func (w *webhookWorker) NextRetry(job *river.Job[DeliverWebhookArgs]) time.Time {
	return time.Now().Add(w.webhooks.RetryDelay(job.Args.DeliveryID, job.Attempt))
}

// Timeout covers one attempt (10 s) and the bookkeeping around it.
func (w *webhookWorker) Timeout(*river.Job[DeliverWebhookArgs]) time.Duration {
	return 30 * time.Second
}

// webhookQueue is the delivery queue's configuration. River polls for it
// every 100 ms on both engines: on SQLite it has no listener (PollOnly),
// and River's database/sql driver for PostgreSQL has none either, so the
// default one-second poll would be the delay from commit to delivery.
func webhookQueue() river.QueueConfig {
	return river.QueueConfig{MaxWorkers: WebhookWorkers, FetchPollInterval: 100 * time.Millisecond,
		FetchCooldown: 20 * time.Millisecond}
}
