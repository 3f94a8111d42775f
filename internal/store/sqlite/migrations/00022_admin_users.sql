-- +goose Up
-- The admin's user list (GET /admin/users): newest first, filtered by
-- status, trust tier or role, each served by its own index. The search (a
-- case-insensitive substring) has no index on SQLite: it walks the
-- newest-first index and stops at the page, a bounded scan (see
-- store/admin_users.go).
CREATE INDEX users_created ON users (created_at DESC, id DESC);
CREATE INDEX users_status_created ON users (status, created_at DESC, id DESC);
CREATE INDEX users_tier_created ON users (trust_tier, created_at DESC, id DESC);
CREATE INDEX users_role_created ON users (role, created_at DESC, id DESC);

-- +goose Down
DROP INDEX users_role_created;
DROP INDEX users_tier_created;
DROP INDEX users_status_created;
DROP INDEX users_created;
