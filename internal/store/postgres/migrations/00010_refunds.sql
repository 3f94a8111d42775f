-- +goose Up
-- Refunds after the sale. seller_refunded is the part of the refunds taken
-- from the seller's payout (the rest came out of the platform's fees);
-- transfer_reversed is what was taken back from a payout already released.
ALTER TABLE orders ADD COLUMN seller_refunded BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN transfer_reversed BIGINT NOT NULL DEFAULT 0;

-- One row per refund of an order: a buyer's request (requested, then
-- declined or approved), or a refund booked at once (pending until the
-- processor took it, then succeeded). seller_share + platform_share = amount
-- once booked; reverse_amount is the part of seller_share to take back from
-- a payout already transferred, reversed_amount what was taken back.
CREATE TABLE refunds (
    id                  TEXT PRIMARY KEY,
    order_id            TEXT NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    amount              BIGINT NOT NULL,
    status              TEXT NOT NULL,
    reason              TEXT NOT NULL DEFAULT '',
    message             TEXT NOT NULL DEFAULT '',
    requested_by        TEXT NOT NULL DEFAULT '',
    initiated_by        TEXT NOT NULL,
    decided_by          TEXT NOT NULL DEFAULT '',
    seller_share        BIGINT NOT NULL DEFAULT 0,
    platform_share      BIGINT NOT NULL DEFAULT 0,
    reverse_amount      BIGINT NOT NULL DEFAULT 0,
    reversed_amount     BIGINT NOT NULL DEFAULT 0,
    processor_refund_id TEXT NOT NULL DEFAULT '',
    reversal_id         TEXT NOT NULL DEFAULT '',
    created_at          TIMESTAMPTZ NOT NULL,
    decided_at          TIMESTAMPTZ,
    issued_at           TIMESTAMPTZ,
    updated_at          TIMESTAMPTZ NOT NULL
);
CREATE INDEX refunds_order ON refunds (order_id, created_at);
-- What the payout job retries: refunds the processor has not taken yet and
-- reversals not made yet.
CREATE INDEX refunds_unfinished ON refunds (updated_at)
    WHERE status = 'pending' OR reverse_amount > reversed_amount;
-- At most one open buyer request per order.
CREATE UNIQUE INDEX refunds_open_request ON refunds (order_id) WHERE status = 'requested';

-- The sandbox processor's transfer reversals (sandbox_transfers.reversed is
-- their sum per transfer).
CREATE TABLE sandbox_transfer_reversals (
    id              TEXT PRIMARY KEY,
    transfer_id     TEXT NOT NULL REFERENCES sandbox_transfers (id),
    amount          BIGINT NOT NULL,
    idempotency_key TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX sandbox_transfer_reversals_key ON sandbox_transfer_reversals (idempotency_key);
CREATE INDEX sandbox_transfer_reversals_transfer ON sandbox_transfer_reversals (transfer_id);

-- +goose Down
DROP TABLE sandbox_transfer_reversals;
DROP TABLE refunds;
ALTER TABLE orders DROP COLUMN transfer_reversed;
ALTER TABLE orders DROP COLUMN seller_refunded;
