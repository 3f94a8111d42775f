-- +goose Up
-- Admin order views (internal/store/admin_orders.go).
--
-- orders_title_fts finds orders by a substring of their listing title: a
-- trigram index (case-insensitive) kept by triggers. Titles never change
-- once an order exists, so insert and delete are all it follows.
CREATE VIRTUAL TABLE orders_title_fts USING fts5(listing_title, order_id UNINDEXED, tokenize = 'trigram');
INSERT INTO orders_title_fts (listing_title, order_id) SELECT listing_title, id FROM orders;

-- +goose StatementBegin
CREATE TRIGGER orders_title_fts_insert AFTER INSERT ON orders BEGIN
    INSERT INTO orders_title_fts (listing_title, order_id) VALUES (new.listing_title, new.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER orders_title_fts_delete AFTER DELETE ON orders BEGIN
    DELETE FROM orders_title_fts WHERE order_id = old.id AND rowid IN (
        SELECT rowid FROM orders_title_fts WHERE orders_title_fts MATCH '"' || replace(old.listing_title, '"', '""') || '"');
END;
-- +goose StatementEnd

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
DROP TRIGGER orders_title_fts_delete;
DROP TRIGGER orders_title_fts_insert;
DROP TABLE orders_title_fts;
