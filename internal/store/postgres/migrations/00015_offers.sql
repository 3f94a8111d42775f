-- +goose Up
-- Offers (CONTRACT.md section 8): a buyer's price for a listing, negotiated
-- in rounds (JSON, oldest first). awaiting is the party asked to answer
-- (buyer, seller, or '' once the offer ended); expires_at is when the
-- current round (or an accepted offer's purchase window) runs out.
-- reserved is what the offer holds of an agent buyer's spending caps (the
-- buyer's committed amount plus the buyer's fee); 0 for humans and once the
-- offer ended or was bought.
CREATE TABLE offers (
    id                   TEXT PRIMARY KEY,
    listing_id           TEXT NOT NULL,
    buyer_id             TEXT NOT NULL,
    buyer_key_id         TEXT NOT NULL DEFAULT '',
    seller_id            TEXT NOT NULL,
    status               TEXT NOT NULL,
    offer_price          BIGINT NOT NULL,
    counter_price        BIGINT,
    current_price        BIGINT NOT NULL,
    agreed_price         BIGINT,
    message              TEXT NOT NULL DEFAULT '',
    round                INTEGER NOT NULL,
    max_rounds           INTEGER NOT NULL,
    awaiting             TEXT NOT NULL DEFAULT '',
    expires_at           TIMESTAMPTZ NOT NULL,
    auto_purchase        BOOLEAN NOT NULL DEFAULT TRUE,
    payment_method_id    TEXT NOT NULL DEFAULT '',
    shipping_address_id  TEXT NOT NULL DEFAULT '',
    order_id             TEXT NOT NULL DEFAULT '',
    reserved             BIGINT NOT NULL DEFAULT 0,
    sent_by_agent        BOOLEAN NOT NULL DEFAULT FALSE,
    rounds               TEXT NOT NULL DEFAULT '[]',
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL
);
-- One open offer (pending, countered, or accepted and not bought yet) per
-- buyer and listing: the guard of ACTIVE_OFFER_EXISTS under races.
CREATE UNIQUE INDEX offers_open_buyer_listing ON offers (buyer_id, listing_id)
    WHERE status IN ('pending', 'countered') OR (status = 'accepted' AND order_id = '');
CREATE INDEX offers_buyer ON offers (buyer_id, created_at, id);
CREATE INDEX offers_seller ON offers (seller_id, created_at, id);
CREATE INDEX offers_listing ON offers (listing_id, status);
-- The expiry sweep and the reservations read open offers by time.
CREATE INDEX offers_open_expiry ON offers (expires_at) WHERE status IN ('pending', 'countered', 'accepted');
CREATE INDEX offers_reserved_owner ON offers (buyer_id) WHERE reserved > 0;
CREATE INDEX offers_reserved_key ON offers (buyer_key_id) WHERE reserved > 0;

-- +goose Down
DROP TABLE offers;
