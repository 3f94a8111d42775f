-- +goose Up
-- Admin search on PostgreSQL without table scans.
--
-- The admin listing search (store/admin_listings.go) is a case-insensitive
-- substring of the title or brand: trigram GIN indexes, which a
-- lower(...) LIKE '%term%' uses. fastupdate is off here and on the order
-- titles' index (00024): with a pending list (until the next vacuum) every
-- search reads the whole list, which at a million orders cost more than
-- the search itself.
CREATE INDEX listings_title_trgm ON listings USING gin (lower(title) gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX listings_brand_trgm ON listings USING gin (lower(brand) gin_trgm_ops) WITH (fastupdate = off);
ALTER INDEX orders_title_trgm SET (fastupdate = off);
SELECT gin_clean_pending_list('orders_title_trgm');

-- admin_counts holds each admin list's unfiltered total (users, listings,
-- orders, audit_log), kept exact by statement triggers: COUNT(*) of a
-- million rows takes 50 ms and more, on every first page of a list. A
-- table's total is the sum of 16 rows; a transaction adds to the row of
-- its backend, so concurrent writers rarely wait on one another.
CREATE TABLE admin_counts (
    name  TEXT NOT NULL,
    shard INTEGER NOT NULL,
    n     BIGINT NOT NULL,
    PRIMARY KEY (name, shard)
);
INSERT INTO admin_counts (name, shard, n) SELECT 'users', 0, COUNT(*) FROM users;
INSERT INTO admin_counts (name, shard, n) SELECT 'listings', 0, COUNT(*) FROM listings;
INSERT INTO admin_counts (name, shard, n) SELECT 'orders', 0, COUNT(*) FROM orders;
INSERT INTO admin_counts (name, shard, n) SELECT 'audit_log', 0, COUNT(*) FROM audit_log;

-- +goose StatementBegin
CREATE FUNCTION admin_count_add(table_name TEXT, delta BIGINT) RETURNS void LANGUAGE sql AS $$
    INSERT INTO admin_counts (name, shard, n) SELECT table_name, pg_backend_pid() % 16, delta WHERE delta <> 0
    ON CONFLICT (name, shard) DO UPDATE SET n = admin_counts.n + excluded.n;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION admin_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM admin_count_add(TG_TABLE_NAME, (SELECT COUNT(*) FROM new_rows));
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION admin_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM admin_count_add(TG_TABLE_NAME, -(SELECT COUNT(*) FROM old_rows));
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER users_admin_count_insert AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION admin_count_inserted();
CREATE TRIGGER users_admin_count_delete AFTER DELETE ON users REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION admin_count_deleted();

CREATE TRIGGER listings_admin_count_insert AFTER INSERT ON listings REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION admin_count_inserted();
CREATE TRIGGER listings_admin_count_delete AFTER DELETE ON listings REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION admin_count_deleted();

CREATE TRIGGER orders_admin_count_insert AFTER INSERT ON orders REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION admin_count_inserted();
CREATE TRIGGER orders_admin_count_delete AFTER DELETE ON orders REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION admin_count_deleted();

CREATE TRIGGER audit_log_admin_count_insert AFTER INSERT ON audit_log REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION admin_count_inserted();
CREATE TRIGGER audit_log_admin_count_delete AFTER DELETE ON audit_log REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION admin_count_deleted();

-- Audit filters used together: the result with an action, or with an
-- actor type (and a date range). Either index alone left the other filter
-- to a check of each row, tens of thousands of rows at a million entries.
CREATE INDEX audit_log_action_result ON audit_log (action, result, created_at, id);
CREATE INDEX audit_log_actor_type_result ON audit_log (actor_type, result, created_at, id);

-- +goose Down
DROP INDEX audit_log_actor_type_result;
DROP INDEX audit_log_action_result;
DROP TRIGGER audit_log_admin_count_delete ON audit_log;
DROP TRIGGER audit_log_admin_count_insert ON audit_log;
DROP TRIGGER orders_admin_count_delete ON orders;
DROP TRIGGER orders_admin_count_insert ON orders;
DROP TRIGGER listings_admin_count_delete ON listings;
DROP TRIGGER listings_admin_count_insert ON listings;
DROP TRIGGER users_admin_count_delete ON users;
DROP TRIGGER users_admin_count_insert ON users;
DROP FUNCTION admin_count_deleted();
DROP FUNCTION admin_count_inserted();
DROP FUNCTION admin_count_add(TEXT, BIGINT);
DROP TABLE admin_counts;
ALTER INDEX orders_title_trgm RESET (fastupdate);
DROP INDEX listings_brand_trgm;
DROP INDEX listings_title_trgm;
