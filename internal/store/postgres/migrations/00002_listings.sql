-- +goose Up
-- The category tree, seeded from the built-in taxonomy at start-up; admins
-- may add to it.
CREATE TABLE categories (
    id                TEXT PRIMARY KEY,
    slug              TEXT NOT NULL,
    name              TEXT NOT NULL,
    path              TEXT NOT NULL,
    parent_id         TEXT,
    default_weight_oz INTEGER NOT NULL DEFAULT 16,
    dim_l             DOUBLE PRECISION NOT NULL DEFAULT 0,
    dim_w             DOUBLE PRECISION NOT NULL DEFAULT 0,
    dim_h             DOUBLE PRECISION NOT NULL DEFAULT 0,
    keywords          TEXT NOT NULL DEFAULT '[]',
    prior_price       BIGINT NOT NULL DEFAULT 0,
    active            BOOLEAN NOT NULL DEFAULT TRUE,
    created_at        TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX categories_slug ON categories (slug);
CREATE INDEX categories_parent ON categories (parent_id);

CREATE TABLE listings (
    id               TEXT PRIMARY KEY,
    seller_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status           TEXT NOT NULL,
    title            TEXT NOT NULL DEFAULT '',
    description      TEXT NOT NULL DEFAULT '',
    brief            TEXT NOT NULL DEFAULT '',
    brand            TEXT NOT NULL DEFAULT '',
    price            BIGINT NOT NULL DEFAULT 0,
    price_source     TEXT NOT NULL DEFAULT '',
    item_condition   TEXT NOT NULL DEFAULT '',
    category_id      TEXT NOT NULL DEFAULT '',
    shipping_type    TEXT NOT NULL,
    shipping_cost    BIGINT,
    accept_offers    BOOLEAN NOT NULL DEFAULT TRUE,
    min_offer_amount BIGINT,
    floor_price      BIGINT,
    cost_basis       BIGINT,
    weight_oz        INTEGER NOT NULL DEFAULT 0,
    dim_l            DOUBLE PRECISION NOT NULL DEFAULT 0,
    dim_w            DOUBLE PRECISION NOT NULL DEFAULT 0,
    dim_h            DOUBLE PRECISION NOT NULL DEFAULT 0,
    photo_ids        TEXT NOT NULL DEFAULT '[]',
    generator        TEXT NOT NULL DEFAULT '',
    watchers_count   INTEGER NOT NULL DEFAULT 0,
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL,
    sold_at          TIMESTAMPTZ
);
CREATE INDEX listings_seller ON listings (seller_id, created_at);
CREATE INDEX listings_status_created ON listings (status, created_at, id);
CREATE INDEX listings_status_price ON listings (status, price, id);
CREATE INDEX listings_category ON listings (category_id, status);

-- A presigned upload slot: issued, filled once by a PUT, attached to at
-- most one listing of the same owner.
CREATE TABLE photo_uploads (
    id           TEXT PRIMARY KEY,
    owner_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at   TIMESTAMPTZ NOT NULL,
    uploaded_at  TIMESTAMPTZ,
    content_type TEXT NOT NULL DEFAULT '',
    width        INTEGER NOT NULL DEFAULT 0,
    height       INTEGER NOT NULL DEFAULT 0,
    size         BIGINT NOT NULL DEFAULT 0,
    listing_id   TEXT REFERENCES listings (id) ON DELETE SET NULL,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX photo_uploads_owner ON photo_uploads (owner_id, created_at);
CREATE INDEX photo_uploads_listing ON photo_uploads (listing_id);

CREATE TABLE watches (
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    listing_id TEXT NOT NULL REFERENCES listings (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_id, listing_id)
);
CREATE INDEX watches_listing ON watches (listing_id);

-- +goose Down
DROP TABLE watches;
DROP TABLE photo_uploads;
DROP TABLE listings;
DROP TABLE categories;
