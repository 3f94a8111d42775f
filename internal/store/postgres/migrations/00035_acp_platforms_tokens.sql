-- +goose Up
-- ACP (CONTRACT.md section 18): agent platforms, their guest buyers, the
-- delegated card tokens of the sandbox processor, and what an order needs
-- to charge a delegated token again after a crash.

-- Agent platforms an admin connected: the secret is kept as its SHA-256;
-- the signing secret signs their order webhooks, so it is kept as given.
-- Each has an account (role platform) that owns its webhook endpoint.
CREATE TABLE acp_platforms (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES users (id),
    endpoint_id    TEXT NOT NULL,
    name           TEXT NOT NULL,
    webhook_url    TEXT NOT NULL,
    secret_hash    TEXT NOT NULL,
    signing_secret TEXT NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    deleted_at     TIMESTAMPTZ
);
CREATE UNIQUE INDEX acp_platforms_secret ON acp_platforms (secret_hash);

-- A guest buyer (role guest) shares an e-mail with the account its person
-- may register later: each kind is unique on its own.
DROP INDEX users_email;
CREATE UNIQUE INDEX users_email ON users (email) WHERE role <> 'guest';
CREATE UNIQUE INDEX users_guest_email ON users (email) WHERE role = 'guest';

-- Cards delegated to the sandbox processor (delegate_payment): one
-- charge, within the allowance.
CREATE TABLE sandbox_vault_tokens (
    id                  TEXT PRIMARY KEY,
    owner               TEXT NOT NULL,
    outcome             TEXT NOT NULL,
    brand               TEXT NOT NULL,
    last4               TEXT NOT NULL,
    exp_month           INTEGER NOT NULL,
    exp_year            INTEGER NOT NULL,
    max_amount          BIGINT NOT NULL,
    currency            TEXT NOT NULL,
    checkout_session_id TEXT NOT NULL,
    merchant_id         TEXT NOT NULL,
    expires_at          TIMESTAMPTZ NOT NULL,
    metadata            TEXT NOT NULL,
    payment_id          TEXT NOT NULL DEFAULT '',
    created_at          TIMESTAMPTZ NOT NULL
);

ALTER TABLE orders ADD COLUMN payment_token TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN checkout_session_id TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE orders DROP COLUMN checkout_session_id;
ALTER TABLE orders DROP COLUMN payment_token;
DROP TABLE sandbox_vault_tokens;
DROP INDEX users_guest_email;
DROP INDEX users_email;
CREATE UNIQUE INDEX users_email ON users (email);
DROP TABLE acp_platforms;
