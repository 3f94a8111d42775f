-- +goose Up
-- An idempotency claim is leased by the process running its request: the
-- owner renews the lease while it works, and a retry may take over a claim
-- whose lease ran out (its process died), instead of waiting out the key's
-- 24 hours. Claims made before this migration have no lease: stale at once.
ALTER TABLE idempotency_keys ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency_keys ADD COLUMN lease_until TIMESTAMPTZ;

-- The idempotency key a purchase or refund was made under, so a retry that
-- takes over a claim finds the work already done and finishes it instead of
-- doing it twice.
ALTER TABLE orders ADD COLUMN idempotency_key TEXT NOT NULL DEFAULT '';
CREATE INDEX orders_idempotency ON orders (buyer_id, idempotency_key, created_at) WHERE idempotency_key <> '';
ALTER TABLE refunds ADD COLUMN idem_owner TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN idem_key TEXT NOT NULL DEFAULT '';
CREATE INDEX refunds_idempotency ON refunds (order_id, idem_owner, idem_key) WHERE idem_key <> '';

-- What an audit entry adds to its columns, as a JSON object: for input the
-- edge refused, the field and a safe rendering of the value.
ALTER TABLE audit_log ADD COLUMN details TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE audit_log DROP COLUMN details;
DROP INDEX refunds_idempotency;
ALTER TABLE refunds DROP COLUMN idem_key;
ALTER TABLE refunds DROP COLUMN idem_owner;
DROP INDEX orders_idempotency;
ALTER TABLE orders DROP COLUMN idempotency_key;
ALTER TABLE idempotency_keys DROP COLUMN lease_until;
ALTER TABLE idempotency_keys DROP COLUMN lease_owner;
