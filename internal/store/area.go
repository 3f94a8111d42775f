package store

import "context"

// Area adapts a DB to one area's Store interface: that area's code sees only
// the methods its own Tx interface names, while every area shares the one
// transaction type underneath (so work composes across areas in one tx).
type Area[T any] struct{ db *DB }

// For returns db as a Store over the area transaction interface T, which
// *Tx must implement (each store file asserts this at compile time).
func For[T any](db *DB) Area[T] { return Area[T]{db: db} }

// InTx runs fn in one transaction.
func (a Area[T]) InTx(ctx context.Context, fn func(T) error) error {
	return a.db.InTx(ctx, func(tx *Tx) error { return fn(any(tx).(T)) })
}

// Read returns a handle for reads outside any transaction.
func (a Area[T]) Read() T { return any(a.db.Read()).(T) }
