package testkit

import (
	"context"

	"marketplace/internal/jobs"
	"marketplace/internal/store"
)

func jobsMigrate(ctx context.Context, db *store.DB) error { return jobs.Migrate(ctx, db) }
