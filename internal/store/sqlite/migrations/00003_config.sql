-- +goose Up
-- Admin-tunable settings, one JSON value per key. A key with no row takes
-- the default from the registry in internal/admin, so only changed values
-- are stored.
CREATE TABLE system_config (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    updated_by TEXT NOT NULL DEFAULT ''
);

-- +goose Down
DROP TABLE system_config;
