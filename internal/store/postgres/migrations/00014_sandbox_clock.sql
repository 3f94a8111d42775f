-- +goose Up
-- How far a sandbox instance's clock runs ahead of real time (nanoseconds):
-- time-advance adds to it, every replica reads it, and it survives a
-- restart. One row at most.
CREATE TABLE sandbox_clock (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    offset_ns BIGINT NOT NULL
);

-- +goose Down
DROP TABLE sandbox_clock;
