// Package store is the one implementation of every area's Store, over
// database/sql, on SQLite (the embedded default) and PostgreSQL. SQL is
// written once with ? placeholders; the dialect rebinds it and supplies the
// few fragments that differ.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"marketplace/internal/market"
)

// Dialect names the engine under a DB.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is an open store. On SQLite writes go through a single connection (one
// writer at a time, as SQLite requires, which also serialises River) and reads
// through a pool; on PostgreSQL both are the same pool.
type DB struct {
	dialect Dialect
	write   *sql.DB
	read    *sql.DB
	rebinds sync.Map // query text -> postgres text (sqlText)
	stmts   sync.Map // stmtKey -> *sql.Stmt (SQLite only)
	// preparing marks transaction statements being prepared in the
	// background (SQLite only).
	preparing sync.Map
	// checkpoints stops the background WAL checkpointer (SQLite only).
	checkpoints func()
	// checkpointing is held by each checkpoint, background or a bulk
	// load's (SQLite only): SQLite answers one busy while another runs.
	checkpointing sync.Mutex
	// walPath is the SQLite write-ahead log's file (SQLite only).
	walPath string
	search  searchCache
	// sinks see each public event inside the transaction that records it
	// (webhooks and mail are enqueued there); committed hears, after the
	// commit, which users got new events (the feed's waiters).
	hooks atomic.Pointer[eventHooks]
	group group // InTxGrouped's batches (SQLite only)
	// feedBegan, set by tests, runs when a feed read's snapshot
	// transaction has begun, before its bound is read (PostgreSQL only).
	feedBegan func(ctx context.Context, tx *sql.Tx)
}

type stmtKey struct {
	pool  *sql.DB
	query string
}

// Dialect reports the engine.
func (db *DB) Dialect() Dialect { return db.dialect }

// WritePool is the pool that transactions use; River runs on it so that jobs
// are enqueued inside the same transaction as the change they follow.
func (db *DB) WritePool() *sql.DB { return db.write }

// ReadPool is the pool reads go through (the write pool on PostgreSQL),
// for tests that check its connections' settings.
func (db *DB) ReadPool() *sql.DB {
	if db.read != nil {
		return db.read
	}
	return db.write
}

// Close closes the cached statements and both pools.
func (db *DB) Close() error {
	if db.checkpoints != nil {
		db.checkpoints()
	}
	db.stmts.Range(func(_, v any) bool {
		v.(*sql.Stmt).Close()
		return true
	})
	err := db.write.Close()
	if db.read != db.write {
		err = errors.Join(err, db.read.Close())
	}
	return err
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	return db.read.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// InTx runs fn in one transaction: committed when fn returns nil, rolled back
// otherwise (and on panic).
func (db *DB) InTx(ctx context.Context, fn func(*Tx) error) (err error) {
	sqlTx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return market.Internal(fmt.Errorf("begin: %w", err))
	}
	tx := &Tx{db: db, ex: sqlTx, sqlTx: sqlTx}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = sqlTx.Rollback()
			return
		}
		if cerr := sqlTx.Commit(); cerr != nil {
			err = market.Internal(fmt.Errorf("commit: %w", cerr))
			return
		}
		for _, f := range tx.afterCommit {
			f()
		}
	}()
	return fn(tx)
}

// Read returns a handle for reads outside any transaction: each statement
// sees the latest committed data. It has the same methods as a Tx.
func (db *DB) Read() *Tx { return &Tx{db: db, ex: db.read} }

// Tx carries every area's store methods. Inside InTx it is a transaction;
// from Read it runs each statement on its own.
type Tx struct {
	db    *DB
	ex    executor
	sqlTx *sql.Tx
	// afterCommit runs once the transaction has committed.
	afterCommit []func()
}

type executor interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// SQLTx is the underlying transaction, for River's transactional enqueue.
// It is nil on a Read handle.
func (tx *Tx) SQLTx() *sql.Tx { return tx.sqlTx }

func (tx *Tx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st, err := tx.stmt(ctx, query); st != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return st.ExecContext(ctx, tx.db.args(args)...)
	}
	return tx.ex.ExecContext(ctx, tx.db.sqlText(query), tx.db.args(args)...)
}

func (tx *Tx) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st, err := tx.stmt(ctx, query); st != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return st.QueryContext(ctx, tx.db.args(args)...)
	}
	return tx.ex.QueryContext(ctx, tx.db.sqlText(query), tx.db.args(args)...)
}

func (tx *Tx) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if st, err := tx.stmt(ctx, query); st != nil && err == nil {
		return st.QueryRowContext(ctx, tx.db.args(args)...)
	}
	return tx.ex.QueryRowContext(ctx, tx.db.sqlText(query), tx.db.args(args)...)
}

// stmt returns a cached prepared statement on SQLite, where parsing SQL
// dominated the cost of a request until statements were reused; on
// PostgreSQL it returns nil (plain execution): pgx caches prepared
// statements per connection itself.
//
// Reads outside a transaction use statements prepared on the read pool
// (database/sql keeps one prepared copy per pooled connection). Inside a
// transaction the statement must live on the single write connection, which
// the transaction holds, so it cannot be prepared there and then: the first
// use runs the SQL plainly and prepares it on the write pool in the
// background, once the connection is free; later transactions bind the
// prepared statement to themselves, which reuses it on the same connection.
func (tx *Tx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if tx.db.dialect != SQLite {
		return nil, nil
	}
	if tx.sqlTx != nil {
		key := stmtKey{pool: tx.db.write, query: query}
		if v, ok := tx.db.stmts.Load(key); ok {
			return tx.sqlTx.StmtContext(ctx, v.(*sql.Stmt)), nil
		}
		if _, busy := tx.db.preparing.LoadOrStore(query, true); !busy {
			go tx.db.prepareWrite(key)
		}
		return nil, nil
	}
	key := stmtKey{pool: tx.db.read, query: query}
	if v, ok := tx.db.stmts.Load(key); ok {
		return v.(*sql.Stmt), nil
	}
	st, err := tx.db.read.PrepareContext(ctx, tx.db.sqlText(query))
	if err != nil {
		return nil, err
	}
	if v, loaded := tx.db.stmts.LoadOrStore(key, st); loaded {
		st.Close()
		return v.(*sql.Stmt), nil
	}
	return st, nil
}

// prepareWrite prepares a transaction's statement on the write pool when the
// connection is next free. A statement that fails to prepare (or a store
// that is closing) simply stays uncached.
func (db *DB) prepareWrite(key stmtKey) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := db.write.PrepareContext(ctx, db.sqlText(key.query))
	if err != nil {
		db.preparing.Delete(key.query)
		return
	}
	if _, loaded := db.stmts.LoadOrStore(key, st); loaded {
		st.Close()
	}
}

// forUpdate locks the selected rows until the transaction ends. SQLite has
// one writer at a time, so the write transaction itself is the lock there.
func (tx *Tx) forUpdate() string {
	if tx.db.dialect == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// lockInTx locks the selected rows when tx is a transaction; a read handle
// takes no lock.
func (tx *Tx) lockInTx() string {
	if tx.sqlTx == nil {
		return ""
	}
	return tx.forUpdate()
}

// sqlText is the text the engine runs for query. PostgreSQL: ? placeholders
// become $n (queries never contain a literal question mark). SQLite:
// "LIMIT ?" becomes "LIMIT +?". SQLite plans a bare "LIMIT ?" with the value
// bound at the time and marks the statement to be planned again whenever
// that parameter is bound anew, so every cached statement with a LIMIT was
// parsed and planned again on every execution (a seventh of the CPU of a
// varied search); "+?" is an expression it evaluates when it runs, with the
// same result.
func (db *DB) sqlText(q string) string {
	if db.dialect != Postgres {
		return strings.ReplaceAll(q, "LIMIT ?", "LIMIT +?")
	}
	if v, ok := db.rebinds.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	db.rebinds.Store(q, out)
	return out
}

// sqliteTime is the one layout times are stored in on SQLite: fixed width,
// so text order is time order, and parsed back by the driver.
const sqliteTime = "2006-01-02 15:04:05.000000+00:00"

func (db *DB) args(args []any) []any {
	for i, a := range args {
		switch v := a.(type) {
		case time.Time:
			args[i] = db.timeArg(v)
		case *time.Time:
			if v == nil {
				args[i] = nil
			} else {
				args[i] = db.timeArg(*v)
			}
		}
	}
	return args
}

func (db *DB) timeArg(t time.Time) any {
	t = t.UTC().Truncate(time.Microsecond)
	if db.dialect == SQLite {
		return t.Format(sqliteTime)
	}
	return t
}

// notFound maps sql.ErrNoRows to NOT_FOUND for what, and wraps anything else.
func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return market.NotFound(what)
	}
	return wrap(err)
}

// wrap marks an unexpected database error as internal.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	var me *market.Error
	if errors.As(err, &me) {
		return err
	}
	return market.Internal(err)
}

// nullTime scans a nullable timestamp.
func nullTime(nt sql.NullTime) *time.Time {
	if !nt.Valid {
		return nil
	}
	t := nt.Time.UTC()
	return &t
}

// nullInt scans a nullable integer.
func nullInt(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	v := n.Int64
	return &v
}

// Analyze refreshes the planner's statistics, after a bulk load: without
// them PostgreSQL picks search plans up to a hundred times slower until
// autovacuum catches up. On SQLite the detailed samples (sqlite_stat4) of
// the full-text index's own tables are dropped again: with them FTS5
// re-prepares its internal statements on every query, a quarter of a
// search's CPU.
func (db *DB) Analyze(ctx context.Context) error {
	if _, err := db.write.ExecContext(ctx, "ANALYZE"); err != nil {
		return wrap(err)
	}
	if db.dialect != SQLite {
		return nil
	}
	var n int
	if err := db.write.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_schema WHERE name = 'sqlite_stat4'`).Scan(&n); err != nil || n == 0 {
		return wrap(err)
	}
	if _, err := db.write.ExecContext(ctx, `DELETE FROM sqlite_stat4 WHERE tbl LIKE 'search_fts%'`); err != nil {
		return wrap(err)
	}
	_, err := db.write.ExecContext(ctx, `ANALYZE sqlite_schema`) // reloads the statistics
	return wrap(err)
}
