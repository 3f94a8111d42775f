-- +goose Up
-- Disputes. status_before_dispute is where the order goes back to when a
-- dispute is resolved in the seller's favour.
ALTER TABLE orders ADD COLUMN status_before_dispute TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE orders DROP COLUMN status_before_dispute;
