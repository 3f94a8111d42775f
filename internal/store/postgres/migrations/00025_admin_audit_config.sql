-- +goose Up
-- The admin audit search (GET /admin/audit, newest first): one index per
-- filter path, each ending in (created_at, id) so the page comes off the
-- index in order. Actor and entity filters use audit_log_actor_id and
-- audit_log_entity_id (the type alone audit_log_actor_type and
-- audit_log_entity_type); action, result and request id their own; no
-- filter or only a date range uses audit_log_created_id.
CREATE INDEX audit_log_created_id ON audit_log (created_at, id);
CREATE INDEX audit_log_actor_id ON audit_log (actor_type, actor_id, created_at, id);
CREATE INDEX audit_log_entity_id ON audit_log (entity_type, entity_id, created_at, id);
CREATE INDEX audit_log_action ON audit_log (action, created_at, id);
CREATE INDEX audit_log_result ON audit_log (result, created_at, id);
CREATE INDEX audit_log_request ON audit_log (request_id, created_at, id);
-- The type alone ("every agent action", "every order"), newest first.
CREATE INDEX audit_log_actor_type ON audit_log (actor_type, created_at, id);
CREATE INDEX audit_log_entity_type ON audit_log (entity_type, created_at, id);
DROP INDEX audit_log_created;
DROP INDEX audit_log_actor;
DROP INDEX audit_log_entity;

-- Live config: every change to system_config bumps the version; each
-- replica keeps the values cached and reads only this row per request,
-- reloading when it moved (admin.Config).
CREATE TABLE config_version (
    id      INTEGER PRIMARY KEY,
    version BIGINT NOT NULL
);
INSERT INTO config_version (id, version) VALUES (1, 0);

-- +goose Down
DROP TABLE config_version;
CREATE INDEX audit_log_created ON audit_log (created_at);
CREATE INDEX audit_log_actor ON audit_log (actor_type, actor_id, created_at);
CREATE INDEX audit_log_entity ON audit_log (entity_type, entity_id, created_at);
DROP INDEX audit_log_entity_type;
DROP INDEX audit_log_actor_type;
DROP INDEX audit_log_request;
DROP INDEX audit_log_result;
DROP INDEX audit_log_action;
DROP INDEX audit_log_entity_id;
DROP INDEX audit_log_actor_id;
DROP INDEX audit_log_created_id;
