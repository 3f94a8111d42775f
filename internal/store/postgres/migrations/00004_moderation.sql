-- +goose Up
-- A moderation rejection: a listing refused at create or update (for now
-- for naming a restricted brand). The listing is kept, removed; an admin
-- override resolves the rejection and makes the listing active.
CREATE TABLE moderation_rejections (
    id          TEXT PRIMARY KEY,
    listing_id  TEXT NOT NULL REFERENCES listings (id) ON DELETE CASCADE,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    reason      TEXT NOT NULL,
    brand       TEXT NOT NULL DEFAULT '',
    field       TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    resolved_at TIMESTAMPTZ,
    resolved_by TEXT NOT NULL DEFAULT ''
);
CREATE INDEX moderation_rejections_user ON moderation_rejections (user_id, created_at);
CREATE INDEX moderation_rejections_listing ON moderation_rejections (listing_id);

-- +goose Down
DROP TABLE moderation_rejections;
