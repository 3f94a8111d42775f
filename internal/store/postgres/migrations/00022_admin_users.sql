-- +goose Up
-- The admin's user list (GET /admin/users): newest first, filtered by
-- status, trust tier or role, each served by its own index; the search
-- (a case-insensitive substring of the e-mail, username or display name)
-- by trigram GIN indexes, one per column, which a LIKE '%term%' uses
-- (e-mail and username are stored in lower case already). fastupdate is
-- off: users are few writes, and a long pending list (until autovacuum)
-- makes the planner price the index above a scan.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX users_created ON users (created_at DESC, id DESC);
CREATE INDEX users_status_created ON users (status, created_at DESC, id DESC);
CREATE INDEX users_tier_created ON users (trust_tier, created_at DESC, id DESC);
CREATE INDEX users_role_created ON users (role, created_at DESC, id DESC);
CREATE INDEX users_email_trgm ON users USING gin (email gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX users_username_trgm ON users USING gin (username gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX users_display_name_trgm ON users USING gin (lower(display_name) gin_trgm_ops) WITH (fastupdate = off);

-- +goose Down
DROP INDEX users_display_name_trgm;
DROP INDEX users_username_trgm;
DROP INDEX users_email_trgm;
DROP INDEX users_role_created;
DROP INDEX users_tier_created;
DROP INDEX users_status_created;
DROP INDEX users_created;
