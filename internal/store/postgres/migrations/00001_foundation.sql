-- +goose Up
CREATE TABLE users (
    id                TEXT PRIMARY KEY,
    email             TEXT NOT NULL,
    username          TEXT NOT NULL,
    display_name      TEXT NOT NULL,
    avatar_url        TEXT NOT NULL DEFAULT '',
    password_hash     TEXT NOT NULL DEFAULT '',
    role              TEXT NOT NULL DEFAULT 'user',
    status            TEXT NOT NULL DEFAULT 'active',
    trust_tier        TEXT NOT NULL DEFAULT 'new',
    identity_verified BOOLEAN NOT NULL DEFAULT FALSE,
    ship_from         TEXT,
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email);
CREATE UNIQUE INDEX users_username ON users (username);

CREATE TABLE addresses (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    line1      TEXT NOT NULL,
    line2      TEXT NOT NULL DEFAULT '',
    city       TEXT NOT NULL,
    state      TEXT NOT NULL,
    zip        TEXT NOT NULL,
    country    TEXT NOT NULL,
    phone      TEXT NOT NULL DEFAULT '',
    is_default BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX addresses_user ON addresses (user_id, created_at);

CREATE TABLE agent_keys (
    id                    TEXT PRIMARY KEY,
    user_id               TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    label                 TEXT NOT NULL,
    scope                 TEXT NOT NULL,
    status                TEXT NOT NULL,
    key_prefix            TEXT NOT NULL,
    key_hash              TEXT NOT NULL,
    per_transaction_limit BIGINT,
    daily_limit           BIGINT,
    weekly_limit          BIGINT,
    monthly_limit         BIGINT,
    metadata              TEXT,
    created_at            TIMESTAMPTZ NOT NULL,
    last_used_at          TIMESTAMPTZ,
    frozen_at             TIMESTAMPTZ,
    revoked_at            TIMESTAMPTZ
);
CREATE UNIQUE INDEX agent_keys_key_hash ON agent_keys (key_hash);
CREATE INDEX agent_keys_user ON agent_keys (user_id, created_at);

CREATE TABLE spending_controls (
    user_id               TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    per_transaction_limit BIGINT NOT NULL,
    daily_limit           BIGINT NOT NULL,
    weekly_limit          BIGINT NOT NULL,
    monthly_limit         BIGINT NOT NULL,
    category_restrictions TEXT NOT NULL DEFAULT '[]',
    approval_threshold    BIGINT,
    updated_at            TIMESTAMPTZ NOT NULL
);

-- What agents spent, one row per purchase; released_at gives the amount back
-- (cancelled or refunded orders). Purchases write it; reads sum it per window.
CREATE TABLE agent_spending (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    key_id      TEXT NOT NULL REFERENCES agent_keys (id) ON DELETE CASCADE,
    order_id    TEXT NOT NULL,
    amount      BIGINT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    released_at TIMESTAMPTZ
);
CREATE INDEX agent_spending_user ON agent_spending (user_id, created_at);
CREATE INDEX agent_spending_key ON agent_spending (key_id, created_at);

CREATE TABLE payout_accounts (
    id                 TEXT PRIMARY KEY,
    user_id            TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    processor          TEXT NOT NULL,
    external_id        TEXT NOT NULL,
    status             TEXT NOT NULL,
    payouts_enabled    BOOLEAN NOT NULL DEFAULT FALSE,
    onboarding_token   TEXT NOT NULL,
    country            TEXT NOT NULL DEFAULT 'US',
    business_type      TEXT NOT NULL DEFAULT 'individual',
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL,
    verified_at        TIMESTAMPTZ
);
CREATE UNIQUE INDEX payout_accounts_user ON payout_accounts (user_id);
CREATE UNIQUE INDEX payout_accounts_onboarding_token ON payout_accounts (onboarding_token);

CREATE TABLE onboarding_sessions (
    id                 TEXT PRIMARY KEY,
    magic_token_hash   TEXT NOT NULL,
    poll_secret_hash   TEXT NOT NULL,
    status             TEXT NOT NULL,
    owner_email        TEXT NOT NULL,
    owner_first_name   TEXT NOT NULL DEFAULT '',
    owner_last_name    TEXT NOT NULL DEFAULT '',
    desired_scope      TEXT NOT NULL,
    agent_label        TEXT NOT NULL,
    agent_metadata     TEXT,
    user_id            TEXT REFERENCES users (id) ON DELETE SET NULL,
    key_id             TEXT REFERENCES agent_keys (id) ON DELETE SET NULL,
    seal_public_key    TEXT NOT NULL,
    sealed_key         TEXT,
    key_delivered_at   TIMESTAMPTZ,
    expires_at         TIMESTAMPTZ NOT NULL,
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX onboarding_sessions_magic_token_hash ON onboarding_sessions (magic_token_hash);
CREATE INDEX onboarding_sessions_expiry ON onboarding_sessions (status, expires_at);

-- The append-only domain event log: written in the transaction of the change
-- it records; feeds order timelines and webhooks.
CREATE TABLE events (
    id          TEXT PRIMARY KEY,
    type        TEXT NOT NULL,
    actor_type  TEXT NOT NULL,
    actor_id    TEXT NOT NULL DEFAULT '',
    entity_type TEXT NOT NULL,
    entity_id   TEXT NOT NULL,
    data        TEXT NOT NULL DEFAULT '{}',
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX events_entity ON events (entity_type, entity_id, created_at);
CREATE INDEX events_type ON events (type, created_at);

-- Every mutating request, allowed or refused.
CREATE TABLE audit_log (
    id          TEXT PRIMARY KEY,
    actor_type  TEXT NOT NULL,
    actor_id    TEXT NOT NULL DEFAULT '',
    action      TEXT NOT NULL,
    entity_type TEXT NOT NULL DEFAULT '',
    entity_id   TEXT NOT NULL DEFAULT '',
    result      TEXT NOT NULL,
    status      INTEGER NOT NULL,
    error_code  TEXT NOT NULL DEFAULT '',
    request_id  TEXT NOT NULL DEFAULT '',
    ip          TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX audit_log_created ON audit_log (created_at);
CREATE INDEX audit_log_actor ON audit_log (actor_type, actor_id, created_at);
CREATE INDEX audit_log_entity ON audit_log (entity_type, entity_id, created_at);

-- +goose Down
DROP TABLE audit_log;
DROP TABLE events;
DROP TABLE onboarding_sessions;
DROP TABLE payout_accounts;
DROP TABLE agent_spending;
DROP TABLE spending_controls;
DROP TABLE agent_keys;
DROP TABLE addresses;
DROP TABLE users;
