package store

import (
	"context"
	"encoding/json"

	"marketplace/internal/settings"
)

// The live settings (settings.Tx): the stored config values.
var _ settings.Tx = (*Tx)(nil)

// ConfigValues returns every stored config value by key; keys never set are
// absent (their defaults live in package settings, not here).
func (tx *Tx) ConfigValues(ctx context.Context) (map[string]settings.Stored, error) {
	rows, err := tx.query(ctx, `SELECT key, value, updated_at, updated_by FROM system_config`)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	out := map[string]settings.Stored{}
	for rows.Next() {
		var v settings.Stored
		var value string
		if err := rows.Scan(&v.Key, &value, &v.UpdatedAt, &v.UpdatedBy); err != nil {
			return nil, wrap(err)
		}
		v.Value, v.UpdatedAt = json.RawMessage(value), v.UpdatedAt.UTC()
		out[v.Key] = v
	}
	return out, wrap(rows.Err())
}

// PutConfigValue stores v, replacing any earlier value of the same key.
func (tx *Tx) PutConfigValue(ctx context.Context, v settings.Stored) error {
	_, err := tx.exec(ctx, `INSERT INTO system_config (key, value, updated_at, updated_by) VALUES (?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
		v.Key, string(v.Value), v.UpdatedAt, v.UpdatedBy)
	return wrap(err)
}

// ConfigVersion reads the counter every config change moves.
func (tx *Tx) ConfigVersion(ctx context.Context) (int64, error) {
	var v int64
	err := tx.queryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM config_version WHERE id = 1`).Scan(&v)
	return v, wrap(err)
}

// BumpConfigVersion moves the counter, in the change's transaction.
func (tx *Tx) BumpConfigVersion(ctx context.Context) error {
	_, err := tx.exec(ctx, `INSERT INTO config_version (id, version) VALUES (1, 1)
		ON CONFLICT (id) DO UPDATE SET version = config_version.version + 1`)
	return wrap(err)
}
