-- +goose Up
-- Refunds after the sale. seller_refunded is the part of the refunds taken
-- from the seller's payout (the rest came out of the platform's fees);
-- transfer_reversed is what was taken back from a payout already released.
ALTER TABLE orders ADD COLUMN seller_refunded BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN transfer_reversed BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE orders DROP COLUMN transfer_reversed;
ALTER TABLE orders DROP COLUMN seller_refunded;
