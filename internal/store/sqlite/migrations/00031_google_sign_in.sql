-- +goose Up
-- Google sign-in (CONTRACT.md section 17). user_identities links an account
-- at an OpenID provider (its subject, never its e-mail) to one user: one
-- subject to one user, one account per provider and user.
CREATE TABLE user_identities (
    provider   TEXT NOT NULL,
    subject    TEXT NOT NULL,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email      TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX user_identities_subject ON user_identities (provider, subject);
CREATE UNIQUE INDEX user_identities_owner ON user_identities (provider, user_id);

-- A sign-in started and not yet finished, kept in the database so that any
-- replica can finish it. id is the SHA-256 of the state value, which is
-- never stored; a row is deleted when its callback arrives (single use).
CREATE TABLE oidc_states (
    id            TEXT PRIMARY KEY,
    nonce         TEXT NOT NULL,
    code_verifier TEXT NOT NULL,
    return_to     TEXT NOT NULL,
    link_user_id  TEXT REFERENCES users (id) ON DELETE CASCADE,
    created_at    TIMESTAMP NOT NULL,
    expires_at    TIMESTAMP NOT NULL
);
CREATE INDEX oidc_states_expires ON oidc_states (expires_at);

-- +goose Down
DROP TABLE oidc_states;
DROP TABLE user_identities;
