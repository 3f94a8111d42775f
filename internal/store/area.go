package store

import (
	"context"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/listings"
	"marketplace/internal/messaging"
	"marketplace/internal/offers"
	"marketplace/internal/orders"
	"marketplace/internal/payments"
	"marketplace/internal/settings"
	"marketplace/internal/shipping"
)

// Area adapts a DB to one area's Store interface: that area's code sees only
// the methods its own Tx interface names, while every area shares the one
// transaction type underneath (so work composes across areas in one tx).
//
// An Area is made by one of the constructors below, one per area. Each
// converts *Tx to the area's interface in a function the compiler checks,
// so a method *Tx lacks fails the build, not the first request.
type Area[T any] struct {
	db *DB
	as func(*Tx) T
}

// area returns db as a Store over T, converting each transaction with as.
func area[T any](db *DB, as func(*Tx) T) Area[T] { return Area[T]{db: db, as: as} }

// Accounts is db as accounts.Store.
func Accounts(db *DB) Area[accounts.Tx] {
	return area(db, func(tx *Tx) accounts.Tx { return tx })
}

// Agents is db as agents.Store.
func Agents(db *DB) Area[agents.Tx] {
	return area(db, func(tx *Tx) agents.Tx { return tx })
}

// Listings is db as listings.Store.
func Listings(db *DB) Area[listings.Tx] {
	return area(db, func(tx *Tx) listings.Tx { return tx })
}

// Orders is db as orders.Store.
func Orders(db *DB) Area[orders.Tx] {
	return area(db, func(tx *Tx) orders.Tx { return tx })
}

// Offers is db as offers.Store.
func Offers(db *DB) Area[offers.Tx] {
	return area(db, func(tx *Tx) offers.Tx { return tx })
}

// Payments is db as payments.Store.
func Payments(db *DB) Area[payments.Tx] {
	return area(db, func(tx *Tx) payments.Tx { return tx })
}

// PaymentsSandbox is db as payments.SandboxStore, the records of the
// built-in sandbox processor.
func PaymentsSandbox(db *DB) Area[payments.SandboxTx] {
	return area(db, func(tx *Tx) payments.SandboxTx { return tx })
}

// Shipping is db as shipping.Store.
func Shipping(db *DB) Area[shipping.Tx] {
	return area(db, func(tx *Tx) shipping.Tx { return tx })
}

// Settings is db as settings.Store.
func Settings(db *DB) Area[settings.Tx] {
	return area(db, func(tx *Tx) settings.Tx { return tx })
}

// Each constructor's Area is its area's Store.
var (
	_ accounts.Store        = Area[accounts.Tx]{}
	_ agents.Store          = Area[agents.Tx]{}
	_ listings.Store        = Area[listings.Tx]{}
	_ orders.Store          = Area[orders.Tx]{}
	_ offers.Store          = Area[offers.Tx]{}
	_ payments.Store        = Area[payments.Tx]{}
	_ payments.SandboxStore = Area[payments.SandboxTx]{}
	_ shipping.Store        = Area[shipping.Tx]{}
	_ settings.Store        = Area[settings.Tx]{}
)

// InTx runs fn in one transaction.
func (a Area[T]) InTx(ctx context.Context, fn func(T) error) error {
	return a.db.InTx(ctx, func(tx *Tx) error { return fn(a.as(tx)) })
}

// InTxGrouped runs fn in a transaction it may share with other grouped
// callers (DB.InTxGrouped).
func (a Area[T]) InTxGrouped(ctx context.Context, fn func(T) error) error {
	return a.db.InTxGrouped(ctx, func(tx *Tx) error { return fn(a.as(tx)) })
}

// Read returns a handle for reads outside any transaction.
func (a Area[T]) Read() T { return a.as(a.db.Read()) }

// Messaging is db as messaging.Store.
func Messaging(db *DB) Area[messaging.Tx] {
	return area(db, func(tx *Tx) messaging.Tx { return tx })
}

var _ messaging.Store = Area[messaging.Tx]{}
