package testkit

import (
	"context"

	"marketplace/internal/jobs"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

func jobsMigrate(ctx context.Context, db *store.DB) error { return jobs.Migrate(ctx, db) }

// withJobs prepares test stores with the job queue's tables once, in the
// template, instead of in every test.
var withJobs = &storetest.Prep{Name: "jobs", Run: jobsMigrate}
