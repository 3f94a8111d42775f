-- +goose Up
-- Saved cards, our side: each user's customer at the processor, the setup
-- intents users started (so only their owner confirms them), and the cards.
CREATE TABLE payment_customers (
    user_id     TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    processor   TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE setup_intents (
    id                TEXT PRIMARY KEY,
    user_id           TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    processor         TEXT NOT NULL,
    client_secret     TEXT NOT NULL,
    status            TEXT NOT NULL,
    confirmed_with    TEXT NOT NULL DEFAULT '',
    payment_method_id TEXT NOT NULL DEFAULT '',
    created_at        TIMESTAMPTZ NOT NULL
);
CREATE INDEX setup_intents_user ON setup_intents (user_id, created_at);

CREATE TABLE payment_methods (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    processor   TEXT NOT NULL,
    external_id TEXT NOT NULL,
    brand       TEXT NOT NULL,
    last4       TEXT NOT NULL,
    exp_month   INTEGER NOT NULL,
    exp_year    INTEGER NOT NULL,
    is_default  BOOLEAN NOT NULL DEFAULT FALSE,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX payment_methods_user ON payment_methods (user_id, created_at);
-- At most one default card per user.
CREATE UNIQUE INDEX payment_methods_default ON payment_methods (user_id) WHERE is_default;

-- The sandbox processor's own records, standing in for the processor's
-- side. Idempotency keys are unique, so a repeated or concurrent charge,
-- refund or transfer with the same key finds the first one.
CREATE TABLE sandbox_customers (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    email      TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX sandbox_customers_user ON sandbox_customers (user_id);

CREATE TABLE sandbox_setup_intents (
    id                TEXT PRIMARY KEY,
    customer_id       TEXT NOT NULL REFERENCES sandbox_customers (id),
    client_secret     TEXT NOT NULL,
    status            TEXT NOT NULL,
    payment_method_id TEXT NOT NULL DEFAULT '',
    confirmed_with    TEXT NOT NULL DEFAULT '',
    created_at        TIMESTAMPTZ NOT NULL
);

CREATE TABLE sandbox_payment_methods (
    id          TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL DEFAULT '',
    outcome     TEXT NOT NULL,
    brand       TEXT NOT NULL,
    last4       TEXT NOT NULL,
    exp_month   INTEGER NOT NULL,
    exp_year    INTEGER NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE sandbox_payments (
    id                TEXT PRIMARY KEY,
    idempotency_key   TEXT NOT NULL,
    customer_id       TEXT NOT NULL DEFAULT '',
    payment_method_id TEXT NOT NULL DEFAULT '',
    amount            BIGINT NOT NULL,
    amount_refunded   BIGINT NOT NULL DEFAULT 0,
    currency          TEXT NOT NULL,
    status            TEXT NOT NULL,
    client_secret     TEXT NOT NULL,
    failure_code      TEXT NOT NULL DEFAULT '',
    failure_message   TEXT NOT NULL DEFAULT '',
    description       TEXT NOT NULL DEFAULT '',
    metadata          TEXT NOT NULL DEFAULT '{}',
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX sandbox_payments_key ON sandbox_payments (idempotency_key);

CREATE TABLE sandbox_refunds (
    id              TEXT PRIMARY KEY,
    payment_id      TEXT NOT NULL REFERENCES sandbox_payments (id),
    amount          BIGINT NOT NULL,
    status          TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    reason          TEXT NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX sandbox_refunds_key ON sandbox_refunds (idempotency_key);
CREATE INDEX sandbox_refunds_payment ON sandbox_refunds (payment_id);

CREATE TABLE sandbox_transfers (
    id              TEXT PRIMARY KEY,
    destination     TEXT NOT NULL,
    amount          BIGINT NOT NULL,
    reversed        BIGINT NOT NULL DEFAULT 0,
    idempotency_key TEXT NOT NULL,
    metadata        TEXT NOT NULL DEFAULT '{}',
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX sandbox_transfers_key ON sandbox_transfers (idempotency_key);
CREATE INDEX sandbox_transfers_destination ON sandbox_transfers (destination, created_at);

CREATE TABLE sandbox_dashboard_links (
    token      TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

-- The payout account of a processor account id (the sandbox dashboard, and
-- the processor's account webhooks).
CREATE UNIQUE INDEX payout_accounts_external ON payout_accounts (external_id);

-- +goose Down
DROP INDEX payout_accounts_external;
DROP TABLE sandbox_dashboard_links;
DROP TABLE sandbox_transfers;
DROP TABLE sandbox_refunds;
DROP TABLE sandbox_payments;
DROP TABLE sandbox_payment_methods;
DROP TABLE sandbox_setup_intents;
DROP TABLE sandbox_customers;
DROP TABLE payment_methods;
DROP TABLE setup_intents;
DROP TABLE payment_customers;
