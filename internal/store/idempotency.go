package store

import (
	"context"
	"database/sql"
	"marketplace/internal/idempotency"
	"time"
)

const idemColumns = `owner_id, idem_key, route, request_hash, state, status, body, expires_at, lease_owner, lease_until`

// ClaimIdempotency inserts rec as started unless its key is already held.
// Two concurrent claims of one key meet at the primary key: one inserts, the
// other reads what the first stored (in a grouped transaction too: the
// second sees the first's row). Claims and answers are grouped commits: on
// SQLite they share the commit of whatever else is writing then.
func (db *DB) ClaimIdempotency(ctx context.Context, rec *idempotency.Record, now time.Time) (*idempotency.Record, bool, error) {
	var prior *idempotency.Record
	claimed := false
	err := db.InTxGrouped(ctx, func(tx *Tx) error {
		prior, claimed = nil, false // a grouped function may run twice
		res, err := tx.exec(ctx, `INSERT INTO idempotency_keys (owner_id, idem_key, route, request_hash, state, created_at, expires_at,
			lease_owner, lease_until)
			VALUES (?, ?, ?, ?, 'started', ?, ?, ?, ?) ON CONFLICT (owner_id, idem_key) DO UPDATE SET
			route = excluded.route, request_hash = excluded.request_hash, state = 'started', status = 0, body = '',
			created_at = excluded.created_at, expires_at = excluded.expires_at, lease_owner = excluded.lease_owner,
			lease_until = excluded.lease_until
			WHERE idempotency_keys.expires_at <= ?`,
			rec.OwnerID, rec.Key, rec.Route, rec.Hash, now, rec.ExpiresAt, rec.LeaseOwner, rec.LeaseUntil.UTC(), now)
		if err != nil {
			return wrap(err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			claimed = n == 1
			return wrap(err)
		}
		prior, err = tx.IdempotencyRecord(ctx, rec.OwnerID, rec.Key)
		return err
	})
	return prior, claimed, err
}

// FinishIdempotency stores the answer of a claimed key.
func (db *DB) FinishIdempotency(ctx context.Context, ownerID, key string, status int, body []byte) error {
	return db.InTxGrouped(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `UPDATE idempotency_keys SET state = 'done', status = ?, body = ? WHERE owner_id = ? AND idem_key = ?`,
			status, string(body), ownerID, key)
		return wrap(err)
	})
}

// RenewIdempotency extends the lease of a started key leaseOwner holds.
func (db *DB) RenewIdempotency(ctx context.Context, ownerID, key, leaseOwner string, until time.Time) (bool, error) {
	return db.updateOne(ctx, `UPDATE idempotency_keys SET lease_until = ?
		WHERE owner_id = ? AND idem_key = ? AND state = 'started' AND lease_owner = ?`, until.UTC(), ownerID, key, leaseOwner)
}

// TakeOverIdempotency leases a started key whose lease ran out to
// leaseOwner. Two retries racing for one dead claim meet at the row: the
// second finds the lease live again and waits.
func (db *DB) TakeOverIdempotency(ctx context.Context, ownerID, key, leaseOwner string, until, realNow time.Time) (bool, error) {
	return db.updateOne(ctx, `UPDATE idempotency_keys SET lease_owner = ?, lease_until = ?
		WHERE owner_id = ? AND idem_key = ? AND state = 'started' AND (lease_until IS NULL OR lease_until <= ?)`,
		leaseOwner, until.UTC(), ownerID, key, realNow.UTC())
}

// updateOne runs an update in its own transaction and reports whether it
// changed a row.
func (db *DB) updateOne(ctx context.Context, query string, args ...any) (bool, error) {
	changed := false
	err := db.InTx(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, query, args...)
		if err != nil {
			return wrap(err)
		}
		n, err := res.RowsAffected()
		changed = n == 1
		return wrap(err)
	})
	return changed, err
}

// ReleaseIdempotency forgets a claimed key leaseOwner still holds (a
// retry may have taken it over meanwhile: then the key is the taker's).
func (db *DB) ReleaseIdempotency(ctx context.Context, ownerID, key, leaseOwner string) error {
	return db.InTx(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `DELETE FROM idempotency_keys WHERE owner_id = ? AND idem_key = ? AND state = 'started'
			AND lease_owner = ?`, ownerID, key, leaseOwner)
		return wrap(err)
	})
}

// IdempotencyRecord reads one key's record.
func (db *DB) IdempotencyRecord(ctx context.Context, ownerID, key string) (*idempotency.Record, error) {
	return db.Read().IdempotencyRecord(ctx, ownerID, key)
}

// IdempotencyRecord reads one key's record.
func (tx *Tx) IdempotencyRecord(ctx context.Context, ownerID, key string) (*idempotency.Record, error) {
	var r idempotency.Record
	var state, body string
	var lease sql.NullTime
	err := tx.queryRow(ctx, `SELECT `+idemColumns+` FROM idempotency_keys WHERE owner_id = ? AND idem_key = ?`, ownerID, key).
		Scan(&r.OwnerID, &r.Key, &r.Route, &r.Hash, &state, &r.Status, &body, &r.ExpiresAt, &r.LeaseOwner, &lease)
	if err != nil {
		return nil, notFound(err, "idempotency key")
	}
	r.Done, r.Body = state == "done", []byte(body)
	if lease.Valid {
		r.LeaseUntil = lease.Time.UTC()
	}
	return &r, nil
}

// PurgeIdempotency deletes records that expired before now.
func (db *DB) PurgeIdempotency(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := db.InTx(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM idempotency_keys WHERE expires_at <= ?`, now)
		if err != nil {
			return wrap(err)
		}
		n, err = res.RowsAffected()
		return wrap(err)
	})
	return n, err
}

var _ idempotency.Store = (*DB)(nil)
