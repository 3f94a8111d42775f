-- +goose Up
-- The order an accepted offer is being bought with: while it is
-- pending_payment its spending row counts against the caps, so the offer's
-- own reservation must not count a second time (agents_spending.go).
CREATE INDEX orders_offer ON orders (offer_id) WHERE offer_id IS NOT NULL;

-- +goose Down
DROP INDEX orders_offer;
