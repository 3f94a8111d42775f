-- +goose Up
-- A seller's shipping preferences (PUT /api/v1/auth/me/shipping-prefs); a
-- seller without a row has the defaults. The package_* columns are all null
-- when the seller has no package defaults (sides in inches).
CREATE TABLE shipping_prefs (
    user_id           TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    auto_label        BOOLEAN NOT NULL DEFAULT FALSE,
    preferred_carrier TEXT NOT NULL DEFAULT '',
    preferred_service TEXT NOT NULL DEFAULT '',
    local_pickup      BOOLEAN NOT NULL DEFAULT FALSE,
    handling_days     INTEGER NOT NULL DEFAULT 1,
    package_weight_oz INTEGER,
    package_l         DOUBLE PRECISION,
    package_w         DOUBLE PRECISION,
    package_h         DOUBLE PRECISION,
    updated_at        TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE shipping_prefs;
