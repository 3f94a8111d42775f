-- +goose Up
-- One row per purchase. Money columns are integer cents; the fee figures are
-- fixed when the order is made (CONTRACT.md section 3) and never recomputed.
CREATE TABLE orders (
    id                 TEXT PRIMARY KEY,
    listing_id         TEXT NOT NULL REFERENCES listings (id) ON DELETE CASCADE,
    buyer_id           TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    seller_id          TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    buyer_key_id       TEXT,
    channel            TEXT NOT NULL,
    status             TEXT NOT NULL,
    listing_title      TEXT NOT NULL DEFAULT '',
    item_price         BIGINT NOT NULL,
    shipping_cost      BIGINT NOT NULL,
    service_fee        BIGINT NOT NULL,
    total_charged      BIGINT NOT NULL,
    commission         BIGINT NOT NULL,
    fulfillment_type   TEXT NOT NULL,
    shipping_address   TEXT,
    shipping_carrier   TEXT NOT NULL DEFAULT '',
    shipping_service   TEXT NOT NULL DEFAULT '',
    shipping_rate_id   TEXT NOT NULL DEFAULT '',
    estimated_days     INTEGER,
    estimated_delivery TIMESTAMPTZ,
    max_price          BIGINT,
    expected_price     BIGINT,
    offer_id           TEXT,
    payment_method_id  TEXT,
    processor          TEXT NOT NULL DEFAULT '',
    payment_id         TEXT NOT NULL DEFAULT '',
    amount_refunded    BIGINT NOT NULL DEFAULT 0,
    failure_code       TEXT NOT NULL DEFAULT '',
    reserved_until     TIMESTAMPTZ,
    paid_at            TIMESTAMPTZ,
    cancelled_at       TIMESTAMPTZ,
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL
);
CREATE INDEX orders_buyer ON orders (buyer_id, created_at);
CREATE INDEX orders_seller ON orders (seller_id, created_at);
CREATE INDEX orders_status ON orders (status, updated_at);
CREATE INDEX orders_payment ON orders (payment_id);
-- At most one live order per listing: the last line of defence behind the
-- conditional reservation of the listing.
CREATE UNIQUE INDEX orders_listing_live ON orders (listing_id)
    WHERE status IN ('pending_payment', 'paid', 'pickup_ready', 'shipped', 'delivered', 'completed', 'disputed');
CREATE INDEX agent_spending_order ON agent_spending (order_id);

-- Purchases above an owner's approval threshold wait here for the owner.
CREATE TABLE purchase_approvals (
    id          TEXT PRIMARY KEY,
    order_id    TEXT NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    owner_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    key_id      TEXT,
    amount      BIGINT NOT NULL,
    status      TEXT NOT NULL,
    reason      TEXT NOT NULL DEFAULT '',
    decided_by  TEXT NOT NULL DEFAULT '',
    decided_at  TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX purchase_approvals_order ON purchase_approvals (order_id);
CREATE INDEX purchase_approvals_owner ON purchase_approvals (owner_id, status, created_at);
CREATE INDEX purchase_approvals_status ON purchase_approvals (status, created_at);

-- Idempotency keys (CONTRACT.md section 7): per owner, kept 24 hours. A row
-- is written before the request runs (state started) and holds the answer
-- once it has run (state done), so a concurrent duplicate finds it.
CREATE TABLE idempotency_keys (
    owner_id     TEXT NOT NULL,
    idem_key     TEXT NOT NULL,
    route        TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    state        TEXT NOT NULL,
    status       INTEGER NOT NULL DEFAULT 0,
    body         TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (owner_id, idem_key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE purchase_approvals;
DROP INDEX agent_spending_order;
DROP TABLE orders;
