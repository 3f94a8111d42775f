package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"marketplace/internal/sandbox"
)

// The sandbox's clock (sandbox.OffsetStore): how far it runs ahead of real
// time.
var _ sandbox.OffsetStore = (*DB)(nil)

// SandboxClockOffset is the stored offset of the sandbox clock (0 before
// the first advance).
func (db *DB) SandboxClockOffset(ctx context.Context) (time.Duration, error) {
	var ns int64
	err := db.Read().queryRow(ctx, `SELECT offset_ns FROM sandbox_clock WHERE id = 1`).Scan(&ns)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return time.Duration(ns), wrap(err)
}

// AdvanceSandboxClock adds d to the stored offset in one statement, so
// concurrent advances all count, and returns the new offset.
func (db *DB) AdvanceSandboxClock(ctx context.Context, d time.Duration) (time.Duration, error) {
	var ns int64
	err := db.InTx(ctx, func(tx *Tx) error {
		return wrap(tx.queryRow(ctx, `INSERT INTO sandbox_clock (id, offset_ns) VALUES (1, ?)
			ON CONFLICT (id) DO UPDATE SET offset_ns = sandbox_clock.offset_ns + excluded.offset_ns
			RETURNING offset_ns`, int64(d)).Scan(&ns))
	})
	return time.Duration(ns), err
}
