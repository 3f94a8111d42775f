-- +goose Up
-- Events out (CONTRACT.md section 12): each recipient's feed, webhook
-- endpoints and their deliveries, notification preferences, and the mail
-- outbox. All are written in the transaction that records the event.

-- One row per recipient of a public event, in the order a reader pages.
-- SQLite has one writer: seq order is commit order, so txid stays 0.
CREATE TABLE event_feed (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    TEXT NOT NULL,
    event_id   TEXT NOT NULL,
    type       TEXT NOT NULL,
    txid       BIGINT NOT NULL DEFAULT 0,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX event_feed_user ON event_feed (user_id, txid, seq);
CREATE INDEX event_feed_user_time ON event_feed (user_id, created_at);

-- A webhook endpoint: the account's own (kind 'account', at most one per
-- user, every event, camelCase) or one of the owner's agent endpoints
-- (kind 'agent', a list of types, snake_case).
CREATE TABLE webhook_endpoints (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,
    url             TEXT NOT NULL,
    secret          TEXT NOT NULL,
    events          TEXT NOT NULL DEFAULT '["*"]',
    casing          TEXT NOT NULL,
    enabled         BOOLEAN NOT NULL DEFAULT TRUE,
    disabled_reason TEXT NOT NULL DEFAULT '',
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX webhook_endpoints_account ON webhook_endpoints (user_id) WHERE kind = 'account';
CREATE INDEX webhook_endpoints_user ON webhook_endpoints (user_id, created_at);

-- One event to one endpoint, with every attempt in history (JSON).
CREATE TABLE webhook_deliveries (
    id               TEXT PRIMARY KEY,
    endpoint_id      TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id         TEXT NOT NULL,
    event_type       TEXT NOT NULL,
    status           TEXT NOT NULL DEFAULT 'pending',
    attempts         INTEGER NOT NULL DEFAULT 0,
    last_status_code INTEGER,
    last_error       TEXT NOT NULL DEFAULT '',
    next_attempt_at  TIMESTAMP,
    history          TEXT NOT NULL DEFAULT '[]',
    created_at       TIMESTAMP NOT NULL,
    delivered_at     TIMESTAMP
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at, id);

-- Preferences per category and channel (JSON); no row means all on.
CREATE TABLE notification_prefs (
    user_id    TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    prefs      TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

-- Every e-mail the service sends or keeps (sandbox, or no SMTP server).
-- user_id is empty for a mail to an address with no account yet (the
-- onboarding magic link).
CREATE TABLE mail_outbox (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL DEFAULT '',
    to_address TEXT NOT NULL,
    kind       TEXT NOT NULL,
    event_id   TEXT NOT NULL DEFAULT '',
    subject    TEXT NOT NULL,
    text_body  TEXT NOT NULL,
    html_body  TEXT NOT NULL,
    status     TEXT NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    last_error TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMP NOT NULL,
    sent_at    TIMESTAMP
);
CREATE INDEX mail_outbox_user ON mail_outbox (user_id, created_at);
CREATE INDEX mail_outbox_address ON mail_outbox (to_address, created_at);

-- +goose Down
DROP TABLE mail_outbox;
DROP TABLE notification_prefs;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
DROP TABLE event_feed;
