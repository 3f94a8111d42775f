-- +goose Up
-- Admin order views (internal/store/admin_orders.go).
--
-- orders_title_trgm finds orders by a substring of their listing title
-- (lower(listing_title) LIKE '%...%'), a trigram GIN index.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX orders_title_trgm ON orders USING gin (lower(listing_title) gin_trgm_ops);

-- The search's listing id match, the status filter and the unfiltered
-- list (newest first), the finance summary (orders paid in a range).
CREATE INDEX orders_listing ON orders (listing_id, created_at);
CREATE INDEX orders_status_created ON orders (status, created_at);
CREATE INDEX orders_created ON orders (created_at);
CREATE INDEX orders_paid ON orders (paid_at);

-- The admin metrics: refunds waiting. Accounts and listings created in a
-- window walk users_created (00022) and listings_created (00023).
CREATE INDEX metrics_refunds_status ON refunds (status);

-- +goose Down
DROP INDEX metrics_refunds_status;
DROP INDEX orders_paid;
DROP INDEX orders_created;
DROP INDEX orders_status_created;
DROP INDEX orders_listing;
DROP INDEX orders_title_trgm;
