package jobs_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"marketplace/internal/agents"
	"marketplace/internal/jobs"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// setup migrates River on a fresh store and builds the queue over an agents
// service on a fixed clock.
func setup(t *testing.T, db *store.DB) (*jobs.Queue, *agents.Service, *market.FixedClock) {
	t.Helper()
	ctx := context.Background()
	if err := jobs.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	// Migrating twice is a no-op (start-up runs it every time).
	if err := jobs.Migrate(ctx, db); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
	clock := market.NewFixedClock(time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC))
	svc := agents.NewService(store.Agents(db), clock, agents.Options{})
	q, err := jobs.New(db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil {
		err = q.Work(jobs.Services{Agents: svc})
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Healthy(ctx); err != nil {
		t.Fatalf("healthy before start: %v", err)
	}
	return q, svc, clock
}

func initSession(t *testing.T, svc *agents.Service, email string) string {
	t.Helper()
	res, err := svc.AgentInit(context.Background(), agents.AgentInitInput{OwnerEmail: email, OwnerFirstName: "Job"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Session.ID
}

func status(t *testing.T, db *store.DB, id string) agents.OnboardingStatus {
	t.Helper()
	o, err := db.Read().OnboardingByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return o.Status
}

func stop(t *testing.T, q *jobs.Queue) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := q.Stop(ctx); err != nil {
		t.Fatalf("stop: %v", err)
	}
}

// TestExpireOnboarding shows the periodic expire_onboarding job, which runs
// when the queue starts, marks sessions whose link went unused for 24 hours
// as expired, and leaves younger ones alone.
func TestExpireOnboarding(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		q, svc, clock := setup(t, db)
		old := initSession(t, svc, "old@example.com")
		opened := initSession(t, svc, "opened@example.com")
		clock.Advance(12 * time.Hour)
		young := initSession(t, svc, "young@example.com")
		// The human opened one link but never finished: it expires too.
		ctx := context.Background()
		err := db.InTx(ctx, func(tx *store.Tx) error {
			o, err := tx.OnboardingByID(ctx, opened)
			if err != nil {
				return err
			}
			o.Status = agents.OnboardHumanCompleting
			return tx.UpdateOnboarding(ctx, o)
		})
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(12*time.Hour + time.Second)

		// Nothing happens until the queue runs: the rows are untouched.
		if st := status(t, db, old); st != agents.OnboardPendingHuman {
			t.Fatalf("status before the job = %s", st)
		}
		runCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		if err := q.Start(runCtx); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for status(t, db, old) != agents.OnboardExpired || status(t, db, opened) != agents.OnboardExpired {
			if time.Now().After(deadline) {
				t.Fatalf("after 10s: old %s, opened %s; want both expired", status(t, db, old), status(t, db, opened))
			}
			time.Sleep(50 * time.Millisecond)
		}
		if st := status(t, db, young); st != agents.OnboardPendingHuman {
			t.Fatalf("a 12-hour-old session is %s, want pending_human", st)
		}
		// The job finished successfully, under its kind.
		deadline = time.Now().Add(10 * time.Second)
		for {
			res, err := q.Client.JobList(ctx, river.NewJobListParams().Kinds("expire_onboarding").States(rivertype.JobStateCompleted))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Jobs) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no completed expire_onboarding job after 10s")
			}
			time.Sleep(50 * time.Millisecond)
		}
		stop(t, q)
		if err := q.Healthy(ctx); err != nil {
			t.Fatalf("healthy after stop: %v", err)
		}
	})
}

// running counts jobs River holds as running.
func running(t *testing.T, q *jobs.Queue) int {
	t.Helper()
	res, err := q.Client.JobList(context.Background(), river.NewJobListParams().States(rivertype.JobStateRunning))
	if err != nil {
		t.Fatal(err)
	}
	return len(res.Jobs)
}

// TestStopDrains shows Stop returns promptly and cleanly, right after the
// start (while the on-start sweep may be in flight) and after explicitly
// enqueued work, leaving no job half done.
func TestStopDrains(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		q, svc, clock := setup(t, db)
		ctx := context.Background()
		if err := q.Start(ctx); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		stop(t, q)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("Stop took %v", d)
		}
		if n := running(t, q); n != 0 {
			t.Fatalf("%d jobs left running after Stop", n)
		}

		// Again, with a session to expire and a sweep enqueued by hand.
		id := initSession(t, svc, "drain@example.com")
		clock.Advance(jobsTTL)
		if err := q.Start(ctx); err != nil {
			t.Fatalf("restart: %v", err)
		}
		if _, err := q.Client.Insert(ctx, jobs.ExpireOnboardingArgs{}, nil); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for status(t, db, id) != agents.OnboardExpired {
			if time.Now().After(deadline) {
				t.Fatal("the enqueued sweep did not run within 10s")
			}
			time.Sleep(50 * time.Millisecond)
		}
		stop(t, q)
		if n := running(t, q); n != 0 {
			t.Fatalf("%d jobs left running after Stop", n)
		}
		if err := q.Healthy(ctx); err != nil {
			t.Fatalf("healthy after stop: %v", err)
		}
	})
}

// jobsTTL is just past the magic link's lifetime.
const jobsTTL = agents.MagicLinkTTL + time.Second

// The queue is built before the services it runs (they enqueue on it) and
// gets its workers from Work. A job enqueued before Work is refused at once
// (River knows no worker of its kind), never left waiting; after Work it is
// accepted and worked.
func TestWorkRegistersWorkers(t *testing.T) {
	t.Parallel()
	db := storetest.OpenSQLite(t)
	ctx := context.Background()
	if err := jobs.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	q, err := jobs.New(db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var unknown *river.UnknownJobKindError
	if _, err := q.Client.Insert(ctx, jobs.ExpireOnboardingArgs{}, nil); !errors.As(err, &unknown) {
		t.Fatalf("insert before Work: %v, want an unknown job kind", err)
	}
	clock := market.NewFixedClock(time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC))
	svc := agents.NewService(store.Agents(db), clock, agents.Options{})
	if err := q.Work(jobs.Services{Agents: svc}); err != nil {
		t.Fatal(err)
	}
	id := initSession(t, svc, "late@example.com")
	clock.Advance(25 * time.Hour)
	if _, err := q.Client.Insert(ctx, jobs.ExpireOnboardingArgs{}, nil); err != nil {
		t.Fatalf("insert after Work: %v", err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := q.Start(runCtx); err != nil {
		t.Fatal(err)
	}
	defer stop(t, q)
	deadline := time.Now().Add(10 * time.Second)
	for status(t, db, id) != agents.OnboardExpired {
		if time.Now().After(deadline) {
			t.Fatalf("session %s is %s, want expired", id, status(t, db, id))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
