-- +goose Up
-- Checkout sessions of outside agents (CONTRACT.md section 18). The cart
-- (buyer, items, destination, quoted options, selection, payment) is one
-- JSON document: it is read and written whole, never queried into.
CREATE TABLE checkout_sessions (
    id          TEXT PRIMARY KEY,
    key_id      TEXT NOT NULL DEFAULT '',
    platform_id TEXT NOT NULL DEFAULT '',
    user_id     TEXT NOT NULL DEFAULT '',
    state       TEXT NOT NULL,
    attempt     INTEGER NOT NULL DEFAULT 0,
    order_id    TEXT NOT NULL DEFAULT '',
    cart        TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX checkout_sessions_order ON checkout_sessions (order_id) WHERE order_id <> '';

-- +goose Down
DROP TABLE checkout_sessions;
