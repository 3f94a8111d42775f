-- +goose Up
-- The chat link (CONTRACT.md section 17): a user's linked chat account. The
-- unique index makes one chat account link to one user at most.
ALTER TABLE users ADD COLUMN discord_user_id TEXT;
ALTER TABLE users ADD COLUMN discord_username TEXT;
ALTER TABLE users ADD COLUMN discord_linked_at TIMESTAMPTZ;
CREATE UNIQUE INDEX users_discord_user_id ON users (discord_user_id);

-- The one-time codes the chat bot hands out, kept only as their SHA-256;
-- at most one per chat account is live.
CREATE TABLE discord_link_codes (
    code_hash        TEXT PRIMARY KEY,
    discord_user_id  TEXT NOT NULL,
    discord_username TEXT NOT NULL,
    expires_at       TIMESTAMPTZ NOT NULL,
    used_at          TIMESTAMPTZ,
    created_at       TIMESTAMPTZ NOT NULL
);
CREATE INDEX discord_link_codes_account ON discord_link_codes (discord_user_id);
CREATE INDEX discord_link_codes_expiry ON discord_link_codes (expires_at);

-- Avatar upload slots, like photo_uploads: issued, then filled once.
CREATE TABLE avatar_uploads (
    id           TEXT PRIMARY KEY,
    owner_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at   TIMESTAMPTZ NOT NULL,
    uploaded_at  TIMESTAMPTZ,
    content_type TEXT NOT NULL DEFAULT '',
    size         BIGINT NOT NULL DEFAULT 0,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX avatar_uploads_owner ON avatar_uploads (owner_id, created_at);

-- +goose Down
DROP TABLE avatar_uploads;
DROP TABLE discord_link_codes;
DROP INDEX users_discord_user_id;
ALTER TABLE users DROP COLUMN discord_linked_at;
ALTER TABLE users DROP COLUMN discord_username;
ALTER TABLE users DROP COLUMN discord_user_id;
