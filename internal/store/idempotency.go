package store

import (
	"context"
	"time"

	"marketplace/internal/httpapi"
)

const idemColumns = `owner_id, idem_key, route, request_hash, state, status, body, expires_at`

// ClaimIdempotency inserts rec as started unless its key is already held.
// Two concurrent claims of one key meet at the primary key: one inserts, the
// other reads what the first stored.
func (db *DB) ClaimIdempotency(ctx context.Context, rec *httpapi.IdemRecord, now time.Time) (*httpapi.IdemRecord, bool, error) {
	var prior *httpapi.IdemRecord
	claimed := false
	err := db.InTx(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `INSERT INTO idempotency_keys (owner_id, idem_key, route, request_hash, state, created_at, expires_at)
			VALUES (?, ?, ?, ?, 'started', ?, ?) ON CONFLICT (owner_id, idem_key) DO UPDATE SET
			route = excluded.route, request_hash = excluded.request_hash, state = 'started', status = 0, body = '',
			created_at = excluded.created_at, expires_at = excluded.expires_at
			WHERE idempotency_keys.expires_at <= ?`,
			rec.OwnerID, rec.Key, rec.Route, rec.Hash, now, rec.ExpiresAt, now)
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
	return db.InTx(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `UPDATE idempotency_keys SET state = 'done', status = ?, body = ? WHERE owner_id = ? AND idem_key = ?`,
			status, string(body), ownerID, key)
		return wrap(err)
	})
}

// ReleaseIdempotency forgets a claimed key.
func (db *DB) ReleaseIdempotency(ctx context.Context, ownerID, key string) error {
	return db.InTx(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `DELETE FROM idempotency_keys WHERE owner_id = ? AND idem_key = ? AND state = 'started'`, ownerID, key)
		return wrap(err)
	})
}

// IdempotencyRecord reads one key's record.
func (db *DB) IdempotencyRecord(ctx context.Context, ownerID, key string) (*httpapi.IdemRecord, error) {
	return db.Read().IdempotencyRecord(ctx, ownerID, key)
}

// IdempotencyRecord reads one key's record.
func (tx *Tx) IdempotencyRecord(ctx context.Context, ownerID, key string) (*httpapi.IdemRecord, error) {
	var r httpapi.IdemRecord
	var state, body string
	err := tx.queryRow(ctx, `SELECT `+idemColumns+` FROM idempotency_keys WHERE owner_id = ? AND idem_key = ?`, ownerID, key).
		Scan(&r.OwnerID, &r.Key, &r.Route, &r.Hash, &state, &r.Status, &body, &r.ExpiresAt)
	if err != nil {
		return nil, notFound(err, "idempotency key")
	}
	r.Done, r.Body = state == "done", []byte(body)
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

var _ httpapi.IdemStore = (*DB)(nil)
