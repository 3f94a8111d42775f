-- +goose Up
-- Messaging (CONTRACT.md section 8): one thread per buyer and listing.
-- Each side's unread count lives on the thread, moved in the statement
-- that adds a message or marks messages read, so concurrent sends and
-- reads keep it exact. Deleting a listing or a user deletes its threads.
CREATE TABLE threads (
    id              TEXT PRIMARY KEY,
    listing_id      TEXT NOT NULL REFERENCES listings (id) ON DELETE CASCADE,
    buyer_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    seller_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    buyer_unread    INTEGER NOT NULL DEFAULT 0,
    seller_unread   INTEGER NOT NULL DEFAULT 0,
    last_message_at TIMESTAMP NOT NULL,
    created_at      TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX threads_listing_buyer ON threads (listing_id, buyer_id);
-- "My threads by last activity", for either side.
CREATE INDEX threads_buyer_activity ON threads (buyer_id, last_message_at, id);
CREATE INDEX threads_seller_activity ON threads (seller_id, last_message_at, id);

-- A message. sender_id is '' for system messages; each side's read time is
-- kept (the sender's own side is set when it is sent).
CREATE TABLE messages (
    id                TEXT PRIMARY KEY,
    thread_id         TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    sender_id         TEXT NOT NULL DEFAULT '',
    message_type      TEXT NOT NULL,
    content           TEXT NOT NULL,
    structured_fields TEXT,
    sent_by_agent     BOOLEAN NOT NULL DEFAULT FALSE,
    buyer_read_at     TIMESTAMP,
    seller_read_at    TIMESTAMP,
    created_at        TIMESTAMP NOT NULL
);
CREATE INDEX messages_thread ON messages (thread_id, created_at, id);

-- +goose Down
DROP TABLE messages;
DROP TABLE threads;
