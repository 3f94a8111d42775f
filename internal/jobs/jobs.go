// Package jobs runs background work on River: workers, periodic sweeps, and
// the queue itself (on the same database as everything else, so jobs are
// enqueued in the transaction of the change that causes them).
package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"marketplace/internal/agents"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/notify"
	"marketplace/internal/offers"
	"marketplace/internal/orders"
	"marketplace/internal/store"
	"marketplace/internal/webhooks"
)

// Queue is the River client and what it needs to run.
type Queue struct {
	Client  *river.Client[*sql.Tx]
	db      *store.DB
	workers *river.Workers
	log     *slog.Logger
}

// driver picks River's driver for the store's engine. Both speak
// database/sql, so the client's transaction type is *sql.Tx either way.
func driver(db *store.DB) riverdriver.Driver[*sql.Tx] {
	if db.Dialect() == store.Postgres {
		return riverdatabasesql.New(db.WritePool())
	}
	return riversqlite.New(db.WritePool())
}

// Migrate brings River's own tables up to date.
func Migrate(ctx context.Context, db *store.DB) error {
	m, err := rivermigrate.New(driver(db), nil)
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	return nil
}

// Services are what the workers call.
type Services struct {
	Agents      *agents.Service
	Listings    *listings.Service
	Orders      *orders.Service
	Offers      *offers.Service
	Idempotency Purger
	Mail        *notify.Service // sends the outbox's queued mails (mail.go)
	Webhooks    *webhooks.Service
}

// Purger deletes idempotency records that have expired.
type Purger interface {
	PurgeIdempotency(ctx context.Context, now time.Time) (int64, error)
}

// Periods of the sweeps: the reconciler runs often, so a crash between
// charge and settlement (or an expired checkout) is repaired within a minute
// of its grace period ending.
const (
	ReconcileEvery = time.Minute
	PurgeKeysEvery = time.Hour
)

// ExpireOnboardingEvery is how often unused magic links are swept.
const ExpireOnboardingEvery = 15 * time.Minute

// New builds the queue on db: River's client with the periodic sweeps and
// no workers yet. It can enqueue at once, in the store's transactions, so
// the services that enqueue (listings, notify, webhooks, the automatic
// label) take it in their constructors; Work then registers the workers,
// which call those services, before Start. This is the one edge of the
// cycle (services enqueue jobs, jobs call services) bound after
// construction, and it is River's own way: workers may be added to a
// client's bundle until it starts. A second, insert-only client would
// avoid even that, but River wakes its producers at once only for the jobs
// its own client inserts (neither driver here listens), so every job would
// wait for the next poll.
func New(db *store.DB, log *slog.Logger) (*Queue, error) {
	workers := river.NewWorkers()
	client, err := river.NewClient(driver(db), &river.Config{
		Queues:  map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 4}},
		Workers: workers,
		PeriodicJobs: []*river.PeriodicJob{
			river.NewPeriodicJob(river.PeriodicInterval(ExpireOnboardingEvery),
				func() (river.JobArgs, *river.InsertOpts) { return ExpireOnboardingArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(ReconcileEvery),
				func() (river.JobArgs, *river.InsertOpts) { return ReconcileArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(ReconcileEvery),
				func() (river.JobArgs, *river.InsertOpts) { return PayoutsArgs{}, nil }, nil),
			river.NewPeriodicJob(river.PeriodicInterval(ReconcileEvery),
				func() (river.JobArgs, *river.InsertOpts) { return ExpireOffersArgs{}, nil }, nil),
			river.NewPeriodicJob(river.PeriodicInterval(PurgeKeysEvery),
				func() (river.JobArgs, *river.InsertOpts) { return PurgeKeysArgs{}, nil }, nil),
		},
		// River polls on SQLite, as it did before its SQLite driver had a
		// listener (v0.40): the listener reads its notification table every
		// 50 ms, on the store's one write connection.
		PollOnly: db.Dialect() == store.SQLite,
		Logger:   log.With("component", "river"),
	})
	if err != nil {
		return nil, err
	}
	return &Queue{Client: client, db: db, workers: workers, log: log}, nil
}

// Work registers every worker over svc, and the webhook queue when svc has
// the webhooks service. Call it once, before Start and before anything is
// enqueued: River refuses a job whose kind has no worker when it is
// inserted, so a job enqueued too early fails loudly rather than waiting.
func (q *Queue) Work(svc Services) error {
	workers, log := q.workers, q.log
	if err := river.AddWorkerSafely(workers, &expireOnboardingWorker{agents: svc.Agents, log: log}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &generateListingWorker{listings: svc.Listings}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &autoLabelWorker{orders: svc.Orders, log: log}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &sweepWorker[ReconcileArgs]{run: svc.Orders.Reconcile,
		what: "reconciled orders", log: log}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &sweepWorker[PayoutsArgs]{run: svc.Orders.ReleasePayouts,
		what: "released payouts and confirmed deliveries", log: log}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &sweepWorker[ExpireOffersArgs]{run: svc.Offers.ExpireDue,
		what: "expired offers", log: log}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &sendMailWorker{mail: svc.Mail}); err != nil {
		return err
	}
	purge := func(ctx context.Context) (int, error) {
		n, err := svc.Idempotency.PurgeIdempotency(ctx, time.Now())
		return int(n), err
	}
	if err := river.AddWorkerSafely(workers, &sweepWorker[PurgeKeysArgs]{run: purge, what: "purged idempotency keys", log: log}); err != nil {
		return err
	}
	if svc.Webhooks != nil {
		if err := river.AddWorkerSafely(workers, &webhookWorker{webhooks: svc.Webhooks}); err != nil {
			return err
		}
		if err := q.Client.Queues().Add(WebhookQueue, webhookQueue()); err != nil {
			return err
		}
	}
	return nil
}

// Start starts working jobs.
func (q *Queue) Start(ctx context.Context) error { return q.Client.Start(ctx) }

// Stop lets running jobs finish (until ctx ends), then stops.
func (q *Queue) Stop(ctx context.Context) error { return q.Client.Stop(ctx) }

// Healthy reports whether the queue can be used: its tables answer.
func (q *Queue) Healthy(ctx context.Context) error {
	var n int
	return q.db.WritePool().QueryRowContext(ctx, "SELECT COUNT(*) FROM river_queue").Scan(&n)
}

// ExpireOnboardingArgs is the periodic sweep of unused magic links.
type ExpireOnboardingArgs struct{}

// Kind names the job.
func (ExpireOnboardingArgs) Kind() string { return "expire_onboarding" }

type expireOnboardingWorker struct {
	river.WorkerDefaults[ExpireOnboardingArgs]
	agents *agents.Service
	log    *slog.Logger
}

func (w *expireOnboardingWorker) Work(ctx context.Context, _ *river.Job[ExpireOnboardingArgs]) error {
	n, err := w.agents.ExpireOnboarding(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		w.log.Info("expired onboarding sessions", "count", n)
	}
	return nil
}

// GenerateListingArgs finishes the generation of a listing that create left
// pending.
type GenerateListingArgs struct {
	ListingID string `json:"listing_id"`
}

// Kind names the job.
func (GenerateListingArgs) Kind() string { return "generate_listing" }

// ScheduleGeneration enqueues generation in the transaction that creates
// the listing, to run after delay.
func (q *Queue) ScheduleGeneration(ctx context.Context, tx listings.Tx, listingID string, delay time.Duration) error {
	sqlTx, ok := tx.(interface{ SQLTx() *sql.Tx })
	if !ok || sqlTx.SQLTx() == nil {
		return market.Internal(fmt.Errorf("generation must be scheduled inside a transaction"))
	}
	_, err := q.Client.InsertTx(ctx, sqlTx.SQLTx(), GenerateListingArgs{ListingID: listingID},
		&river.InsertOpts{ScheduledAt: time.Now().Add(delay), MaxAttempts: 10})
	if err != nil {
		return market.Internal(fmt.Errorf("enqueue generation: %w", err))
	}
	return nil
}

type generateListingWorker struct {
	river.WorkerDefaults[GenerateListingArgs]
	listings *listings.Service
}

func (w *generateListingWorker) Work(ctx context.Context, job *river.Job[GenerateListingArgs]) error {
	_, err := w.listings.Generate(ctx, job.Args.ListingID)
	switch market.CodeOf(err) {
	case market.CodeListingRestricted, market.CodeListingNotFound:
		return nil // the outcome is recorded on the listing, or it is gone
	}
	return err
}

// sweepWorker runs one periodic sweep and logs how much it changed.
type sweepWorker[A river.JobArgs] struct {
	river.WorkerDefaults[A]
	run  func(ctx context.Context) (int, error)
	what string
	log  *slog.Logger
}

func (w *sweepWorker[A]) Work(ctx context.Context, _ *river.Job[A]) error {
	n, err := w.run(ctx)
	if n > 0 {
		w.log.Info(w.what, "count", n)
	}
	return err
}

// ReconcileArgs is the periodic repair of orders stuck between charge and
// settlement, and the expiry of unpaid checkouts.
type ReconcileArgs struct{}

// Kind names the job.
func (ReconcileArgs) Kind() string { return "reconcile_orders" }

// PurgeKeysArgs is the periodic deletion of expired idempotency keys.
type PurgeKeysArgs struct{}

// Kind names the job.
func (PurgeKeysArgs) Kind() string { return "purge_idempotency_keys" }

// ExpireOffersArgs is the periodic expiry of offer rounds (and accepted
// offers' purchase windows) that ran out.
type ExpireOffersArgs struct{}

// Kind names the job.
func (ExpireOffersArgs) Kind() string { return "expire_offers" }

// PayoutsArgs is the periodic release of payouts whose hold has ended, and
// the confirmation of shipments nobody confirmed.
type PayoutsArgs struct{}

// Kind names the job.
func (PayoutsArgs) Kind() string { return "release_payouts" }
