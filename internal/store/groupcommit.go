package store

import (
	"context"
	"fmt"
	"sync"
)

// Group commit (SQLite). Every write transaction takes the one write
// connection, and a commit's cost is mostly writing its dirty pages to the
// WAL: a purchase's small transactions (idempotency claim and answer, the
// audit entry, the settle) each rewrote the same hot pages (the tails of the
// events, audit and key tables) in a commit of their own. InTxGrouped runs
// the transactions that arrive while another is committing together, in one
// transaction, so they share one commit.
//
// Each caller still waits for the commit of its own work, so a caller that
// returns nil has its work committed, as with InTx. Functions run one after
// the other, each in a savepoint: a function's error (or panic) rolls back
// its own work alone and comes back to its own caller. When the shared
// transaction itself fails (a savepoint, the commit), it is rolled back and
// every function in it runs again in a transaction of its own. Functions
// must therefore keep their effects inside tx (or be safe to run twice), as
// a rolled-back InTx already requires.
//
// On PostgreSQL transactions run on a pool in parallel and the server
// already flushes concurrent commits together, so InTxGrouped is InTx.

type group struct {
	mu      sync.Mutex
	busy    bool // a leader is running a batch
	pending []*groupItem
}

type groupItem struct {
	fn   func(*Tx) error
	done chan groupResult // buffered: the leader never blocks on a waiter
}

// groupResult is a waiter's answer: its error, or lead when it is to run
// the next batch itself.
type groupResult struct {
	err  error
	lead bool
}

// InTxGrouped runs fn in a transaction that may be shared with other
// InTxGrouped callers' functions (see above); fn may run twice.
func (db *DB) InTxGrouped(ctx context.Context, fn func(*Tx) error) error {
	if db.dialect != SQLite {
		return db.InTx(ctx, fn)
	}
	g := &db.group
	it := &groupItem{fn: fn, done: make(chan groupResult, 1)}
	g.mu.Lock()
	g.pending = append(g.pending, it)
	lead := !g.busy
	g.busy = true
	g.mu.Unlock()
	if !lead {
		if r := <-it.done; !r.lead {
			return r.answer()
		}
	}
	// The batch is whatever is pending once the write connection is ours
	// (it includes it): waiting for the connection is what gathers it.
	// The shared transaction outlives any one caller's cancellation.
	db.runBatch(context.WithoutCancel(ctx), g)
	g.mu.Lock()
	if len(g.pending) > 0 {
		g.pending[0].done <- groupResult{lead: true}
	} else {
		g.busy = false
	}
	g.mu.Unlock()
	r := <-it.done
	return r.answer()
}

// answer is the caller's error, or its function's panic again: a panic
// belongs to its caller, not to the leader that ran the function.
func (r groupResult) answer() error {
	if p, ok := r.err.(panicked); ok {
		panic(p.v)
	}
	return r.err
}

// runBatch runs the pending functions in one transaction, each in a
// savepoint of its own, and answers each; after a failure of the
// transaction itself it runs each in a transaction of its own.
func (db *DB) runBatch(ctx context.Context, g *group) {
	var batch []*groupItem
	var errs []error // each function's own error, once the batch committed
	err := db.InTx(ctx, func(tx *Tx) error {
		g.mu.Lock()
		batch, g.pending = g.pending, nil
		g.mu.Unlock()
		if len(batch) == 1 { // alone: its error rolls the transaction back
			return call(batch[0].fn, tx)
		}
		errs = make([]error, len(batch))
		for i, it := range batch {
			var err error
			if errs[i], err = tx.isolated(ctx, it.fn); err != nil {
				return err
			}
		}
		return nil
	})
	if batch == nil { // the transaction did not begin
		g.mu.Lock()
		batch, g.pending = g.pending, nil
		g.mu.Unlock()
	}
	if err == nil && errs != nil {
		for i, it := range batch {
			it.done <- groupResult{err: errs[i]}
		}
		return
	}
	if err == nil || len(batch) == 1 {
		for _, it := range batch {
			it.done <- groupResult{err: err}
		}
		return
	}
	for _, it := range batch {
		it.done <- groupResult{err: db.InTx(ctx, func(tx *Tx) error { return call(it.fn, tx) })}
	}
}

// isolated runs fn inside a savepoint of tx: fn's error (returned as
// fnErr) rolls back fn's work alone, and drops the after-commit hooks fn
// added. err is a failure of the savepoint, which ends the transaction.
func (tx *Tx) isolated(ctx context.Context, fn func(*Tx) error) (fnErr, err error) {
	if _, err := tx.sqlTx.ExecContext(ctx, "SAVEPOINT grouped_item"); err != nil {
		return nil, err
	}
	hooks := len(tx.afterCommit)
	if fnErr = call(fn, tx); fnErr != nil {
		tx.afterCommit = tx.afterCommit[:hooks]
		if _, err := tx.sqlTx.ExecContext(ctx, "ROLLBACK TO grouped_item"); err != nil {
			return fnErr, err
		}
	}
	_, err = tx.sqlTx.ExecContext(ctx, "RELEASE grouped_item")
	return fnErr, err
}

// panicked carries a function's panic to its own caller: the leader that ran
// it must go on answering the others.
type panicked struct{ v any }

func (p panicked) Error() string { return fmt.Sprint("panic: ", p.v) }

func call(fn func(*Tx) error, tx *Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicked{p}
		}
	}()
	return fn(tx)
}
