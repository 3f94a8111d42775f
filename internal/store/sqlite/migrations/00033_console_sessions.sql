-- +goose Up
-- Web console sessions (CONTRACT.md section 20), kept as the SHA-256 of the
-- cookie's secret; a user's sessions go with the user.
CREATE TABLE console_sessions (
    id_hash    TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMP NOT NULL,
    seen_at    TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL
);
CREATE INDEX console_sessions_user ON console_sessions (user_id);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);

-- +goose Down
DROP TABLE console_sessions;
