-- +goose Up
-- Admin search on SQLite without table scans (store/admin_users.go).
--
-- users_search_fts finds users by a substring (3 characters or more) of
-- their e-mail, username or display name: a trigram index, case-insensitive,
-- kept by triggers like orders_title_fts (00024). A row is found again for
-- its delete by a MATCH on the old e-mail (unique), not by a scan.
CREATE VIRTUAL TABLE users_search_fts USING fts5(email, username, display_name, user_id UNINDEXED, tokenize = 'trigram');
INSERT INTO users_search_fts (email, username, display_name, user_id) SELECT email, username, display_name, id FROM users;

-- +goose StatementBegin
CREATE TRIGGER users_search_fts_insert AFTER INSERT ON users BEGIN
    INSERT INTO users_search_fts (email, username, display_name, user_id)
    VALUES (new.email, new.username, new.display_name, new.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER users_search_fts_update AFTER UPDATE OF email, username, display_name ON users
WHEN old.email IS NOT new.email OR old.username IS NOT new.username OR old.display_name IS NOT new.display_name
BEGIN
    DELETE FROM users_search_fts WHERE user_id = old.id AND (length(old.email) < 3 OR rowid IN (
        SELECT rowid FROM users_search_fts WHERE users_search_fts MATCH '{email} : "' || replace(old.email, '"', '""') || '"'));
    INSERT INTO users_search_fts (email, username, display_name, user_id)
    VALUES (new.email, new.username, new.display_name, new.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER users_search_fts_delete AFTER DELETE ON users BEGIN
    DELETE FROM users_search_fts WHERE user_id = old.id AND (length(old.email) < 3 OR rowid IN (
        SELECT rowid FROM users_search_fts WHERE users_search_fts MATCH '{email} : "' || replace(old.email, '"', '""') || '"'));
END;
-- +goose StatementEnd

-- admin_counts holds each admin list's unfiltered total (users, listings,
-- orders, audit_log), kept exact by triggers: COUNT(*) of a million rows
-- walks a whole index, 30 ms and more, on every first page of a list.
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
CREATE TRIGGER users_admin_count_insert AFTER INSERT ON users BEGIN
    UPDATE admin_counts SET n = n + 1 WHERE name = 'users' AND shard = 0;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER users_admin_count_delete AFTER DELETE ON users BEGIN
    UPDATE admin_counts SET n = n - 1 WHERE name = 'users' AND shard = 0;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER listings_admin_count_insert AFTER INSERT ON listings BEGIN
    UPDATE admin_counts SET n = n + 1 WHERE name = 'listings' AND shard = 0;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER listings_admin_count_delete AFTER DELETE ON listings BEGIN
    UPDATE admin_counts SET n = n - 1 WHERE name = 'listings' AND shard = 0;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER orders_admin_count_insert AFTER INSERT ON orders BEGIN
    UPDATE admin_counts SET n = n + 1 WHERE name = 'orders' AND shard = 0;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER orders_admin_count_delete AFTER DELETE ON orders BEGIN
    UPDATE admin_counts SET n = n - 1 WHERE name = 'orders' AND shard = 0;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audit_log_admin_count_insert AFTER INSERT ON audit_log BEGIN
    UPDATE admin_counts SET n = n + 1 WHERE name = 'audit_log' AND shard = 0;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audit_log_admin_count_delete AFTER DELETE ON audit_log BEGIN
    UPDATE admin_counts SET n = n - 1 WHERE name = 'audit_log' AND shard = 0;
END;
-- +goose StatementEnd

-- Audit filters used together: the result with an action, or with an
-- actor type (and a date range). Either index alone left the other filter
-- to a check of each row, tens of thousands of rows at a million entries.
CREATE INDEX audit_log_action_result ON audit_log (action, result, created_at, id);
CREATE INDEX audit_log_actor_type_result ON audit_log (actor_type, result, created_at, id);

-- +goose Down
DROP INDEX audit_log_actor_type_result;
DROP INDEX audit_log_action_result;
DROP TRIGGER audit_log_admin_count_delete;
DROP TRIGGER audit_log_admin_count_insert;
DROP TRIGGER orders_admin_count_delete;
DROP TRIGGER orders_admin_count_insert;
DROP TRIGGER listings_admin_count_delete;
DROP TRIGGER listings_admin_count_insert;
DROP TRIGGER users_admin_count_delete;
DROP TRIGGER users_admin_count_insert;
DROP TABLE admin_counts;
DROP TRIGGER users_search_fts_delete;
DROP TRIGGER users_search_fts_update;
DROP TRIGGER users_search_fts_insert;
DROP TABLE users_search_fts;
