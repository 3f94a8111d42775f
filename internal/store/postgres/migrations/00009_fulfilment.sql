-- +goose Up
-- After the sale: the shipment, delivery, and the seller's payout, kept on
-- the order they belong to.
ALTER TABLE orders ADD COLUMN shipment_carrier TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN tracking_number TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN label_cost BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN shipped_at TIMESTAMPTZ;
ALTER TABLE orders ADD COLUMN delivered_at TIMESTAMPTZ;
ALTER TABLE orders ADD COLUMN payout_due_at TIMESTAMPTZ;
ALTER TABLE orders ADD COLUMN payout_status TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN payout_amount BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN transfer_id TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN completed_at TIMESTAMPTZ;
CREATE INDEX orders_payout_due ON orders (status, payout_due_at);
CREATE INDEX orders_shipped ON orders (status, shipped_at);

-- +goose Down
DROP INDEX orders_shipped;
DROP INDEX orders_payout_due;
ALTER TABLE orders DROP COLUMN completed_at;
ALTER TABLE orders DROP COLUMN transfer_id;
ALTER TABLE orders DROP COLUMN payout_amount;
ALTER TABLE orders DROP COLUMN payout_status;
ALTER TABLE orders DROP COLUMN payout_due_at;
ALTER TABLE orders DROP COLUMN delivered_at;
ALTER TABLE orders DROP COLUMN shipped_at;
ALTER TABLE orders DROP COLUMN label_cost;
ALTER TABLE orders DROP COLUMN tracking_number;
ALTER TABLE orders DROP COLUMN shipment_carrier;
