package jobs

import (
	"context"

	"github.com/riverqueue/river/rivermigrate"

	"marketplace/internal/store"
)

// MigrateTo brings River's tables to version only, as an older River left
// them.
func MigrateTo(ctx context.Context, db *store.DB, version int) error {
	m, err := rivermigrate.New(driver(db), nil)
	if err != nil {
		return err
	}
	_, err = m.Migrate(ctx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{TargetVersion: version})
	return err
}

// RiverVersions lists River's migration versions applied to db, and all
// those this River knows.
func RiverVersions(ctx context.Context, db *store.DB) (applied, known []int, err error) {
	m, err := rivermigrate.New(driver(db), nil)
	if err != nil {
		return nil, nil, err
	}
	existing, err := m.ExistingVersions(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, v := range existing {
		applied = append(applied, v.Version)
	}
	for _, v := range m.AllVersions() {
		known = append(known, v.Version)
	}
	return applied, known, nil
}
