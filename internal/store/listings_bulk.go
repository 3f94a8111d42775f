package store

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"marketplace/internal/listings"
)

// Bulk inserts of listings, for seeding: the same rows, search index
// entries and admin counts as one CreateListing per listing, at a fraction
// of the cost.

// maxParams is how many bound parameters one statement may carry:
// PostgreSQL's wire protocol counts them in 16 bits, SQLite's default
// SQLITE_MAX_VARIABLE_NUMBER is 32766.
func (db *DB) maxParams() int {
	if db.dialect == Postgres {
		return 65535
	}
	return 32766
}

// CreateListings inserts ls with multi-row INSERTs, as many rows a
// statement as the parameter limit allows: one round trip and, on
// PostgreSQL, one firing of the statement triggers that keep admin_counts
// per statement rather than per listing. The tsvector columns are generated
// and SQLite's full-text rows are written by row triggers, so both come out
// as CreateListing's.
func (tx *Tx) CreateListings(ctx context.Context, ls []*listings.Listing) error {
	per := tx.db.maxParams() / listingColumnCount
	for len(ls) > 0 {
		n := min(per, len(ls))
		if err := tx.insertListings(ctx, ls[:n]); err != nil {
			return err
		}
		ls = ls[n:]
	}
	return nil
}

var listingColumnCount = len(splitColumns(listingColumns))

func (tx *Tx) insertListings(ctx context.Context, ls []*listings.Listing) error {
	row := "(" + placeholders(listingColumnCount) + ")"
	var q strings.Builder
	q.WriteString(`INSERT INTO listings (` + listingColumns + `) VALUES `)
	args := make([]any, 0, len(ls)*listingColumnCount)
	for i, l := range ls {
		a, err := listingArgs(l)
		if err != nil {
			return err
		}
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(row)
		args = append(args, a...)
	}
	_, err := tx.exec(ctx, q.String(), args...)
	return wrap(err)
}

// BulkLoadListings runs load, which hands every batch of new listings to
// insert, and sees that they are inserted with CreateListings.
//
// On PostgreSQL the whole load is one transaction. When it adds at least as
// many listings as the table holds, the listings' secondary indexes (the
// full-text and trigram GIN indexes above all, which cost more than half of
// an insert row by row) are dropped at the start and built again from the
// loaded table at the end, with the definitions read from the database
// itself just before, so they cannot drift from the migrations. DDL is
// transactional: a load that fails or a process that dies leaves the table
// and its indexes as they were. The price, which suits a seed: the table
// is locked against readers and writers until the load commits, and the
// open transaction holds back the event feed of this database (events.go,
// pgXmin), which shows nothing newer until it ends. Committing batch by batch, with the indexes
// created again in a transaction of their own, measured no faster (the
// generated tsvector columns, not commits, bound the load) and would need
// the dropped definitions kept somewhere to recover from a crash.
//
// On SQLite each batch is a transaction of its own (one transaction of a
// million listings would hold the whole load in the WAL), the write
// connection gets a larger page cache for the duration, and the WAL is
// emptied whenever it passes bulkWALLimit (sqliteBulkLoad).
func (db *DB) BulkLoadListings(ctx context.Context, total int, load func(insert func([]*listings.Listing) error) error) error {
	if db.dialect == SQLite {
		return db.sqliteBulkLoad(ctx, load)
	}
	return db.InTx(ctx, func(tx *Tx) error {
		rebuild, err := tx.dropListingIndexes(ctx, total)
		if err != nil {
			return err
		}
		if err := load(func(ls []*listings.Listing) error { return tx.CreateListings(ctx, ls) }); err != nil {
			return err
		}
		return rebuild(ctx)
	})
}

// rebuildMemory is maintenance_work_mem for building the indexes again: a
// GIN index is built in memory until this fills, then merged from runs.
const rebuildMemory = "512MB"

// dropListingIndexes drops the listings' secondary indexes when adding n
// listings at least doubles the table, and returns what creates them again
// (nothing when it dropped none). Indexes that enforce a constraint or
// uniqueness stay: the load must be checked as it goes.
func (tx *Tx) dropListingIndexes(ctx context.Context, n int) (func(context.Context) error, error) {
	var have int
	if err := tx.queryRow(ctx, `SELECT COALESCE(SUM(n), 0) FROM admin_counts WHERE name = 'listings'`).Scan(&have); err != nil {
		return nil, wrap(err)
	}
	if n < have || n == 0 {
		return func(context.Context) error { return nil }, nil
	}
	defs, err := queryAll(ctx, tx, scanIndexDef, `SELECT c.relname, pg_get_indexdef(c.oid) FROM pg_index x
		JOIN pg_class c ON c.oid = x.indexrelid
		WHERE x.indrelid = 'listings'::regclass AND NOT x.indisunique AND NOT x.indisprimary
		AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid)
		ORDER BY c.relname`)
	if err != nil {
		return nil, err
	}
	for _, d := range defs {
		if _, err := tx.exec(ctx, `DROP INDEX `+quoteIdent(d.name)); err != nil {
			return nil, wrap(err)
		}
	}
	return func(ctx context.Context) error {
		if _, err := tx.exec(ctx, `SET LOCAL maintenance_work_mem = '`+rebuildMemory+`'`); err != nil {
			return wrap(err)
		}
		for _, d := range defs {
			if _, err := tx.exec(ctx, d.def); err != nil {
				return wrap(fmt.Errorf("rebuild %s: %w", d.name, err))
			}
		}
		return nil
	}, nil
}

type indexDef struct{ name, def string }

func scanIndexDef(row scanner) (*indexDef, error) {
	var d indexDef
	if err := row.Scan(&d.name, &d.def); err != nil {
		return nil, wrap(err)
	}
	return &d, nil
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// sqliteBulkLoad runs load with a transaction per batch on a write
// connection given a page cache of 128 MiB and in-memory temporary files,
// and puts the previous settings back after. With the default cache (2 MB)
// a transaction of a thousand listings, which touches pages of the listings
// table, ten indexes and the full-text index, spills dirty pages into the
// WAL before it commits and writes the statement journal of every insert's
// triggers to a file: about 40% of a seed's time (30,000 listings one by
// one: 8-9 s, 5 s with these).
func (db *DB) sqliteBulkLoad(ctx context.Context, load func(insert func([]*listings.Listing) error) error) error {
	var cacheSize, tempStore int64
	if err := db.write.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cacheSize); err != nil {
		return wrap(err)
	}
	if err := db.write.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&tempStore); err != nil {
		return wrap(err)
	}
	defer func() {
		// A fresh context: the settings go back even when ctx was cancelled.
		bg := context.WithoutCancel(ctx)
		_, _ = db.write.ExecContext(bg, fmt.Sprintf("PRAGMA cache_size = %d", cacheSize))
		_, _ = db.write.ExecContext(bg, fmt.Sprintf("PRAGMA temp_store = %d", tempStore))
	}()
	if _, err := db.write.ExecContext(ctx, "PRAGMA cache_size = -131072"); err != nil {
		return wrap(err)
	}
	if _, err := db.write.ExecContext(ctx, "PRAGMA temp_store = MEMORY"); err != nil {
		return wrap(err)
	}
	limit := bulkWALLimit.Load()
	return load(func(ls []*listings.Listing) error {
		if err := db.InTx(ctx, func(tx *Tx) error { return tx.CreateListings(ctx, ls) }); err != nil {
			return err
		}
		if limit > 0 && db.walSize() > limit {
			return db.truncateWAL(ctx)
		}
		return nil
	})
}

// bulkWALLimit is how large the WAL may grow during a bulk load before it
// is checkpointed and truncated (0: never). The background checkpointer's
// passive checkpoints copy the WAL back but never start it over: that
// happens only when a writer begins while every frame is copied, and batch
// follows batch too closely for that, so a million listings left a 22 GB
// WAL beside a 2 GB database. A variable for tests.
var bulkWALLimit atomic.Int64

func init() { bulkWALLimit.Store(256 << 20) }

// walSize is the size of the SQLite WAL file (0 when there is none).
func (db *DB) walSize() int64 {
	fi, err := os.Stat(db.walPath)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// truncateWAL copies the whole WAL into the database and truncates it, on
// the write connection between two transactions, so no writer waits for
// it. A reader still in an old snapshot makes the checkpoint busy (after
// the busy timeout); the load goes on and tries again after its next
// batch.
func (db *DB) truncateWAL(ctx context.Context) error {
	// SQLite answers a checkpoint busy while another runs: wait for the
	// background one, which has copied most of the WAL by then.
	db.checkpointing.Lock()
	defer db.checkpointing.Unlock()
	var busy, logFrames, done int64
	err := db.write.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done)
	return wrap(err)
}
