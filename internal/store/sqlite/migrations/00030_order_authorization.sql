-- +goose Up
-- The authorization record of an agent's order (CONTRACT.md section 15):
-- written once, in the transaction that reserves the listing, and never
-- changed (the store only sets it while it is NULL). NULL for human orders
-- and for agent orders still waiting for the owner's approval.
ALTER TABLE orders ADD COLUMN authorization_record TEXT;
-- The request id of the purchase call that queued an approval: the record
-- made when the owner approves names the agent's call, not the owner's.
ALTER TABLE purchase_approvals ADD COLUMN request_id TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE purchase_approvals DROP COLUMN request_id;
ALTER TABLE orders DROP COLUMN authorization_record;
