package jobs_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"marketplace/internal/agents"
	"marketplace/internal/jobs"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// riverV031 is the last River migration that River v0.31 had: a database
// started before the move to v0.51 has its River tables at this version.
// (Later Rivers ship migrations 1 to 6 unchanged but for comments.)
const riverV031 = 6

// oldJobs are rows as River v0.31 wrote them, per engine: on SQLite JSON
// as text, and a finalized_at in Go's time.String form (what v0.31's SQLite
// driver stored for completed jobs); each statement returns the row's id.
var oldJobs = map[store.Dialect][3]string{
	store.SQLite: {
		// available, due: the new River must work it
		`INSERT INTO river_job (args, kind, max_attempts, metadata, tags, created_at, scheduled_at)
		 VALUES ('{}', 'expire_onboarding', 25, '{}', '["old"]', '2026-01-01 10:00:00.000', '2026-01-01 10:00:00.000') RETURNING id`,
		// scheduled ten years on: it must stay scheduled, its args intact
		`INSERT INTO river_job (args, kind, max_attempts, metadata, tags, state, created_at, scheduled_at)
		 VALUES ('{"order_id":"ord_later"}', 'auto_label', 5, '{}', '[]', 'scheduled', '2026-01-01 10:00:00.000', '2036-01-01 10:00:00.000') RETURNING id`,
		// completed
		`INSERT INTO river_job (args, attempt, attempted_at, kind, max_attempts, metadata, tags, state, created_at, scheduled_at, finalized_at)
		 VALUES ('{}', 1, '2026-01-01 10:00:00.100', 'reconcile_orders', 25, '{}', '[]', 'completed', '2026-01-01 10:00:00.000', '2026-01-01 10:00:00.000',
		         '2026-01-01 10:00:00.843715873 +0000 UTC m=+1.781390059') RETURNING id`,
	},
	store.Postgres: {
		`INSERT INTO river_job (args, kind, max_attempts, metadata, tags, created_at, scheduled_at)
		 VALUES ('{}', 'expire_onboarding', 25, '{}', '{old}', now() - interval '1 hour', now() - interval '1 hour') RETURNING id`,
		`INSERT INTO river_job (args, kind, max_attempts, metadata, tags, state, scheduled_at)
		 VALUES ('{"order_id": "ord_later"}', 'auto_label', 5, '{}', '{}', 'scheduled', now() + interval '10 years') RETURNING id`,
		`INSERT INTO river_job (args, attempt, attempted_at, kind, max_attempts, metadata, tags, state, finalized_at)
		 VALUES ('{}', 1, now(), 'reconcile_orders', 25, '{}', '{}', 'completed', now()) RETURNING id`,
	},
}

// TestMigrateFromRiverV031 shows a database whose River tables and queued
// jobs were left by River v0.31 migrates forward at start-up, after which
// its due job is worked, its scheduled job waits, and its finished job
// still reads back.
func TestMigrateFromRiverV031(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if err := jobs.MigrateTo(ctx, db, riverV031); err != nil {
			t.Fatal(err)
		}
		var ids [3]int64
		for i, stmt := range oldJobs[db.Dialect()] {
			if err := db.WritePool().QueryRowContext(ctx, stmt).Scan(&ids[i]); err != nil {
				t.Fatalf("old job %d: %v", i, err)
			}
		}
		due, later, done := ids[0], ids[1], ids[2]

		if err := jobs.Migrate(ctx, db); err != nil {
			t.Fatalf("migrate from version %d: %v", riverV031, err)
		}
		applied, known, err := jobs.RiverVersions(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(applied, known) {
			t.Fatalf("River versions applied %v, want %v", applied, known)
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
		j, err := q.Client.JobGet(ctx, later)
		if err != nil {
			t.Fatal(err)
		}
		var args jobs.AutoLabelArgs
		if err := json.Unmarshal(j.EncodedArgs, &args); err != nil || args.OrderID != "ord_later" || j.MaxAttempts != 5 {
			t.Fatalf("scheduled job after migrating: args %s (%v), max attempts %d", j.EncodedArgs, err, j.MaxAttempts)
		}
		if j, err := q.Client.JobGet(ctx, done); err != nil || j.State != rivertype.JobStateCompleted || j.FinalizedAt == nil {
			t.Fatalf("completed job after migrating: %+v, %v", j, err)
		}

		runCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		if err := q.Start(runCtx); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			j, err := q.Client.JobGet(ctx, due)
			if err != nil {
				t.Fatal(err)
			}
			if j.State == rivertype.JobStateCompleted {
				if !slices.Equal(j.Tags, []string{"old"}) {
					t.Fatalf("tags of the old job = %v", j.Tags)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the old due job is %s after 10s, want completed", j.State)
			}
			time.Sleep(50 * time.Millisecond)
		}
		stop(t, q)
		if j, err := q.Client.JobGet(ctx, later); err != nil || j.State != rivertype.JobStateScheduled {
			t.Fatalf("scheduled job after running: %+v, %v", j, err)
		}
	})
}
