package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// Grouped transactions that arrive while the write connection is busy share
// one transaction on SQLite; on both engines each caller gets its own
// answer: its work commits only if its function succeeded, its error and
// its panic come back to it alone.
func TestInTxGrouped(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if _, err := db.WritePool().ExecContext(ctx, `CREATE TABLE group_test (n INTEGER PRIMARY KEY)`); err != nil {
			t.Fatal(err)
		}
		insert := func(tx *store.Tx, n int) error {
			_, err := tx.SQLTx().ExecContext(ctx, fmt.Sprintf(`INSERT INTO group_test (n) VALUES (%d)`, n))
			return err
		}
		const callers = 8
		errBad := errors.New("refused")
		txs := make([]*store.Tx, callers)
		errs := make([]error, callers)
		panics := make([]any, callers)
		run := func(wg *sync.WaitGroup, i int) {
			wg.Go(func() {
				defer func() { panics[i] = recover() }()
				errs[i] = db.InTxGrouped(ctx, func(tx *store.Tx) error {
					txs[i] = tx
					if err := insert(tx, i); err != nil {
						return err
					}
					switch i {
					case 3:
						return errBad
					case 5:
						panic("boom")
					}
					return nil
				})
			})
		}
		release := holdWriter(db)
		var wg sync.WaitGroup
		for i := range callers {
			run(&wg, i)
		}
		if db.Dialect() == store.SQLite {
			awaitPending(t, db, callers)
		}
		release()
		wg.Wait()

		for i := range callers {
			switch i {
			case 3:
				if !errors.Is(errs[i], errBad) {
					t.Errorf("caller %d: err %v, want its own error", i, errs[i])
				}
			case 5:
				if panics[i] != "boom" {
					t.Errorf("caller %d: panic %v, want its own", i, panics[i])
				}
			default:
				if errs[i] != nil || panics[i] != nil {
					t.Errorf("caller %d: err %v, panic %v", i, errs[i], panics[i])
				}
			}
		}
		got := committed(t, db, "group_test")
		if want := []int{0, 1, 2, 4, 6, 7}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("committed %v, want %v", got, want)
		}

		// Without a failure the batch commits as one transaction.
		if db.Dialect() != store.SQLite {
			return
		}
		release = holdWriter(db)
		for i := range callers {
			wg.Go(func() {
				errs[i] = db.InTxGrouped(ctx, func(tx *store.Tx) error { txs[i] = tx; return insert(tx, 100+i) })
			})
		}
		awaitPending(t, db, callers)
		release()
		wg.Wait()
		for i := range callers {
			if errs[i] != nil || txs[i] != txs[0] {
				t.Errorf("caller %d: err %v, shared transaction %v", i, errs[i], txs[i] == txs[0])
			}
		}
	})
}

// When the shared transaction itself fails (here a function releases the
// batch's savepoint, so the batch cannot), nothing of it commits and every
// function runs again in a transaction of its own: the others commit once,
// and only the culprit gets an error.
func TestInTxGroupedRerun(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if _, err := db.WritePool().ExecContext(ctx, `CREATE TABLE group_rerun (n INTEGER PRIMARY KEY)`); err != nil {
			t.Fatal(err)
		}
		const callers, culprit = 6, 5 // the culprit runs last: every other has run in the batch
		runs := make([]int, callers)
		errs := make([]error, callers)
		release := holdWriter(db)
		var wg sync.WaitGroup
		for i := range callers {
			if i == culprit && db.Dialect() == store.SQLite {
				awaitPending(t, db, culprit) // a batch runs in the order of arrival
			}
			wg.Go(func() {
				errs[i] = db.InTxGrouped(ctx, func(tx *store.Tx) error {
					runs[i]++
					if _, err := tx.SQLTx().ExecContext(ctx, fmt.Sprintf(`INSERT INTO group_rerun (n) VALUES (%d)`, i)); err != nil {
						return err
					}
					if i == culprit {
						// Ends the savepoint the batch runs this function in; alone, an error.
						_, err := tx.SQLTx().ExecContext(ctx, `RELEASE grouped_item`)
						if err == nil && db.Dialect() == store.Postgres {
							err = errors.New("no savepoint expected")
						}
						return err
					}
					return nil
				})
			})
		}
		if db.Dialect() == store.SQLite {
			awaitPending(t, db, callers)
		}
		release()
		wg.Wait()

		got := committed(t, db, "group_rerun")
		if want := []int{0, 1, 2, 3, 4}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("committed %v, want %v", got, want)
		}
		for i := range callers {
			if (errs[i] != nil) != (i == culprit) {
				t.Errorf("caller %d: err %v", i, errs[i])
			}
			// SQLite: once in the failed batch, once alone.
			if want := map[bool]int{true: 2, false: 1}[db.Dialect() == store.SQLite]; runs[i] != want {
				t.Errorf("caller %d ran %d times, want %d", i, runs[i], want)
			}
		}
	})
}

// holdWriter holds the write connection until release, so that on SQLite
// the grouped callers that wait meanwhile fall into one batch.
func holdWriter(db *store.DB) (release func()) {
	held, done := make(chan struct{}), make(chan struct{})
	var hold sync.WaitGroup
	hold.Go(func() {
		_ = db.InTx(context.Background(), func(tx *store.Tx) error {
			close(held)
			<-done
			return nil
		})
	})
	<-held
	return func() { close(done); hold.Wait() }
}

// awaitPending waits until n grouped callers wait for their batch.
func awaitPending(t *testing.T, db *store.DB, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); store.GroupPending(db) < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d grouped callers waiting, want %d", store.GroupPending(db), n)
		}
	}
}

// committed is the numbers in table, in order.
func committed(t *testing.T, db *store.DB, table string) []int {
	t.Helper()
	rows, err := db.WritePool().QueryContext(context.Background(), `SELECT n FROM `+table+` ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []int
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
	}
	return got
}
