-- +goose Up
-- Disputes. status_before_dispute is where the order goes back to when a
-- dispute is resolved in the seller's favour.
ALTER TABLE orders ADD COLUMN status_before_dispute TEXT NOT NULL DEFAULT '';

-- A buyer's dispute of an order: open, seller_responded, then resolved by an
-- admin. Evidence photos are JSON arrays of photo upload ids. Deleting an
-- order (sandbox reset) deletes its disputes.
CREATE TABLE disputes (
    id                    TEXT PRIMARY KEY,
    order_id              TEXT NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    buyer_id              TEXT NOT NULL,
    seller_id             TEXT NOT NULL,
    status                TEXT NOT NULL,
    reason                TEXT NOT NULL,
    description           TEXT NOT NULL,
    evidence_photos       TEXT NOT NULL DEFAULT '[]',
    seller_response       TEXT NOT NULL DEFAULT '',
    seller_photos         TEXT NOT NULL DEFAULT '[]',
    responded_at          TIMESTAMP,
    resolution            TEXT NOT NULL DEFAULT '',
    resolution_amount     BIGINT,
    resolution_note       TEXT NOT NULL DEFAULT '',
    resolved_by           TEXT NOT NULL DEFAULT '',
    resolved_at           TIMESTAMP,
    created_at            TIMESTAMP NOT NULL,
    updated_at            TIMESTAMP NOT NULL
);
-- One dispute not yet resolved per order.
CREATE UNIQUE INDEX disputes_order_open ON disputes (order_id) WHERE status <> 'resolved';
CREATE INDEX disputes_order ON disputes (order_id, created_at);
CREATE INDEX disputes_buyer ON disputes (buyer_id, created_at);
CREATE INDEX disputes_seller ON disputes (seller_id, status, created_at);
CREATE INDEX disputes_status ON disputes (status, created_at);

-- +goose Down
DROP TABLE disputes;
ALTER TABLE orders DROP COLUMN status_before_dispute;
