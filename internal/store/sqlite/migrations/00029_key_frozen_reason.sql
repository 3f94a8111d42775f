-- +goose Up
-- Why a frozen key is frozen (CONTRACT.md section 4): owner, admin,
-- rate_limit_abuse or purchase_velocity; NULL while the key is not frozen.
ALTER TABLE agent_keys ADD COLUMN frozen_reason TEXT;

-- +goose Down
ALTER TABLE agent_keys DROP COLUMN frozen_reason;
